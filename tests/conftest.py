"""Session-wide services: one PostgreSQL and one Redis for every test that needs them.

They are Debian's own servers, started in temporary directories on free ports
(tests.sandbox) the first time a test asks, and stopped at the end. Where they
are not installed those tests are skipped with the reason; under CI (``CI=true``, where
.ci/run installs them) a missing server fails instead, so that nothing is skipped unseen.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest

from tests import sandbox

#: Files that take longest (each runs servers, a browser or a training run), longest first.
#: Under xdist (``make test``) whole files are handed to the workers in collection order, so
#: these come first: a worker that picked one up last would run on alone at the end.
LONG_FIRST = (
    "tests/web/test_browser.py",
    "tests/web/test_protocol3.py",
    "tests/server/test_cluster.py",
    "tests/server_faults/test_kill.py",
    "tests/web/test_layout.py",
    "tests/server_faults/test_abuse.py",
    "tests/train/",
    "tests/server/test_restart.py",
    "tests/web/",
    "tests/server_faults/",
)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not hasattr(config, "workerinput"):
        return  # a plain run keeps the files' order

    def rank(item: pytest.Item) -> int:
        return next(
            (n for n, prefix in enumerate(LONG_FIRST) if item.nodeid.startswith(prefix)),
            len(LONG_FIRST),
        )

    items.sort(key=rank)


#: What to do about browser tests skipped for a missing chromium or Playwright.
BROWSER_HINT = (
    "install Debian's chromium (`sudo apt-get install chromium`, at /usr/bin/chromium) "
    "and the test extra (`pip install -e '.[test]'`, Playwright), then run them again"
)


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """Say at the end of the run that browser tests were skipped, and how to run them: 59
    skips among hundreds of passes went unseen on a machine without chromium."""
    skipped = [
        report
        for report in terminalreporter.stats.get("skipped", [])
        if any(word in str(report.longrepr) for word in ("chromium", "playwright"))
    ]
    if skipped:
        terminalreporter.write_sep("=", "browser tests skipped", yellow=True)
        terminalreporter.write_line(
            f"{len(skipped)} browser tests were skipped (no chromium or Playwright): "
            f"{BROWSER_HINT}."
        )


def _require_services() -> None:
    reason = sandbox.missing()
    if reason is None:
        return
    if os.environ.get("CI") == "true":
        pytest.fail(f"{reason}: .ci/run installs it", pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="session")
def postgres() -> Iterator[sandbox.LocalPostgres]:
    """The session's PostgreSQL (tests make a database of their own in it)."""
    _require_services()
    server = sandbox.LocalPostgres()
    try:
        server.start()
        yield server
    finally:
        server.close()


@pytest.fixture(scope="session")
def redis_server() -> Iterator[sandbox.LocalRedis]:
    _require_services()
    server = sandbox.LocalRedis()
    try:
        server.start()
        yield server
    finally:
        server.close()
