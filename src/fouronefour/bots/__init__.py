"""Players that see only what a person at the table sees.

A bot gets the acting seat's ``Round.view(seat)`` (or ``Match.view``), the legal moves
and an injected ``random.Random``, and returns one of the moves.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any, Protocol


class Bot(Protocol):
    name: str

    def choose(self, view: dict[str, Any], legal_moves: Sequence[str], rng: random.Random) -> str:
        """One of ``legal_moves``."""
        ...


class RandomBot:
    """Uniform over the legal moves."""

    name = "random"

    def choose(self, view: dict[str, Any], legal_moves: Sequence[str], rng: random.Random) -> str:
        return legal_moves[rng.randrange(len(legal_moves))]


_FACTORIES: dict[str, Callable[..., Bot]] = {"random": RandomBot}


def register(name: str, factory: Callable[..., Bot]) -> None:
    _FACTORIES[name] = factory


def names() -> list[str]:
    _load_all()
    return sorted(_FACTORIES)


def get(name: str, **params: Any) -> Bot:
    """A bot by name, e.g. ``get("random")``; unknown names raise ValueError."""
    _load_all()
    factory = _FACTORIES.get(name)
    if factory is None:
        raise ValueError(f"unknown bot {name!r}; known: {', '.join(sorted(_FACTORIES))}")
    return factory(**params)


def _load_all() -> None:
    """Import the bot modules that register themselves (greedy, search, ...)."""
    import importlib
    import pkgutil

    for info in pkgutil.iter_modules(__path__):
        importlib.import_module(f"{__name__}.{info.name}")


__all__ = ["Bot", "RandomBot", "get", "names", "register"]
