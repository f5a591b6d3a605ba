"""414 for reinforcement learning: a PettingZoo AEC environment (``fouronefour_v0``) and a
Gymnasium single-agent wrapper whose other seats are bots. Needs the ``rl`` extra
(``pip install 'fouronefour[rl]'``: numpy, pettingzoo, gymnasium). See docs/env.md.

>>> from fouronefour.env import env
>>> table = env(players=4)
>>> table.reset(seed=7)
>>> observation, reward, terminated, truncated, info = table.last()
>>> observation["observation"].shape, int(observation["action_mask"].sum()) > 0
((1265,), True)
"""

from .actions import ActionTable, UnknownAction, action_table, action_to_move, move_to_action
from .aec import IllegalAction, env, raw_env
from .encoding import Encoder, ObservationLayout, PublicRecord, encode_view
from .single import SingleAgentEnv, default_bot

__all__ = [
    "ActionTable",
    "Encoder",
    "IllegalAction",
    "ObservationLayout",
    "PublicRecord",
    "SingleAgentEnv",
    "UnknownAction",
    "action_table",
    "action_to_move",
    "default_bot",
    "encode_view",
    "env",
    "move_to_action",
    "raw_env",
]
