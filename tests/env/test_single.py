"""The Gymnasium single-agent environment: one seat, bots at the others."""

from __future__ import annotations

import random

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import fouronefour.bots
from fouronefour.env import IllegalAction, SingleAgentEnv, default_bot

from .helpers import documented_call, env_docs, random_legal_action


def test_gymnasium_env_checker() -> None:
    check_env(SingleAgentEnv(seat=1, bot="random", max_rounds=1), skip_render_check=True)


def test_default_bot_is_greedy_when_registered() -> None:
    expected = "greedy" if "greedy" in fouronefour.bots.names() else "random"
    assert default_bot() == expected
    assert SingleAgentEnv().bot_name == expected


@pytest.mark.parametrize("bot", ["random", default_bot()])
def test_rounds_against_bots_pay_the_level_swing(bot: str) -> None:
    game = SingleAgentEnv(seat=2, bot=bot, max_rounds=1)
    rng = random.Random(0)
    for seed in range(3):
        observation, _ = game.reset(seed=seed)
        assert game.aec.agent_selection == "player_2"
        total = 0.0
        done = False
        while not done:
            action = random_legal_action(observation, rng)
            observation, reward, terminated, truncated, _ = game.step(action)
            total += float(reward)
            done = terminated or truncated
        finished = game.aec.round
        swing = len(finished.caught)
        assert total == (swing if finished.winning_team == 0 else -swing)
        with pytest.raises(RuntimeError, match="reset"):
            game.step(0)


def test_same_seed_same_episode() -> None:
    def episode(seed: int) -> list[bytes]:
        game = SingleAgentEnv(seat=0, bot="random", max_rounds=1)
        observation, _ = game.reset(seed=seed)
        rng = random.Random(1)
        seen = [observation["observation"].tobytes()]
        done = False
        while not done:
            observation, _, terminated, truncated, _ = game.step(
                random_legal_action(observation, rng)
            )
            seen.append(observation["observation"].tobytes())
            done = terminated or truncated
        return seen

    assert episode(4) == episode(4)
    assert episode(4) != episode(5)


def test_illegal_action_ends_the_episode_or_raises() -> None:
    game = SingleAgentEnv(seat=0, bot="random")
    observation, _ = game.reset(seed=1)
    illegal = int(np.flatnonzero(observation["action_mask"] == 0)[0])
    with pytest.raises(IllegalAction):
        game.step(len(observation["action_mask"]))  # outside the action space
    _, reward, terminated, truncated, info = game.step(illegal)
    assert (reward, terminated, truncated, info) == (-1.0, True, False, {"illegal_action": True})
    with pytest.raises(RuntimeError, match="reset"):
        game.step(int(np.flatnonzero(observation["action_mask"])[0]))

    strict = SingleAgentEnv(seat=0, bot="random", illegal="raise")
    observation, _ = strict.reset(seed=1)
    before = strict.aec.round
    with pytest.raises(IllegalAction):
        strict.step(illegal)
    assert strict.aec.round is before


def test_bad_seat_is_refused() -> None:
    with pytest.raises(ValueError, match="seat"):
        SingleAgentEnv(seat=4)


def test_the_docs_give_the_whole_signature_and_what_an_illegal_action_does() -> None:
    docs = env_docs()
    assert f"fouronefour.env.{documented_call(SingleAgentEnv.__init__)}" in docs
    assert 'reward -1 and `info == {"illegal_action": True}`' in docs
    assert 'With `illegal="raise"` it raises `fouronefour.env.IllegalAction`' in docs
