"""What the server tells a player who is not looking: the interface the rooms that have
something to say (friends' invites, a table's "your turn", a club's event) call, and the
Web Push room (push/) implements. A notice names its kind and what fills its words; the
words themselves are the recipient's language's, chosen where the notice is sent.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, Protocol

#: The kinds a player can switch off one by one in their settings.
NoticeKind = Literal["invite", "turn", "club_event"]
NOTICE_KINDS: tuple[NoticeKind, ...] = ("invite", "turn", "club_event")


@dataclass(frozen=True)
class Notice:
    kind: NoticeKind
    #: Where a click on the notice leads (a path on this server: "/t/ABCD").
    url: str
    #: What fills the words ({"from": "Ann", "table": "ABCD"}); never a card.
    params: dict[str, str] = field(default_factory=dict)
    #: Notices with one tag replace each other on the device (one "your turn" per table).
    tag: str = ""


class Notifier(Protocol):
    async def notify(self, profile_id: str, notice: Notice) -> int:
        """Send ``notice`` to every device the profile allowed notices of its kind on;
        returns how many were sent (0: none allowed, or the kind switched off). Never
        raises for a device that is gone or refuses: such a device is forgotten."""
        ...


class Silent:
    """The notifier of a server without Web Push (no VAPID keys: push/ not configured):
    a notice reaches nobody, as a player who allowed none."""

    async def notify(self, profile_id: str, notice: Notice) -> int:
        return 0
