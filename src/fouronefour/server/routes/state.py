"""What the routes share, built once per app (:meth:`ServerState.build`): the backends, the
tables, the limits and, in a cluster, the relay between its processes."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..backends import Backends
from ..background.analyst import Analyst
from ..background.botrunner import BotRunner
from ..clubs.service import Clubs
from ..clubs.store import ClubStore
from ..clubs.tablelink import CLUB_SEAT, club_seat, table_settings_check
from ..clubs.throttle import ClubThrottle
from ..config import ServerConfig
from ..errors import ErrorCode, TableError
from ..friends.seats import Seats
from ..friends.service import Friends
from ..notify import Notifier, Silent
from ..players.service import Players
from ..players.sqlstore import SqlPlayerStore
from ..players.throttle import LocalThrottle, SharedThrottle, Throttle
from ..push.service import PushService
from ..push.store import PushStore
from ..push.turns import TurnNotices
from ..registry import Elsewhere, TableRegistry
from ..sockets.admission import Admission
from ..sockets.outbox import Sender
from ..storage import Storage
from ..tables.fanout import Fanout
from .answers import status_of
from .limits import AddressLimiter, FailedLookups
from .operations import table_operations

if TYPE_CHECKING:
    from ..cluster.relay import Operation, Relay, RelayServer
    from ..cluster.shared import SharedCounts
    from ..matchmaking.service import Matchmaking
    from ..storage.interface import OldTables
    from ..tables.table import Table
    from ..tournaments.access import ClubAccess
    from ..tournaments.service import Tournaments


@dataclass(eq=False)
class ServerState:
    """One server's shared state, as its routes and its lifespan use it."""

    config: ServerConfig
    backends: Backends
    registry: TableRegistry
    #: Rounds analysed in worker processes as they end (analyst.py).
    analyst: Analyst
    admission: Admission
    limiter: AddressLimiter
    lookups: FailedLookups
    sender: Sender
    #: What a table's owner carries out for a request (here, or relayed: relay.py).
    operations: dict[str, Operation]
    #: Profiles, sign-in, ratings and history (players/).
    players: Players
    #: The bot runner given to the app (tests), else one made at start-up.
    bots: BotRunner | None = None
    #: In a cluster: the tables this process owns take requests relayed by the others, and
    #: it relays those it does not own (relay.py).
    relay: Relay | None = None
    relay_server: RelayServer | None = None
    #: In a cluster: an address's spectators, counted across it (shared.py).
    watchers: SharedCounts | None = None
    #: In a cluster: this process's name (``--node``, else its id in Redis). Answers that
    #: name a table carry its owner's, so that a load balancer routing ``/ws/CODE?node=``
    #: by it sends the table's sockets to their owner (docs/hosting.md, section 4).
    node: str | None = None
    #: Who tells a player who is not looking (Web Push once started: notify.py, push/).
    notifier: Notifier = field(default_factory=Silent)
    #: Clubs: members, roles, their table link, leaderboard and chat wall (clubs/).
    clubs: Clubs = field(init=False)
    #: Web Push: the server's keys, the profiles' devices and choices (push/).
    push: PushService | None = None
    #: The clubs' events (tournaments/), over the players' database.
    tournaments: Tournaments = field(init=False)
    #: Quick match and play again (matchmaking/), set by ``create_app``.
    matchmaking: Matchmaking | None = None
    #: Friends, blocks, presence and invites (friends/: Friends.of_server).
    friends: Friends | None = None

    @property
    def storage(self) -> Storage:
        return self.backends.storage

    @property
    def fanout(self) -> Fanout:
        return self.backends.fanout

    @property
    def retention(self) -> OldTables | None:
        """Old tables' deletion and the matches it keeps (set at start-up: retention.py)."""
        return self.backends.retention

    @classmethod
    def build(
        cls,
        config: ServerConfig,
        backends: Backends,
        bots: BotRunner | None = None,
        clubs: ClubAccess | None = None,
    ) -> ServerState:
        storage = backends.storage
        registry = TableRegistry(config, storage, backends.fanout, ownership=backends.ownership)
        analyst = Analyst(
            storage, config.analysis_processes, config.analysis_worlds, config.analysis_queue
        )
        registry.analyst = analyst
        admission = Admission(
            config.max_connections_per_seat,
            config.max_spectators_per_table,
            config.max_spectators_per_address,
        )
        registry.admission = admission
        # The per-address limits a cluster's processes share, in Redis (shared.py); the
        # connections per address (guard.py) stay each process's: they guard its descriptors.
        shared_http = shared_lookups = watchers = None
        throttle: Throttle = LocalThrottle()
        if backends.cluster is not None:
            from ..cluster.shared import SharedBuckets, SharedCounts

            broker = backends.cluster.broker
            shared_http = SharedBuckets(
                broker, "http", config.http_rate_per_second, config.http_rate_burst
            )
            shared_lookups = SharedBuckets(
                broker, "lookups", config.lookup_rate_per_second, config.lookup_burst
            )
            watchers = SharedCounts(broker, "spectators", config.max_spectators_per_address)
            throttle = SharedThrottle(broker)
        state = cls(
            config,
            backends,
            registry,
            analyst,
            admission,
            AddressLimiter(
                config.http_rate_per_second,
                config.http_rate_burst,
                config.limit_loopback,
                shared_http,
            ),
            FailedLookups(
                config.lookup_rate_per_second,
                config.lookup_burst,
                config.limit_loopback,
                shared_lookups,
            ),
            Sender(),
            table_operations(storage),
            Players(backends.players, throttle=throttle),
            bots,
            watchers=watchers,
        )
        analyst.owns = state.analyses_here
        state.clubs = Clubs(
            ClubStore(backends.players.db),
            ClubThrottle(backends.broker),
            table_settings_check(registry),
        )
        state.players.keepers.append(state.clubs)
        # (The club's table link seats a member at the table's owner, here or relayed.)
        state.operations[CLUB_SEAT] = club_seat
        state._push()
        state._relay()
        state._tournaments(clubs)
        # Friends: seats read by each table's owner, presence through the broker (friends/).
        seats = Seats(state.registry, state.relay, state.operations)
        state.friends = Friends.of_server(
            state.players, backends.broker, seats, lambda: state.notifier
        )
        return state

    def _push(self) -> None:
        """Web Push over the players' database; "your turn" told to the seats not looking."""
        store = self.backends.players
        if not isinstance(store, SqlPlayerStore):
            raise TypeError("Web Push keeps its rows in the players' SQL database")
        self.push = push = PushService(PushStore(store.db), store, self.config)
        self.players.keepers.append(push)
        self.registry.turns = TurnNotices(self.admission, lambda: self.notifier)

    def _tournaments(self, clubs: ClubAccess | None) -> None:
        """The clubs' events, in the players' database, over this server's clubs (or the
        ``clubs`` given: tests, the bench)."""
        from ..tournaments.history import ClubEvents
        from ..tournaments.service import Tournaments
        from ..tournaments.store import EventStore, ProfileEvents

        events = EventStore(self.backends.players.db)
        # (A profile's events are in its export, and leave with it: players/service.py.)
        self.players.keepers.append(ProfileEvents(events))
        # A finished event's final table is in its club's history, and in its players'
        # exports (a deleted profile's place stays, as a former player's).
        finals = ClubEvents(self.backends.players.db)
        self.players.keepers.append(finals)
        self.clubs.chapters.append(finals)
        self.tournaments = Tournaments(
            events,
            self.clubs if clubs is None else clubs,
            self.registry,
            self.storage,
            lambda: self.notifier,
        )

    def _relay(self) -> None:
        """In a cluster: the relay of requests to and from the other processes."""
        cluster = self.backends.cluster
        if cluster is None:
            return
        from ..cluster.relay import Relay, RelayServer

        self.node = cluster.broker.node = self.config.node or cluster.broker.process
        self.relay = Relay(cluster.broker, cluster)
        self.relay_server = RelayServer(
            cluster.broker,
            self.storage,
            cluster,
            self.admission,
            self.operations,
            status_of,
            self.registry.hold,
            self.registry.release,
        )
        self.registry.hooks = self.relay_server

    async def find(self, code: str, client: Any, invite: object = None) -> Table:
        """The table of ``code`` for a client (``request.client``, ``websocket.client``);
        a private table only with its ``invite`` (invites.py)."""
        return await self.lookups.find(self.registry, code, client.host if client else None, invite)

    async def analyses_here(self, code: str) -> bool:
        """Whether this process analyses table ``code``'s rounds: its owner does, and
        anybody those of a deleted table's kept matches."""
        if code in self.registry.tables:
            return True
        try:
            await self.registry.get(code)
        except Elsewhere:
            return False
        except TableError as error:
            return error.code is ErrorCode.TABLE_NOT_FOUND
        return True
