"""Each rulebook's sequence of play as data (issue 14 item 3): the phases of a turn with who acts
and what each side's bases may do with their move, citing the rules; stepping through them; a
move judged against the phase it was made in."""

from __future__ import annotations

import doctest
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import campo.engine.sequence as sequence_module
from campo.engine.registry import get_ruleset, ruleset_names
from campo.engine.sequence import (
    Phase,
    Position,
    SequenceOfPlay,
    judge_move,
    next_position,
    previous_position,
)
from campo.errors import CampoInputError

CITATION = {"italia-se-desta": r"^ISD (§\d+|ManTab|A\d+)$",
            "federico": r'^Federico "[^"]+"$|^Federico F\d+$',
            "attila": r"^ATT (\d+(\.[A-Z])?|AT\d+|T)$"}


def test_doctests() -> None:
    assert doctest.testmod(sequence_module).failed == 0


@pytest.mark.parametrize("name", ruleset_names())
def test_every_rulebook_gives_its_turn_with_cited_phases(name: str) -> None:
    seq = get_ruleset(name).sequence_of_play()
    assert isinstance(seq, SequenceOfPlay) and seq.ruleset == name
    assert seq.phases and seq.initiative
    for phase in seq.phases:
        assert phase.cites, f"{name} {phase.key} cites no rule"
        for cite in phase.cites:
            assert re.match(CITATION[name], cite), f"{name} {phase.key}: {cite!r}"
        assert phase.moves in ("full", "results", "none") and phase.others in ("full", "results", "none")
        assert phase.title and phase.does
    # somebody makes full moves in every rulebook's turn
    assert any(p.moves == "full" for p in seq.phases)


def test_isd_turn_is_two_impulses_then_morale() -> None:
    """ISD §5: A's impulse (bombardment, fire, manoeuvre and charges, melee), then B's; morale
    tests once both have played (§11)."""
    seq = get_ruleset("italia-se-desta").sequence_of_play()
    assert [p.key for p in seq.phases] == [
        "first.bombardment", "first.fire", "first.manoeuvre", "first.melee",
        "second.bombardment", "second.fire", "second.manoeuvre", "second.melee", "morale"]
    assert not seq.card_driven and not seq.initiative_each_turn
    manoeuvre = seq.phase("second.manoeuvre")
    assert manoeuvre.acting_side("A") == "B" and manoeuvre.moves_of("B", "A") == "full"
    assert seq.phase("first.bombardment").moves_of("A", "A") == "none"
    # the target of a bombardment may fall back 3" (ISD §6): a result, the other side's
    assert seq.phase("first.bombardment").moves_of("B", "A") == "results"


def test_federico_initiative_each_turn_and_two_movements() -> None:
    seq = get_ruleset("federico").sequence_of_play()
    assert seq.initiative_each_turn and seq.turns == 16
    assert [p.key for p in seq.phases] == ["initiative", "fire", "first.movement",
                                           "second.movement", "melee", "morale"]
    assert seq.phase("fire").actor == "both" and seq.phase("fire").moves == "none"
    # B won the initiative and moves first: B moves in the first movement, A waits
    assert seq.phase("first.movement").moves_of("B", "B") == "full"
    assert seq.phase("first.movement").moves_of("A", "B") == "none"


def test_attila_cards_open_its_phases() -> None:
    from campo.engine.rulesets.attila.deck import Deck
    from campo.engine.rulesets.attila.sequence import phase_of_card, position_of_deck

    seq = get_ruleset("attila").sequence_of_play()
    assert seq.card_driven
    with pytest.raises(CampoInputError, match="cards"):
        next_position(seq, Position())
    deck = Deck(seed=3)
    deck.new_turn()
    for card in deck.shuffled(1):
        phase = seq.phase(phase_of_card(card.to_dict()))
        assert phase.acting_side("A") == card.player
    assert seq.phase("A.move").stretch == 2.0   # forced march (ATT 4.D)
    assert position_of_deck({"turn": 0, "current": None}) == (0, None)
    assert position_of_deck({"turn": 2, "current": None}) == (2, "shuffle")


def test_unknown_phase_names_the_known_ones() -> None:
    seq = get_ruleset("federico").sequence_of_play()
    with pytest.raises(CampoInputError, match="initiative, fire"):
        seq.phase("lunch")


def test_duplicate_phase_keys_are_refused() -> None:
    with pytest.raises(ValueError, match="unique"):
        SequenceOfPlay("x", phases=(Phase("a", "A", "both"), Phase("a", "A", "both")))


@pytest.mark.parametrize("name", ["italia-se-desta", "federico"])
def test_a_whole_turn_comes_round_to_the_next(name: str) -> None:
    seq = get_ruleset(name).sequence_of_play()
    at = next_position(seq, Position())
    assert (at.turn, at.phase) == (1, seq.phases[0].key)
    for _ in seq.phases:
        at = next_position(seq, at)
    assert (at.turn, at.phase) == (2, seq.phases[0].key)


@settings(max_examples=60, deadline=None)
@given(name=st.sampled_from(["italia-se-desta", "federico"]),
       steps=st.lists(st.sampled_from(["next", "back", "A", "B"]), max_size=40))
def test_back_undoes_next(name: str, steps: list[str]) -> None:
    """Against a naive oracle: a stack of every position reached. Stepping back returns to the
    position before the last step forward, with who played first in that turn."""
    seq = get_ruleset(name).sequence_of_play()
    at, first_of = Position(), {}
    history: list[Position] = []
    for step in steps:
        if step == "next":
            history.append(at)
            at = next_position(seq, at)
        elif step == "back":
            at = previous_position(seq, at, first_of)
            if history:
                expected = history.pop()
                assert (at.turn, at.phase) == (expected.turn, expected.phase)
                if at.phase is not None:
                    assert at.first == first_of.get(at.turn, at.first)
            else:
                assert at == Position(first=at.first)
        elif at.phase is not None:
            at = Position(at.turn, at.phase, step)
            history = [Position(p.turn, p.phase, step) if p.turn == at.turn else p for p in history]
        if at.turn > 0:
            first_of[at.turn] = at.first


# --- a move judged against the phase ---------------------------------------------------------
ISD = get_ruleset("italia-se-desta").sequence_of_play()
FED = get_ruleset("federico").sequence_of_play()
ATT = get_ruleset("attila").sequence_of_play()


@pytest.mark.parametrize(("seq", "phase", "first", "side", "furthest", "verdict"), [
    (ISD, "first.bombardment", "A", "A", 50, "not_now"),       # ISD §6: the firing side stays
    (ISD, "first.bombardment", "A", "B", 75, "result"),        # its target may fall back 3"
    (ISD, "first.manoeuvre", "A", "A", 150, "ok"),
    (ISD, "first.manoeuvre", "A", "A", 250, "too_far"),
    (ISD, "first.manoeuvre", "B", "B", 150, "ok"),             # B has the initiative: B's impulse first
    (ISD, "second.manoeuvre", "B", "B", 150, "result"),
    (ISD, "first.melee", "A", "B", 75, "result"),
    (FED, "fire", "A", "A", 30, "not_now"),                    # fire comes before movement
    (FED, "first.movement", "B", "B", 90, "ok"),
    (FED, "first.movement", "B", "A", 90, "not_now"),
    (FED, "initiative", "A", "B", 10, "not_now"),
    (ATT, "A.move", "A", "A", 200, "ok"),
    (ATT, "A.move", "A", "A", 350, "stretched"),               # forced march (ATT 4.D)
    (ATT, "A.move", "A", "A", 450, "too_far"),
    (ATT, "A.move", "A", "B", 50, "not_now"),
    (ATT, "B.shoot", "A", "B", 50, "not_now"),
    (ATT, "B.melee", "A", "A", 50, "result"),                  # retreat 5 cm (ATT 7.E)
])
def test_judge_move(seq: SequenceOfPlay, phase: str, first: str, side: str, furthest: float,
                    verdict: str) -> None:
    got = judge_move(seq.phase(phase), first, side, furthest_mm=furthest, allowance_mm=200,
                     tolerance_mm=3)
    assert got.verdict == verdict, got.reason
    assert got.cites == seq.phase(phase).cites
    if verdict == "too_far":
        assert got.limit_mm == (400 if seq is ATT else 200)


def test_judge_move_without_phase_side_or_allowance_is_unknown() -> None:
    assert judge_move(None, "A", "A", furthest_mm=1, allowance_mm=1).verdict == "unknown"
    assert judge_move(ISD.phase("first.manoeuvre"), "A", None, furthest_mm=1,
                      allowance_mm=1).verdict == "unknown"
    assert judge_move(ISD.phase("first.manoeuvre"), "A", "A", furthest_mm=1,
                      allowance_mm=None).verdict == "unknown"


@pytest.mark.parametrize("name", ruleset_names())
def test_rulesets_docs_show_the_sequence(name: str) -> None:
    from pathlib import Path

    from campo.engine.sequence import refresh_doc

    doc = Path(__file__).resolve().parents[1] / "docs" / "rulesets" / f"{name}.md"
    text = doc.read_text(encoding="utf-8")
    assert refresh_doc(text, name) == text, (
        f"{doc.name}'s sequence is stale: run `.venv/bin/python -m campo.engine.sequence {name} "
        f"docs/rulesets/{name}.md`")
    assert "| 1 |" in text.split("<!-- generated:sequence -->")[1]
