"""Status tokens the camera sees, turned into the bases' state as an umpire would.

Each frame, the tokens read (`calibration.tokens`) are attached to the bases by the engine's
geometry (`campo.engine.geometry.attach`). A token's effect follows where it lies, with
hysteresis so that a hand passing over it or a reading at a base's edge changes nothing:

- **Placed**: a token against the same base in `PLACE_FRAMES` frames in a row sets what it says
  on that base (`UnitStates.set(..., source="token")`, a `unit_state` event like any other).
- **Lifted**: a token unread for `LIFT_AFTER_S` seconds while the table is located (or settled
  against another base, or against none) takes back what it set.
- **Page and token**: the page always wins. When the umpire changes on the page a trait a token
  holds, the page's value stands, the token no longer owns that trait, and lifting the token
  leaves it as the page set it (said in the token's status). A token's change is not on the
  page's undo list: lifting the token is its undo.
- **Never guessed**: a token against no base, between two bases equally near, or whose trait or
  value this base cannot take sets nothing; the reason is in `status()` (``/api/status``).

Two tokens may hold the same trait of one base (two loss markers): each adds its own; the
trait goes back to what it was before the first only when the last of them is lifted.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from campo.engine.geometry.attach import Attachment, TokenPlace, attach
from campo.engine.geometry.rect import Rect
from campo.errors import CampoInputError
from campo.server.game_state import PoseLike
from campo.server.unit_state import StateChange, UnitStates
from campo.vision.tabletop import Roster, RosterToken, card_side_mm

PLACE_FRAMES = 3
"""Frames in a row a token must lie against the same base (or none) before that counts."""
LIFT_AFTER_S = 4.0
"""A token unread this long is lifted (longer than a hand over it plus a full scan to find it)."""


@dataclass
class _Held:
    """What a placed token did to its base: the traits it owns and the value it left each at."""

    base: str
    made: dict[str, Any]


@dataclass
class _Track:
    """One token over the frames."""

    token: RosterToken
    last_seen_t: float | None = None
    seen_now: bool = False
    latest: Attachment | None = None        # this frame's attachment, when read
    candidate: str | None = None            # the base it has lain against lately (None: none)
    streak: int = 0                         # frames in a row against `candidate`
    settled: bool = False                   # `candidate` has lasted `PLACE_FRAMES`
    held: _Held | None = None
    refused: str = ""                       # why it set nothing on `candidate`
    notes: list[str] = field(default_factory=list)


@dataclass
class _Owner:
    """A trait of a base held by tokens: the value before the first of them, the value they left."""

    origin: Any
    value: Any
    tokens: set[str] = field(default_factory=set)


class TokenBoard:
    """The roster's tokens over time, applied to `UnitStates` (the live loop's thread only)."""

    def __init__(self, roster: Roster, units: UnitStates, dictionary: str, *,
                 place_frames: int = PLACE_FRAMES, lift_after_s: float = LIFT_AFTER_S) -> None:
        self.roster = roster
        self.units = units
        self.reach_mm = roster.token_reach_mm
        self.place_frames = place_frames
        self.lift_after_s = lift_after_s
        self._sizes = {b.id: (b.width_mm, b.depth_mm) for b in roster.bases}
        self._half = {t.id: card_side_mm(t.size_mm, dictionary) / 2 for t in roster.tokens}
        self._tracks = {t.id: _Track(t) for t in roster.tokens}
        self._owned: dict[tuple[str, str], _Owner] = {}
        self._lock = threading.Lock()   # the live loop updates, /api/status reads

    # --- each frame ---------------------------------------------------------------------------
    def update(self, readings: Sequence[Any], bases: Sequence[PoseLike], t: float,
               located: bool = True) -> list[StateChange]:
        """Feed one frame's token readings (id, x_mm, y_mm) and base poses at time ``t`` (s);
        the state changes this makes. A frame without the table located changes nothing."""
        with self._lock:
            if not located:   # nothing is read, nothing is lifted
                for track in self._tracks.values():
                    track.seen_now, track.latest = False, None
                return []
            return self._update(readings, bases, t)

    def _update(self, readings: Sequence[Any], bases: Sequence[PoseLike], t: float) -> list[StateChange]:
        rects = {b.id: Rect(b.x_mm, b.y_mm, b.heading_deg, *self._sizes[b.id])
                 for b in bases if b.id in self._sizes}
        places = [TokenPlace(r.id, r.x_mm, r.y_mm, self._half[r.id]) for r in readings if r.id in self._tracks]
        found = {a.token: a for a in attach(places, rects, reach_mm=self.reach_mm)}
        changes: list[StateChange] = []
        for token_id, track in self._tracks.items():
            now = found.get(token_id)
            track.seen_now = now is not None
            track.latest = now
            if track.held is not None and track.last_seen_t is None:
                track.last_seen_t = t   # restored from a recording: lifted unless seen again
            if now is not None:
                track.last_seen_t = t
                self._settle(track, now.base, changes)
            elif track.last_seen_t is not None and t - track.last_seen_t > self.lift_after_s:
                track.candidate, track.streak, track.settled = None, 0, False
                track.last_seen_t = None
                self._release(track, changes)
        return changes

    def _settle(self, track: _Track, base: str | None, changes: list[StateChange]) -> None:
        if base == track.candidate:
            track.streak += 1
        else:
            track.candidate, track.streak, track.settled = base, 1, False
        if track.settled or track.streak < self.place_frames:
            return
        track.settled = True
        track.refused = ""
        if track.held is not None and track.held.base != base:
            self._release(track, changes)
        if base is not None and track.held is None:
            self._place(track, base, changes)

    # --- placing and lifting ------------------------------------------------------------------
    def _place(self, track: _Track, base: str, changes: list[StateChange]) -> None:
        token = track.token
        after: dict[str, Any] = dict(token.sets)
        try:
            now = {key: self._current(base, key) for key in (*token.sets, *token.adds)}
            for key, n in token.adds.items():
                count = now[key] if isinstance(now[key], int) and not isinstance(now[key], bool) else 0
                after[key] = count + n
            change = self.units.set(base, after, source="token", token=token.id)
        except CampoInputError as exc:
            track.refused = f"token {token.id} against {base} sets nothing: {exc}"
            return
        for key, value in change.after.items():
            owner = self._owned.get((base, key))
            if owner is None:
                owner = self._owned[(base, key)] = _Owner(change.before[key], value)
            owner.value = value
            owner.tokens.add(token.id)
        track.held = _Held(base, dict(change.after))
        track.notes.clear()
        changes.append(change)

    def _release(self, track: _Track, changes: list[StateChange]) -> None:
        """Take back what ``track``'s token set, where the page has not changed it since."""
        held, track.held = track.held, None
        if held is None:
            return
        token = track.token
        back: dict[str, Any] = {}
        for key in held.made:
            self._current(held.base, key)
            owner = self._owned.get((held.base, key))
            if owner is None or token.id not in owner.tokens:
                continue   # the page took this trait over (said when it happened)
            owner.tokens.discard(token.id)
            if key in token.adds:
                owner.value = back[key] = max(0, owner.value - token.adds[key])
            if not owner.tokens:
                back[key] = owner.origin
                del self._owned[(held.base, key)]
        if not back:
            return
        try:
            changes.append(self.units.set(held.base, back, source="token", token=token.id))
        except CampoInputError as exc:   # e.g. the base's limits changed with its other traits
            track.notes.append(f"lifting token {token.id} could not take back {held.base}'s state: {exc}")

    def _current(self, base: str, key: str) -> Any:
        """A trait's value now; a trait the page changed since tokens set it is theirs no more."""
        value = self.units.value(base, key)
        owner = self._owned.get((base, key))
        if owner is not None and value != owner.value:
            for token_id in owner.tokens:
                self._tracks[token_id].notes.append(
                    f"{base} {key} was changed on the page to {value!r}: lifting token {token_id} leaves it")
            del self._owned[(base, key)]
        return value

    def restore(self, events: Sequence[dict[str, Any]]) -> int:
        """What the tokens held when a recording stopped, from its `unit_state` events with a
        ``token`` (oldest first): a server resumed on it takes back what a token set when the
        token is lifted, and changes nothing while it still lies there. How many were read."""
        read = 0
        with self._lock:
            for e in events:
                track = self._tracks.get(str(e.get("token")))
                base, after = e.get("base"), e.get("traits")
                if track is None or base not in self._sizes or not isinstance(after, dict):
                    continue
                read += 1
                if track.held is None or track.held.base != base:   # placed
                    for key, value in after.items():
                        owner = self._owned.setdefault((base, key), _Owner(dict(e.get("before") or {}).get(key), value))
                        owner.value = value
                        owner.tokens.add(track.token.id)
                    track.held, track.candidate, track.settled = _Held(base, dict(after)), base, True
                else:                                              # taken back
                    for key, value in after.items():
                        owner = self._owned.get((base, key))
                        if owner is not None:
                            owner.tokens.discard(track.token.id)
                            owner.value = value
                            if not owner.tokens:
                                del self._owned[(base, key)]
                    track.held, track.candidate, track.settled = None, None, False
        return read

    # --- what the page and /api/status show ---------------------------------------------------
    def status(self) -> list[dict[str, Any]]:
        """Each token: where it is, what it does and, when it sets nothing, why."""
        with self._lock:
            for base, key in list(self._owned):   # traits the page changed under the tokens
                self._current(base, key)
            return self._status()

    def _status(self) -> list[dict[str, Any]]:
        out = []
        for track in self._tracks.values():
            token = track.token
            latest = track.latest
            problem = None
            if track.refused:
                problem = track.refused
            elif latest is not None and latest.base is None:
                problem = latest.problem()
            out.append({
                "id": token.id, "marker": token.marker, "name": token.label, "meaning": token.meaning,
                "seen": track.seen_now,
                "against": None if latest is None else latest.base,
                "holds": None if track.held is None else track.held.base,
                "problem": problem,
                "notes": list(dict.fromkeys(track.notes))[-3:],
            })
        return out

    def problems(self) -> list[str]:
        """Every token's problem and note, in words (the status bar's list)."""
        return problem_lines(self.status())


def problem_lines(status: list[dict[str, Any]]) -> list[str]:
    """The problems and notes of `TokenBoard.status`, one line each."""
    return [p for s in status for p in ([s["problem"]] if s["problem"] else []) + s["notes"]]
