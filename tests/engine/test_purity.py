"""The engine is pure: standard library only, nothing of the rest of the package, no I/O."""

from __future__ import annotations

import ast
import json
import sys
from pathlib import Path

import fouronefour as ff

ENGINE = Path(ff.__file__).parent / "engine"
FORBIDDEN_CALLS = {"open", "print", "input"}


def test_engine_imports_only_the_standard_library_and_itself() -> None:
    for path in ENGINE.glob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level > 0:
                    assert node.level == 1, f"{path.name} reaches outside the engine"
                    continue
                names = [node.module or ""]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                assert top in sys.stdlib_module_names, f"{path.name} imports {name}"


def test_engine_does_no_io_and_uses_no_global_random() -> None:
    for path in ENGINE.glob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                assert node.func.id not in FORBIDDEN_CALLS, f"{path.name} calls {node.func.id}"
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id == "random"
            ):
                assert node.attr == "Random", f"{path.name} uses random.{node.attr}"


def test_views_are_json_serialisable() -> None:
    match = ff.Match(ff.Rules(players=5), seed=1)
    for seat in range(5):
        assert json.loads(json.dumps(match.view(seat)))["seat"] == seat
    assert json.loads(json.dumps(match.public_view()))["hand"] == ""
