"""``fouronefour serve``: host tables for friends in the browser."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .backends import check, check_settings, redacted, usable
from .config import HOOK_SECONDS_RANGE, TURN_SECONDS_RANGE, ServerConfig

NODE_NAME = re.compile(r"[A-Za-z0-9_-]{1,32}")


def node_name(text: str) -> str:
    """A ``--node`` name: it goes into URLs and a load balancer's configuration as is."""
    if not NODE_NAME.fullmatch(text):
        raise argparse.ArgumentTypeError(
            f"a node name is 1 to 32 letters, digits, - or _, not {text!r}"
        )
    return text


def _range(bounds: tuple[float, float]) -> str:
    return f"{bounds[0]:g} to {bounds[1]:g}"


#: ``serve`` analyses rounds with one worker process unless told otherwise (ServerConfig's
#: default is none, for servers embedded in tests).
ANALYSIS_PROCESSES = 1


@dataclass(frozen=True)
class Flag:
    """One ``serve`` flag: most set the :class:`ServerConfig` field named ``field``, with its
    default from there, so a flag is added in one place."""

    name: str
    help: str
    type: Callable[[str], Any] | None = None  # None: a switch, off unless given
    field: str | None = None  # None: read by run() itself, not a setting
    default: Any = None  # None: the ServerConfig field's (None too for seed and broker)
    metavar: str | None = None
    choices: tuple[str, ...] | None = None

    @property
    def dest(self) -> str:
        return self.name.removeprefix("--").replace("-", "_")


#: ``serve``'s flags, in the order its help lists them.
FLAGS: tuple[Flag, ...] = (
    Flag(
        "--host",
        "address to listen on (0.0.0.0: every interface; default %(default)s)",
        str,
        "host",
    ),
    Flag("--port", "port, 1 to 65535 (default %(default)s)", int, "port"),
    Flag(
        "--db",
        "SQLite file holding every table (default ./%(default)s), or a PostgreSQL URL "
        "(postgresql://user:password@host/database; the schema is made by the server)",
        str,
        "db",
    ),
    Flag(
        "--broker",
        "Redis URL (redis://host:6379/0) for the fan-out between the processes of a "
        "cluster; needs --db postgresql://... (docs/hosting.md)",
        str,
        "broker",
        metavar="URL",
    ),
    Flag(
        "--node",
        "this process's name in a cluster (letters, digits, - and _): a load balancer sends "
        "a table's sockets to the process named by their ?node= (docs/hosting.md)",
        node_name,
        "node",
        metavar="NAME",
    ),
    Flag("--check", "say whether the database and the broker answer, and exit (1 if one does not)"),
    Flag(
        "--turn-seconds",
        f"default turn timer of new tables, {_range(TURN_SECONDS_RANGE)} seconds "
        "(default %(default)s)",
        float,
        "turn_seconds",
    ),
    Flag(
        "--hook-seconds",
        f"default hook window of new tables, {_range(HOOK_SECONDS_RANGE)} seconds "
        "(default %(default)s)",
        float,
        "hook_seconds",
    ),
    Flag(
        "--hook-mode",
        "default hook windows of new tables (default %(default)s)",
        str,
        "hook_mode",
        choices=("fast", "fair"),
    ),
    Flag(
        "--round-pause-seconds",
        "default longest pause between two rounds of new tables, 0 to 120; 0: none "
        "(default %(default)s)",
        float,
        "round_pause_seconds",
    ),
    Flag(
        "--quickmatch-bot-seconds",
        "seconds someone waits in the quick-match queue before bots fill their table, "
        "0 to 600 (default %(default)s)",
        float,
        "quickmatch_bot_seconds",
    ),
    Flag(
        "--again-seconds",
        "seconds the players have to answer an offer to play again, 5 to 600 (default %(default)s)",
        float,
        "again_seconds",
    ),
    Flag(
        "--bot-delay",
        "seconds a bot waits before acting, 0 to 60 (default %(default)s)",
        float,
        "bot_delay",
    ),
    Flag(
        "--bot-processes",
        "processes for slow bots such as search, 0 to 64; 0: threads (default %(default)s)",
        int,
        "bot_processes",
    ),
    Flag(
        "--analysis-processes",
        "worker processes (at the lowest priority) analysing each round once it ends, "
        "for the replay viewer and the players (docs/analysis.md); 0: no analysis "
        "(default %(default)s)",
        int,
        "analysis_processes",
        default=ANALYSIS_PROCESSES,
        metavar="N",
    ),
    Flag(
        "--analysis-worlds",
        "worlds sampled per decision analysed: more is steadier and slower (default %(default)s)",
        int,
        "analysis_worlds",
        metavar="N",
    ),
    Flag(
        "--analysis-queue",
        "rounds waiting for analysis in memory, at most; the others wait in the "
        "database (default %(default)s)",
        int,
        "analysis_queue",
        metavar="N",
    ),
    Flag("--seed", "fixed seed for the deals (testing; default: random)", int, "seed"),
    Flag(
        "--max-tables",
        "most tables this server hosts, at least 1 (default %(default)s)",
        int,
        "max_tables",
    ),
    Flag(
        "--rate",
        "messages a second one connection may send, above 0 (default %(default)s)",
        float,
        "rate_per_second",
    ),
    Flag(
        "--rate-burst",
        "burst of messages above --rate, at least 1 (default %(default)s)",
        int,
        "rate_burst",
    ),
    Flag(
        "--http-rate",
        "tables created and seats taken a second per client address, loopback "
        "excepted (default %(default)s)",
        float,
        "http_rate_per_second",
    ),
    Flag(
        "--http-burst",
        "burst of those above --http-rate (default %(default)s)",
        int,
        "http_rate_burst",
    ),
    Flag(
        "--keep-days",
        "days a table not being played (lobby or finished) is kept after its last "
        "change; its finished matches stay as replays (0: keep every table; default "
        "%(default)s)",
        float,
        "keep_days",
    ),
    Flag(
        "--keep-replay-days",
        "days the finished matches of a deleted table stay as replays (0: for good; "
        "default %(default)s)",
        float,
        "keep_replay_days",
    ),
    Flag(
        "--push-contact",
        "how push services reach this server's operator, signed into every Web Push "
        "notice (a mailto: or https: URL; default %(default)s)",
        str,
        "push_contact",
    ),
    Flag(
        "--request-timeout",
        "seconds a client has to send a whole HTTP request, or a WebSocket its hello, "
        "before the connection is closed (default %(default)s)",
        float,
        "request_timeout",
    ),
    Flag(
        "--max-connections-per-address",
        "connections (HTTP and WebSocket) one client address may hold, loopback "
        "excepted (default %(default)s)",
        int,
        "max_connections_per_address",
    ),
    Flag(
        "--limit-loopback",
        "apply the per-address limits to loopback clients too (for testing them; "
        "behind a proxy on this machine every client is a loopback one)",
        field="limit_loopback",
    ),
    Flag(
        "--log-level",
        "how much the server logs (default %(default)s)",
        str,
        default="warning",
        choices=("critical", "error", "warning", "info", "debug"),
    ),
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    defaults = ServerConfig()
    for flag in FLAGS:
        default = flag.default
        if default is None and flag.field:
            default = getattr(defaults, flag.field)
        if flag.type is None:
            parser.add_argument(flag.name, action="store_true", help=flag.help)
        else:
            parser.add_argument(
                flag.name,
                type=flag.type,
                default=default,
                metavar=flag.metavar,
                choices=flag.choices,
                help=flag.help,
            )


def config_from_args(args: argparse.Namespace) -> ServerConfig:
    settings = {flag.field: getattr(args, flag.dest) for flag in FLAGS if flag.field}
    # One deadline for both: a WebSocket's hello is its first request.
    return ServerConfig(**settings, hello_timeout=args.request_timeout)


def contact_valid(contact: str) -> bool:
    """Whether push services will take ``contact`` as the VAPID ``sub`` (RFC 8292)."""
    if contact.startswith("mailto:"):
        return "@" in contact and " " not in contact and len(contact) <= 200
    return contact.startswith("https://") and " " not in contact and len(contact) <= 200


def settings_problem(config: ServerConfig) -> str | None:
    """What makes the settings unusable (one line), or None."""
    turn_low, turn_high = TURN_SECONDS_RANGE
    hook_low, hook_high = HOOK_SECONDS_RANGE
    checks = (
        (1 <= config.port <= 65535, "--port must be 1 to 65535"),
        (
            turn_low <= config.turn_seconds <= turn_high,
            f"--turn-seconds must be {_range(TURN_SECONDS_RANGE)}",
        ),
        (
            hook_low <= config.hook_seconds <= hook_high,
            f"--hook-seconds must be {_range(HOOK_SECONDS_RANGE)}",
        ),
        (0 <= config.round_pause_seconds <= 120, "--round-pause-seconds must be 0 to 120"),
        (0 <= config.bot_delay <= 60, "--bot-delay must be 0 to 60"),
        (
            0 <= config.quickmatch_bot_seconds <= 600,
            "--quickmatch-bot-seconds must be 0 to 600",
        ),
        (5 <= config.again_seconds <= 600, "--again-seconds must be 5 to 600"),
        (0 <= config.bot_processes <= 64, "--bot-processes must be 0 to 64"),
        (config.max_tables >= 1, "--max-tables must be at least 1"),
        (
            config.rate_per_second > 0 and config.rate_burst >= 1,
            "--rate must be above 0 and --rate-burst at least 1",
        ),
        (
            config.http_rate_per_second > 0 and config.http_rate_burst >= 1,
            "--http-rate must be above 0 and --http-burst at least 1",
        ),
        (config.request_timeout > 0, "--request-timeout must be above 0"),
        (
            config.keep_days >= 0 and config.keep_replay_days >= 0,
            "--keep-days and --keep-replay-days must be 0 or more",
        ),
        (
            config.max_connections_per_address >= 1,
            "--max-connections-per-address must be at least 1",
        ),
        (
            config.analysis_processes >= 0
            and config.analysis_worlds >= 2
            and config.analysis_queue >= 1,
            "--analysis-processes must be 0 or more, --analysis-worlds at least 2 and "
            "--analysis-queue at least 1",
        ),
        (
            contact_valid(config.push_contact),
            "--push-contact must be a mailto: address or an https:// URL",
        ),
    )
    # (NaN passes no check: every comparison with it is false)
    problem = next((message for ok, message in checks if not ok), None)
    return problem or check_settings(config)


def uvicorn_options(config: ServerConfig) -> dict[str, Any]:
    """How ``serve`` runs uvicorn: its HTTP protocol guarded (guard.py), small frames."""
    from uvicorn.protocols.http.auto import AutoHTTPProtocol

    from .sockets.guard import PING_SECONDS, PONG_SECONDS, guarded_protocol

    return {
        "host": config.host,
        "port": config.port,
        "http": guarded_protocol(
            AutoHTTPProtocol,
            config.request_timeout,
            config.max_connections_per_address,
            config.limit_loopback,
        ),
        # An idle keep-alive connection gets the request deadline, not uvicorn's 5 s.
        "timeout_keep_alive": config.request_timeout,
        "ws_ping_interval": PING_SECONDS,
        "ws_ping_timeout": PONG_SECONDS,
        "ws_max_size": config.max_frame_bytes,
        # Browsers always offer compression: it costs CPU on every message, and moves are small.
        "ws_per_message_deflate": False,
        "lifespan": "on",
    }


def raise_open_files() -> int:
    """Let the server hold as many descriptors as the system allows it (the soft limit,
    often 1,024, up to the hard one): each socket is one. Returns the limit now."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or soft < hard:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def run(args: argparse.Namespace) -> int:
    import uvicorn

    from .app import create_app
    from .serving import Serving

    config = config_from_args(args)
    problem = settings_problem(config)
    if problem is not None:
        print(f"fouronefour serve: {problem}", file=sys.stderr)
        return 2
    if args.check:
        found = asyncio.run(check(config))
        for ok, line in found:
            print(f"{'ok' if ok else 'FAILED'}: {redacted(line)}")
        return 0 if all(ok for ok, _ in found) else 1
    # The database (and broker) first: failing inside uvicorn's start-up is a traceback.
    problem = asyncio.run(usable(config))
    if problem is not None:
        print(f"fouronefour serve: {redacted(problem)}", file=sys.stderr)
        return 1
    raise_open_files()
    app = create_app(config)
    shown = "localhost" if config.host in ("127.0.0.1", "::1") else config.host
    banner = (
        f"414 is served at http://{shown}:{config.port}/  "
        f"(tables in {redacted(config.db)}; Ctrl+C stops)"
    )
    server = Serving(
        uvicorn.Config(app, log_level=args.log_level, **uvicorn_options(config)), app, banner
    )
    server.run()
    return 0
