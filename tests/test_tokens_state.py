"""Which base a status token is against (engine geometry), and what a token does to the base's
state over the frames (`server.tokens.TokenBoard`): placed after it settles, lifted when it is
gone, never guessed, and the page always wins."""

from __future__ import annotations

import doctest
from dataclasses import dataclass

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from shapely.geometry import Point, Polygon

from campo.engine.geometry.attach import TokenPlace, attach, gaps_and_behind
from campo.engine.geometry.rect import Rect
from campo.server.tokens import LIFT_AFTER_S, PLACE_FRAMES, TokenBoard
from campo.server.unit_state import UnitStates
from campo.vision.tabletop import Roster, RosterBase, RosterToken, card_side_mm


@pytest.mark.parametrize("module", ["campo.vision.tabletop", "campo.calibration.poses", "campo.server.unit_state"])
def test_doctests(module: str) -> None:
    """(The engine's, attach.py's included, run in tests/test_doctests.py.)"""
    import importlib

    result = doctest.testmod(importlib.import_module(module))
    assert result.attempted > 0 and result.failed == 0


@settings(max_examples=200, deadline=None)
@given(st.floats(-200, 200), st.floats(-200, 200), st.floats(0, 359), st.floats(10, 120), st.floats(10, 60))
def test_gap_is_the_distance_to_the_outline(x: float, y: float, heading: float, w: float, d: float) -> None:
    """Checked against shapely's distance from the point to the base's polygon (the oracle)."""
    rect = Rect(0.0, 0.0, heading, w, d)
    gap, _ = gaps_and_behind(x, y, 5.0, [rect])
    outline = Polygon(rect.corners)
    if outline.contains(Point(x, y)):
        assert gap[0] <= -5.0 + 1e-6
    else:
        assert gap[0] == pytest.approx(outline.distance(Point(x, y)) - 5.0, abs=1e-6)


# Two bases side by side facing +y (rear edges at y = 80), 20 mm apart; a card of 13 mm half side.
AOSTA, REGINA = Rect(100.0, 100.0, 90.0, 80.0, 40.0), Rect(200.0, 100.0, 90.0, 80.0, 40.0)
BASES = {"aosta": AOSTA, "regina": REGINA}


@pytest.mark.parametrize(
    ("x", "y", "base", "candidates"),
    [
        (100.0, 66.0, "aosta", ()),                  # touching, behind it
        (100.0, 60.0, "aosta", ()),                  # 6 mm behind: within reach
        (100.0, 40.0, None, ()),                     # 27 mm behind: out of reach
        (150.0, 66.0, None, ("aosta", "regina")),    # in the gap, as near to both: never guessed
        (150.0, 100.0, None, ("aosta", "regina")),   # between the flanks, touching both
        (153.0, 66.0, None, ("aosta", "regina")),    # 3 mm nearer to Regina: still too close to call
        (162.0, 64.0, "regina", ()),                 # clearly nearer to Regina (and behind it)
        (40.0, 100.0, "aosta", ()),                  # at Aosta's left flank, touching
    ],
)
def test_attachment_cases(x: float, y: float, base: str | None, candidates: tuple[str, ...]) -> None:
    a = attach([TokenPlace("t", x, y, 13.0)], BASES, reach_mm=15.0)[0]
    assert (a.base, a.candidates) == (base, candidates)
    assert (a.problem() is None) == (base is not None)


def test_behind_wins_over_a_flank_at_the_same_distance() -> None:
    """A token touching the rear of one base and the flank of another belongs to the first: tokens
    are put behind the unit they mark."""
    column = {"front": Rect(100.0, 100.0, 90.0, 40.0, 40.0), "side": Rect(140.0 + 13.0 + 13.0, 60.0, 90.0, 40.0, 40.0)}
    a = attach([TokenPlace("t", 100.0, 66.0, 13.0)], column, reach_mm=15.0)[0]
    assert a.base == "front" and a.behind


# --- the board: tokens over the frames ----------------------------------------------------------

DICT = "DICT_4X4_250"
HALF = card_side_mm(20.0, DICT) / 2


def _roster() -> Roster:
    def base(marker: int, id: str, type: str = "B") -> RosterBase:
        return RosterBase(marker=marker, id=id, side="A", type=type, width_mm=80, depth_mm=40, marker_size_mm=18,
                          traits={"arm": "infantry"} if type == "B" else {"rank": "division"})
    return Roster(ruleset="italia-se-desta",
                  bases=[base(10, "aosta"), base(11, "regina"), base(12, "gen", "general")],
                  tokens=[RosterToken(marker=40, id="dis", sets={"disordered": True}),
                          RosterToken(marker=41, id="loss-1", adds={"losses": 1}),
                          RosterToken(marker=42, id="loss-2", adds={"losses": 1})])


@dataclass(frozen=True)
class Pose:
    id: str
    x_mm: float
    y_mm: float
    heading_deg: float = 90.0
    stale: bool = False


@dataclass(frozen=True)
class Reading:
    id: str
    x_mm: float
    y_mm: float


POSES = [Pose("aosta", 100.0, 100.0), Pose("regina", 300.0, 100.0), Pose("gen", 500.0, 100.0)]
BEHIND = {"aosta": (100.0, 80.0 - HALF - 1.0), "regina": (300.0, 80.0 - HALF - 1.0), "gen": (500.0, 80.0 - HALF - 1.0)}


class Game:
    """A board fed frame after frame at 5 fps."""

    def __init__(self) -> None:
        self.units = UnitStates(_roster())
        self.board = TokenBoard(_roster(), self.units, DICT)
        self.t = 0.0
        self.events: list[dict] = []

    def frames(self, n: int, **tokens: str | tuple[float, float]) -> None:
        for _ in range(n):
            readings = [Reading(k.replace("_", "-"), *(BEHIND[v] if isinstance(v, str) else v)) for k, v in tokens.items()]
            self.events += [c.event() for c in self.board.update(readings, POSES, self.t)]
            self.t += 0.2

    def traits(self, base: str) -> dict:
        return self.units.traits(base)


def test_a_token_sets_its_trait_once_settled_and_takes_it_back_when_lifted() -> None:
    g = Game()
    g.frames(PLACE_FRAMES - 1, dis="aosta")
    assert g.events == [] and g.traits("aosta") == {}
    g.frames(1, dis="aosta")
    assert g.traits("aosta") == {"disordered": True}
    [placed] = g.events
    assert placed["kind"] == "unit_state" and placed["source"] == "token"
    assert (placed["base"], placed["before"], placed["traits"]) == ("aosta", {"disordered": False}, {"disordered": True})
    # a hand over it for a while changes nothing
    g.frames(int((LIFT_AFTER_S - 1.0) / 0.2))
    g.frames(5, dis="aosta")
    assert len(g.events) == 1
    # lifted for good: taken back, once
    g.frames(int(LIFT_AFTER_S / 0.2) + 2)
    assert g.traits("aosta") == {"disordered": False}
    assert [e["traits"] for e in g.events] == [{"disordered": True}, {"disordered": False}]
    # the page's undo does not touch a token's change
    assert g.units.undo(source="page") is None


def test_a_resumed_game_knows_what_each_token_set() -> None:
    """A server restarted on its recording: the token still lying there changes nothing, and
    lifting it takes back what it set (not what it found after the restore)."""
    g = Game()
    g.frames(PLACE_FRAMES, dis="aosta", loss_1="regina")
    g.frames(PLACE_FRAMES, dis="regina", loss_1="regina")   # the disorder token moved to Regina
    assert all(e["token"] in ("dis", "loss-1") for e in g.events) and len(g.events) == 4
    again = Game()
    again.units.restore([(e["base"], e["traits"]) for e in g.events])
    assert again.board.restore(g.events) == 4
    again.frames(PLACE_FRAMES + 2, dis="regina", loss_1="regina")
    assert again.events == [] and again.traits("regina") == {"disordered": True, "losses": 1}
    again.frames(int(LIFT_AFTER_S / 0.2) + 2, loss_1="regina")
    assert again.traits("regina") == {"disordered": False, "losses": 1}
    assert again.traits("aosta") == {"disordered": False}


def test_nothing_changes_while_the_table_is_not_located() -> None:
    g = Game()
    g.frames(PLACE_FRAMES, dis="aosta")
    for k in range(100):
        assert g.board.update([], POSES, 10.0 + k, located=False) == []
    assert g.traits("aosta") == {"disordered": True}


def test_a_token_moved_to_another_base_moves_its_state() -> None:
    g = Game()
    g.frames(PLACE_FRAMES, dis="aosta")
    g.frames(PLACE_FRAMES, dis="regina")
    assert g.traits("aosta") == {"disordered": False} and g.traits("regina") == {"disordered": True}
    # slid away from every base: it sets nothing and says why
    g.frames(PLACE_FRAMES, dis=(200.0, 300.0))
    assert g.traits("regina") == {"disordered": False}
    [status] = [s for s in g.board.status() if s["id"] == "dis"]
    assert status["against"] is None and status["problem"] == "token dis lies against no base"


def test_two_loss_markers_add_up_and_come_off_one_by_one() -> None:
    g = Game()
    g.frames(PLACE_FRAMES, loss_1="aosta")
    g.frames(PLACE_FRAMES, loss_1="aosta", loss_2=(130.0, 80.0 - HALF - 1.0))
    assert g.traits("aosta") == {"losses": 2}
    g.frames(int(LIFT_AFTER_S / 0.2) + 2, loss_2=(130.0, 80.0 - HALF - 1.0))
    assert g.traits("aosta") == {"losses": 1}
    g.frames(int(LIFT_AFTER_S / 0.2) + 2)
    assert g.traits("aosta") == {"losses": 0}


def test_the_page_wins_and_lifting_leaves_its_value() -> None:
    g = Game()
    g.frames(PLACE_FRAMES, loss_1="aosta")
    assert g.traits("aosta") == {"losses": 1}
    g.units.set("aosta", {"losses": 3}, source="page")
    g.frames(1, loss_1="aosta")
    notes = g.board.status()[1]["notes"]
    assert notes == ["aosta losses was changed on the page to 3: lifting token loss-1 leaves it"]
    g.frames(int(LIFT_AFTER_S / 0.2) + 2)
    assert g.traits("aosta") == {"losses": 3}


def test_a_trait_the_base_does_not_have_is_refused_and_said() -> None:
    g = Game()
    g.frames(PLACE_FRAMES, dis="gen")
    assert g.events == [] and g.traits("gen") == {}
    [status] = [s for s in g.board.status() if s["id"] == "dis"]
    assert status["against"] == "gen" and status["holds"] is None
    assert status["problem"].startswith("token dis against gen sets nothing: ")
    assert "not a state this base has" in status["problem"]


def test_an_ambiguous_token_sets_nothing() -> None:
    g = Game()
    near_both = [Pose("aosta", 100.0, 100.0), Pose("regina", 200.0, 100.0), Pose("gen", 500.0, 100.0)]
    for _ in range(PLACE_FRAMES + 2):
        g.board.update([Reading("dis", 150.0, 66.0)], near_both, g.t)
        g.t += 0.2
    assert g.traits("aosta") == {} and g.traits("regina") == {}
    [status] = [s for s in g.board.status() if s["id"] == "dis"]
    assert status["problem"] == "token dis is as near to aosta and regina: move it against one base"


# --- the change watch: where a token was laid down -------------------------------------------------

def test_the_change_watch_finds_a_card_laid_down_once_still_and_ignores_hands_and_bases() -> None:
    import cv2
    import numpy as np

    from campo.calibration.change_watch import ChangeWatcher

    table = np.full((720, 1280), 120, np.uint8)
    card = cv2.resize(cv2.aruco.generateImageMarker(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_250), 40, 36),
                      (40, 40), interpolation=cv2.INTER_NEAREST)
    watch = ChangeWatcher()
    watch.reset(table)
    hand = table.copy()
    cv2.ellipse(hand, (600, 300), (160, 90), 0, 0, 360, 180, -1)   # a smooth hand, held still
    laid = table.copy()
    laid[400:440, 300:340] = card
    assert watch.settled(hand) == [] and watch.settled(hand) == []       # smooth: no detail
    assert watch.settled(laid) == []                                     # just changed: not still yet
    [window] = watch.settled(laid)                                       # still now: searched once
    assert window.x0 <= 300 and window.x1 >= 340 and window.y0 <= 400 and window.y1 >= 440
    assert watch.settled(laid) == []                                     # taken into the reference
    # on a base's own box (covered), a change is taken without a search
    moved = laid.copy()
    moved[100:140, 900:940] = card
    covered = watch.covered(moved, [np.array([[880.0, 80.0], [960.0, 80.0], [960.0, 160.0], [880.0, 160.0]])], [])
    assert watch.settled(moved, covered) == [] and watch.settled(moved, covered) == []
    assert watch.settled(moved) == []
