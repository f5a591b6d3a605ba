"""Browser tests: a real ``fouronefour serve`` and Debian's chromium driven by Playwright.

The server runs once per session (once per xdist worker) on a free port with a temporary
database, a fixed deal seed, bots that act at once and generous hook windows (a test
answers them between other checks); a test that needs a known deal has a server of its
own. Pages opened through the ``new_page`` fixture are photographed into
``test-artifacts/`` when a test fails."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

#: (``FOURONEFOUR_CHROMIUM`` names another: tests/test_skips.py runs these without one.)
CHROMIUM = Path(os.environ.get("FOURONEFOUR_CHROMIUM", "/usr/bin/chromium"))
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
#: The deal seed of the servers: a server's first table gets the first match seed drawn
#: from it (the test that needs hooks and tribute has a server of its own for that).
SERVER_SEED = 414


class _LoopMark:
    """Playwright's sync API runs its event loop in a greenlet of the main thread and marks
    it as the thread's running loop between its calls, for as long as the browser lives (one
    a session). A later test of the same process that runs a loop of its own
    (``asyncio.run``) would be refused: under xdist any test may follow a browser test. So
    the mark is there only while a browser test (``new_page``) or the browser's own start
    and end run."""

    def restore(self) -> None:
        if _LOOP:
            asyncio._set_running_loop(_LOOP[0])

    def release(self) -> None:
        asyncio._set_running_loop(None)


#: The browser's event loop (once it has started).
_LOOP: list[asyncio.AbstractEventLoop] = []
_LOOP_MARK = _LoopMark()
#: The running servers' output, copied next to the screenshots when a test fails.
_SERVER_LOGS: list[Path] = []
#: Talks to the local server directly, whatever proxy the environment names.
_DIRECT = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _wait_healthy(url: str, process: subprocess.Popen[bytes], timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"fouronefour serve exited with {process.returncode}")
        with contextlib.suppress(OSError), _DIRECT.open(f"{url}/api/health", timeout=1) as answer:
            if json.loads(answer.read()).get("ok"):
                return
        time.sleep(0.1)
    raise RuntimeError("fouronefour serve did not become healthy in time")


#: The options of the tests' servers (:func:`serve`) unless a test names its own.
SERVER_OPTIONS = (
    "--seed", str(SERVER_SEED),
    "--bot-delay", "0",
    "--hook-mode", "fast",
    "--hook-seconds", "6",
    "--turn-seconds", "90",
    "--analysis-processes", "0",  # (test_analysis_ui.py runs a server that analyses)
)  # fmt: skip


@contextlib.contextmanager
def serve(workdir: Path, options: Sequence[str] = SERVER_OPTIONS) -> Iterator[str]:
    """``fouronefour serve`` on a free port with its database in ``workdir`` and
    ``options``; yields its URL, and stops it (its output is kept for a failing test)."""
    port = _free_port()
    command = [
        sys.executable, "-m", "fouronefour.cli", "serve",
        "--host", "127.0.0.1",
        "--port", str(port),
        "--db", str(workdir / "tables.db"),
        *options,
    ]  # fmt: skip
    _SERVER_LOGS.append(workdir / "server.log")
    log = (workdir / "server.log").open("wb")
    process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, cwd=workdir)
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_healthy(url, process)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()
        _SERVER_LOGS.remove(workdir / "server.log")


@pytest.fixture(scope="session")
def server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The session's server: tests share it, so none may count on which deal it gives."""
    with serve(tmp_path_factory.mktemp("web-server")) as url:
        yield url


@pytest.fixture
def seeded_server_url(tmp_path: Path) -> Iterator[str]:
    """A server of the test's own, whose first table gets the first deal: for a test that
    needs a known deal (what the shared server dealt before depends on which tests ran
    before on this xdist worker)."""
    with serve(tmp_path) as url:
        yield url


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    if not CHROMIUM.exists():
        pytest.skip(f"browser tests need Debian's chromium at {CHROMIUM}")
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        _LOOP.append(asyncio.get_running_loop())
        _LOOP_MARK.release()
        try:
            yield chromium
        finally:
            _LOOP_MARK.restore()
            chromium.close()


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    report = yield
    setattr(item, f"report_{report.when}", report)
    return report


@pytest.fixture
def new_page(browser: Any, request: pytest.FixtureRequest) -> Iterator[Callable[..., Any]]:
    """Open a page in a fresh browser context (its own localStorage, like another person).

    ``new_page(name, width=390, height=844, locale="en-US", mobile=False)``; pages are
    photographed on failure as test-artifacts/<test>-<name>.png; page errors fail the test.
    """
    _LOOP_MARK.restore()
    opened: list[tuple[str, Any, Any]] = []
    errors: list[str] = []

    def open_page(
        name: str, width: int = 390, height: int = 844, locale: str = "en-US", mobile: bool = False
    ) -> Any:
        context = browser.new_context(
            viewport={"width": width, "height": height},
            locale=locale,
            is_mobile=mobile,
            has_touch=mobile,
        )
        page = context.new_page()
        page.on("pageerror", lambda error: errors.append(f"{name}: {error}"))
        page.set_default_timeout(15_000)
        opened.append((name, context, page))
        return page

    yield open_page
    report = getattr(request.node, "report_call", None)
    if report is not None and report.failed:
        ARTIFACTS.mkdir(exist_ok=True)
        for name, _, page in opened:
            with contextlib.suppress(Exception):
                shot = ARTIFACTS / f"{request.node.name}-{name}.png"
                page.screenshot(path=str(shot), full_page=True)
        for n, server_log in enumerate(_SERVER_LOGS):
            with contextlib.suppress(OSError):
                shutil.copyfile(server_log, ARTIFACTS / f"{request.node.name}-server{n}.log")
    for _, context, _ in opened:
        with contextlib.suppress(Exception):
            context.close()
    _LOOP_MARK.release()
    assert not errors, f"JavaScript errors in the page: {errors}"


@pytest.fixture(scope="session")
def axe_problems() -> Callable[[Any], list[str]]:
    """``axe_problems(page)``: the serious and critical axe-core violations on the page now
    (axe-core ships with axe-playwright-python: nothing is downloaded)."""
    sync_axe = pytest.importorskip("axe_playwright_python.sync_playwright")
    axe = sync_axe.Axe()

    def problems(page: Any) -> list[str]:
        results = axe.run(page)
        return [
            f"{v['id']} ({v['impact']}): {v['help']} at {[n['target'] for n in v['nodes']][:4]}"
            for v in results.response["violations"]
            if v["impact"] in ("serious", "critical")
        ]

    return problems
