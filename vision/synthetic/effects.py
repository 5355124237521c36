"""What the sensor and lens add to a perfect render: blur, noise, vignetting, dim light, JPEG."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Effects:
    """Image degradations, applied in the order a real camera applies them.

    blur_sigma_px: optical blur (Gaussian) in pixels; 0 = none.
    noise_sigma: sensor noise, standard deviation in 8-bit grey levels; 0 = none.
    vignetting: fractional brightness loss at the image corners (0.3 = corners 30 % darker).
    gain: overall brightness factor (dim light < 1).
    warmth: colour cast of the light, >0 warmer (tungsten), <0 cooler.
    jpeg_quality: 1..100, or None for no compression.
    """

    blur_sigma_px: float = 0.0
    noise_sigma: float = 0.0
    vignetting: float = 0.0
    gain: float = 1.0
    warmth: float = 0.0
    jpeg_quality: int | None = None

    def __post_init__(self) -> None:
        if self.blur_sigma_px < 0 or self.noise_sigma < 0 or not 0 <= self.vignetting < 1 or self.gain <= 0:
            raise ValueError(f"invalid effects: {self}")
        if self.jpeg_quality is not None and not 1 <= self.jpeg_quality <= 100:
            raise ValueError(f"jpeg_quality must be 1..100 or None (got {self.jpeg_quality})")

    @property
    def is_clean(self) -> bool:
        return self == Effects.clean()

    @classmethod
    def clean(cls) -> Effects:
        """A perfect camera: only the geometry and anti-aliasing."""
        return cls()

    @classmethod
    def typical(cls) -> Effects:
        """A decent webcam in a lit room."""
        return cls(blur_sigma_px=0.7, noise_sigma=3.0, vignetting=0.25, gain=1.0, warmth=0.03, jpeg_quality=88)

    @classmethod
    def dim(cls) -> Effects:
        """An evening game under a warm lamp: dark, noisy, soft."""
        return cls(blur_sigma_px=1.0, noise_sigma=7.0, vignetting=0.45, gain=0.55, warmth=0.12, jpeg_quality=80)
