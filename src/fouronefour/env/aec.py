"""``fouronefour_v0``: 414 as a PettingZoo AEC environment, in the classic environments' style.

The environment is the table's authority: it holds the :class:`~fouronefour.Match` (every
hand), asks the seat whose decision is pending (``agent_selection``, which during a hook or
unhook offer is the seat offered), and gives each seat an observation built only from what
that seat may see (see :mod:`fouronefour.env.encoding`).
"""

from __future__ import annotations

import random
from operator import attrgetter
from typing import Any, Literal

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from ..engine import Decision, Match, Round, Rules
from ..engine.cards import INDEX, level_index
from .actions import ActionTable
from .encoding import Encoder, Observation

RewardMode = Literal["round", "match"]
RENDER_MODES = ("ansi", "human")
_SEED_RANGE = 2**63


class IllegalAction(ValueError):
    """An action that is not legal for the seat to act (nothing changes)."""


class raw_env(AECEnv):  # type: ignore[misc]  # PettingZoo ships no type information
    """414 for ``players`` seats (agents ``player_0 ...``); see docs/env.md.

    ``reward="round"``: at the end of every round each seat of the winning team gets ``+c``
    and each seat of the other team ``-c``, ``c`` the number of caught players (the levels
    the winners go up). ``reward="match"``: ``+1`` / ``-1`` when the match is won.
    An episode is a match; ``max_rounds=n`` truncates it after ``n`` rounds (``1``: an
    episode per round). Other keyword arguments are :class:`~fouronefour.Rules` options.
    ``reset(seed=s)`` deals the match ``Match(rules, seed=s)``; ``reset(options={"round": r})``
    plays the single round ``r`` (a :class:`~fouronefour.Round`), with team levels
    ``options["levels"]`` (default: both at the round's level).
    """

    metadata = {  # noqa: RUF012  # PettingZoo reads it as a class attribute
        "render_modes": list(RENDER_MODES),
        "name": "fouronefour_v0",
        "is_parallelizable": False,
    }

    def __init__(
        self,
        players: int = 4,
        render_mode: str | None = None,
        reward: RewardMode = "round",
        max_rounds: int | None = None,
        **rule_options: Any,
    ) -> None:
        super().__init__()
        if reward not in ("round", "match"):
            raise ValueError(f"reward must be 'round' or 'match', not {reward!r}")
        if max_rounds is not None and (
            isinstance(max_rounds, bool) or not isinstance(max_rounds, int) or max_rounds < 1
        ):
            raise ValueError(f"max_rounds must be a positive integer or None, not {max_rounds!r}")
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode must be 'ansi', 'human' or None, not {render_mode!r}")
        self.rules = Rules(players=players, **rule_options)
        self.render_mode = render_mode
        self.reward_mode: RewardMode = reward
        self.max_rounds = max_rounds
        self.encoder = Encoder(self.rules)
        self.action_table: ActionTable = self.encoder.table
        self.possible_agents = [f"player_{seat}" for seat in range(players)]
        self._seat_of = {agent: seat for seat, agent in enumerate(self.possible_agents)}
        self.agent_selection: str = self.possible_agents[0]
        observation_space = spaces.Dict(
            {
                "observation": spaces.Box(0, 1, (self.encoder.layout.size,), np.int8),
                "action_mask": spaces.Box(0, 1, (self.action_table.size,), np.int8),
            }
        )
        action_space = spaces.Discrete(self.action_table.size)
        self.observation_spaces = dict.fromkeys(self.possible_agents, observation_space)
        self.action_spaces = dict.fromkeys(self.possible_agents, action_space)
        self._seeder = random.Random()
        self._match: Match | None = None
        self._round: Round | None = None
        self._levels = (0, 0)
        self._level = 0
        self._rounds_done = 0
        self._record = self.encoder.new_record()
        self._log_seen = 0
        self._no_moves = np.zeros(self.action_table.size, dtype=np.int8)
        self._mask = bytearray()
        self._mask_round: Round | None = None
        self._rewarded = False

    # ------------------------------------------------------------------ PettingZoo API

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        options = options or {}
        start = options.get("round")
        if start is not None:  # checked before anything changes
            if not isinstance(start, Round) or start.rules != self.rules or start.is_over:
                raise ValueError("options['round'] must be a Round in progress with these rules")
            given = options.get("levels", (start.level, start.level))
            if isinstance(given, str) or len(given) != 2:
                raise ValueError(f"options['levels'] must be two levels, not {given!r}")
            start_levels = (level_index(given[0]), level_index(given[1]))
        if seed is not None:
            self._seeder = random.Random(seed)
            match_seed = seed
        else:
            match_seed = self._seeder.randrange(_SEED_RANGE)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self._rounds_done = 0
        self._rewarded = False
        if start is not None:
            self._match = None
            self._start_round(start, start_levels)
        else:
            self._match = Match(self.rules, match_seed)
            self._start_round(self._match.round, (0, 0))

    def observe(self, agent: str) -> dict[str, Observation]:
        seat = self._seat_of[agent]
        current = self._current_round()
        own = current.to_act == seat
        decision = current.decision if own else None
        record = self._record
        if record.last_was_claim and not current.is_over:
            top = top_seat = None  # a chained window is pending: as the view, show it closed
        else:
            top, top_seat = current.top, current.top_seat
        observation = self.encoder.encode(
            seat,
            record,
            current.hand_counts(seat),
            current.card_counts(),
            current.finished,
            top,
            top_seat,
            current.turn,
            decision,
            self._level,
            self._levels,
        )
        if own:
            mask = np.frombuffer(bytearray(self._legal_mask(current)), dtype=np.int8)
        else:
            mask = self._no_moves.copy()
        return {"observation": observation, "action_mask": mask}

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        current = self._current_round()
        seat = current.to_act
        decision = current.decision
        assert seat is not None and decision is not None  # the episode ends with the round
        move = self._checked_move(current, decision, action)
        self._cumulative_rewards[agent] = 0.0
        if self._rewarded:  # rewards only come at the end of a round: clear them once
            self._clear_rewards()
            self._rewarded = False

        if self._match is not None:
            before = self._match
            self._match = before.apply(move)
            if self._match.is_over:
                after = self._match.round
            elif self._match.round_number != before.round_number:
                after = current.apply(move)  # the round that ended (the match dealt the next)
            else:
                after = self._match.round
        else:
            after = current.apply(move)
        self._read_log(after)
        if after.is_over:
            self._end_round(after)
        else:
            self._round = after
            to_act = after.to_act
            assert to_act is not None
            self.agent_selection = self.possible_agents[to_act]

    def render(self) -> str | None:
        if self.render_mode is None:
            from gymnasium import logger

            logger.warn("render() called without a render_mode ('ansi' or 'human')")
            return None
        if self.render_mode == "human":
            print(self._text())
            return None
        return self._text()

    def close(self) -> None:
        """Nothing to release: the environment holds no files, windows or processes."""

    # ------------------------------------------------------------------ helpers for users

    def action_to_move(self, action: int) -> str:
        """The move text of ``action`` (see :class:`~fouronefour.env.actions.ActionTable`)."""
        return self.action_table.action_to_move(action)

    def move_to_action(self, move: str, decision: Decision | str = Decision.PLAY) -> int:
        return self.action_table.move_to_action(move, decision)

    def view(self, seat: int) -> dict[str, Any]:
        """The engine's view for ``seat`` (what a bot from :mod:`fouronefour.bots` gets)."""
        if self._match is not None and self._match.round is self._round:
            return self._match.view(seat)
        view = self._current_round().view(seat)
        view["levels"] = [_level_text(self._levels[0]), _level_text(self._levels[1])]
        return view

    @property
    def round(self) -> Round:
        """The round on the table (hidden information: for tests and table authorities)."""
        return self._current_round()

    @property
    def match(self) -> Match | None:
        """The match on the table, None when playing a single given round."""
        return self._match

    # ------------------------------------------------------------------ internals

    def _current_round(self) -> Round:
        if self._round is None:
            raise RuntimeError("call reset() before using the environment")
        return self._round

    def _checked_move(self, current: Round, decision: Decision, action: int | None) -> str:
        table = self.action_table
        if type(action) is int and 0 <= action < table.size and self._legal_mask(current)[action]:
            return table.moves[action]  # the usual case, decided at once
        if action is None or isinstance(action, bool):
            raise IllegalAction(f"seat {current.to_act} must act; got {action!r}")
        try:
            move = self.action_table.action_to_move(action)
        except ValueError as error:
            raise IllegalAction(str(error)) from None
        if not self._legal_mask(current)[int(action)]:
            raise IllegalAction(
                f"action {int(action)} ({self.action_table.labels[int(action)]}) is not legal for "
                f"seat {current.to_act} ({decision}); legal: {', '.join(current.legal_moves())}"
            )
        return move

    def _legal_mask(self, current: Round) -> bytearray:
        """The legal actions of the seat to act as 0/1 bytes, kept for the round it was made
        for (an observation and the step after it share it)."""
        if self._mask_round is not current:
            self._mask = self.encoder.mask_bytes(current.legal_moves(), current.decision)
            self._mask_round = current
        return self._mask

    def _start_round(self, start: Round, levels: tuple[int, int]) -> None:
        self._round = start
        self._levels = levels
        self._level = INDEX[start.level]
        self._record = self.encoder.new_record()
        self._log_seen = 0
        self._read_log(start)
        assert start.to_act is not None
        self.agent_selection = self.possible_agents[start.to_act]

    def _read_log(self, current: Round) -> None:
        """Take the public events that are new since the last step (a declined offer is
        private and makes none)."""
        record_event = self._record.record_event
        for event in current.events_since(self._log_seen):
            record_event(*event)
        self._log_seen = current.log_size

    def _end_round(self, finished_round: Round) -> None:
        self._rounds_done += 1
        team = finished_round.winning_team
        assert team is not None
        match = self._match
        if self.reward_mode == "round":
            swing = float(len(finished_round.caught))
            for agent, seat in self._seat_of.items():
                self.rewards[agent] = swing if seat % 2 == team else -swing
        elif match is not None and match.is_over:
            for agent, seat in self._seat_of.items():
                self.rewards[agent] = 1.0 if seat % 2 == match.winning_team else -1.0
        self._accumulate_rewards()
        self._rewarded = True
        if match is not None:
            self._levels = (INDEX[match.levels[0]], INDEX[match.levels[1]])
        if match is None or match.is_over:
            self._round = finished_round
            self.terminations = dict.fromkeys(self.agents, True)
        elif self.max_rounds is not None and self._rounds_done >= self.max_rounds:
            self._round = finished_round
            self.truncations = dict.fromkeys(self.agents, True)
        else:
            self._start_round(match.round, self._levels)

    def _text(self) -> str:
        current = self._current_round()
        players = self.rules.players
        counts = current.card_counts()
        finished = current.finished
        lines = [
            f"414 round {self._rounds_done + (0 if current.is_over else 1)}, level "
            f"{current.level}, team levels {_level_text(self._levels[0])} / "
            f"{_level_text(self._levels[1])}"
        ]
        for seat in range(players):
            place = f", finished {finished.index(seat) + 1}." if seat in finished else ""
            lines.append(
                f"  {self.possible_agents[seat]} (team {seat % 2}): {counts[seat]} cards{place}"
            )
        if current.is_over:
            lines.append(f"round over: team {current.winning_team} wins, caught {current.caught}")
        else:
            top = f"{current.top} by player_{current.top_seat}" if current.top else "none (lead)"
            acting = current.to_act
            assert acting is not None
            lines.append(f"  to beat: {top}; turn: player_{current.turn}")
            lines.append(
                f"  player_{acting} decides ({current.decision}) with {current.hand(acting)}: "
                f"{' | '.join(current.legal_moves())}"
            )
        return "\n".join(lines)


def _level_text(level: int) -> str:
    from ..engine import RANKS

    return RANKS[level]


def _forward(name: str, guard_reset: bool) -> property:
    """A property reading ``name`` from the environment the wrappers wrap (``_source``, see
    :func:`_fast`): what the chain of wrappers' ``__getattr__`` calls ends up doing, in one
    C-level ``attrgetter`` (the attribute reads were about half of what the three wrappers
    cost per step). ``guard_reset`` keeps OrderEnforcingWrapper's check that the env was
    reset first."""
    if not guard_reset:
        return property(attrgetter(f"_source.{name}"))

    def read_after_reset(self: Any) -> Any:
        if not self._has_reset:
            raise AttributeError(f"{name} cannot be accessed before reset")
        return getattr(self._source, name)

    return property(read_after_reset)


def _bounds_checked_step(self: Any, action: Any) -> None:
    """AssertOutOfBoundsWrapper's step, with its check decided without numpy for a plain int:
    gymnasium's ``Discrete.contains`` builds ``np.iinfo`` on every call, which cost more than
    the rest of the wrapper. Anything other than an int in range goes the standard way."""
    if type(action) is int and 0 <= action < self._action_count:
        self.env.step(action)  # the check passed: what the standard step does next
    else:
        wrappers.AssertOutOfBoundsWrapper.step(self, action)


def _terminate_observe(self: Any, agent: str) -> Any:
    """TerminateIllegalWrapper's observe as it is, with its reads of ``agent_selection`` and
    ``infos`` made directly on the environment."""
    observation = self.env.observe(agent)
    source = self._source
    selection = source.agent_selection
    if agent == selection:
        self._prev_obs = observation
        infos = source.infos
        self._prev_info = infos.get(selection, {})
    return observation


def _terminate_step(self: Any, action: Any) -> None:
    """TerminateIllegalWrapper's step: a legal int action of a live agent after its
    observation (the case of nearly every step) is passed on at once, as the standard step
    ends up doing; anything else goes the standard way."""
    previous = self._prev_obs
    if type(previous) is dict and type(action) is int and not self._terminated:
        mask = previous.get("action_mask")
        source = self._source
        agent = source.agent_selection
        if (
            mask is not None
            and 0 <= action < len(mask)
            and mask[action]
            and not source.terminations[agent]
            and not source.truncations[agent]
        ):
            self._prev_obs = None
            self._prev_info = None
            self.env.step(action)
            return
    wrappers.TerminateIllegalWrapper.step(self, action)


def _order_observe(self: Any, agent: str) -> Any:
    """OrderEnforcingWrapper's observe: once reset, straight to the next environment."""
    if self._has_reset:
        return self.env.observe(agent)
    return wrappers.OrderEnforcingWrapper.observe(self, agent)


def _order_last(self: Any, observe: bool = True) -> Any:
    """AECEnv.last: the same reads, made directly on the environment once reset."""
    if not self._has_reset:
        return AECEnv.last(self, observe)  # raises as the standard wrapper does
    source = self._source
    agent = source.agent_selection
    assert agent is not None
    observation = self.observe(agent) if observe else None
    return (
        observation,
        source._cumulative_rewards[agent],
        source.terminations[agent],
        source.truncations[agent],
        source.infos[agent],
    )


def _order_step(self: Any, action: Any) -> None:
    """OrderEnforcingWrapper's step: once reset and with agents left, straight on."""
    if self._has_reset and self._source.agents:
        self._has_updated = True
        self.env.step(action)
    else:
        wrappers.OrderEnforcingWrapper.step(self, action)


_HOT = ("agent_selection", "agents", "terminations", "truncations", "rewards", "infos")


def _fast(wrapper: Any, guard_reset: bool = False) -> type:
    """The standard wrapper with direct properties for the attributes read on every step."""
    namespace: dict[str, Any] = {name: _forward(name, guard_reset) for name in _HOT}
    namespace["_cumulative_rewards"] = _forward("_cumulative_rewards", False)

    def __init__(self: Any, env: Any, *args: Any, **kwargs: Any) -> None:
        # The environment at the end of the chain: what env's own _source is when env is
        # one of these wrappers, else env itself (a foreign wrapper is read through).
        source = getattr(env, "_source", None)
        self._source = env if source is None else source
        wrapper.__init__(self, env, *args, **kwargs)

    namespace["__init__"] = __init__
    if wrapper is wrappers.TerminateIllegalWrapper:
        namespace["observe"] = _terminate_observe
        namespace["step"] = _terminate_step
    if wrapper is wrappers.OrderEnforcingWrapper:
        namespace["observe"] = _order_observe
        namespace["step"] = _order_step
        namespace["last"] = _order_last
    if wrapper is wrappers.AssertOutOfBoundsWrapper:
        namespace["step"] = _bounds_checked_step
        namespace["_action_count"] = 0  # no int passes the quick check until wrap sets it
    return type(wrapper.__name__, (wrapper,), namespace)


_TerminateIllegal = _fast(wrappers.TerminateIllegalWrapper)
_AssertOutOfBounds = _fast(wrappers.AssertOutOfBoundsWrapper)
_OrderEnforcing = _fast(wrappers.OrderEnforcingWrapper, guard_reset=True)


def env(
    players: int = 4,
    render_mode: str | None = None,
    reward: RewardMode = "round",
    max_rounds: int | None = None,
    **rule_options: Any,
) -> Any:
    """``fouronefour_v0`` with PettingZoo's standard wrappers for classic environments: an
    illegal action ends the episode with reward -1 for its agent, actions are bounds-checked
    and the API's call order is enforced."""
    return wrap(raw_env(players, render_mode, reward, max_rounds, **rule_options))


def wrap(environment: Any) -> Any:
    """PettingZoo's standard classic-environment wrappers (subclassed only to forward the
    attributes read on every step directly, see :func:`_fast`): an illegal action ends the
    episode with reward -1, actions are bounds-checked, the API's call order is enforced."""
    source = environment
    terminate = _TerminateIllegal(source, illegal_reward=-1)
    bounds = _AssertOutOfBounds(terminate)
    order = _OrderEnforcing(bounds)
    spaces_ = [source.action_space(agent) for agent in source.possible_agents]
    if all(type(space) is spaces.Discrete and space.start == 0 for space in spaces_) and (
        len({space.n for space in spaces_}) == 1
    ):
        bounds._action_count = int(spaces_[0].n)
    return order


__all__ = ["IllegalAction", "env", "raw_env", "wrap"]
