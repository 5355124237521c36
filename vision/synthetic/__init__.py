"""The synthetic camera: renders a table with anchors, bases, figures and hands through a real
lens model, with exact ground truth; ChArUco views for calibration; and the demo game.

Public API (stable):
    SyntheticCamera(table, intrinsics, pose, *, effects, seed, terrain, clutter).render(bases, hands, pose) -> Render
    Render(image, truth: GroundTruth(markers: {id: MarkerTruth}, bases: {id: BasePoseTruth}))
    CameraPose, look_at, overhead, fit_height_mm
    PlacedBase, Hand, Effects
    PlacedTexture, RayMap, render_texture, centred_texture (draw any flat texture at a 3D pose)
    marker_texture, quiet_zone_mm
    CharucoSpec, CharucoView, render_charuco_views(spec, intrinsics, n_views, seed, effects=...),
    render_charuco_view, charuco_corners_px
    DemoGame.load(), DemoCamera(game, effects=, size=).render(t), render_demo_frame(t)
"""

from campo.vision.synthetic.charuco import (
    CharucoSpec, CharucoView, charuco_corners_px, render_charuco_view, render_charuco_views,
)
from campo.vision.synthetic.demo import DemoCamera, DemoGame, render_demo_frame
from campo.vision.synthetic.effects import Effects
from campo.vision.synthetic.planar import PlacedTexture, RayMap, centred_texture, project_px, render_texture, sample_texture
from campo.vision.synthetic.pose import CameraPose, fit_height_mm, look_at, overhead
from campo.vision.synthetic.render import SyntheticCamera
from campo.vision.synthetic.scene import Hand, PlacedBase
from campo.vision.synthetic.textures import marker_texture, quiet_zone_mm
from campo.vision.synthetic.truth import BasePoseTruth, GroundTruth, MarkerTruth, Render

__all__ = [
    "CharucoSpec", "CharucoView", "charuco_corners_px", "render_charuco_view", "render_charuco_views",
    "DemoCamera", "DemoGame", "render_demo_frame",
    "BasePoseTruth", "CameraPose", "Effects", "GroundTruth", "Hand", "MarkerTruth", "PlacedBase", "PlacedTexture",
    "RayMap", "Render", "SyntheticCamera", "centred_texture", "fit_height_mm", "look_at", "marker_texture",
    "overhead", "project_px", "quiet_zone_mm", "render_texture", "sample_texture",
]
