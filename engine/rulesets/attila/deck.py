"""The deck of cards that sequences each turn (ATT 3, 14; reading AT28), as an umpire's helper.

>>> d = Deck(seed=7)
>>> d.new_turn(); first = d.draw()
>>> first in d.cards and d.turn == 1 and len(d.remaining) == 7
True
>>> Deck(seed=7).shuffled(1) == Deck(seed=7).shuffled(1)   # same seed, same order
True
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from campo.engine.rulesets.attila.settings import AttilaSettings


@dataclass(frozen=True)
class Card:
    player: str | None      # "A", "B" or None for the blank ninth card
    action: str             # "melee", "reorganise", "shoot", "move", "blank"

    @property
    def text(self) -> str:
        """The card's words (ATT 14)."""
        if self.player is None:
            return "Blank card: no action (ATT AT28)"
        words = {"melee": "starts Melee («inizia la Mischia»)",
                 "reorganise": "attempts Reorganisation («tenta la Riorganizzazione»)",
                 "shoot": "Shoots («Tira»)",
                 "move": "rolls for Control Points and moves («lancia i dadi per i Punti di "
                         "Controllo e muove»)"}[self.action]
        return f"Player {self.player} {words}"

    def to_dict(self) -> dict[str, Any]:
        return {"player": self.player, "action": self.action, "text": self.text}


ACTIONS = ("melee", "reorganise", "shoot", "move")


def deck_cards(settings: AttilaSettings | None = None) -> tuple[Card, ...]:
    """The 8 cards listed in ATT 14 (plus a blank one under at28_deck = 'nine_with_blank')."""
    cards = [Card(p, a) for a in ACTIONS for p in ("A", "B")]
    if settings is not None and settings.at28_deck == "nine_with_blank":
        cards.append(Card(None, "blank"))
    return tuple(cards)


@dataclass
class Deck:
    """Shuffle at the start of each turn, draw one card at a time; the turn ends when none are
    left (ATT 3 «quando tutte le carte sono esaurite il turno termina»). Seeded, so a recorded
    game can be replayed."""

    seed: int | str | None = None
    settings: AttilaSettings | None = None
    turn: int = 0
    remaining: list[Card] = field(default_factory=list)
    drawn: list[Card] = field(default_factory=list)

    @property
    def cards(self) -> tuple[Card, ...]:
        return deck_cards(self.settings)

    def shuffled(self, turn: int) -> list[Card]:
        """The order of the cards in ``turn`` (depends only on the seed and the turn)."""
        order = list(self.cards)
        random.Random(f"{self.seed}:{turn}").shuffle(order)
        return order

    def new_turn(self) -> None:
        """Start the next turn with the whole deck reshuffled (ATT 14)."""
        self.turn += 1
        self.remaining = self.shuffled(self.turn)
        self.drawn = []

    def draw(self) -> Card | None:
        """The next card, or None when the turn is over (call new_turn)."""
        if not self.remaining:
            return None
        card = self.remaining.pop(0)
        self.drawn.append(card)
        return card

    @property
    def turn_over(self) -> bool:
        return self.turn > 0 and not self.remaining

    def to_dict(self) -> dict[str, Any]:
        """What the overlay shows: the turn, the cards drawn so far, how many are left."""
        return {"turn": self.turn, "drawn": [c.to_dict() for c in self.drawn],
                "remaining": len(self.remaining), "turn_over": self.turn_over}


UNDO_DEPTH = 200


class DeckTool:
    """The deck as the umpire's tool on the page (`Ruleset.umpire_tool`): ``shuffle`` starts the
    next turn, ``draw`` turns a card, ``undo`` takes the last shuffle or draw back (the card
    goes back on top: the next draw deals it again). Seeded (the seed is shown) so a game's
    cards can be replayed; the deck's make-up follows the setting in force when it is shuffled
    (ATT AT28). Thread-safe: the page and the HTTP API may act at once."""

    topic = "deck"
    actions = ("shuffle", "draw", "undo")

    def __init__(self, seed: int | None = None) -> None:
        import secrets
        import threading

        self.seed = secrets.randbelow(10**9) if seed is None else seed
        self._deck = Deck(seed=self.seed)
        self._lock = threading.Lock()
        self._history: list[Deck] = []   # the deck before each shuffle and draw, for undo

    def act(self, action: str, settings: AttilaSettings) -> dict[str, Any]:
        from campo.errors import CampoInputError

        with self._lock:
            if action == "undo":
                if not self._history:
                    raise CampoInputError("nothing to undo on the deck", key="deck")
                self._deck = self._history.pop()
                return self._view()
            before = Deck(self._deck.seed, self._deck.settings, self._deck.turn,
                          list(self._deck.remaining), list(self._deck.drawn))
            if action == "shuffle":
                self._deck.settings = settings
                self._deck.new_turn()
            elif action == "draw":
                if self._deck.draw() is None:
                    raise CampoInputError("no card left in this turn: shuffle to start the next "
                                          "turn", key="deck")
            else:
                raise CampoInputError(f"unknown deck action {action!r} (shuffle, draw or undo)",
                                      key="action")
            self._history.append(before)
            del self._history[:-UNDO_DEPTH]
            return self._view()

    def restore(self, seed: int, turn: int, drawn: int, settings: AttilaSettings) -> dict[str, Any]:
        """Carry on a recorded game: its seed, ``turn`` shuffled and ``drawn`` cards of it drawn
        (the same cards, since the order depends only on the seed and the turn)."""
        with self._lock:
            self.seed = seed
            self._deck = Deck(seed=seed, settings=settings, turn=max(0, turn - 1))
            if turn > 0:
                self._deck.new_turn()
                for _ in range(max(0, drawn)):
                    if self._deck.draw() is None:
                        break
            self._history.clear()
            return self._view()

    def view(self) -> dict[str, Any]:
        """What every page shows: the turn, the card just drawn, those drawn and those left."""
        with self._lock:
            return self._view()

    def _view(self) -> dict[str, Any]:
        d = self._deck
        out = d.to_dict()
        out["seed"] = self.seed
        out["current"] = d.drawn[-1].to_dict() if d.drawn else None
        out["left"] = sorted(c.text for c in d.remaining)  # which cards are left, not their order
        out["size"] = len(d.cards)
        return out
