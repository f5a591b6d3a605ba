"""``fouronefour serve``: host tables for friends in the browser."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
from typing import Any

from .backends import check, check_settings, redacted, usable
from .config import HOOK_SECONDS_RANGE, TURN_SECONDS_RANGE, ServerConfig


def _range(bounds: tuple[float, float]) -> str:
    return f"{bounds[0]:g} to {bounds[1]:g}"


#: ``serve`` analyses rounds with one worker process unless told otherwise (ServerConfig's
#: default is none, for servers embedded in tests).
ANALYSIS_PROCESSES = 1


def add_arguments(parser: argparse.ArgumentParser) -> None:
    defaults = ServerConfig()
    parser.add_argument(
        "--host",
        default=defaults.host,
        help="address to listen on (0.0.0.0: every interface; default %(default)s)",
    )
    parser.add_argument(
        "--port", type=int, default=defaults.port, help="port, 1 to 65535 (default %(default)s)"
    )
    parser.add_argument(
        "--db",
        default=defaults.db,
        help="SQLite file holding every table (default ./%(default)s), or a PostgreSQL URL "
        "(postgresql://user:password@host/database; the schema is made by the server)",
    )
    parser.add_argument(
        "--broker",
        default=None,
        metavar="URL",
        help="Redis URL (redis://host:6379/0) for the fan-out between the processes of a "
        "cluster; needs --db postgresql://... (docs/hosting.md)",
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="say whether the database and the broker answer, and exit (1 if one does not)",
    )
    parser.add_argument(
        "--turn-seconds",
        type=float,
        default=defaults.turn_seconds,
        help=f"default turn timer of new tables, {_range(TURN_SECONDS_RANGE)} seconds "
        "(default %(default)s)",
    )
    parser.add_argument(
        "--hook-seconds",
        type=float,
        default=defaults.hook_seconds,
        help=f"default hook window of new tables, {_range(HOOK_SECONDS_RANGE)} seconds "
        "(default %(default)s)",
    )
    parser.add_argument(
        "--hook-mode",
        choices=("fast", "fair"),
        default=defaults.hook_mode,
        help="default hook windows of new tables (default %(default)s)",
    )
    parser.add_argument(
        "--round-pause-seconds",
        type=float,
        default=defaults.round_pause_seconds,
        help="default longest pause between two rounds of new tables, 0 to 120; 0: none "
        "(default %(default)s)",
    )
    parser.add_argument(
        "--bot-delay",
        type=float,
        default=defaults.bot_delay,
        help="seconds a bot waits before acting, 0 to 60 (default %(default)s)",
    )
    parser.add_argument(
        "--bot-processes",
        type=int,
        default=defaults.bot_processes,
        help="processes for slow bots such as search, 0 to 64; 0: threads (default %(default)s)",
    )
    parser.add_argument(
        "--analysis-processes",
        type=int,
        default=ANALYSIS_PROCESSES,
        metavar="N",
        help="worker processes (at the lowest priority) analysing each round once it ends, "
        "for the replay viewer and the players (docs/analysis.md); 0: no analysis "
        "(default %(default)s)",
    )
    parser.add_argument(
        "--analysis-worlds",
        type=int,
        default=defaults.analysis_worlds,
        metavar="N",
        help="worlds sampled per decision analysed: more is steadier and slower "
        "(default %(default)s)",
    )
    parser.add_argument(
        "--analysis-queue",
        type=int,
        default=defaults.analysis_queue,
        metavar="N",
        help="rounds waiting for analysis in memory, at most; the others wait in the "
        "database (default %(default)s)",
    )
    parser.add_argument(
        "--seed", type=int, default=None, help="fixed seed for the deals (testing; default: random)"
    )
    parser.add_argument(
        "--max-tables",
        type=int,
        default=defaults.max_tables,
        help="most tables this server hosts, at least 1 (default %(default)s)",
    )
    parser.add_argument(
        "--rate",
        type=float,
        default=defaults.rate_per_second,
        help="messages a second one connection may send, above 0 (default %(default)s)",
    )
    parser.add_argument(
        "--rate-burst",
        type=int,
        default=defaults.rate_burst,
        help="burst of messages above --rate, at least 1 (default %(default)s)",
    )
    parser.add_argument(
        "--http-rate",
        type=float,
        default=defaults.http_rate_per_second,
        help="tables created and seats taken a second per client address, loopback "
        "excepted (default %(default)s)",
    )
    parser.add_argument(
        "--http-burst",
        type=int,
        default=defaults.http_rate_burst,
        help="burst of those above --http-rate (default %(default)s)",
    )
    parser.add_argument(
        "--keep-days",
        type=float,
        default=defaults.keep_days,
        help="days a table not being played (lobby or finished) is kept after its last "
        "change; its finished matches stay as replays (0: keep every table; default "
        "%(default)s)",
    )
    parser.add_argument(
        "--keep-replay-days",
        type=float,
        default=defaults.keep_replay_days,
        help="days the finished matches of a deleted table stay as replays (0: for good; "
        "default %(default)s)",
    )
    parser.add_argument(
        "--request-timeout",
        type=float,
        default=defaults.request_timeout,
        help="seconds a client has to send a whole HTTP request, or a WebSocket its hello, "
        "before the connection is closed (default %(default)s)",
    )
    parser.add_argument(
        "--max-connections-per-address",
        type=int,
        default=defaults.max_connections_per_address,
        help="connections (HTTP and WebSocket) one client address may hold, loopback "
        "excepted (default %(default)s)",
    )
    parser.add_argument(
        "--limit-loopback",
        action="store_true",
        help="apply the per-address limits to loopback clients too (for testing them; "
        "behind a proxy on this machine every client is a loopback one)",
    )
    parser.add_argument(
        "--log-level",
        default="warning",
        choices=("critical", "error", "warning", "info", "debug"),
        help="how much the server logs (default %(default)s)",
    )


def config_from_args(args: argparse.Namespace) -> ServerConfig:
    return ServerConfig(
        db=args.db,
        broker=args.broker,
        host=args.host,
        port=args.port,
        turn_seconds=args.turn_seconds,
        hook_seconds=args.hook_seconds,
        hook_mode=args.hook_mode,
        round_pause_seconds=args.round_pause_seconds,
        bot_delay=args.bot_delay,
        bot_processes=args.bot_processes,
        analysis_processes=args.analysis_processes,
        analysis_worlds=args.analysis_worlds,
        analysis_queue=args.analysis_queue,
        seed=args.seed,
        max_tables=args.max_tables,
        rate_per_second=args.rate,
        rate_burst=args.rate_burst,
        http_rate_per_second=args.http_rate,
        http_rate_burst=args.http_burst,
        keep_days=args.keep_days,
        keep_replay_days=args.keep_replay_days,
        request_timeout=args.request_timeout,
        hello_timeout=args.request_timeout,
        max_connections_per_address=args.max_connections_per_address,
        limit_loopback=args.limit_loopback,
    )


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
