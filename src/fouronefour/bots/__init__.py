"""Players that see only what a person at the table sees.

A bot gets the acting seat's ``Round.view(seat)`` (or ``Match.view``), the legal moves
and an injected ``random.Random``, and returns one of the moves.
"""

from __future__ import annotations

import inspect
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
    """A bot by name, e.g. ``get("random")``; unknown names, unknown parameters and bad
    parameter values raise ValueError saying which."""
    factory = _factory(name)
    known = parameters(name)
    open_ended = any(
        p.kind is inspect.Parameter.VAR_KEYWORD
        for p in inspect.signature(factory).parameters.values()
    )
    for key in params:
        if key not in known and not open_ended:
            takes = f"its parameters: {', '.join(known)}" if known else "it takes none"
            raise ValueError(f"bot {name!r} has no parameter {key!r} ({takes})")
    try:
        return factory(**params)
    except (TypeError, ValueError) as error:
        raise ValueError(f"bot {name!r}: {error}") from None


def parameters(name: str) -> list[str]:
    """The keyword parameters a bot takes, e.g. ``budget_ms`` for ``search``."""
    signature = inspect.signature(_factory(name))
    keyword = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    return [p.name for p in signature.parameters.values() if p.kind in keyword]


def _factory(name: str) -> Callable[..., Bot]:
    _load_all()
    factory = _FACTORIES.get(name)
    if factory is None:
        raise ValueError(f"unknown bot {name!r}; known: {', '.join(sorted(_FACTORIES))}")
    return factory


def _load_all() -> None:
    """Import the bot modules that register themselves (greedy, search, ...)."""
    import importlib
    import pkgutil

    for info in pkgutil.iter_modules(__path__):
        importlib.import_module(f"{__name__}.{info.name}")


__all__ = ["Bot", "RandomBot", "get", "names", "parameters", "register"]
