"""The turn of "L'Italia s'è desta!" as data (ISD §5): Player A's impulse, then Player B's, each
bombardment, fire, manoeuvre and charges, melee; army morale once both have played (ISD §11).

"Player A" is the player with the initiative (ISD §3: decided by dice in turn 1), not necessarily
the table's side A: the phases are the first and the second impulse, and the turn clock's
``first`` says which table side plays first. After turn 1 the
impulses keep the same order (ISD A44's proposed reading).
"""

from __future__ import annotations

from campo.engine.sequence import Phase, SequenceOfPlay


def _impulse(order: str, who: str) -> tuple[Phase, ...]:
    actor = "first" if order == "first" else "second"
    return (
        Phase(f"{order}.bombardment", f"{who}: bombardment", actor, moves="none", others="results",
              does="the side's artillery fires, each gun's result applied at once; a target may "
                   "fall back 3\" (artillery that fires may not move in the manoeuvre phase)",
              cites=("ISD §5", "ISD §6")),
        Phase(f"{order}.fire", f"{who}: fire", actor, moves="none", others="results",
              does="musketry, all its consequences applied (units that fire may not move in the "
                   "following manoeuvre phase)", cites=("ISD §5", "ISD §7")),
        Phase(f"{order}.manoeuvre", f"{who}: manoeuvre and charges", actor, moves="full",
              others="results",
              does="replace fallen generals, attach or detach commanders; test to move units, "
                   "move limbered artillery, turn artillery in battery; charges are moves into "
                   "contact; move commanders not attached to units",
              cites=("ISD §5", "ISD §8", "ISD ManTab")),
        Phase(f"{order}.melee", f"{who}: melee", actor, moves="results", others="results",
              does="both players resolve at once the melees the charges began; falling back, "
                   "pursuit and breakthrough", cites=("ISD §5", "ISD §9")),
    )


SEQUENCE = SequenceOfPlay(
    "italia-se-desta",
    phases=(*_impulse("first", "First impulse"), *_impulse("second", "Second impulse"),
            Phase("morale", "Morale tests", "none", moves="results",
                  does="army morale tests once both players have played their impulse; a unit "
                       "or formation that fails falls back or routs",
                  cites=("ISD §5", "ISD §11"))),
    initiative="turn 1: each player rolls 2d6 plus his generals' points, the higher is Player A "
               "(ISD §3); then the impulses alternate A, B every turn (ISD A44)",
    initiative_each_turn=False,
    cites=("ISD §5", "ISD §3", "ISD A44"),
)
