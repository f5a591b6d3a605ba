"""Errors raised by the engine."""


class IllegalMove(ValueError):
    """A move that is not a combination at all, or not legal in the current state.

    The message names the offending text and says why; the state it was tried on is unchanged.
    """
