"""ATTILA's card-driven turn as data (ATT 3, 14): the deck is shuffled at the start of each turn
and each card drawn opens one player's phase (melee, reorganisation, shooting, movement); the
turn ends when the deck is spent. The order is the deck's (`deck.DeckTool`), so the sequence
lists the phases a card may open; `phase_of_card` names the one a card opens.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from campo.engine.rulesets.attila.tables import LAST_TURN
from campo.engine.sequence import Phase, SequenceOfPlay


def _card(action: str, title: str, **rest: Any) -> tuple[Phase, Phase]:
    """The phase a player's ``action`` card opens, for player A and for player B."""
    return tuple(Phase(f"{side}.{action}", f"Player {side} {title}", side, **rest)  # type: ignore[return-value]
                 for side in ("A", "B"))


_CARDS = (
    *_card("move", "moves", moves="full",
           does="rolls the Control Points die and moves units and groups (1 PC each, the General "
                "free); mandatory charges first",
           cites=("ATT 14", "ATT 4.A", "ATT 4.C", "ATT 13", "ATT AT26"), stretch=2.0,
           stretch_note="a forced march: one base at double speed for +1 PC, if it does not "
                        "enter melee this turn (ATT 4.D)"),
    *_card("shoot", "shoots", does="bases with missiles shoot; a hit disorders the target",
           cites=("ATT 14", "ATT 6.A", "ATT 6.B", "ATT 6.C")),
    *_card("melee", "starts melee", moves="results", others="results",
           does="bases in contact may attack; a base disordered in melee retreats 5 cm, the "
                "winner may (infantry) or must (cavalry, chariots) advance",
           cites=("ATT 14", "ATT 7.A", "ATT 7.E")),
    *_card("reorganise", "reorganises", does="the player tries to rally his disordered units (1d8)",
           cites=("ATT 14", "ATT 9.A")),
)


def phase_of_card(card: Mapping[str, Any] | None) -> str:
    """The phase a drawn card opens (``{"player", "action"}`` as `deck.Card.to_dict` gives it);
    "shuffle" before the first card of a turn."""
    if not card:
        return "shuffle"
    if card.get("player") is None:
        return "blank"
    return f"{card['player']}.{card['action']}"


def position_of_deck(view: Mapping[str, Any]) -> tuple[int, str | None]:
    """(turn, phase) the deck's view shows (`deck.DeckTool.view`): turn 0 with no phase before
    the first shuffle."""
    turn = int(view.get("turn") or 0)
    return turn, (phase_of_card(view.get("current")) if turn else None)


SEQUENCE = SequenceOfPlay(
    "attila",
    phases=(Phase("shuffle", "Cards shuffled", "none",
                  does="the deck is shuffled at the start of the turn: draw the first card",
                  cites=("ATT 3", "ATT 14")),
            *_CARDS,
            Phase("blank", "Blank card", "none",
                  does="no action (only with the nine-card deck)", cites=("ATT 14", "ATT AT28"))),
    card_driven=True,
    initiative="the cards give the order: shuffled at the start of each turn, drawn one at a "
               "time; the turn ends when none are left (ATT 3, ATT 14)",
    turns=LAST_TURN,
    cites=("ATT 3", "ATT 14", "ATT 15.B"),
    position_of_tool=position_of_deck,
)
