"""The demo game: a scripted, looped engagement for "L'Italia s'è desta!" seen by a synthetic camera.

A Piedmontese division (Brigate Aosta, Regina, Savoia, the Granatieri, two Bersaglieri battalions,
a three-gun battery, Gen. Durando) meets an Austrian one (IR 45, 11, 17, two Feldjäger
battalions, two guns, FML Clam-Gallas) over ~90 s: advance, wheel, fire, charge into contact,
fall back, regroup; players' hands reach over the table now and then, and lay status tokens
against two units for a while (`demo_tokens.py`). The data is in
`demo_data/` (table.toml, roster.toml, terrain.json, script.json); `--source demo` plays
`DemoCamera.render(t)` frames through the real pipeline.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from campo.vision.camera_model import Intrinsics
from campo.errors import FileFormatError
from campo.vision.synthetic.effects import Effects
from campo.vision.synthetic.pose import CameraPose, overhead
from campo.vision.synthetic.render import SyntheticCamera
from campo.vision.synthetic.demo_tokens import TokenSpan, load_token_spans, tokens_at
from campo.vision.synthetic.scene import Hand, PlacedBase, PlacedToken
from campo.vision.synthetic.truth import Render
from campo.vision.tabletop import Roster, RosterBase, TableConfig, load_roster, load_table

DATA_DIR = Path(__file__).with_name("demo_data")

Pose = tuple[float, float, float]  # x_mm, y_mm, heading_deg


def ease(u: float) -> float:
    """Smoothstep: starts and stops gently (zero speed at both ends)."""
    u = min(max(u, 0.0), 1.0)
    return u * u * (3.0 - 2.0 * u)


def _angle_between(a: float, b: float) -> float:
    """Signed shortest turn from heading a to heading b, degrees in (-180, 180]."""
    d = (b - a) % 360.0
    return d - 360.0 if d > 180.0 else d


@dataclass(frozen=True)
class Step:
    """One scripted manoeuvre of a base from t0 to t1: a move to `target`, or a wheel about a front corner."""

    t0: float
    t1: float
    target: Pose | None = None  # for a move
    wheel_deg: float = 0.0  # for a wheel (CCW positive)
    pivot: str = "left"


@dataclass(frozen=True)
class Track:
    """A base's scripted path: start pose and steps in time order."""

    start: Pose
    steps: tuple[Step, ...]

    def pose_at(self, t: float, base: RosterBase) -> Pose:
        pose = self.start
        for step in self.steps:
            if t <= step.t0:
                break
            u = ease((t - step.t0) / (step.t1 - step.t0))
            end = step_end(pose, step, base)
            if t < step.t1:
                return _interpolate(pose, end, step, base, u)
            pose = end
        return pose

    def keyframes(self, base: RosterBase) -> list[tuple[float, Pose]]:
        """(time, pose) at the start and at the end of every step."""
        out = [(0.0, self.start)]
        pose = self.start
        for step in self.steps:
            out.append((step.t0, pose))
            pose = step_end(pose, step, base)
            out.append((step.t1, pose))
        return out


def _pivot(pose: Pose, step: Step, base: RosterBase) -> np.ndarray:
    x, y, h = pose
    a = math.radians(h)
    front = np.array([math.cos(a), math.sin(a)])
    right = np.array([front[1], -front[0]])
    side = 1.0 if step.pivot == "right" else -1.0
    return np.array([x, y]) + front * base.depth_mm / 2 + right * side * base.width_mm / 2


def _rotate(p: np.ndarray, about: np.ndarray, deg: float) -> np.ndarray:
    a = math.radians(deg)
    c, s = math.cos(a), math.sin(a)
    d = p - about
    return about + np.array([c * d[0] - s * d[1], s * d[0] + c * d[1]])


def step_end(pose: Pose, step: Step, base: RosterBase) -> Pose:
    """The pose a step ends at, from the pose it starts at."""
    if step.target is not None:
        return step.target
    c = _rotate(np.array(pose[:2]), _pivot(pose, step, base), step.wheel_deg)
    return float(c[0]), float(c[1]), (pose[2] + step.wheel_deg) % 360.0


def _interpolate(a: Pose, b: Pose, step: Step, base: RosterBase, u: float) -> Pose:
    if step.target is None:  # a wheel: turn about the fixed corner
        c = _rotate(np.array(a[:2]), _pivot(a, step, base), step.wheel_deg * u)
        return float(c[0]), float(c[1]), (a[2] + step.wheel_deg * u) % 360.0
    return (a[0] + (b[0] - a[0]) * u, a[1] + (b[1] - a[1]) * u, (a[2] + _angle_between(a[2], b[2]) * u) % 360.0)


@dataclass(frozen=True)
class HandPass:
    """A player's hand reaching in from `from_mm` to `to_mm` between t0 and t1, and back out."""

    t0: float
    t1: float
    from_mm: tuple[float, float]
    to_mm: tuple[float, float]
    height_mm: float = 150.0

    def hand_at(self, t: float) -> Hand | None:
        if not self.t0 < t < self.t1:
            return None
        span = self.t1 - self.t0
        come = ease((t - self.t0) / (0.3 * span))
        go = ease((self.t1 - t) / (0.3 * span))
        reach = min(come, go)
        start, end = np.array(self.from_mm), np.array(self.to_mm)
        wiggle = np.array([math.sin(3.1 * t), math.cos(2.3 * t)]) * 6.0 * reach
        tip = start + (end - start) * reach + wiggle
        return Hand.reaching(start, tip, height_mm=self.height_mm, spread=0.3 + 0.3 * math.sin(t))


def _err(path: Path, key: str, message: str) -> FileFormatError:
    return FileFormatError(message, path=path, key=key)


def _pose(value: Any, path: Path, key: str) -> Pose:
    if not (isinstance(value, list) and len(value) == 3 and all(isinstance(v, (int, float)) for v in value)):
        raise _err(path, key, f"must be [x_mm, y_mm, heading_deg] (got {value!r})")
    return float(value[0]), float(value[1]), float(value[2]) % 360.0


def load_script(path: Path, roster: Roster) -> tuple[float, dict[str, Track], list[HandPass]]:
    """Read script.json: the duration, one track per base, the hands."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise FileFormatError(f"cannot read the demo script: {exc}", path=path) from None
    duration = float(data.get("duration_s", 0))
    if duration <= 0:
        raise _err(path, "duration_s", "must be a positive number of seconds")
    ids = roster.by_id()
    tracks: dict[str, Track] = {}
    for base_id, spec in dict(data.get("bases", {})).items():
        key = f"bases.{base_id}"
        if base_id not in ids:
            raise _err(path, key, "no base with this id in roster.toml")
        steps = []
        last = 0.0
        for i, s in enumerate(spec.get("steps", [])):
            skey = f"{key}.steps[{i}]"
            t0, t1 = (float(v) for v in s["t"])
            if not (last <= t0 < t1 <= duration):
                raise _err(path, skey + ".t", f"steps must be in time order within 0..{duration:g} s (got {s['t']})")
            last = t1
            if "move" in s:
                steps.append(Step(t0, t1, target=_pose(s["move"], path, skey + ".move")))
            elif "wheel" in s:
                if s.get("pivot", "left") not in ("left", "right"):
                    raise _err(path, skey + ".pivot", "must be 'left' or 'right'")
                steps.append(Step(t0, t1, wheel_deg=float(s["wheel"]), pivot=s.get("pivot", "left")))
            else:
                raise _err(path, skey, "a step needs 'move' or 'wheel'")
        tracks[base_id] = Track(_pose(spec.get("start"), path, key + ".start"), tuple(steps))
    missing = sorted(set(ids) - set(tracks))
    if missing:
        raise _err(path, "bases", f"no track for {', '.join(missing)}")
    hands = [HandPass(float(h["t"][0]), float(h["t"][1]), tuple(h["from"]), tuple(h["to"]), float(h.get("height_mm", 150)))
             for h in data.get("hands", [])]
    return duration, tracks, hands


@dataclass
class DemoGame:
    """The scripted engagement: where every base is at time t (seconds, looping), and the hands."""

    table: TableConfig
    roster: Roster
    terrain: list[dict[str, Any]]
    duration_s: float
    tracks: dict[str, Track]
    hand_passes: list[HandPass] = field(default_factory=list)
    token_spans: list[TokenSpan] = field(default_factory=list)

    @classmethod
    def load(cls, data_dir: str | Path | None = None) -> DemoGame:
        """The demo data (default: the packaged `demo_data/`)."""
        d = Path(data_dir) if data_dir is not None else DATA_DIR
        table = load_table(d / "table.toml")
        roster = load_roster(d / "roster.toml", table=table)
        try:
            terrain = json.loads((d / "terrain.json").read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise FileFormatError(f"cannot read the demo terrain: {exc}", path=d / "terrain.json") from None
        duration, tracks, hands = load_script(d / "script.json", roster)
        spans = load_token_spans(d / "script.json", roster, duration)
        game = cls(table, roster, terrain, duration, tracks, hands, spans)
        game._check_loop(d / "script.json")
        return game

    def _check_loop(self, path: Path) -> None:
        by_id = self.roster.by_id()
        for base_id, track in self.tracks.items():
            end = track.pose_at(self.duration_s, by_id[base_id])
            if np.hypot(end[0] - track.start[0], end[1] - track.start[1]) > 1e-6 or abs(_angle_between(end[2], track.start[2])) > 1e-6:
                raise _err(path, f"bases.{base_id}", f"does not end where it starts ({end} vs {track.start}): the demo loops")

    def _local(self, t: float) -> float:
        return float(t) % self.duration_s

    def poses_at(self, t: float) -> list[PlacedBase]:
        """Every base at time `t` (seconds; the script loops)."""
        lt = self._local(t)
        return [PlacedBase(b, *self.tracks[b.id].pose_at(lt, b)) for b in self.roster.bases]

    def tokens_at(self, t: float) -> list[PlacedToken]:
        """The status tokens on the table at time `t`, beside their bases."""
        return tokens_at(self.token_spans, self.poses_at(t), self._local(t), self.table.table.dictionary)

    def token_bases_at(self, t: float) -> dict[str, str]:
        """Token id -> the base it lies against at time `t` (the truth attachments are judged by)."""
        lt = self._local(t)
        return {s.token.id: s.base for s in self.token_spans if s.t0 <= lt < s.t1}

    def hands_at(self, t: float) -> list[Hand]:
        """The hands over the table at time `t`."""
        lt = self._local(t)
        return [h for h in (p.hand_at(lt) for p in self.hand_passes) if h is not None]

    def keyframe_times(self) -> list[float]:
        """Every time at which some base starts or ends a manoeuvre."""
        times = {0.0}
        for track in self.tracks.values():
            for s in track.steps:
                times.update((s.t0, s.t1))
        return sorted(times)

    def scenario_at(self, t: float) -> dict[str, Any]:
        """The true moment of the game at `t`, as scenario JSON (shared/interfaces.md)."""
        return {
            "ruleset": self.roster.ruleset,
            "table": {"width_mm": self.table.table.width_mm, "depth_mm": self.table.table.depth_mm},
            "terrain": self.terrain,
            "bases": [{"id": pb.base.id, "side": pb.base.side, "type": pb.base.type, "x_mm": round(pb.x_mm, 2),
                       "y_mm": round(pb.y_mm, 2), "heading_deg": round(pb.heading_deg, 3), "width_mm": pb.base.width_mm,
                       "depth_mm": pb.base.depth_mm, "traits": dict(pb.base.traits)} for pb in self.poses_at(t)],
        }


def demo_intrinsics(size: tuple[int, int] = (1920, 1080)) -> Intrinsics:
    """The demo camera's optics: a 1080p webcam with a ~62° horizontal field and mild barrel distortion."""
    return Intrinsics.ideal(size[0], size[1], 62.0, dist=(-0.045, 0.012, 0.0002, -0.0001, 0.0))


def demo_pose(table: TableConfig, intrinsics: Intrinsics) -> CameraPose:
    """Above the table, leaning back 8° toward player A, framing the whole mat."""
    return overhead(table, intrinsics, tilt_deg=8.0, margin=1.04, roll_deg=0.6)


class DemoCamera:
    """The demo game seen by a synthetic camera: `render(t)` gives frame t and its ground truth."""

    def __init__(self, game: DemoGame | None = None, *, effects: Effects | None = None,
                 size: tuple[int, int] = (1920, 1080), seed: int = 7) -> None:
        self.game = game or DemoGame.load()
        self.intrinsics = demo_intrinsics(size)
        self.pose = demo_pose(self.game.table, self.intrinsics)
        self.camera = SyntheticCamera(self.game.table, self.intrinsics, self.pose,
                                      effects=Effects.typical() if effects is None else effects,
                                      seed=seed, terrain=self.game.terrain)

    def render(self, t: float, *, pose: CameraPose | None = None) -> Render:
        """The frame at time `t` (seconds, looping)."""
        return self.camera.render(self.game.poses_at(t), self.game.hands_at(t), pose=pose,
                                  tokens=self.game.tokens_at(t))


_default: DemoCamera | None = None


def render_demo_frame(t: float) -> Render:
    """Frame `t` of the demo at 1080p with typical effects (one shared camera, built on first use)."""
    global _default
    if _default is None:
        _default = DemoCamera()
    return _default.render(t)
