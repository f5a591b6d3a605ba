"""Quick match over HTTP (docs/quickmatch.md): join the public queue, leave it, and ask
whether a seat was found (the page polls; the seat's token comes in the answer's body, as a
join's does, never in a URL). Every call is the session's (cookie, and the CSRF header: a
page of another site can neither join nor read a seat)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any

import orjson
from fastapi import APIRouter, Request
from fastapi.responses import Response

from ..matchmaking.again import PlayAgain
from ..matchmaking.errors import MatchError
from ..matchmaking.pairing import Spread
from ..matchmaking.queue import LocalQueue, QueueStore
from ..matchmaking.quickmatch import ChangeLimit, Person, QuickMatch
from ..matchmaking.service import Matchmaking
from ..matchmaking.tablemaker import Seated, Sitter, make_table
from ..matchmaking.waitingfriends import WaitingFriends
from ..notify import Notifier
from .players import Gate

if TYPE_CHECKING:
    from .state import ServerState


def _json(body: object, status: int = 200) -> Response:
    response = Response(orjson.dumps(body), status_code=status, media_type="application/json")
    response.headers["Cache-Control"] = "no-store"
    return response


def _refused(error: MatchError) -> Response:
    response = _json({"error": error.to_dict()}, error.status)
    if error.retry_after is not None:
        response.headers["Retry-After"] = str(max(1, int(error.retry_after + 0.999)))
    return response


def quickmatch_router(state: ServerState, quick: QuickMatch) -> APIRouter:
    gate = Gate(state.players, state.config.limit_loopback)
    router = APIRouter()

    async def person(request: Request) -> Person:
        current = await gate.changing(request)
        profile = current.profile
        return Person(profile.id, profile.name, profile.rating.ordinal)

    async def answer(request: Request, work: Callable[[Person], Awaitable[object]]) -> Response:
        async def guarded() -> Response:
            try:
                return _json(await work(await person(request)))
            except MatchError as error:
                return _refused(error)

        return await gate.answer(request, guarded)

    @router.post("/api/quickmatch")
    async def join(request: Request) -> Response:
        return await answer(request, quick.join)

    @router.delete("/api/quickmatch")
    async def leave(request: Request) -> Response:
        return await answer(request, quick.leave)

    @router.get("/api/quickmatch")
    async def status(request: Request) -> Response:
        return await answer(request, quick.status)

    return router


def build_matchmaking(state: ServerState) -> Matchmaking:
    """Quick match and play again over the server's registry, players and broker; play
    again's calls join the operations a cluster relays to a table's owner."""
    config = state.config

    async def make(seats: Sequence[Sitter | None], options: dict[str, Any]) -> dict[int, Seated]:
        return await make_table(state.registry, seats, options, state.node)

    queue: QueueStore = LocalQueue()
    broker = state.backends.broker
    if broker is not None:
        from ..matchmaking.redisqueue import RedisQueue

        queue = RedisQueue(broker)
    # (the players' throttle: shared across a cluster when it has a broker)
    limit = ChangeLimit(state.players.throttle)

    async def present(profile: str) -> bool:
        found = await state.players.store.get_profile(profile)
        return found is not None and not found.deleted

    spread = Spread(bot_fill_seconds=config.quickmatch_bot_seconds)
    quick = QuickMatch(queue, make, spread, limit=limit, present=present)
    state.players.keepers.append(quick)  # (in the export, gone with the profile)

    def notifier() -> Notifier:  # (the server's as it is now: Web Push replaces it at start)
        return state.notifier

    # (a declined seat goes to a friend waiting in this queue first: waitingfriends.py)
    substitutes = None if state.friends is None else WaitingFriends(state.friends, queue, notifier)
    again = PlayAgain(make, config.again_seconds, notifier=notifier, substitutes=substitutes)
    state.operations.update(again.operations())
    return Matchmaking(quick, again)
