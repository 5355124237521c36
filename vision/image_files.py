"""Reading image files in bounded time and memory: the size is read from the header first.

A PNG of 200 bytes can claim 100000 x 100000 pixels, and a real 20000 x 20000 PNG takes OpenCV
2.4 GB and half a minute to decode. So every image Campo reads (`campo detect`, the calibration
photos, a folder source) goes through `read_image`: the file's own header says its format and
size (`image_header`, PNG, JPEG, BMP, TIFF, WebP and PNM, no decoding), anything beyond
`MAX_IMAGE_PIXELS` or `MAX_IMAGE_SIDE` is refused naming the file and its size, and only then
does OpenCV decode it.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from campo.errors import CampoInputError
from campo.safe_input import read_bounded

MAX_IMAGE_PIXELS = 50_000_000
"""50 megapixels: more than any webcam or phone photo a table is tracked from (a 4K frame is
8.3 MP); decoded in colour that is 150 MB."""
MAX_IMAGE_SIDE = 20_000
MAX_IMAGE_BYTES = 256 * 1024 * 1024
"""An image file larger than this is refused unread (an uncompressed 50 MP TIFF is 150 MB)."""

FORMATS = "PNG, JPEG, BMP, TIFF, WebP or PNM"


@dataclass(frozen=True)
class ImageHeader:
    """What an image file's header says, before anything is decoded."""

    format: str
    width: int
    height: int

    @property
    def pixels(self) -> int:
        return self.width * self.height


class ImageError(CampoInputError):
    """An image that cannot or may not be read."""


def _png(data: bytes) -> ImageHeader | None:
    if len(data) < 24 or data[12:16] != b"IHDR":
        return None
    w, h = struct.unpack(">II", data[16:24])
    return ImageHeader("PNG", w, h)


_JPEG_SOF = {0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF}


def _jpeg(data: bytes) -> ImageHeader | None:
    """Walk the JPEG segments to the first start-of-frame (SOFn) marker: it holds the size."""
    i = 2
    while i + 4 <= len(data):
        if data[i] != 0xFF:
            return None
        marker = data[i + 1]
        if marker == 0xFF:           # fill byte
            i += 1
            continue
        if marker in (0x01, *range(0xD0, 0xD8)):   # standalone markers carry no length
            i += 2
            continue
        (length,) = struct.unpack(">H", data[i + 2:i + 4])
        if marker in _JPEG_SOF:
            if i + 9 > len(data):
                return None
            h, w = struct.unpack(">HH", data[i + 5:i + 9])
            return ImageHeader("JPEG", w, h)
        if marker == 0xDA or length < 2:   # scan data before any frame: not a JPEG we know
            return None
        i += 2 + length
    return None


def _bmp(data: bytes) -> ImageHeader | None:
    if len(data) < 26:
        return None
    (dib,) = struct.unpack("<I", data[14:18])
    if dib == 12:
        w, h = struct.unpack("<HH", data[18:22])
    else:
        w, h = struct.unpack("<ii", data[18:26])
    return ImageHeader("BMP", abs(w), abs(h))


def _tiff(data: bytes) -> ImageHeader | None:
    """The first page's ImageWidth (256) and ImageLength (257) tags."""
    order = "<" if data[:2] == b"II" else ">"
    if len(data) < 8 or struct.unpack(order + "H", data[2:4])[0] != 42:
        return None   # BigTIFF (43) is not read
    (ifd,) = struct.unpack(order + "I", data[4:8])
    if ifd + 2 > len(data):
        return None
    (count,) = struct.unpack(order + "H", data[ifd:ifd + 2])
    size: dict[int, int] = {}
    for k in range(min(count, 4096)):
        at = ifd + 2 + 12 * k
        if at + 12 > len(data):
            return None
        tag, kind = struct.unpack(order + "HH", data[at:at + 4])
        if tag in (256, 257):
            fmt = "H" if kind == 3 else "I"
            (size[tag],) = struct.unpack(order + fmt, data[at + 8:at + 8 + struct.calcsize(fmt)])
    if 256 not in size or 257 not in size:
        return None
    return ImageHeader("TIFF", size[256], size[257])


def _webp(data: bytes) -> ImageHeader | None:
    if len(data) < 30:
        return None
    chunk = data[12:16]
    if chunk == b"VP8 " and data[23:26] == b"\x9d\x01\x2a":
        w, h = struct.unpack("<HH", data[26:30])
        return ImageHeader("WebP", w & 0x3FFF, h & 0x3FFF)
    if chunk == b"VP8L" and data[20] == 0x2F:
        (bits,) = struct.unpack("<I", data[21:25])
        return ImageHeader("WebP", (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1)
    if chunk == b"VP8X":
        w = int.from_bytes(data[24:27], "little") + 1
        h = int.from_bytes(data[27:30], "little") + 1
        return ImageHeader("WebP", w, h)
    return None


def _pnm(data: bytes) -> ImageHeader | None:
    """P1..P6: magic, then width and height as decimal text (comments skipped)."""
    fields: list[int] = []
    for line in data[2:4096].split(b"\n"):
        for word in line.split(b"#", 1)[0].split():
            if not word.isdigit():
                return None
            fields.append(int(word))
            if len(fields) == 2:
                return ImageHeader("PNM", fields[0], fields[1])
    return None


def image_header(data: bytes) -> ImageHeader | None:
    """The format and size an image's first bytes declare; None for anything else.

    >>> import cv2, numpy as np
    >>> ok, png = cv2.imencode(".png", np.zeros((30, 40, 3), np.uint8))
    >>> image_header(png.tobytes())
    ImageHeader(format='PNG', width=40, height=30)
    >>> image_header(b"GIF89a...") is None
    True
    """
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return _png(data)
    if data.startswith(b"\xff\xd8"):
        return _jpeg(data)
    if data.startswith(b"BM"):
        return _bmp(data)
    if data[:4] in (b"II*\x00", b"MM\x00*"):
        return _tiff(data)
    if data.startswith(b"RIFF") and data[8:12] == b"WEBP":
        return _webp(data)
    if len(data) > 2 and data[0:1] == b"P" and data[1:2] in b"123456":
        return _pnm(data)
    return None


def check_header(data: bytes, path: str | Path) -> ImageHeader:
    """The header of an image we may decode; `ImageError` naming the file otherwise."""
    header = image_header(data)
    if header is None:
        raise ImageError(f"cannot read this image: not a {FORMATS} file (or its header is damaged)", path=path)
    if header.width <= 0 or header.height <= 0:
        raise ImageError(f"its header says {header.width}x{header.height} pixels: damaged", path=path)
    if header.width > MAX_IMAGE_SIDE or header.height > MAX_IMAGE_SIDE or header.pixels > MAX_IMAGE_PIXELS:
        raise ImageError(f"{header.width}x{header.height} pixels is too large (at most "
                         f"{MAX_IMAGE_PIXELS / 1e6:g} megapixels, {MAX_IMAGE_SIDE} a side): reduce it",
                         path=path)
    return header


def read_image(path: str | Path, flags: int = cv2.IMREAD_COLOR) -> np.ndarray:
    """The image at ``path`` decoded by OpenCV (``flags``), after its header passed
    `check_header`; every failure is an `ImageError` naming the file."""
    path = Path(path)
    if not path.exists():
        raise ImageError("image not found", path=path)
    data = read_bounded(path, MAX_IMAGE_BYTES, what="an image Campo reads", error=ImageError)
    check_header(data, path)
    try:
        image = cv2.imdecode(np.frombuffer(data, np.uint8), flags)
    except cv2.error as exc:
        raise ImageError(f"cannot decode: {str(exc).strip().splitlines()[-1]}", path=path) from None
    if image is None or image.size == 0:
        raise ImageError("not an image OpenCV can decode (damaged or unsupported variant)", path=path)
    return image
