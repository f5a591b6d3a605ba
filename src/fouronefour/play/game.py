"""A match in the terminal, one person against bots.

The person sees exactly their seat's view: their hand in the round's order, the table
(top move and who played it, card counts, levels, finishing places), every public event
(plays, passes, hooks, unhooks, finishes, tribute and return cards, each trick's lead) and,
when they may hook or unhook, the offer. They type moves in the notation (``33``, ``345``,
``pass``) or a command (:data:`COMMANDS`).

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
from ..engine import PASS, Decision, IllegalMove, Match, Round, Rules, canonical
from ..engine.cards import RANKS, deck_counts, parse_ranks

#: What may be typed besides a move, and what it does.
COMMANDS = {
    "hint": "what the greedy bot would play",
    "hand": "your hand again",
    "played": "the cards played this round, and those you have not seen",
    "help": "this help (also ?)",
    "quit": "leave the match (also exit)",
}
HELP = (
    "Type a move in the notation: [bold]7[/] [bold]QQ[/] [bold]345[/] [bold]334455[/] "
    "[bold]5555[/] [bold]44A[/] [bold]BR[/] or [bold]pass[/] (also [bold]p[/]); "
    "[bold]10[/] may be typed for T, ranks in any order.\n"
    + "\n".join(f"  [bold]{name}[/]: {what}" for name, what in COMMANDS.items())
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
        bot_label: str | None = None,
    ) -> None:
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < rules.players:
            raise ValueError(f"seat {seat} is not a seat at {rules.players} players")
        self.rules = rules
        self.seat = seat
        self.console = console or Console()
        self._read = read
        self.bots: dict[int, Bot] = {
            s: get(bot, **(bot_params or {})) for s in range(rules.players) if s != seat
        }
        self.bot_name = bot_label or bot
        self.rngs = {s: random.Random(f"play/{seed}/{s}") for s in range(rules.players)}
        self.match = Match(rules, seed=seed)
        self._shown_events = 0
        self._shown_round = 0
        #: (round number, log index) of every event that led a trick
        self._leads: set[tuple[int, int]] = set()

    # ------------------------------------------------------------------ naming

    def name(self, seat: int) -> str:
        if seat == self.seat:
            return "You"
        role = "partner" if seat % 2 == self.seat % 2 else "opponent"
        return f"Seat {seat} ({role}, {self.bot_name})"

    # ------------------------------------------------------------------ output

    def _event_text(self, event: dict[str, Any], lead: bool = False) -> str:
        who = self.name(event["seat"])
        you = event["seat"] == self.seat
        kind = event["type"]
        if kind == "play":
            if lead:
                return f"{who} {'lead' if you else 'leads'} [bold]{event['move']}[/]"
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
        call; a new round starts with a header, a new trick with an empty line."""
        if r is None:
            r = self.match.round
            number = self.match.round_number
            if number != self._shown_round:
                self._shown_round = number
                self._shown_events = 0
                self.console.rule(f"Round {number} at level {r.level}")
        start = self._shown_events
        for index, event in enumerate(r.log_since(start), start):
            lead = (self._shown_round, index) in self._leads
            if lead:
                self.console.print()
            self.console.print(self._event_text(event, lead))
        self._shown_events = r.log_size

    def apply(self, move: str) -> None:
        """Apply the move of the seat to act and show what everyone saw happen."""
        before = self.match.round
        # Public: a play decision with nothing on top is a lead (offers hide nothing here).
        if before.decision is Decision.PLAY and before.top is None:
            self._leads.add((self.match.round_number, before.log_size))
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
        # A line of its own, not the table's title: a title wraps to the table's width.
        self.console.print(
            f"[bold]Round {view['round_number']}, level {view['level']}[/]; levels: "
            f"your team {levels[mine]}, other team {levels[1 - mine]}"
        )
        table = Table()
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

    def show_played(self, view: dict[str, Any]) -> None:
        """The cards played this round (plays, hooks, unhooks), and the cards nobody has
        shown you: the decks less those played and your hand. Public and own facts only."""
        played = [0] * len(RANKS)
        for event in view["log"]:
            if event["type"] in ("play", "hook", "unhook"):
                for rank, n in enumerate(parse_ranks(event["move"])):
                    played[rank] += n
        hand = parse_ranks(view["hand"])
        total = deck_counts(self.rules.deck_count)
        order = [RANKS.index(ch) for ch in view["order"]]
        unseen = [total[r] - played[r] - hand[r] for r in range(len(RANKS))]
        self.console.print(f"Played this round: {_rank_counts(played, order) or 'nothing yet'}")
        self.console.print(f"Not seen by you:   {_rank_counts(unseen, order) or 'nothing'}")

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
        verbs = {"play": "played", "hook": "hooked with", "unhook": "unhooked with"}
        for event in reversed(view["log"]):
            if event["type"] in verbs:
                return f"{self.name(event['seat'])} {verbs[event['type']]} {event['move']}"
        return "An offer"

    def _why_not(self, view: dict[str, Any], text: str, error: IllegalMove) -> str:
        """Why ``text`` is not a move the person may make now, said to them."""
        legal: list[str] = view["legal_moves"]
        decision = view["decision"]
        try:
            move = canonical(text)
        except IllegalMove:
            return str(error)  # not a move at all: the engine names the text and why
        if decision in ("hook", "unhook"):
            return f"you may only {decision} with {legal[0]}, or pass"
        if decision == "return":
            return f"{move!r}: give back one of {' '.join(legal)}"
        if move == PASS:
            return "you lead this trick and may not pass"
        hand = parse_ranks(view["hand"])
        if any(n > hand[r] for r, n in enumerate(parse_ranks(move))):
            return f"you do not hold {move} (your hand: {group_hand(view['hand'])})"
        return str(error)  # held, but it does not beat the move on top: the engine says so

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
            if lowered == "played":
                self.show_played(view)
                continue
            move = "pass" if lowered == "p" else text
            try:
                self.apply(move)
            except IllegalMove as error:
                self.console.print(f"[red]Not legal:[/] {self._why_not(view, move, error)}")
                continue
            return

    def _ask(self, prompt: str) -> str:
        """A line typed by the person; the end of input leaves the match (Ctrl-C is the
        command's to handle: it stops the program)."""
        try:
            if self._read is None:
                return self.console.input(prompt)
            self.console.print(prompt, end="")
            line = self._read()
            self.console.print(line, markup=False, highlight=False)
            return line
        except EOFError:
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
        self.console.print()
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


def _rank_counts(counts: list[int], order: list[int]) -> str:
    """``3x4 5x1 Ax2``: each rank with a count, in ``order``."""
    return " ".join(f"{RANKS[r]}x{counts[r]}" for r in order if counts[r])


__all__ = ["COMMANDS", "HELP", "Quit", "TerminalGame", "group_hand", "ordinal"]
