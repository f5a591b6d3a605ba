"""A bot named with its parameters: ``search``, ``search:budget_ms=50,max_candidates=4``."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import Any

from ..bots import Bot, get


@dataclass(frozen=True, slots=True)
class BotSpec:
    """A bot's name and the parameters it is built with."""

    name: str
    params: tuple[tuple[str, Any], ...] = ()

    @classmethod
    def parse(cls, text: str) -> BotSpec:
        """``name`` or ``name:key=value,key=value`` (values read as int, float or text)."""
        name, _, rest = text.partition(":")
        params: list[tuple[str, Any]] = []
        for item in filter(None, rest.split(",")):
            key, sep, raw = item.partition("=")
            if not sep or not key:
                raise ValueError(f"bot parameter {item!r} in {text!r} is not key=value")
            params.append((key.strip(), _number(raw.strip())))
        spec = cls(name.strip(), tuple(params))
        spec.build()  # unknown names and bad parameters fail here, before any work
        return spec

    def build(self) -> Bot:
        return get(self.name, **dict(self.params))

    @property
    def label(self) -> str:
        if not self.params:
            return self.name
        return self.name + ":" + ",".join(f"{k}={v}" for k, v in self.params)


def bot_spec(text: str) -> BotSpec:
    """An argparse ``type`` for a bot option: the spec, or the reason it is refused."""
    try:
        return BotSpec.parse(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _number(text: str) -> Any:
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def labels(specs: tuple[BotSpec, BotSpec]) -> tuple[str, str]:
    """How the two bots are named in tables and charts: their labels, told apart by side
    (``greedy (A)``, ``greedy (B)``) when a bot plays itself."""
    a, b = specs[0].label, specs[1].label
    if a == b:
        return f"{a} (A)", f"{b} (B)"
    return a, b
