"""What a run says about the tests it skipped (tests/conftest.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_a_run_without_chromium_says_so_at_the_end_and_how_to_install_it(
    tmp_path: Path,
) -> None:
    """Issue 27: ``make test`` on a machine without Debian's chromium skipped 59 browser
    tests with nothing but an ``s`` each; the end of the run now says so."""
    env = {**os.environ, "FOURONEFOUR_CHROMIUM": str(tmp_path / "no-chromium")}
    env.pop("PYTEST_XDIST_WORKER", None)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "tests/web/test_layout.py"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    tail = done.stdout[done.stdout.index("browser tests skipped") :]
    assert "browser tests were skipped (no chromium or Playwright)" in tail
    assert "apt-get install chromium" in tail
