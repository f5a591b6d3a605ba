"""A friend's invite reaches a closed tab: Ann invites Bob to her table and Bob's device
gets the ``invite`` notice through the real server's Web Push (push/), decrypted at the local
push service, in Bob's language; a profile that blocks Ann gets nothing."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from ..conftest import ThreadServer
from ..push.pushservice import PushService, RunningPushService
from .helpers import Page

MakeServer = Callable[..., ThreadServer]


@pytest.fixture
def push_service(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[PushService]:
    running = RunningPushService(tmp_path)
    monkeypatch.setenv("SSL_CERT_FILE", str(running.service.cert))
    yield running.service
    running.close()


def test_an_invite_reaches_a_closed_tab_but_never_a_blocker(
    make_server: MakeServer, push_service: PushService
) -> None:
    server = make_server(push_private_endpoints=True)
    ann, bob, cy = Page(server.url, name="Ann"), Page(server.url), Page(server.url)
    assert bob.patch("/api/me", {"language": "de"}).status_code == 200
    ann.befriend(bob)
    ann.befriend(cy)
    _, subscription = push_service.device()
    assert bob.post("/api/me/push/subscriptions", subscription).status_code == 201
    _, cys = push_service.device()
    assert cy.post("/api/me/push/subscriptions", cys).status_code == 201
    code = ann.table_with()
    # Cy blocks Ann: her invite is answered as any, and Cy's device hears nothing.
    assert cy.post("/api/friends/blocks", {"id": ann.id}).status_code == 201
    assert ann.post("/api/friends/invites", {"id": cy.id, "table": code}).status_code == 201
    assert ann.post("/api/friends/invites", {"id": bob.id, "table": code}).status_code == 201
    notice = push_service.wait(1)[0]
    assert notice.device == subscription["endpoint"].removeprefix(push_service.url)
    assert notice.payload == {
        "kind": "invite",
        "title": "Ann lädt dich an einen Tisch ein",
        "body": f"Tisch {code}: tippen zum Mitspielen",
        "url": f"/t/{code}",
        "tag": f"invite:{code}",
    }
    time.sleep(0.5)
    assert len(push_service.received) == 1 and not push_service.refused
