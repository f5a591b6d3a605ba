"""A Gymnasium environment for one seat of ``fouronefour_v0``; bots play the other seats.

The bots are :mod:`fouronefour.bots` players: each gets its seat's engine view, its legal
moves and a ``random.Random`` seeded from ``reset(seed=...)``, as at an online table.
"""

from __future__ import annotations

import random
from typing import Any, Literal, SupportsFloat

import gymnasium

from .. import bots
from .aec import IllegalAction, RewardMode, raw_env
from .encoding import Observation


def default_bot() -> str:
    """``greedy`` when it is registered, else ``random``."""
    return "greedy" if "greedy" in bots.names() else "random"


class SingleAgentEnv(gymnasium.Env[dict[str, Observation], int]):
    """414 from ``seat``'s chair, against (and with a partner of) ``bot`` players.

    Observations and actions are those of ``fouronefour_v0`` (docs/env.md); the reward of a
    step is what the seat's team earned from the seat's action until its next decision.
    An action the mask forbids ends the episode with reward -1, as ``fouronefour_v0``'s
    standard wrappers do (``illegal="raise"``: it raises
    :class:`~fouronefour.env.IllegalAction` and changes nothing). An action outside the
    action space always raises.

    >>> game = SingleAgentEnv(seat=0, bot="random", max_rounds=1)
    >>> observation, info = game.reset(seed=3)
    >>> observation["action_mask"].shape
    (236,)
    """

    metadata = {"render_modes": ["ansi", "human"]}  # noqa: RUF012  # Gymnasium reads the class attribute

    def __init__(
        self,
        seat: int = 0,
        bot: str | None = None,
        bot_params: dict[str, Any] | None = None,
        players: int = 4,
        render_mode: str | None = None,
        reward: RewardMode = "round",
        max_rounds: int | None = None,
        illegal: Literal["terminate", "raise"] = "terminate",
        **rule_options: Any,
    ) -> None:
        if illegal not in ("terminate", "raise"):
            raise ValueError(f"illegal must be 'terminate' or 'raise', not {illegal!r}")
        self.illegal = illegal
        self.aec = raw_env(players, render_mode, reward, max_rounds, **rule_options)
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < players:
            raise ValueError(f"seat must be one of 0..{players - 1}, not {seat!r}")
        self.seat = seat
        self.agent = self.aec.possible_agents[seat]
        self.bot_name = bot or default_bot()
        params = bot_params or {}
        self.bots = {
            other: bots.get(self.bot_name, **params) for other in range(players) if other != seat
        }
        self.render_mode = render_mode
        self.observation_space = self.aec.observation_space(self.agent)
        self.action_space = self.aec.action_space(self.agent)
        self._bot_rng = random.Random()

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Observation], dict[str, Any]]:
        super().reset(seed=seed)
        table_seed = seed if seed is not None else int(self.np_random.integers(2**62))
        self.aec.reset(seed=table_seed, options=options)
        self._bot_rng = random.Random(f"bots/{table_seed}")
        self._let_bots_play()
        return self.aec.observe(self.agent), {}

    def step(
        self, action: int
    ) -> tuple[dict[str, Observation], SupportsFloat, bool, bool, dict[str, Any]]:
        table = self.aec
        if self._episode_over():
            raise RuntimeError("the episode is over: call reset()")
        if not self.action_space.contains(action):
            raise IllegalAction(f"action {action!r} is not in {self.action_space}")
        if self.illegal == "terminate" and not table.observe(self.agent)["action_mask"][action]:
            table.terminations = dict.fromkeys(table.agents, True)
            return table.observe(self.agent), -1.0, True, False, {"illegal_action": True}
        table.step(int(action))
        self._let_bots_play()
        reward = float(table._cumulative_rewards[self.agent])
        table._cumulative_rewards[self.agent] = 0.0  # reported once
        terminated = table.terminations[self.agent]
        truncated = table.truncations[self.agent]
        return table.observe(self.agent), reward, terminated, truncated, {}

    def render(self) -> str | None:
        return self.aec.render()

    def _episode_over(self) -> bool:
        return self.aec.terminations[self.agent] or self.aec.truncations[self.agent]

    def _let_bots_play(self) -> None:
        table = self.aec
        while not self._episode_over() and table.agent_selection != self.agent:
            seat = table.possible_agents.index(table.agent_selection)
            view = table.view(seat)
            move = self.bots[seat].choose(view, view["legal_moves"], self._bot_rng)
            table.step(table.move_to_action(move, view["decision"]))


__all__ = ["SingleAgentEnv", "default_bot"]
