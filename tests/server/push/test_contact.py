"""``serve --push-contact``: the VAPID ``sub`` every notice is signed with."""

from __future__ import annotations

from dataclasses import replace

import pytest

from fouronefour.server.command import settings_problem
from fouronefour.server.config import ServerConfig


@pytest.mark.parametrize(
    "contact", ["mailto:ops@example.org", "https://example.org", "https://example.org/contact"]
)
def test_a_mailto_or_https_contact_is_taken(contact: str) -> None:
    assert settings_problem(replace(ServerConfig(), push_contact=contact)) is None


@pytest.mark.parametrize(
    "contact", ["ops@example.org", "http://example.org", "mailto:nobody", "https://a b", ""]
)
def test_anything_else_is_refused_before_the_server_starts(contact: str) -> None:
    problem = settings_problem(replace(ServerConfig(), push_contact=contact))
    assert problem == "--push-contact must be a mailto: address or an https:// URL"
