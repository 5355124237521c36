"""Render `vision.printing.Page`s to a vector PDF (reportlab) or to PNG at a given DPI (OpenCV).

The PDF draws each marker as filled vector rectangles, cell by cell, so it is crisp at any printer
resolution. The PNG snaps every axis-aligned edge to the pixel grid (a marker of s mm is
round(s * dpi / 25.4) pixels wide, +-1) and records its DPI in a pHYs chunk so image viewers and
print dialogs know its physical size.
"""

from __future__ import annotations

import struct
import unicodedata
import zlib
from collections.abc import Sequence
from pathlib import Path

import cv2
import numpy as np
from reportlab.pdfgen import canvas as pdf_canvas

from campo.errors import CampoInputError
from campo.vision.printing import Label, Page, Polygons, Rects, Stroke

PT_PER_MM = 72.0 / 25.4


def _pdf_text(text: str) -> str:
    """Text the standard PDF fonts can show (they cover Latin-1, enough for Italian names)."""
    return text.encode("cp1252", "replace").decode("cp1252")


def _draw_pdf_page(c: pdf_canvas.Canvas, page: Page) -> None:
    h = page.height_mm

    def pt(x: float, y: float) -> tuple[float, float]:
        return x * PT_PER_MM, (h - y) * PT_PER_MM

    for item in page.items:
        if isinstance(item, Rects):
            path = c.beginPath()
            for x0, y0, x1, y1 in item.boxes:
                px, py = pt(x0, y1)
                path.rect(px, py, (x1 - x0) * PT_PER_MM, (y1 - y0) * PT_PER_MM)
            c.setFillGray(0)
            c.drawPath(path, stroke=0, fill=1, fillMode=1)
        elif isinstance(item, Polygons):
            path = c.beginPath()
            for shape in item.shapes:
                path.moveTo(*pt(*shape[0]))
                for x, y in shape[1:]:
                    path.lineTo(*pt(x, y))
                path.close()
            c.setFillGray(0)
            c.drawPath(path, stroke=0, fill=1, fillMode=1)
        elif isinstance(item, Stroke):
            c.setLineWidth(item.width_mm * PT_PER_MM)
            c.setStrokeGray(item.grey)
            c.setDash([d * PT_PER_MM for d in item.dash_mm] if item.dash_mm else [])
            path = c.beginPath()
            path.moveTo(*pt(*item.points[0]))
            for x, y in item.points[1:]:
                path.lineTo(*pt(x, y))
            if item.closed:
                path.close()
            c.drawPath(path, stroke=1, fill=0)
            c.setDash([])
        elif isinstance(item, Label):
            c.setFillGray(0)
            c.setFont("Helvetica-Bold" if item.bold else "Helvetica", item.size_pt)
            x, y = pt(item.x, item.y)
            text = _pdf_text(item.text)
            if item.anchor == "middle":
                c.drawCentredString(x, y, text)
            else:
                c.drawString(x, y, text)


def write_pdf(pages: Sequence[Page], path: str | Path, *, title: str = "Campo") -> Path:
    """Write all pages to one PDF (atomically: a failure never leaves half a file)."""
    path = Path(path)
    if not pages:
        raise CampoInputError("nothing to print", path=path)
    tmp = path.with_name(path.name + ".tmp")
    try:
        c = pdf_canvas.Canvas(str(tmp), pagesize=(pages[0].width_mm * PT_PER_MM, pages[0].height_mm * PT_PER_MM))
        c.setTitle(title)
        c.setCreator("Campo")
        for page in pages:
            c.setPageSize((page.width_mm * PT_PER_MM, page.height_mm * PT_PER_MM))
            _draw_pdf_page(c, page)
            c.showPage()
        c.save()
        tmp.replace(path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise CampoInputError(f"cannot write: {exc.strerror or exc}", path=path) from None
    return path


def _ascii(text: str) -> str:
    """OpenCV's Hershey fonts only draw ASCII: strip accents, replace the rest."""
    flat = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    return flat


def render_png(page: Page, dpi: float = 300.0) -> np.ndarray:
    """The page as a greyscale image at `dpi` (uint8, white paper = 255)."""
    if not (50 <= dpi <= 1200):
        raise CampoInputError(f"must be between 50 and 1200 (got {dpi:g})", key="--dpi")
    s = dpi / 25.4  # pixels per mm
    width, height = int(round(page.width_mm * s)), int(round(page.height_mm * s))
    img = np.full((height, width), 255, np.uint8)
    shift = 8

    def fixed(points: np.ndarray) -> np.ndarray:
        # mm -> pixel-centre coordinates (pixel i spans [i, i+1) mm*s), in 1/256 px.
        return np.round((np.asarray(points, np.float64) * s - 0.5) * (1 << shift)).astype(np.int32)

    for item in page.items:
        if isinstance(item, Rects):
            for x0, y0, x1, y1 in item.boxes:
                img[int(round(y0 * s)):int(round(y1 * s)), int(round(x0 * s)):int(round(x1 * s))] = 0
        elif isinstance(item, Polygons):
            cv2.fillPoly(img, [fixed(shape) for shape in item.shapes], 0, cv2.LINE_8, shift)
        elif isinstance(item, Stroke):
            thickness = max(1, int(round(item.width_mm * s)))
            colour = int(round(item.grey * 255))
            points = list(item.points) + ([item.points[0]] if item.closed else [])
            for a, b in zip(points, points[1:]):
                for p, q in _dashes(np.array(a, float), np.array(b, float), item.dash_mm):
                    pa, pb = fixed(p), fixed(q)
                    cv2.line(img, (int(pa[0]), int(pa[1])), (int(pb[0]), int(pb[1])), colour, thickness,
                             cv2.LINE_8, shift)
        elif isinstance(item, Label):
            _put_text(img, item, s)
    return img


def _dashes(a: np.ndarray, b: np.ndarray, dash: tuple[float, float] | None) -> list[tuple[np.ndarray, np.ndarray]]:
    length = float(np.linalg.norm(b - a))
    if dash is None or length == 0:
        return [(a, b)]
    on, off = dash
    out, t = [], 0.0
    while t < length:
        end = min(t + on, length)
        out.append((a + (b - a) * t / length, a + (b - a) * end / length))
        t += on + off
    return out


def _put_text(img: np.ndarray, label: Label, s: float) -> None:
    font = cv2.FONT_HERSHEY_SIMPLEX
    text = _ascii(label.text)
    (_, cap), _ = cv2.getTextSize("H", font, 1.0, 1)
    cap_px = label.size_pt * 0.72 / 72 * 25.4 * s  # Helvetica's capitals are ~0.72 em tall
    scale = cap_px / cap
    thickness = max(1, int(round(scale * (2.2 if label.bold else 1.3))))
    (w, _), _ = cv2.getTextSize(text, font, scale, thickness)
    x, y = label.x * s, label.y * s
    if label.anchor == "middle":
        x -= w / 2
    cv2.putText(img, text, (int(round(x)), int(round(y))), font, scale, 0, thickness, cv2.LINE_AA)


def png_bytes(img: np.ndarray, dpi: float) -> bytes:
    """PNG-encode `img` with a pHYs chunk recording `dpi`."""
    ok, buf = cv2.imencode(".png", img)
    if not ok:  # pragma: no cover - OpenCV always encodes a uint8 image
        raise RuntimeError("PNG encoding failed")
    data = buf.tobytes()
    per_metre = int(round(dpi / 0.0254))
    body = b"pHYs" + struct.pack(">IIB", per_metre, per_metre, 1)
    chunk = struct.pack(">I", 9) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)
    ihdr_end = 8 + 8 + 13 + 4  # signature, IHDR length+type, IHDR data, CRC
    return data[:ihdr_end] + chunk + data[ihdr_end:]


def write_png(page: Page, path: str | Path, dpi: float = 300.0) -> Path:
    """Write one page as a PNG at `dpi`."""
    path = Path(path)
    try:
        path.write_bytes(png_bytes(render_png(page, dpi), dpi))
    except OSError as exc:
        raise CampoInputError(f"cannot write: {exc.strerror or exc}", path=path) from None
    return path


def write_pngs(pages: Sequence[Page], directory: str | Path, stem: str, dpi: float = 300.0) -> list[Path]:
    """Write each page as ``<directory>/<stem>-<n>.png``; creates the directory."""
    directory = Path(directory)
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise CampoInputError(f"cannot create directory: {exc.strerror or exc}", path=directory) from None
    return [write_png(page, directory / f"{stem}-{i}.png", dpi) for i, page in enumerate(pages, 1)]
