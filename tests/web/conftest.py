"""Browser tests: a real ``fouronefour serve`` and Debian's chromium driven by Playwright.

The server runs once per session on a free port with a temporary database, a fixed deal
seed, bots that act at once and generous hook windows (a test answers them between other
checks). Pages opened through the ``new_page`` fixture are photographed into
``test-artifacts/`` when a test fails.
"""

from __future__ import annotations

import contextlib
import json
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
#: The deal seed of the session's server: the first table created gets the first match seed
#: drawn from it, so the test that needs hooks and tribute creates the first table.
SERVER_SEED = 414


#: The session server's output, copied next to the screenshots when a test fails.
_SERVER_LOGS: list[Path] = []
#: Talks to the local server directly, whatever proxy the environment names.
_DIRECT = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _wait_healthy(url: str, process: subprocess.Popen[bytes], timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"fouronefour serve exited with {process.returncode}")
        with contextlib.suppress(OSError), _DIRECT.open(f"{url}/api/health", timeout=1) as answer:
            if json.loads(answer.read()).get("ok"):
                return
        time.sleep(0.1)
    raise RuntimeError("fouronefour serve did not become healthy in time")


@pytest.fixture(scope="session")
def server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    workdir = tmp_path_factory.mktemp("web-server")
    port = _free_port()
    command = [
        sys.executable, "-m", "fouronefour.cli", "serve",
        "--host", "127.0.0.1",
        "--port", str(port),
        "--db", str(workdir / "tables.db"),
        "--seed", str(SERVER_SEED),
        "--bot-delay", "0",
        "--hook-mode", "fast",
        "--hook-seconds", "6",
        "--turn-seconds", "90",
        "--analysis-processes", "0",  # (test_analysis_ui.py runs a server that analyses)
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


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    if not CHROMIUM.exists():
        pytest.skip(f"browser tests need Debian's chromium at {CHROMIUM}")
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield chromium
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
        for server_log in _SERVER_LOGS:
            with contextlib.suppress(OSError):
                shutil.copyfile(server_log, ARTIFACTS / f"{request.node.name}-server.log")
    for _, context, _ in opened:
        with contextlib.suppress(Exception):
            context.close()
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
