"""Turning the text renderers' output into pictures, for ``render_mode="rgb_array"``."""

from __future__ import annotations

import numpy as np
from PIL import Image, ImageDraw, ImageFont

BACKGROUND = (250, 248, 240)
INK = (20, 20, 20)
_LINE_HEIGHT = 14
_CHAR_WIDTH = 7
_MARGIN = 8


def text_to_rgb(text: str, highlights: dict[int, tuple[int, int, int]] | None = None) -> np.ndarray:
    """Draw monospaced ``text`` on a light background; return an HxWx3 uint8 array.

    ``highlights`` maps a line number to a background colour for that line (the mover, a winner).
    """
    lines = text.splitlines() or [""]
    width = 2 * _MARGIN + _CHAR_WIDTH * max(len(line) for line in lines)
    height = 2 * _MARGIN + _LINE_HEIGHT * len(lines)
    image = Image.new("RGB", (max(width, 1), height), BACKGROUND)
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default()
    for row, line in enumerate(lines):
        top = _MARGIN + row * _LINE_HEIGHT
        if highlights and row in highlights:
            draw.rectangle([0, top, width, top + _LINE_HEIGHT - 1], fill=highlights[row])
        for col, char in enumerate(line):
            draw.text((_MARGIN + col * _CHAR_WIDTH, top), char, fill=INK, font=font)
    return np.asarray(image, dtype=np.uint8)
