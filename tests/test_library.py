"""The library without a web server: ``pip install fouronefour`` (no ``server`` extra) gives
the engine, bots, analysis and the terminal commands; only ``serve`` needs the extra."""

from __future__ import annotations

import subprocess
import sys
import textwrap

#: What the ``server`` extra brings (pyproject.toml).
SERVER_PACKAGES = ("fastapi", "starlette", "uvicorn", "orjson")


def run_without_server_packages(code: str) -> subprocess.CompletedProcess[str]:
    """``code`` in a fresh interpreter where importing any server package fails, as it does
    where the extra is not installed (a ``None`` in sys.modules makes ``import`` raise)."""
    blocked = f"import sys\nfor name in {SERVER_PACKAGES!r}:\n    sys.modules[name] = None\n"
    return subprocess.run(
        [sys.executable, "-c", blocked + textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_importing_the_library_loads_no_web_server() -> None:
    result = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, fouronefour, fouronefour.bots, fouronefour.analysis, "
            "fouronefour.arena, fouronefour.lessons\n"
            f"print(sorted(m for m in {SERVER_PACKAGES!r} if m in sys.modules))",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def test_the_library_and_its_commands_work_without_the_server_extra() -> None:
    result = run_without_server_packages(
        """
        import random
        import fouronefour as ff
        from fouronefour import bots
        from fouronefour.cli import main

        match = ff.Match(ff.Rules(players=4), seed=3)
        rng = random.Random(3)
        greedy = bots.get("greedy")
        for _ in range(40):
            view = match.view(match.round.to_act)
            match = match.apply(greedy.choose(view, match.round.legal_moves(), rng))
        assert main(["simulate", "--rounds", "2", "--seed", "1"]) == 0
        """
    )
    assert result.returncode == 0, result.stderr


def test_serve_without_the_server_extra_names_the_extra() -> None:
    result = run_without_server_packages(
        """
        from fouronefour.cli import main
        main(["serve"])
        """
    )
    assert result.returncode == 2
    assert "serve is not available in this installation" in result.stderr
    assert "pip install 'fouronefour[server]'" in result.stderr
