"""Playing 414 in the terminal against bots: ``fouronefour play``."""

from .game import Quit, TerminalGame, group_hand

__all__ = ["Quit", "TerminalGame", "group_hand"]
