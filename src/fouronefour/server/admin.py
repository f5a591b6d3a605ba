"""``fouronefour admin``: an operator's tools for the players (docs/players.md, "For an
operator"): find a player, reset a password, delete a profile, recompute every rating from
the recorded results. It works on the server's database (``--db``, as ``serve``'s); all but
``recompute-ratings`` while the server runs (each is one transaction of the players' store).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import secrets
import sys
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime

from .backends import is_postgres, redacted
from .config import ServerConfig
from .players.passwords import Passwords
from .players.sqlite import sqlite_players
from .players.store import PlayerStore
from .players.values import Profile
from .storage import StorageError

#: The characters of a password made by ``reset-password`` (no look-alikes).
PASSWORD_ALPHABET = "abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789"
PASSWORD_LENGTH = 16


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--db",
        default=ServerConfig().db,
        help="the server's database: its SQLite file, or its PostgreSQL URL",
    )
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    find = actions.add_parser(
        "find", help="players whose id or username is QUERY, or name holds it"
    )
    find.add_argument("query")
    find.add_argument("--limit", type=int, default=20, help="at most this many")
    reset = actions.add_parser(
        "reset-password",
        help="a new password for a claimed profile (printed once); its sessions end",
    )
    reset.add_argument("player", help="its username or profile id")
    delete = actions.add_parser(
        "delete", help="delete a profile: its games stay in others' histories as a former player"
    )
    delete.add_argument("player", help="its username or profile id")
    delete.add_argument("--yes", action="store_true", help="do it (without: say what it would)")
    actions.add_parser(
        "recompute-ratings",
        help="every rated match rated again, oldest first, from newcomers and the bots' "
        "ratings (stop the server first: a match it records meanwhile would be rated twice)",
    )


def run(args: argparse.Namespace) -> int:
    if args.action == "find" and not 1 <= args.limit <= 1000:
        return _fail(f"--limit must be 1 to 1000, not {args.limit}")
    if not is_postgres(args.db) and not os.path.isfile(args.db):
        return _fail(f"no database at {args.db}: give the server's --db")
    store = _store(args.db)
    try:
        return asyncio.run(_with_store(store, lambda: ACTIONS[args.action](store, args)))
    except StorageError as error:
        return _fail(f"cannot use the database {redacted(args.db)}: {error}")


def _store(db: str) -> PlayerStore:
    if is_postgres(db):
        from .players.postgres import postgres_players

        return postgres_players(db)
    return sqlite_players(db)


async def _with_store(store: PlayerStore, action: Callable[[], Awaitable[int]]) -> int:
    await store.open()
    try:
        return await action()
    finally:
        await store.close()


async def _find(store: PlayerStore, args: argparse.Namespace) -> int:
    found = await store.find_profiles(args.query.strip(), args.limit)
    if not found:
        print(f"no player matches {args.query!r}")
        return 1
    print(f"{'id':<18} {'username':<24} {'rating':>14} {'matches':>7}  created     name")
    for profile in found:
        print(_line(profile))
    return 0


def _line(profile: Profile) -> str:
    rating = profile.rating
    shown = f"{rating.mu:.1f} ± {3 * rating.sigma:.1f}"
    created = datetime.fromtimestamp(profile.created_at / 1000, UTC).strftime("%Y-%m-%d")
    username = profile.username or "(guest)"
    return (
        f"{profile.id:<18} {username:<24} {shown:>14} {rating.matches:>7}  {created}  "
        f"{profile.name}"
    )


async def _one(store: PlayerStore, who: str) -> Profile | None:
    """The live profile of username or id ``who``."""
    credentials = await store.credentials(who.strip().lower())
    profile = await store.get_profile(credentials.profile_id if credentials else who.strip())
    return None if profile is None or profile.deleted else profile


async def _reset(store: PlayerStore, args: argparse.Namespace) -> int:
    profile = await _one(store, args.player)
    if profile is None:
        print(f"no player {args.player!r}", file=sys.stderr)
        return 1
    if not profile.claimed:
        print(f"{profile.id} is a guest: it has no password to reset", file=sys.stderr)
        return 1
    password = "".join(secrets.choice(PASSWORD_ALPHABET) for _ in range(PASSWORD_LENGTH))
    hashed = await asyncio.to_thread(Passwords().hash, password)
    await store.set_password(profile.id, hashed)
    ended = await store.delete_sessions(profile.id)
    print(f"{profile.username}: new password {password} (tell it to them privately);")
    print(f"{ended} session(s) ended")
    return 0


async def _delete(store: PlayerStore, args: argparse.Namespace) -> int:
    profile = await _one(store, args.player)
    if profile is None:
        print(f"no player {args.player!r}", file=sys.stderr)
        return 1
    if not args.yes:
        print(f"would delete {_line(profile)}; add --yes to delete it")
        return 1
    await store.delete_profile(profile.id)
    print(f"deleted {profile.id} ({profile.name}); their games stay as a former player's")
    return 0


async def _recompute(store: PlayerStore, args: argparse.Namespace) -> int:
    matches = await store.recompute_ratings()
    print(f"{matches} rated match(es) rated again; the leaderboard counted again")
    return 0


ACTIONS: dict[str, Callable[[PlayerStore, argparse.Namespace], Awaitable[int]]] = {
    "find": _find,
    "reset-password": _reset,
    "delete": _delete,
    "recompute-ratings": _recompute,
}


def _fail(message: str) -> int:
    print(f"fouronefour admin: {message}", file=sys.stderr)
    return 2
