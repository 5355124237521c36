"""The synthetic camera: a table, its anchors, bases and hands, seen through a real lens model.

The static table (cloth, terrain, clutter, anchors) is rendered once per camera pose and
cached; each frame copies it and draws only the bases and hands, then applies the effects in
the changed boxes (see `degrade.py`). Ground truth comes from the same geometry.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping, Sequence
from typing import Any

import cv2
import numpy as np

from campo.vision.camera_model import Intrinsics
from campo.vision.synthetic.degrade import Degrader
from campo.vision.synthetic.effects import Effects
from campo.vision.synthetic.geometry import unit
from campo.vision.synthetic.layers import TopTextures, draw_bases, draw_hand
from campo.vision.synthetic.observe import ground_truth
from campo.vision.synthetic.planar import (
    PlacedTexture, RayMap, centred_texture, depth_mm, project_px, render_texture, sample_texture, texels_per_mm_for,
)
from campo.vision.synthetic.pose import CameraPose
from campo.vision.synthetic.projection import ProjectedLight
from campo.vision.synthetic.scene import Hand, PlacedBase, PlacedToken
from campo.vision.synthetic.tablecloth import FLOOR, MARGIN_MM, Painter, paint_table
from campo.vision.synthetic.textures import marker_texture, quiet_zone_mm
from campo.vision.synthetic.truth import GroundTruth, Render
from campo.vision.tabletop import TableConfig

STATIC_SUPERSAMPLE = 4


class SyntheticCamera:
    """Renders what a camera at `pose` sees of `table`, with markers and exact ground truth.

    `terrain` is a scenario-style terrain list (None: made up from `seed`); `clutter` adds
    dice, a ruler and a tape measure near the players' edges. `supersample` n averages n x n
    samples per pixel on base tops whose marker is under 64 px wide (markers on the static table are
    always supersampled 4 x 4): 1 is fastest, 2 gives near-ideal anti-aliasing.
    """

    def __init__(
        self,
        table: TableConfig,
        intrinsics: Intrinsics,
        pose: CameraPose,
        *,
        effects: Effects | None = None,
        seed: int = 0,
        terrain: Sequence[Mapping[str, Any]] | None = None,
        clutter: bool = True,
        supersample: int = 2,
    ) -> None:
        self.table = table
        self.intrinsics = intrinsics
        self.pose = pose
        self.effects = Effects.typical() if effects is None else effects
        self.seed = seed
        self.terrain = None if terrain is None else [dict(t) for t in terrain]
        self.clutter = clutter
        self.supersample = int(supersample)
        self.rays = RayMap.for_intrinsics(intrinsics)
        self.dictionary = table.table.dictionary
        self._tops = TopTextures(self.dictionary)
        self._painted: dict[float, Painter] = {}
        self._static: OrderedDict[tuple, np.ndarray] = OrderedDict()
        self._degraded: OrderedDict[tuple, np.ndarray] = OrderedDict()
        self._degraders: dict[Effects, Degrader] = {}

    # --- the static layer -------------------------------------------------------------------

    def static_image(self, pose: CameraPose | None = None) -> np.ndarray:
        """The clean empty table (cloth, terrain, clutter, anchors) seen from `pose` (cached)."""
        pose = pose or self.pose
        key = pose.key()
        img = self._static.get(key)
        if img is None:
            img = self._render_static(pose)
            img.setflags(write=False)
            self._static[key] = img
            while len(self._static) > 3:
                self._static.popitem(last=False)
        else:
            self._static.move_to_end(key)
        return img

    def _render_static(self, pose: CameraPose) -> np.ndarray:
        intr = self.intrinsics
        t = self.table.table
        outline = np.array([[0, 0, 0], [t.width_mm, 0, 0], [t.width_mm, t.depth_mm, 0], [0, t.depth_mm, 0]], float)
        if np.all(depth_mm(outline, pose) > 0):
            px = project_px(outline, intr, pose)
            edges = np.linalg.norm(np.roll(px, -1, axis=0) - px, axis=1)
            ppm = float(np.mean(edges / np.array([t.width_mm, t.depth_mm, t.width_mm, t.depth_mm])))
        else:
            ppm = 1.0
        s = min(texels_per_mm_for(ppm), 4.0)
        painter = self._painted.get(s)
        if painter is None:
            painter = paint_table(self.table, s, terrain=self.terrain, clutter=self.clutter, seed=self.seed)
            self._painted = {s: painter}
        tex = PlacedTexture(painter.image, np.array([-MARGIN_MM, -MARGIN_MM, 0.0]), np.array([1.0, 0, 0]),
                            np.array([0, 1.0, 0]), painter.s)
        w, h = intr.image_size
        canvas = sample_texture(tex, intr, pose, (0, 0, w, h), self.rays, border_value=(*FLOOR, 0))
        for a in self.table.anchors:
            centre = np.array([a.x_mm, a.y_mm, 0.0])
            corners = np.array([centre + [dx, dy, 0] for dx in (-a.size_mm, a.size_mm) for dy in (-a.size_mm, a.size_mm)])
            if np.any(depth_mm(corners, pose) <= 0):
                continue
            pxc = project_px(corners, intr, pose)
            ppm_a = float(np.min(np.ptp(pxc, axis=0)) / (2 * a.size_mm)) * 0.9
            quiet = quiet_zone_mm(self.dictionary, a.size_mm)
            img, s_eff, _ = marker_texture(self.dictionary, a.marker, a.size_mm, quiet, texels_per_mm_for(ppm_a * STATIC_SUPERSAMPLE))
            render_texture(canvas, centred_texture(cv2.cvtColor(img, cv2.COLOR_GRAY2BGRA), centre, unit(a.up_deg), s_eff),
                           intr, pose, self.rays, supersample=STATIC_SUPERSAMPLE)
        return canvas

    # --- frames -----------------------------------------------------------------------------

    def draw_order(self, bases: Sequence[PlacedBase], pose: CameraPose | None = None) -> list[PlacedBase]:
        """Bases sorted far to near (painter's algorithm)."""
        pose = pose or self.pose
        rot_z, tz = pose.rotation[2], pose.tvec[2]
        return sorted(bases, key=lambda pb: -(rot_z[0] * pb.x_mm + rot_z[1] * pb.y_mm + rot_z[2] * pb.base.height_mm / 2 + tz))

    def render(
        self,
        bases: Sequence[PlacedBase],
        hands: Sequence[Hand] = (),
        pose: CameraPose | None = None,
        *,
        effects: Effects | None = None,
        tokens: Sequence[PlacedToken] = (),
        light: ProjectedLight | None = None,
    ) -> Render:
        """One frame: the bases at their poses, the tokens beside them and the hands over them,
        with its ground truth (the tokens' in `GroundTruth.tokens`); `light`: a projector's
        picture on the table too (projection.py), lit before the camera's effects."""
        pose = pose or self.pose
        effects = self.effects if effects is None else effects
        if tokens:
            cards = [t.as_card(self.dictionary) for t in tokens]
            render = self.render([*bases, *cards], hands, pose, effects=effects, light=light)
            return Render(render.image, render.truth.without_tokens_in_bases({c.id for c in cards}))
        _check_unique(bases, self.table.anchor_ids)
        static = self.static_image(pose)
        frame = static.copy()
        order = self.draw_order(bases, pose)
        boxes, corners_px = draw_bases(frame, order, self.intrinsics, pose, self.rays, self._tops, self.supersample)
        for hand in hands:
            boxes += draw_hand(frame, hand, self.intrinsics, pose, self.rays)
        truth = ground_truth(self.table, order, hands, self.intrinsics, pose, corners_px)
        if light is not None:   # the whole frame changes: no cached degraded table to reuse
            frame = light.apply(frame, self.intrinsics, pose, self.rays)
            if not effects.is_clean:
                deg = self._degrader(effects)
                frame = deg.sensor(deg.static(frame))
            return Render(frame, truth)
        if effects.is_clean:
            return Render(frame, truth)
        deg = self._degrader(effects)
        key = (pose.key(), effects)
        base = self._degraded.get(key)
        if base is None:
            base = deg.static(static)
            self._degraded[key] = base
            while len(self._degraded) > 3:
                self._degraded.popitem(last=False)
        out = base.copy()
        deg.update(out, frame, boxes)
        return Render(deg.sensor(out), truth)

    def ground_truth(self, bases: Sequence[PlacedBase], hands: Sequence[Hand] = (), pose: CameraPose | None = None) -> GroundTruth:
        """The truth `render` would return, without rendering."""
        pose = pose or self.pose
        return ground_truth(self.table, self.draw_order(bases, pose), hands, self.intrinsics, pose)

    def _degrader(self, effects: Effects) -> Degrader:
        d = self._degraders.get(effects)
        if d is None:
            d = Degrader(self.intrinsics.image_size, effects, seed=self.seed + 1)
            self._degraders[effects] = d
        return d


def _check_unique(bases: Sequence[PlacedBase], anchor_ids: set[int]) -> None:
    seen: dict[int, str] = {}
    for pb in bases:
        if pb.base.marker in anchor_ids:
            raise ValueError(f"base {pb.base.id!r} uses marker {pb.base.marker}, an anchor of this table")
        if pb.base.marker in seen and seen[pb.base.marker] != pb.base.id:
            raise ValueError(f"bases {seen[pb.base.marker]!r} and {pb.base.id!r} share marker {pb.base.marker}")
        seen[pb.base.marker] = pb.base.id
