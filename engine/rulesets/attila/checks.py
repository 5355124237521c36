"""Problems an ATTILA state can have beyond bad types and traits (warnings the umpire sees)."""

from __future__ import annotations


from campo.engine.ruleset import Problem, placement_problems
from campo.engine.rulesets.attila.board import Board
from campo.engine.rulesets.attila.deployment import deployment_problems
from campo.engine.rulesets.attila.groups import Groups
from campo.engine.rulesets.attila.morale import army_problems


def state_problems(board: Board) -> list[Problem]:
    out = placement_problems(board.state)
    out += army_problems(board)
    out += group_problems(board)
    out += deployment_problems(board)
    return out


def group_problems(board: Board) -> list[Problem]:
    """A deployment label that mixes light and heavy bases (ATT 4.H), or that is not one body
    while deploying (ATT 4.L)."""
    out = []
    by_label: dict[str, set[str | None]] = {}
    for u in board.units.values():
        if u.is_troops and u.group_label is not None:
            by_label.setdefault(u.group_label, set()).add(u.group_class(board.settings))
    for label, classes in sorted(by_label.items()):
        if len(classes) > 1:
            members = tuple(sorted(i for i, u in board.units.items() if u.group_label == label))
            out.append(Problem(f"traits.group({label})", f"group {label!r} mixes "
                               f"{' and '.join(sorted(str(c) for c in classes))} bases: heavy and "
                               "light units are never mixed in one group (ATT 4.H, AT13)",
                               "warning", members))
    if board.state.scenario.phase == "deployment":
        for g in Groups.of(board).groups:
            if g.split:
                out.append(Problem(f"traits.group({g.label})", f"group {g.label!r} is not one "
                                   "body of bases touching side to side (ATT 4.L)", "warning",
                                   g.members))
    return out
