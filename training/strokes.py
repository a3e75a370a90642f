"""Pen-path hands: Hershey stroke fonts drawn as a pen would draw them.

Source: the PyPI wheel `Hershey-Fonts` 2.1.0 (MIT, by apshu), which carries the public
Hershey vector fonts inside the package (nothing downloaded). A glyph is a list of pen
strokes (polylines); we move every point by a smooth random field (the hand's wobble),
slant and rotate each glyph a little, and draw each stroke with a round pen whose width
changes along the stroke (pressure). Latin from eight faces (print, italic and the
joined scripts), Cyrillic (`К Л Ф С р х ...`) from the Hershey Cyrillic face, so the
Russian piece letters appear in pen shapes no font file has.

Also here: `pen_glyph`, the few shapes a hand writes that fonts rarely draw (`Л` for a
Latin-only font, `½`), as strokes in a unit box, drawn with the same pen.

Output of `draw`: an ink mask (PIL `L`, 255 = ink) cropped to the ink, like
`render.draw_text`.

    python -m training.strokes [SEED [OUT.png]]   # a preview sheet, by default
                                                  # training/runs/strokes.png
"""
from __future__ import annotations

import math
import random
from functools import lru_cache

import numpy as np
from PIL import Image, ImageDraw

SOURCE = {"package": "Hershey-Fonts", "version": "2.1.0", "licence": "MIT",
          "authors": "apshu (package); fonts by Dr. A. V. Hershey (public domain data)"}
# Latin faces: single-stroke print (futural, rowmans), double-stroke (futuram, rowmand),
# italic (timesi) and the joined scripts (scripts, scriptc, cursive).
LATIN = ("futural", "futuram", "rowmans", "rowmand", "timesi", "scripts", "scriptc", "cursive")
CURSIVE = {"scripts", "scriptc", "cursive"}
# Cyrillic letters of move texts -> their key in the Hershey `cyrillic` face.
CYRILLIC_KEYS = {"К": "K", "к": "k", "Л": "L", "л": "l", "Ф": "F", "ф": "f", "С": "S", "с": "s",
                 "Р": "R", "р": "r", "Х": "X", "х": "x", "А": "A", "а": "a", "В": "V", "Н": "N",
                 "О": "O", "о": "o", "Т": "T", "М": "M"}


@lru_cache(maxsize=None)
def _face(name: str):
    from HersheyFonts import HersheyFonts
    f = HersheyFonts()
    f.load_default_font(name)
    return f


def _glyph(face: str, ch: str):
    """(strokes in font units, y down, baseline 9 / cap -12; advance) of one char, or None."""
    g = next(iter(_face(face).glyphs_for_text(ch)), None)
    if g is None:
        return None
    strokes = [[(x - g.left_offset, y) for x, y in s] for s in g.strokes]
    return strokes, g.char_width


# Shapes fonts rarely have, in a unit box (x right, y down; 0 = cap line, 1 = baseline).
PEN_SHAPES = {
    # a handwritten capital Л: a hooked left leg rising to a flat top, a straight right leg
    "Л": [[(0.0, 0.95), (0.08, 1.0), (0.18, 0.85), (0.28, 0.45), (0.36, 0.02), (0.95, 0.0), (0.95, 1.0)]],
    # ½: a small 1 high, a slash, a small 2 low
    "½": [[(0.08, 0.18), (0.22, 0.02), (0.22, 0.48)],
          [(0.0, 1.02), (0.9, -0.02)],
          [(0.55, 0.62), (0.7, 0.52), (0.88, 0.58), (0.86, 0.75), (0.56, 1.0), (0.95, 1.0)]],
}
PEN_ADVANCE = {"Л": 1.1, "½": 1.1}


def _wobble(rng: random.Random, amp: float):
    """A smooth random displacement (dx, dy) of a point, amplitude `amp` font units."""
    waves = [(rng.uniform(0.05, 0.25), rng.uniform(0.05, 0.25), rng.uniform(0, 2 * math.pi),
              rng.uniform(0.3, 1.0) * amp) for _ in range(3)]

    def f(x: float, y: float) -> tuple[float, float]:
        dx = sum(a * math.sin(fx * x + fy * y + p) for fx, fy, p, a in waves)
        dy = sum(a * math.cos(fy * x - fx * y + 1.7 * p) for fx, fy, p, a in waves)
        return dx, dy
    return f


def pieces(text: str, face: str) -> list[tuple[list[list[tuple[float, float]]], float]]:
    """(strokes, advance) per char of `text` in font units: the Latin `face`, Cyrillic
    letters from the Cyrillic face, `½` from `PEN_SHAPES`; chars with no glyph skipped."""
    out = []
    for c in text:
        if c == "½":
            scale = 21.0
            strokes = [[(x * scale * 0.8, -12 + y * scale) for x, y in s] for s in PEN_SHAPES[c]]
            out.append((strokes, PEN_ADVANCE[c] * scale * 0.8))
            continue
        if c in CYRILLIC_KEYS:
            g = _glyph("cyrillic", CYRILLIC_KEYS[c])
        else:  # a Latin glyph, or a Cyrillic letter's Latin look-alike (е -> e)
            from .common import canonical
            g = _glyph(face, c) or _glyph(face, canonical(c) or c)
        if g is not None:
            out.append(g)
    return out


def render_strokes(strokes: list[list[tuple[float, float]]], rng: random.Random, width: float,
                   pad: int = 6) -> Image.Image | None:
    """Draws pixel-space polylines with a round pen of about `width` px whose width drifts
    along each stroke (pressure); returns the ink mask cropped to the ink."""
    pts = [p for s in strokes for p in s]
    if not pts:
        return None
    xs, ys = [p[0] for p in pts], [p[1] for p in pts]
    x0, y0 = min(xs) - pad - width, min(ys) - pad - width
    w, h = int(max(xs) - x0 + pad + width) + 1, int(max(ys) - y0 + pad + width) + 1
    img = Image.new("L", (max(w, 4), max(h, 4)), 0)
    d = ImageDraw.Draw(img)
    for s in strokes:
        pw = width * rng.uniform(0.8, 1.2)
        prev = None
        for x, y in s:
            p = (x - x0, y - y0)
            pw = min(max(pw * rng.uniform(0.92, 1.08), width * 0.55), width * 1.5)
            if prev is not None:
                d.line([prev, p], fill=255, width=max(1, int(round(pw))))
            r = pw / 2
            if r >= 1:
                d.ellipse([p[0] - r + 0.5, p[1] - r + 0.5, p[0] + r - 0.5, p[1] + r - 0.5], fill=255)
            prev = p
    box = img.getbbox()
    return img.crop(box) if box else None


def _densify(stroke: list[tuple[float, float]], step: float) -> list[tuple[float, float]]:
    """Extra points along long segments, so the wobble bends them."""
    out = [stroke[0]]
    for (ax, ay), (bx, by) in zip(stroke, stroke[1:]):
        n = max(1, int(math.hypot(bx - ax, by - ay) / step))
        out.extend((ax + (bx - ax) * k / n, ay + (by - ay) * k / n) for k in range(1, n + 1))
    return out


def draw(text: str, rng: random.Random, size: int, strength: float = 1.0) -> Image.Image | None:
    """Ink mask of `text` written with a pen along a Hershey face chosen at random.
    `size`: cap height in pixels (about); `strength` scales the randomness."""
    face = rng.choice(LATIN)
    scale = size / 21.0
    joined = face in CURSIVE
    amp = rng.uniform(0.3, 1.6) * strength
    wob = _wobble(rng, amp)
    shear = rng.uniform(-0.35, 0.2) * strength
    width = max(1.0, scale * rng.uniform(1.2, 3.2) * (1.4 if face in ("futuram", "rowmand") else 1.0))
    x = 0.0
    strokes: list[list[tuple[float, float]]] = []
    for g_strokes, adv in pieces(text, face):
        sc = 1 + rng.uniform(-0.1, 0.1) * strength
        dy = rng.uniform(-1.2, 1.2) * strength
        rot = rng.gauss(0, 0.05 * strength)
        cr, sr = math.cos(rot), math.sin(rot)
        for s in g_strokes:
            pts = []
            for gx, gy in _densify(s, 3.0):
                lx, ly = gx * sc, (gy - 9) * sc           # baseline at 0
                lx, ly = lx * cr - ly * sr, lx * sr + ly * cr
                px, py = x + lx, ly + dy
                wx, wy = wob(px, py)
                px, py = px + wx, py + wy
                px -= shear * py                           # slant (y up is negative)
                pts.append((px * scale, py * scale))
            strokes.append(pts)
        gap = rng.uniform(-0.05, 0.15) * strength if joined else rng.uniform(0.0, 0.3) * strength
        x += adv * sc * (1 + gap)
    return render_strokes(strokes, rng, width)


def pen_glyph(c: str, height: float, width: float, rng: random.Random) -> Image.Image | None:
    """One `PEN_SHAPES` glyph `height` px high drawn with a pen `width` px wide (for font
    hands that lack it); wobbled a little."""
    wob = _wobble(rng, 0.03)
    strokes = [[(px * height * 0.8 + wob(px * 9, py * 9)[0] * height,
                 py * height + wob(px * 9, py * 9)[1] * height)
                for px, py in _densify(s, 0.1)] for s in PEN_SHAPES[c]]
    return render_strokes(strokes, rng, width, pad=2)


if __name__ == "__main__":
    import sys
    from pathlib import Path

    from .common import RUNS
    rng = random.Random(int(sys.argv[1]) if len(sys.argv) > 1 else 0)
    out = Path(sys.argv[2]) if len(sys.argv) > 2 else RUNS / "strokes.png"
    texts = ["Nf3", "Кре2", "Фd1:h5", "Лa1-d1", "exd5", "0-0-0", "½-½", "1/2-1/2", "Сc4", "Kрg1", "e2-e4"]
    rows = []
    for t in texts:
        m = draw(t, rng, 40)
        if m is not None:
            rows.append(m)
    W = max(r.width for r in rows) + 10
    sheet = Image.new("L", (W, sum(r.height + 6 for r in rows)), 255)
    y = 0
    for r in rows:
        sheet.paste(Image.fromarray(255 - np.asarray(r)), (0, y))
        y += r.height + 6
    out.parent.mkdir(parents=True, exist_ok=True)
    sheet.save(out)
    print(f"wrote {out}")
