"""What a table's helpers may read of their table and ask of it.

The :class:`~.table.Table` is the authority; seating, chat, handoffs, the host's tools,
the end-of-round pause, bot seats and the views each serve it and hold it as a
:class:`TableCore`: its state to read, its checks, and one way to change it: a pure
step's outcome handed to :meth:`~TableCore.take`, written before it is sent (a bot's
decision goes the way a player's does, :meth:`~TableCore.decide`). A helper changes no
field of the table or of another helper: a step returns the next frozen
:class:`~.state.TableState` (its seats frozen :class:`~.model.SeatState` values, its
end-of-round pause a frozen :class:`~.model.RoundEnd`), and the table keeps it. So the
helpers depend on this module and not on the table, and the table on them: one direction.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from ...engine import Match
from ..clock import Scheduler
from .model import Ack, Prompt, RoundEnd, SeatState, Status, TableOptions
from .services import TableServices
from .settings import TableSettings
from .state import Step, TableState
from .windows import ClaimWindows


class ChatSeats(Protocol):
    """The table's chat as the others see it."""

    recent: deque[dict[str, Any]]


class PauseControl(Protocol):
    """The end-of-round pause as the others see it."""

    @property
    def current(self) -> RoundEnd | None: ...

    def public(self) -> dict[str, Any] | None: ...


class Offers(Protocol):
    """The pending decisions, as the views work them out."""

    def prompts(self) -> dict[int, Prompt]: ...

    def pending_decision(self, seat: int) -> tuple[dict[str, Any], list[str]]: ...


class TableCore(Protocol):
    """One table as its helpers hold it: read-only (mypy refuses a helper's assignment to a
    field of its table), changed through its methods."""

    @property
    def code(self) -> str: ...

    @property
    def options(self) -> TableOptions: ...

    @property
    def settings(self) -> TableSettings: ...

    @property
    def seats(self) -> Sequence[SeatState]: ...

    @property
    def current(self) -> TableState: ...

    @property
    def status(self) -> Status: ...

    @property
    def version(self) -> int: ...

    @property
    def match_number(self) -> int: ...

    @property
    def match(self) -> Match | None: ...

    @property
    def seed(self) -> int | None: ...

    @property
    def move_count(self) -> int: ...

    @property
    def paused(self) -> bool: ...

    @property
    def deadline(self) -> float | None: ...

    @property
    def prompt_v(self) -> dict[int, int]: ...

    @property
    def services(self) -> TableServices: ...

    @property
    def scheduler(self) -> Scheduler: ...

    @property
    def windows(self) -> ClaimWindows: ...

    @property
    def chat(self) -> ChatSeats: ...

    @property
    def round_pause(self) -> PauseControl: ...

    @property
    def views(self) -> Offers: ...

    @property
    def players(self) -> int: ...

    @property
    def storage_failed(self) -> bool: ...

    def summary(self) -> dict[str, Any]: ...

    def bot_controlled(self, seat: int) -> bool: ...

    def check_writable(self) -> None: ...

    def postponed(self, retry: Callable[[], None]) -> bool: ...

    def decide(self, seat: int, move: str, prompt: Prompt, by_bot: bool) -> Ack: ...

    def state(self) -> TableState: ...

    def take(self, step: Step, *, send: bool = True) -> None: ...

    def carry_out(self, step: Callable[[TableState], Step]) -> Ack: ...
