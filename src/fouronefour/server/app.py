"""The HTTP and WebSocket front of the tables (docs/protocol.md), and the static client:
:func:`create_app` builds the shared state once (routes/state.py) and assembles one router
per concern (routes/) around it, with the body limit and the lifespan."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING

from fastapi import FastAPI

from .backends import backends
from .background.botrunner import BotRunner, ExecutorBotRunner
from .clock import AsyncioScheduler
from .clubs.upkeep import keep_clubs_tidy
from .collector import keep_collections_short
from .config import ServerConfig
from .friends.tidying import keep_invites_tidy
from .outage import Outage
from .recording import keep_guests_tidy, keep_recording
from .registry import TableRegistry
from .routes.analysis import analysis_router
from .routes.answers import answer_errors
from .routes.bodies import BodyLimit
from .routes.clubs import clubs_router
from .routes.config import config_router
from .routes.friends import friends_router
from .routes.lessons import lesson_router
from .routes.playagain import playagain_router
from .routes.players import players_router
from .routes.push import push_router
from .routes.quickmatch import build_matchmaking, quickmatch_router
from .routes.replays import replays_router
from .routes.sockets import sockets_router
from .routes.state import ServerState
from .routes.static import serve_client
from .routes.tables import tables_router
from .routes.tournaments import tournaments_router
from .storage import Storage
from .tables.fanout import Fanout
from .tidying import keep_tidy
from .tournaments.service import keep_running_events
from .turns import keep_taking_turns

if TYPE_CHECKING:
    from .cluster.broker import Broker
    from .tournaments.access import ClubAccess

log = logging.getLogger(__name__)

#: How often a cluster looks for tables being played that no process owns.
ADOPT_SECONDS = 1.0


async def adopt_orphans(registry: TableRegistry, broker: Broker) -> None:
    """Take over the tables being played whose owner is gone (those with clients are taken
    over sooner, by the process a reconnecting client reaches). One process of the cluster
    looks each period (:meth:`Broker.take_turn`): the look reads every table being played, so
    every process looking every second would cost the database in proportion to both."""
    lookout = Outage(log, "the look for tables without an owner")
    # (No table can be taken over while the database cannot be written.)
    await keep_taking_turns("adopt", ADOPT_SECONDS, registry.adopt_orphans,
                            storage=registry.storage, broker=broker, outage=lookout,
                            consequence="tried again every second")  # fmt: skip


def lifespan(
    state: ServerState,
) -> Callable[[FastAPI], contextlib.AbstractAsyncContextManager[None]]:
    """What runs while the server does: the backends, the relay, the tables, the analyst,
    and the background loops (taking over orphans, short collections, old tables)."""
    config, registry, relay, relay_server = (
        state.config,
        state.registry,
        state.relay,
        state.relay_server,
    )

    @contextlib.asynccontextmanager
    async def running(app: FastAPI) -> AsyncIterator[None]:
        loop = asyncio.get_running_loop()
        await state.backends.open()
        if relay_server is not None and relay is not None:
            relay_server.start()
            relay.start()
        runner = state.bots or ExecutorBotRunner(loop, processes=config.bot_processes)
        await registry.start(AsyncioScheduler(loop), runner)
        state.analyst.start()
        # Web Push: the VAPID keys read, or made and kept on the first start (push/).
        if state.push is not None and (sender := await state.push.start()) is not None:
            state.notifier = sender
        tasks = []
        broker = state.backends.broker
        if broker is not None:
            tasks.append(asyncio.create_task(adopt_orphans(registry, broker)))
        # Long-lived start-up objects need no collection passes, nor, later, the sockets and
        # tables that come and stay (collector.py).
        gc.collect()
        gc.freeze()
        tasks.append(
            asyncio.create_task(
                keep_collections_short(config.gc_freeze_seconds, config.gc_full_seconds)
            )
        )
        # Finished matches reach the players' ratings and histories (recording.py).
        tasks.append(asyncio.create_task(keep_recording(state.storage, state.players, broker)))
        tasks.append(asyncio.create_task(keep_guests_tidy(state.storage, state.players, broker)))
        # A week of each club's chat wall is kept (clubs/upkeep.py).
        tasks.append(asyncio.create_task(keep_clubs_tidy(state.clubs, state.storage, broker)))
        # The clubs' events: pair, make and start tables, read results (tournaments/).
        tasks.append(asyncio.create_task(keep_running_events(state.tournaments, broker)))
        # The quick-match queue seated at tables (matchmaking/; one process at a time).
        if state.matchmaking is not None:
            tasks.append(asyncio.create_task(state.matchmaking.quick.keep_matching()))
        # Friends' presence across the cluster, and their invites' time (friends/).
        if state.friends is not None:
            state.friends.presence.start()
            tasks.append(
                asyncio.create_task(keep_invites_tidy(state.friends, state.storage, broker))
            )
        # Old tables leave the database; their finished matches stay (retention.py).
        retention = state.backends.start_retention()
        if retention is not None and config.keep_days > 0:
            tasks.append(asyncio.create_task(keep_tidy(retention, registry)))
        try:
            yield
        finally:
            for task in tasks:
                task.cancel()
            if state.friends is not None:
                await state.friends.presence.stop()
            if relay_server is not None and relay is not None:
                await relay.shutdown()
                await relay_server.shutdown()
            await state.analyst.shutdown()
            if state.push is not None:
                await state.push.close()
            runner.close()
            await state.backends.close()

    return running


def create_app(
    config: ServerConfig,
    storage: Storage | None = None,
    fanout: Fanout | None = None,
    bots: BotRunner | None = None,
    clubs: ClubAccess | None = None,
) -> FastAPI:
    """The server application; storage, fan-out and bot runner may be replaced, and the
    events' clubs too (tests, the bench: else the server's own, clubs/)."""
    state = ServerState.build(config, backends(config, storage, fanout), bots, clubs)
    state.matchmaking = matchmaking = build_matchmaking(state)
    app = FastAPI(
        title="414", lifespan=lifespan(state), docs_url=None, redoc_url=None, openapi_url=None
    )
    app.state.server = state
    app.state.registry = state.registry
    app.state.analyst = state.analyst
    answer_errors(app)
    app.add_middleware(BodyLimit, limit=config.max_message_bytes)
    serve_client(app)
    # Learn 414: stateless lessons, their steps limited per address (lessons.py)
    app.include_router(lesson_router(config.limit_loopback))
    # Profiles, sessions and ratings (players.py; docs/players.md)
    app.include_router(players_router(state.players, config.limit_loopback))
    for router in (
        config_router(state),
        tables_router(state),
        replays_router(state),
        analysis_router(state),
        friends_router(state),  # (before sockets_router: /ws/me is no table's code)
        sockets_router(state),
        clubs_router(state),
        push_router(state),
        tournaments_router(state),
        quickmatch_router(state, matchmaking.quick),
        playagain_router(state),
    ):
        app.include_router(router)
    return app
