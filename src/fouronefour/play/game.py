"""A match in the terminal, one person against bots.

The person sees exactly their seat's view: their hand in the round's order, the table
(top move and who played it, card counts, levels, finishing places), every public event
(plays, passes, hooks, unhooks, finishes, tribute and return cards) and, when they may
hook or unhook, the offer. They type moves in the notation (``33``, ``345``, ``pass``),
``hint`` for the greedy bot's choice, ``help`` or ``quit``.

:class:`TerminalGame` takes its input function and a rich ``Console``, so tests drive it
with scripted input.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from rich.console import Console
from rich.table import Table

from ..bots import Bot, get
from ..bots.greedy import GreedyBot
from ..engine import IllegalMove, Match, Round, Rules

HELP = (
    "Type a move in the notation: [bold]7[/] [bold]QQ[/] [bold]345[/] [bold]334455[/] "
    "[bold]5555[/] [bold]44A[/] [bold]BR[/] or [bold]pass[/] (also [bold]p[/]); "
    "[bold]10[/] may be typed for T. [bold]hint[/]: what the greedy bot would play; "
    "[bold]quit[/]: leave the match."
)
_ORDINAL = {1: "1st", 2: "2nd", 3: "3rd"}


def ordinal(n: int) -> str:
    return _ORDINAL.get(n, f"{n}th")


class Quit(Exception):
    """The person left the match."""


class TerminalGame:
    """One person at ``seat``, bots at the other seats, until the match ends or they quit."""

    def __init__(
        self,
        rules: Rules,
        seed: int,
        bot: str = "greedy",
        seat: int = 0,
        console: Console | None = None,
        read: Callable[[], str] | None = None,
        bot_params: dict[str, Any] | None = None,
    ) -> None:
        if not 0 <= seat < rules.players:
            raise ValueError(f"seat {seat} is not a seat at {rules.players} players")
        self.rules = rules
        self.seat = seat
        self.console = console or Console()
        self._read = read
        self.bots: dict[int, Bot] = {
            s: get(bot, **(bot_params or {})) for s in range(rules.players) if s != seat
        }
        self.bot_name = bot
        self.rngs = {s: random.Random(f"play/{seed}/{s}") for s in range(rules.players)}
        self.match = Match(rules, seed=seed)
        self._shown_events = 0
        self._shown_round = 0

    # ------------------------------------------------------------------ naming

    def name(self, seat: int) -> str:
        if seat == self.seat:
            return "You"
        role = "partner" if seat % 2 == self.seat % 2 else "opponent"
        return f"Seat {seat} ({role}, {self.bot_name})"

    # ------------------------------------------------------------------ output

    def _event_text(self, event: dict[str, Any]) -> str:
        who = self.name(event["seat"])
        kind = event["type"]
        if kind == "play":
            return f"{who} played [bold]{event['move']}[/]"
        if kind == "pass":
            return f"{who} passed"
        if kind == "hook":
            return f"{who} [magenta]hooked[/] with [bold]{event['move']}[/]"
        if kind == "unhook":
            return f"{who} [magenta]unhooked[/] with [bold]{event['move']}[/]"
        if kind == "finish":
            return f"{who} [green]finished {ordinal(event['place'])}[/]"
        if kind == "tribute":
            return f"Tribute: {who} gave [bold]{event['card']}[/] to {self.name(event['to'])}"
        if kind == "return":
            return f"Return: {who} gave [bold]{event['card']}[/] back to {self.name(event['to'])}"
        return f"{who}: {kind}"

    def show_new_events(self, r: Round | None = None) -> None:
        """Print the public events of round ``r`` (default: the match's) since the last
        call; a new round starts with a header."""
        if r is None:
            r = self.match.round
            number = self.match.round_number
            if number != self._shown_round:
                self._shown_round = number
                self._shown_events = 0
                self.console.rule(f"Round {number} at level {r.level}")
        for event in r.log_since(self._shown_events):
            self.console.print(self._event_text(event))
        self._shown_events = r.log_size

    def apply(self, move: str) -> None:
        """Apply the move of the seat to act and show what everyone saw happen."""
        before = self.match.round
        rounds = len(self.match.results)
        self.match = self.match.apply(move)
        if len(self.match.results) > rounds:
            # The round ended: show its last events before the next round's header.
            self.show_new_events(self.match.round if self.match.is_over else before.apply(move))
            self.show_round_end()
            if self.match.is_over:
                return
        self.show_new_events()

    def show_table(self, view: dict[str, Any]) -> None:
        levels = view["levels"]
        mine = self.seat % 2
        table = Table(
            title=(
                f"Round {view['round_number']}, level {view['level']} - levels: "
                f"your team {levels[mine]}, other team {levels[1 - mine]}"
            ),
            title_justify="left",
        )
        table.add_column("seat")
        table.add_column("cards", justify="right")
        table.add_column("place")
        table.add_column("")
        finished: list[int] = view["finished"]
        for s in range(view["players"]):
            place = ordinal(finished.index(s) + 1) if s in finished else ""
            marks = []
            if view["top_seat"] == s:
                marks.append(f"top: [bold]{view['top']}[/]")
            if view["turn"] == s and view["decision"] not in ("hook", "unhook"):
                marks.append("to play")
            table.add_row(self.name(s), str(view["counts"][s]), place, ", ".join(marks))
        self.console.print(table)
        if view["tributes"]:
            paid = "; ".join(
                f"{self.name(t['from'])} -> {self.name(t['to'])}: {t['card']}"
                + (f" (returned {t['returned']})" if t["returned"] else "")
                for t in view["tributes"]
            )
            self.console.print(f"Tribute this round: {paid}")
        self.console.print(f"Order of cards: {view['order']}")
        self.console.print(f"Your hand: [bold]{group_hand(view['hand'])}[/]")

    # ------------------------------------------------------------------ turns

    def _prompt(self, view: dict[str, Any]) -> str:
        decision = view["decision"]
        legal: list[str] = view["legal_moves"]
        if decision == "hook":
            claimed = self._claimed(view)
            return f"{claimed}: hook with [bold]{legal[0]}[/]? ({legal[0]} / pass) "
        if decision == "unhook":
            claimed = self._claimed(view)
            return f"{claimed}: unhook with [bold]{legal[0]}[/]? ({legal[0]} / pass) "
        if decision == "return":
            return f"Give a card back for the tribute ({' '.join(legal)}): "
        if view["top"] is None:
            return "You lead. Your move: "
        return f"Beat [bold]{view['top']}[/] or pass: "

    def _claimed(self, view: dict[str, Any]) -> str:
        for event in reversed(view["log"]):
            if event["type"] in ("play", "hook", "unhook"):
                return f"{self.name(event['seat'])} played {event['move']}"
        return "An offer"

    def human_turn(self) -> None:
        view = self.match.view(self.seat)
        self.show_table(view)
        legal: list[str] = view["legal_moves"]
        prompt = self._prompt(view)
        while True:
            text = self._ask(prompt).strip()
            lowered = text.lower()
            if lowered in ("quit", "exit"):  # not "q": that is a queen
                raise Quit
            if lowered in ("help", "?", ""):
                self.console.print(HELP)
                continue
            if lowered == "hint":
                hint = GreedyBot().choose(view, legal, random.Random(0))
                self.console.print(f"hint: {hint}")
                continue
            if lowered == "hand":
                self.console.print(f"Your hand: [bold]{group_hand(view['hand'])}[/]")
                continue
            move = "pass" if lowered == "p" else text
            try:
                self.apply(move)
            except IllegalMove as error:
                self.console.print(f"[red]Not legal:[/] {error}")
                continue
            return

    def _ask(self, prompt: str) -> str:
        try:
            if self._read is None:
                return self.console.input(prompt)
            self.console.print(prompt, end="")
            line = self._read()
            self.console.print(line, markup=False, highlight=False)
            return line
        except (EOFError, KeyboardInterrupt):
            raise Quit from None

    def bot_turn(self, seat: int) -> None:
        r = self.match.round
        move = self.bots[seat].choose(self.match.view(seat), r.legal_moves(), self.rngs[seat])
        self.apply(move)

    def show_round_end(self) -> None:
        result = self.match.results[-1]
        mine = self.seat % 2
        verdict = (
            "[green]Your team wins the round[/]"
            if result.winning_team == mine
            else ("[red]The other team wins the round[/]")
        )
        caught = ", ".join(self.name(s) for s in result.caught) or "nobody"
        self.console.print(
            f"{verdict}: finishing order {', '.join(self.name(s) for s in result.finished)}; "
            f"caught: {caught}; levels now {' / '.join(result.levels_after)} (team 0 / team 1)"
        )

    def play(self) -> Match:
        """Play until the match ends (or :class:`Quit` propagates)."""
        self.console.print(
            f"You are seat {self.seat}, team {self.seat % 2} (seats "
            f"{', '.join(str(s) for s in range(self.seat % 2, self.rules.players, 2))}). "
            "Type [bold]help[/] for help."
        )
        self.show_new_events()
        while not self.match.is_over:
            seat = self.match.round.to_act
            assert seat is not None
            if seat == self.seat:
                self.human_turn()
            else:
                self.bot_turn(seat)
        winner = self.match.winning_team
        text = (
            "[green]Your team wins the match![/]"
            if winner == self.seat % 2
            else ("[red]The other team wins the match.[/]")
        )
        self.console.print(text)
        return self.match


def group_hand(hand: str) -> str:
    """A hand with a space between ranks: ``33 4 555 BR`` -> easier to read."""
    groups: list[str] = []
    for ch in hand:
        if groups and groups[-1][0] == ch:
            groups[-1] += ch
        else:
            groups.append(ch)
    return " ".join(groups)


__all__ = ["Quit", "TerminalGame", "group_hand", "ordinal"]
