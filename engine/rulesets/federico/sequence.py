"""Federico's turn as data (Federico "Iniziativa", "Esecuzione del tiro", "Movimenti",
"Mischie", "Morale dell'esercito"): the text does not number the phases; the order is the one it
implies (the digest's section 4).

Initiative is rolled every turn and its winner chooses to move first or second: the turn clock's
``first`` is set by the umpire at each turn's initiative phase.
"""

from __future__ import annotations

from campo.engine.rulesets.federico.units import MAX_TURNS
from campo.engine.sequence import Phase, SequenceOfPlay

SEQUENCE = SequenceOfPlay(
    "federico",
    phases=(
        Phase("initiative", "Initiative", "none", moves="none",
              does="each player rolls 1D6, +1 per objective held, + his Commander in Chief's "
                   "value; the winner chooses to move first or second",
              cites=('Federico "Iniziativa"',)),
        Phase("fire", "Fire (simultaneous)", "both", moves="none",
              does="both sides fire at once, targets declared in advance, before any movement; "
                   "a hit target stands still in its next move", cites=('Federico "Esecuzione del tiro"',)),
        Phase("first.movement", "Movement: first player", "first", moves="full",
              does="the player who moves first moves his regiments and batteries; moving into "
                   "contact declares an attack", cites=('Federico "Movimenti"', 'Federico "Mischie"')),
        Phase("second.movement", "Movement: second player", "second", moves="full",
              does="the other player moves", cites=('Federico "Movimenti"', 'Federico "Mischie"')),
        Phase("melee", "Melee", "both", moves="results",
              does="attacks are resolved; the loser falls back with its back to the enemy "
                   "(10 cm infantry, 20 cm cavalry)", cites=('Federico "Mischie"',)),
        Phase("morale", "Army morale", "none", moves="none",
              does="at the end of the turn, an army that has lost its Commander in Chief's "
                   "percentage tests its morale", cites=('Federico "Morale dell\'esercito"',)),
    ),
    initiative="every turn: 1D6 + 1 per objective held + the Commander in Chief's value; the "
               "winner chooses to move first or second (Federico \"Iniziativa\", F26: a tie is "
               "rolled again)",
    initiative_each_turn=True,
    turns=MAX_TURNS,
    cites=('Federico "Iniziativa"', 'Federico "Movimenti"', 'Federico "Condizioni di vittoria"'),
)
