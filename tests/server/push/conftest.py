"""A local push service over TLS for every push test; the server's sender trusts its
certificate (its TLS context is made when it starts: ``SSL_CERT_FILE`` names it)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from .pushservice import PushService, RunningPushService


@pytest.fixture
def push_service(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[PushService]:
    running = RunningPushService(tmp_path)
    monkeypatch.setenv("SSL_CERT_FILE", str(running.service.cert))
    yield running.service
    running.close()
