"""Server settings: the serve flags, with defaults for a friendly table."""

from __future__ import annotations

from dataclasses import dataclass

#: The turn timer and the hook window a table may have, in seconds (docs/protocol.md s.2).
TURN_SECONDS_RANGE = (0.05, 3600.0)
HOOK_SECONDS_RANGE = (0.05, 60.0)


@dataclass(frozen=True, slots=True)
class ServerConfig:
    #: A SQLite file, or a PostgreSQL URL (postgresql://user:password@host/database).
    db: str = "fouronefour.db"
    #: A Redis URL for a cluster's fan-out (redis://host:6379/0); None: one process.
    broker: str | None = None
    #: This process's name in a cluster (``--node``): answers naming a table carry its
    #: owner's, for a load balancer that routes sockets by it; None: a random one.
    node: str | None = None
    host: str = "127.0.0.1"
    port: int = 8414
    #: Defaults for new tables (each table may choose its own).
    turn_seconds: float = 30.0
    hook_seconds: float = 3.0
    hook_mode: str = "fair"
    round_pause_seconds: float = 15.0
    #: Quick match: seconds someone waits before bots fill their table's empty seats; play
    #: again: seconds the players have to answer the host's offer (docs/quickmatch.md).
    quickmatch_bot_seconds: float = 30.0
    again_seconds: float = 30.0
    #: Seconds a bot waits before acting, so people can follow; 0 in tests.
    bot_delay: float = 0.8
    #: Worker processes for slow bots (search); random and greedy run in threads. 0: threads.
    bot_processes: int = 1
    #: Worker processes analysing ended rounds (analysis.py), 0: none. ``serve`` runs one
    #: (command.py); 0 here, so that a server embedded in a test spends nothing on it.
    analysis_processes: int = 0
    #: Worlds sampled per decision (docs/analysis.md); rounds waiting, at most.
    analysis_worlds: int = 64
    analysis_queue: int = 256
    #: Fixed seed for every match's deal (tests); None draws seeds from the OS.
    seed: int | None = None
    #: Tables in memory; beyond it, tables not played and left alone for
    #: ``table_idle_seconds`` are dropped from memory (not from the database) to make room.
    max_tables: int = 10_000
    table_idle_seconds: float = 60.0
    max_message_bytes: int = 4096
    #: The largest WebSocket message read at all: one up to it over ``max_message_bytes``
    #: is answered ``too_large`` before the close, a larger one is closed by the WebSocket
    #: layer unread (1009). Bounds what one connection makes the server hold.
    max_frame_bytes: int = 16384
    #: WebSocket connections: a seat keeps its newest this many; spectators per table and
    #: per client address (loopback excepted unless ``limit_loopback``): admission.py.
    max_connections_per_seat: int = 8
    max_spectators_per_table: int = 64
    max_spectators_per_address: int = 16
    #: Apply the per-address limits to loopback clients too (tests: a proxy on this
    #: machine makes every client a loopback one, told apart by X-Forwarded-For only).
    limit_loopback: bool = False
    #: Token bucket per connection: sustained messages a second and burst size.
    rate_per_second: float = 20.0
    rate_burst: int = 40
    #: Token bucket per client address for HTTP requests that change something (create a
    #: table, take a seat): a second and burst; loopback clients are not limited (routes/limits.py).
    http_rate_per_second: float = 1.0
    http_rate_burst: int = 20
    #: Token bucket per client address for asking for a table code that is no table (HTTP
    #: or WebSocket): a second and burst; loopback clients are not limited (routes/limits.py).
    lookup_rate_per_second: float = 0.1
    lookup_burst: int = 10
    #: Messages a connection sends before the time its last rate_limited refusal named
    #: (one forgiven a second) tolerated before it is closed: waiting as told never counts.
    rate_strikes: int = 20
    hello_timeout: float = 10.0
    #: Seconds a client has to send a whole HTTP request; connections one client address
    #: may hold (loopback excepted unless ``limit_loopback``): guard.py.
    request_timeout: float = 10.0
    max_connections_per_address: int = 64
    #: Days a table not being played (lobby, finished) is kept unchanged before it is
    #: deleted, 0: for good; days its finished matches are kept after that, 0: for good
    #: (retention.py).
    keep_days: float = 30.0
    keep_replay_days: float = 0.0
    #: Web Push (docs/push.md): how a push service reaches the operator (VAPID ``sub``: a
    #: mailto: or https: URL); whether subscriptions may name a push service on a private
    #: network (loopback, 10/8...: one run beside the server, as the tests' own).
    push_contact: str = "mailto:webmaster@localhost"
    push_private_endpoints: bool = False
    #: Freeze the objects alive every this many seconds, collect everything every
    #: ``gc_full_seconds``: short collector pauses behind thousands of sockets (collector.py).
    gc_freeze_seconds: float = 10.0
    gc_full_seconds: float = 600.0
