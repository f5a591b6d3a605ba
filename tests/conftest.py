"""Session-wide services: one PostgreSQL and one Redis for every test that needs them.

They are Debian's own servers, started in temporary directories on free ports
(fouronefour.server.sandbox) the first time a test asks, and stopped at the end. Where they
are not installed those tests are skipped with the reason; under CI (``CI=true``, where
.ci/run installs them) a missing server fails instead, so that nothing is skipped unseen.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from fouronefour.server import sandbox


def _require_services() -> None:
    reason = sandbox.missing()
    if reason is None:
        return
    if os.environ.get("CI") == "true":
        pytest.fail(f"{reason}: .ci/run installs it", pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="session")
def postgres() -> Iterator[sandbox.LocalPostgres]:
    """The session's PostgreSQL (tests make a database of their own in it)."""
    _require_services()
    server = sandbox.LocalPostgres()
    try:
        server.start()
        yield server
    finally:
        server.close()


@pytest.fixture(scope="session")
def redis_server() -> Iterator[sandbox.LocalRedis]:
    _require_services()
    server = sandbox.LocalRedis()
    try:
        server.start()
        yield server
    finally:
        server.close()
