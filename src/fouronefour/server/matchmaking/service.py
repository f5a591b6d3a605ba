"""Quick match and play again as one server builds them (:meth:`Matchmaking.build`): in
this process alone, or (a cluster) with the queue and the limits in Redis."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .again import PlayAgain
from .pairing import Spread
from .queue import LocalQueue, QueueStore
from .quickmatch import ChangeLimit, QuickMatch
from .tablemaker import Seated, Sitter, make_table

if TYPE_CHECKING:
    from ..routes.state import ServerState


@dataclass(eq=False)
class Matchmaking:
    quick: QuickMatch
    again: PlayAgain

    @classmethod
    def build(cls, state: ServerState) -> Matchmaking:
        config = state.config

        async def make(
            seats: Sequence[Sitter | None], options: dict[str, Any]
        ) -> dict[int, Seated]:
            return await make_table(state.registry, seats, options, state.node)

        queue: QueueStore = LocalQueue()
        broker = state.backends.broker
        if broker is not None:
            from .redisqueue import RedisQueue

            queue = RedisQueue(broker)
        # (the players' throttle: shared across a cluster when it has a broker)
        limit = ChangeLimit(state.players.throttle)

        async def present(profile: str) -> bool:
            found = await state.players.store.get_profile(profile)
            return found is not None and not found.deleted

        spread = Spread(bot_fill_seconds=config.quickmatch_bot_seconds)
        quick = QuickMatch(queue, make, spread, limit=limit, present=present)
        state.players.keepers.append(quick)  # (in the export, gone with the profile)
        again = PlayAgain(make, config.again_seconds, notifier=lambda: state.notifier)
        state.operations.update(again.operations())
        return cls(quick, again)
