"""One dependency's outage (PostgreSQL, Redis) as the log tells it: one line when it goes
away, one when it is back with how many failures there were in between, nothing else.

An outage of a few seconds used to log a traceback or a warning for every failed attempt
(several a second per process), burying the lines that say what happened."""

from __future__ import annotations

import logging
import time


class Outage:
    """Whether ``what`` is away, told once each way."""

    def __init__(self, log: logging.Logger, what: str) -> None:
        self._log = log
        self.what = what
        #: When the outage began (monotonic); None while ``what`` answers.
        self.since: float | None = None
        #: The failures since the first (not logged one by one).
        self.failures = 0

    @property
    def away(self) -> bool:
        return self.since is not None

    def failed(self, error: BaseException | str, consequence: str = "") -> bool:
        """A failure: logged if it starts an outage (True then), else only counted."""
        if self.since is not None:
            self.failures += 1
            return False
        self.since = time.monotonic()
        self.failures = 0
        tail = f": {consequence}" if consequence else ""
        self._log.error("%s is away (%s)%s", self.what, _one_line(error), tail)
        return True

    def back(self, consequence: str = "") -> bool:
        """``what`` answers again: logged if it was away (True then)."""
        if self.since is None:
            return False
        seconds = time.monotonic() - self.since
        tail = f"; {consequence}" if consequence else ""
        self._log.warning(
            "%s is back after %.1f s (%d more failures meanwhile)%s",
            self.what,
            seconds,
            self.failures,
            tail,
        )
        self.since = None
        self.failures = 0
        return True


def _one_line(error: BaseException | str) -> str:
    text = str(error) or type(error).__name__
    return " ".join(text.split())
