"""fouronefour_v0 against PettingZoo's own checks, and its rewards, episodes and errors."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from pettingzoo.test import api_test, render_test, seed_test

import fouronefour as ff
from fouronefour.env import IllegalAction, env, raw_env

from .helpers import play_randomly, random_legal_action


def test_pettingzoo_api_test() -> None:
    api_test(env(players=4, max_rounds=2), num_cycles=300)


def test_pettingzoo_api_test_three_players_match_reward() -> None:
    api_test(env(players=3, reward="match", max_rounds=1), num_cycles=200)


def test_pettingzoo_seed_test() -> None:
    seed_test(lambda: env(players=4), num_cycles=300)


def test_metadata_agents_and_spaces() -> None:
    table = env(players=6)
    assert table.metadata["name"] == "fouronefour_v0"
    assert table.possible_agents == [f"player_{i}" for i in range(6)]
    space = table.observation_space("player_0")
    assert set(space.spaces) == {"observation", "action_mask"}
    assert table.action_space("player_0").n == table.unwrapped.action_table.size == 290


def test_seed_deals_the_match_of_that_seed() -> None:
    table = raw_env(players=4)
    table.reset(seed=21)
    match = ff.Match(ff.Rules(players=4), seed=21)
    assert table.round.hand(0) == match.round.hand(0)
    assert table.agent_selection == f"player_{match.round.to_act}"


def test_round_rewards_are_the_level_swing_per_team() -> None:
    table = raw_env(players=4, max_rounds=1)
    table.reset(seed=4)
    totals = dict.fromkeys(table.possible_agents, 0.0)

    def add(env_: raw_env) -> None:
        for agent, reward in env_.rewards.items():
            totals[agent] += reward

    for _ in play_randomly(table, random.Random(4), add):
        pass
    finished = table.round
    assert finished.is_over and all(table.truncations.values())
    swing = len(finished.caught)
    assert swing >= 1
    for seat, agent in enumerate(table.possible_agents):
        expected = swing if seat % 2 == finished.winning_team else -swing
        assert totals[agent] == expected
        assert table._cumulative_rewards[agent] == expected


def test_match_reward_only_at_the_end_of_the_match() -> None:
    table = raw_env(players=4, reward="match")
    table.reset(seed=2)
    seen: list[dict[str, float]] = []

    def add(env_: raw_env) -> None:
        if any(env_.rewards.values()):
            seen.append(dict(env_.rewards))

    for _ in play_randomly(table, random.Random(2), add):
        pass
    match = table.match
    assert match is not None and match.is_over and all(table.terminations.values())
    assert len(match.results) > 1
    assert len(seen) == 1
    winners = match.winning_team
    assert seen[0] == {f"player_{s}": 1.0 if s % 2 == winners else -1.0 for s in range(4)}


def test_round_rewards_over_a_whole_match_sum_the_swings() -> None:
    table = raw_env(players=4)
    table.reset(seed=6)
    totals = dict.fromkeys(table.possible_agents, 0.0)

    def add(env_: raw_env) -> None:
        for agent, reward in env_.rewards.items():
            totals[agent] += reward

    for _ in play_randomly(table, random.Random(6), add):
        pass
    match = table.match
    assert match is not None and match.is_over
    team0 = sum((1 if r.winning_team == 0 else -1) * len(r.caught) for r in match.results)
    assert totals["player_0"] == totals["player_2"] == team0
    assert totals["player_1"] == totals["player_3"] == -team0


def test_illegal_action_raises_and_changes_nothing() -> None:
    table = raw_env(players=4)
    table.reset(seed=5)
    before = table.round
    observation = table.observe(table.agent_selection)
    illegal = int(np.flatnonzero(observation["action_mask"] == 0)[0])
    with pytest.raises(IllegalAction):
        table.step(illegal)
    with pytest.raises(IllegalAction):
        table.step(10_000)
    with pytest.raises(IllegalAction):
        table.step(table.move_to_action("3", "return"))  # a return action in a play decision
    assert table.round is before
    np.testing.assert_array_equal(
        table.observe(table.agent_selection)["observation"], observation["observation"]
    )


def test_wrapped_illegal_action_ends_the_episode_with_minus_one() -> None:
    table = env(players=4)
    table.reset(seed=5)
    agent = table.agent_selection
    observation, *_ = table.last()
    table.step(int(np.flatnonzero(observation["action_mask"] == 0)[0]))
    assert table.rewards[agent] == -1
    assert all(table.terminations.values())


def test_render_ansi_shows_the_public_table_and_the_acting_seat() -> None:
    table = env(players=4, render_mode="ansi")
    table.reset(seed=8)
    text = table.render()
    acting = table.unwrapped.round.to_act
    assert "level 2" in text and f"player_{acting} decides" in text
    assert table.unwrapped.round.hand(acting) in text
    for seat in range(4):
        if seat != acting:
            assert table.unwrapped.round.hand(seat) not in text


def test_pettingzoo_render_test(capsys: pytest.CaptureFixture[str]) -> None:
    render_test(lambda render_mode=None: env(players=4, render_mode=render_mode))
    assert "decides" in capsys.readouterr().out  # "human" prints the same text


def test_bad_options_are_refused() -> None:
    with pytest.raises(ValueError, match="reward"):
        raw_env(reward="trick")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="max_rounds"):
        raw_env(max_rounds=0)
    with pytest.raises(ValueError, match="render_mode"):
        raw_env(render_mode="rgb_array")
    with pytest.raises(ValueError, match="players"):
        raw_env(players=1)
    table = raw_env(players=4)
    with pytest.raises(ValueError, match="round"):
        table.reset(options={"round": "33456"})
    table.reset(seed=1)
    before = table.round
    start = ff.Match(ff.Rules(players=4), seed=2).round
    with pytest.raises(ValueError, match="level"):
        table.reset(options={"round": start, "levels": ("2", "Z")})
    with pytest.raises(ValueError, match="two levels"):
        table.reset(options={"round": start, "levels": "22"})
    with pytest.raises(ValueError, match="round"):
        table.reset(options={"round": ff.Match(ff.Rules(players=6), seed=2).round})
    assert table.round is before


def test_rule_options_reach_the_engine() -> None:
    table = raw_env(players=4, hooking=False, bomb_ladder="size")
    table.reset(seed=3)
    assert table.rules.hooking is False and table.rules.bomb_ladder == "size"
    rng = random.Random(3)
    for _ in play_randomly(table, rng):
        pass
    assert not any(e["type"] == "hook" for e in table.round.log)


def test_a_full_match_at_two_players() -> None:
    table = env(players=2, max_rounds=3)
    table.reset(seed=1)
    rng = random.Random(1)
    for _agent in table.agent_iter():
        observation, _, terminated, truncated, _ = table.last()
        table.step(None if terminated or truncated else random_legal_action(observation, rng))
    assert table.agents == []


def test_the_docs_example_runs_a_match() -> None:
    text = (Path(__file__).resolve().parents[2] / "docs" / "env.md").read_text(encoding="utf-8")
    example = text.split("```python\n", 1)[1].split("```", 1)[0]
    namespace: dict[str, object] = {}
    exec(compile(example, "docs/env.md", "exec"), namespace)
    table = namespace["table"]
    assert table.agents == []  # type: ignore[attr-defined]
    assert table.unwrapped.match.is_over  # type: ignore[attr-defined]


def _standard_wrappers(table: raw_env) -> Any:
    """The same three wrappers as env(), PettingZoo's own classes as they are."""
    from pettingzoo.utils import wrappers

    wrapped = wrappers.TerminateIllegalWrapper(table, illegal_reward=-1)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    return wrappers.OrderEnforcingWrapper(wrapped)


def _outcome(call: Callable[..., Any], *args: Any) -> tuple[str, Any]:
    """What a call returned, or the type and text of what it raised."""
    try:
        return "ok", call(*args)
    except Exception as error:  # both sides must raise alike, whatever they raise
        return type(error).__name__, str(error)


def _same_state(ours: Any, theirs: Any) -> None:
    for name in ("agent_selection", "agents", "rewards", "terminations", "truncations", "infos"):
        assert _outcome(getattr, ours, name) == _outcome(getattr, theirs, name)
    if theirs._has_reset:
        assert ours._cumulative_rewards == theirs._cumulative_rewards


@pytest.mark.parametrize("illegal_at", [None, 0, 37])
def test_wrappers_behave_as_pettingzoos_own_in_lockstep(illegal_at: int | None) -> None:
    """env()'s wrappers (subclassed for speed) against PettingZoo's plain ones, driven alike:
    before reset, ints and numpy ints, an illegal action, bad actions, steps after the end."""
    ours = env(players=4, max_rounds=1)
    theirs = _standard_wrappers(raw_env(players=4, max_rounds=1))
    assert isinstance(ours, type(theirs))
    _same_state(ours, theirs)
    assert _outcome(ours.last) == _outcome(theirs.last)
    assert _outcome(ours.step, 0) == _outcome(theirs.step, 0)
    ours.reset(seed=11)
    theirs.reset(seed=11)
    rng = random.Random(illegal_at)
    for step, (agent, other) in enumerate(zip(ours.agent_iter(), theirs.agent_iter(), strict=True)):
        assert agent == other
        mine, *rest = ours.last()
        their, *their_rest = theirs.last()
        assert rest == their_rest
        assert (mine["observation"] == their["observation"]).all()
        assert (mine["action_mask"] == their["action_mask"]).all()
        action: Any
        if rest[1] or rest[2]:
            action = None
        elif step == illegal_at:
            action = int(np.flatnonzero(mine["action_mask"] == 0)[0])
        else:
            legal = np.flatnonzero(mine["action_mask"])
            chosen = legal[rng.randrange(len(legal))]
            action = int(chosen) if step % 2 else chosen  # a numpy int every other step
        assert _outcome(ours.step, action) == _outcome(theirs.step, action)
        _same_state(ours, theirs)
    for action in (None, 0, 10_000, -1):
        assert _outcome(ours.step, action) == _outcome(theirs.step, action)
        _same_state(ours, theirs)
    ours.reset(seed=12)
    theirs.reset(seed=12)
    for action in (10_000, -1, True, 2.5):
        assert _outcome(ours.step, action) == _outcome(theirs.step, action)
        _same_state(ours, theirs)
