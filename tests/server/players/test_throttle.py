"""Throttles (players/throttle.py): this process's, and the cluster's in Redis, which two
processes spend together."""

from __future__ import annotations

import asyncio

from fouronefour.server.cluster.broker import Broker
from fouronefour.server.players.throttle import Attempt, Budget, LocalThrottle, SharedThrottle
from fouronefour.server.storage.sqlite import GroupCommitStorage
from tests import sandbox

BUDGETS = {a: Budget(3, 0.001) for a in Attempt}


def test_local_buckets_per_attempt_and_key() -> None:
    now = [0.0]
    throttle = LocalThrottle(BUDGETS, clock=lambda: now[0])

    async def run() -> list[float]:
        waits = [await throttle.take(Attempt.SIGN_IN_ACCOUNT, "ann") for _ in range(4)]
        waits.append(await throttle.take(Attempt.SIGN_IN_ACCOUNT, "bob"))  # another key
        waits.append(await throttle.take(Attempt.CODE_ADDRESS, "ann"))  # another bucket
        now[0] += 1000.0
        waits.append(await throttle.take(Attempt.SIGN_IN_ACCOUNT, "ann"))
        return waits

    waits = asyncio.run(run())
    assert waits[:3] == [0.0] * 3 and waits[3] > 0
    assert waits[4:] == [0.0, 0.0, 0.0]


def test_shared_buckets_are_one_budget_for_two_processes(
    redis_server: sandbox.LocalRedis,
) -> None:
    async def run() -> list[float]:
        storage = GroupCommitStorage(":memory:")
        brokers = [Broker(redis_server.url, storage) for _ in range(2)]
        for broker in brokers:
            await broker.open()
        try:
            throttles = [SharedThrottle(b, BUDGETS) for b in brokers]
            return [
                await throttles[i % 2].take(Attempt.SIGN_IN_ACCOUNT, "shared-ann") for i in range(4)
            ]
        finally:
            for broker in brokers:
                await broker.shutdown()
            storage.close()

    waits = asyncio.run(run())
    assert waits[:3] == [0.0] * 3 and waits[3] > 0


def test_the_players_store_is_in_the_tables_own_database(tmp_path: object) -> None:
    from fouronefour.server.backends import player_store
    from fouronefour.server.players.postgres import PostgresDb
    from fouronefour.server.players.sqlite import SqliteDb
    from fouronefour.server.players.sqlstore import SqlPlayerStore
    from fouronefour.server.storage.postgres import PostgresStorage

    local = player_store(GroupCommitStorage(f"{tmp_path}/tables.db"))
    assert isinstance(local, SqlPlayerStore) and isinstance(local.db, SqliteDb)
    assert local.db.path == f"{tmp_path}/tables.db"
    cluster = player_store(PostgresStorage("postgresql://u@127.0.0.1:1/x"))
    assert isinstance(cluster, SqlPlayerStore) and isinstance(cluster.db, PostgresDb)
