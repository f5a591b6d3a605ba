"""The progress bar of the long commands: what is being done, a bar, done of all, and the
time left (``simulate``, ``arena``, ``analyse`` and the analysis bench). Where the console
is not a terminal (a log, ``nohup``, a pipe) rich draws nothing until the end, so a line
of each task's progress is printed instead every ``line_seconds``."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console
    from rich.progress import Progress

#: How often a console that is not a terminal gets a line of progress.
LINE_SECONDS = 60.0


def progress_bar(
    console: Console, *, line_seconds: float = LINE_SECONDS, **options: Any
) -> Progress:
    """A rich ``Progress`` on ``console``; ``options`` go to it (``transient``, ...)."""
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TaskID,
        TextColumn,
        TimeRemainingColumn,
    )

    class LoggedProgress(Progress):
        """rich's ``Progress``, which also prints a line at times when not on a terminal."""

        _last_line = time.monotonic()

        def update(self, task_id: TaskID, **fields: Any) -> None:
            super().update(task_id, **fields)
            self._line()

        def advance(self, task_id: TaskID, advance: float = 1) -> None:
            super().advance(task_id, advance)
            self._line()

        def _line(self) -> None:
            if self.disable or self.console.is_terminal:
                return
            now = time.monotonic()
            if now - self._last_line < line_seconds:
                return
            self._last_line = now
            for task in self.tasks:
                if task.finished or task.total is None:
                    continue
                left = task.time_remaining
                eta = "" if left is None else f", about {max(1, round(left / 60))} min left"
                self.console.print(
                    f"{task.description}: {task.completed:,.0f} of {task.total:,.0f}{eta}",
                    highlight=False,
                )

    return LoggedProgress(
        TextColumn("[progress.description]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=console,
        **options,
    )
