"""The progress bar of the long commands: what is being done, a bar, done of all, and the
time left (``simulate``, ``arena``, ``analyse`` and the analysis bench)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console
    from rich.progress import Progress


def progress_bar(console: Console, **options: Any) -> Progress:
    """A rich ``Progress`` on ``console``; ``options`` go to it (``transient``, ...)."""
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
    )

    return Progress(
        TextColumn("[progress.description]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=console,
        **options,
    )
