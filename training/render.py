"""Synthetic and augmented cells, pre-rendered to uint8 shards before training.

* Synthetic cells: corpus strings (train split) drawn glyph by glyph with the train
  fonts (Latin-only fonts only for strings without Cyrillic-only glyphs), then
  augmented: per-glyph jitter, slant, rotation, stroke width, ink colour and pencil,
  (a share drawn with a pen along Hershey stroke faces, `strokes.py`; a share holding a
  written result such as `1-0` or `½-½`)
  paper shading, cell-border fragments, neighbouring-row leakage, cross-outs, blank and
  near-blank cells (empty label), blur, noise, JPEG, sloppy crop margins.
* Real cells: every HCS train cell once as cut plus `--hcs-copies` augmented copies.
* Held-out evaluation sets: `synval_<notation>.npz`, corpus val-split strings drawn
  with the held-out fonts only.

Each shard is an `.npz` with `x` uint8 [N, H, W] (already preprocessed as the model
contract says) and `y` (canonical glyph strings).

    python -m training.render [--synthetic 300000] [--hcs-copies 6] [--val-per-notation 1000] [--jobs 2]
"""
from __future__ import annotations

import argparse
import io
import math
import random
import time
from functools import lru_cache
from multiprocessing import Pool
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFilter, ImageFont

from .common import FONTS, RESIGN_WORDS, WORK, canonical, encode, load_split, preprocess

SHARDS = WORK / "shards"
NOTATION_WEIGHTS = {"en": 0.22, "ru": 0.32, "pl": 0.22, "de": 0.16, "das": 0.03}
# Share of synthetic training cells drawn with a pen along a Hershey face (strokes.py).
PEN_RATE = 0.12
# Share of synthetic training cells that hold a result as players write it after the
# last move (the reader must spell `½` and `/` for draws).
RESULT_RATE = 0.02
RESULT_TEXTS = ["1-0", "0-1", "1:0", "0:1", "½-½", "½:½", "1/2-1/2", "1/2", "½", "=", "+-", "-+",
                "1-0", "0-1", "½-½", "1/2:1/2"]
# Share of synthetic training cells that hold a resign word (`common.RESIGN_WORDS`, every
# language), as written after the last move.
RESIGN_RATE = 0.015
FONT_WEIGHTS = {"Lobster-Regular.ttf": 0.3, "Yomogi-Regular.ttf": 0.5, "LaBelleAurore-Regular.ttf": 0.6}


def load_corpus(path: Path, split: str) -> dict[str, list[str]]:
    by: dict[str, list[str]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        parts = line.split("\t")
        if len(parts) != 3 or parts[0] != split:
            continue
        if encode(parts[2]) is None:
            continue
        by.setdefault(parts[1], []).append(parts[2])
    return by


@lru_cache(maxsize=1024)
def font(path: str, size: int) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(path, size)


def is_cyrillic(c: str) -> bool:
    return "\u0400" <= c <= "\u04ff"


def font_entries(shared_files: list[str], extra_role: str | None) -> list[dict]:
    """The fonts to draw with: `shared_files` from `../shared/fonts` (one file, Cyrillic
    too when `fonts.tsv` says so) and the `training/fonts_extra.tsv` families of
    `extra_role` (a Latin and an optional Cyrillic subset file)."""
    from .fonts import OUT, cursive, extra_fonts
    cyr = _cyr_fonts()
    out = []
    for f in shared_files:
        path = str(FONTS / f)
        out.append({"name": f, "latin": path, "cyr": path if f in cyr else None,
                    "weight": FONT_WEIGHTS.get(f, 1.0), "cursive": f in {"LaBelleAurore-Regular.ttf",
                                                                          "Lobster-Regular.ttf"}})
    for r in extra_fonts(extra_role) if extra_role else []:
        out.append({"name": r["id"], "latin": str(OUT / r["latin"]),
                    "cyr": str(OUT / r["cyrillic"]) if r["cyrillic"] else None,
                    "weight": 1.0, "cursive": cursive(r)})
    return out


def entry_for(path: str) -> dict:
    """A font entry (see `font_entries`) for one font file of `../shared/fonts` or of
    `training/data/fonts`; Cyrillic from the same file when `fonts.tsv` says it has it."""
    name = Path(path).name
    return {"name": name, "latin": path, "cyr": path if name in _cyr_fonts() else None, "weight": 1.0,
            "cursive": False}


def _advance(f: ImageFont.FreeTypeFont, c: str) -> float:
    """A glyph's advance, tightened for full-width glyphs (Japanese fonts' Cyrillic)."""
    adv = f.getlength(c)
    box = f.getbbox(c)
    ink = box[2] - box[0]
    if ink > 0 and adv > 1.6 * ink:
        return ink * 1.15
    return adv


def _runs(text: str, entry: dict, rng: random.Random, joined: bool) -> list[tuple[str, str]]:
    """(string, font file) pieces: one per glyph, or (joined) one per stretch drawn from
    the same file, so a cursive hand keeps its joins. `Ф` and `Л` without a Cyrillic file,
    and `½` (which few hands have), are pieces of their own with no file: drawn by hand
    (`draw_text`)."""
    pieces: list[tuple[str, str]] = []
    for c in text:
        if c == "½" or (c in "ФЛ" and entry["cyr"] is None):
            pieces.append((c, ""))
            continue
        f = entry["cyr"] if is_cyrillic(c) and entry["cyr"] else entry["latin"]
        if joined and pieces and pieces[-1][1] == f:
            pieces[-1] = (pieces[-1][0] + c, f)
        else:
            pieces.append((c, f))
    return pieces


def draw_text(text: str, entry: dict, size: int, rng: random.Random, strength: float,
              stroke: int | None = None):
    """Ink mask (L, 255 = ink) of `text` drawn piece by piece with jitter (see `_runs`)."""
    f = font(entry["latin"], size)
    tight = -0.12 if "Yomogi" in entry["latin"] else 0.0
    pad = size
    width = int(sum(_advance(f, c) for c in text) * 1.3) + 2 * pad + 4
    img = Image.new("L", (max(width, 8), int(size * 2.2) + 2 * pad // 2), 0)
    d = ImageDraw.Draw(img)
    x = float(pad)
    base = size * 0.5
    if stroke is None:
        stroke = 1 if rng.random() < 0.25 * strength and size > 18 else 0
    drift = rng.uniform(-0.08, 0.08) * strength
    joined = rng.random() < (0.85 if entry["cursive"] else 0.3)
    for i, (piece, path) in enumerate(_runs(text, entry, rng, joined)):
        s = max(8, int(size * (1 + rng.uniform(-0.1, 0.1) * strength)))
        fc = font(path or entry["latin"], s)
        dy = rng.uniform(-0.07, 0.07) * size * strength + drift * i * size * 0.3
        y = base + dy + (size - s) * 0.6
        if not path and piece != "Ф":  # a pen-drawn Л or ½ (strokes.PEN_SHAPES)
            from .strokes import pen_glyph
            cap = fc.getbbox("H")
            g = pen_glyph(piece, (cap[3] - cap[1]) * rng.uniform(0.9, 1.1), _pen_width(fc) * rng.uniform(1.0, 1.5), rng)
            if g is not None:
                top = y + cap[1] + rng.uniform(-0.05, 0.05) * s
                img.paste(255, (int(x), int(top)), g)
                x += g.width + fc.getlength(" ") * rng.uniform(0.2, 0.6)
            continue
        if not path:  # a synthesised Ф: an o and a stroke through it
            d.text((x, y), "o", font=fc, fill=255, stroke_width=stroke, stroke_fill=255)
            l, t, r, b = d.textbbox((x, y), "o", font=fc)
            cx = (l + r) / 2 + rng.uniform(-0.05, 0.05) * (r - l)
            lw = max(1, int(round(s * rng.uniform(0.05, 0.09))))
            d.line([(cx + rng.uniform(-2, 2), t - (b - t) * rng.uniform(0.3, 0.7)),
                    (cx + rng.uniform(-2, 2), b + (b - t) * rng.uniform(0.2, 0.6))], fill=255, width=lw)
            x += fc.getlength("o") * (1 + tight + rng.uniform(-0.08, 0.12) * strength)
            continue
        d.text((x, y), piece, font=fc, fill=255, stroke_width=stroke, stroke_fill=255)
        adv = fc.getlength(piece) if len(piece) > 1 else _advance(fc, piece)
        x += adv * (1 + tight + rng.uniform(-0.08, 0.12) * strength)
    bbox = img.getbbox()
    if bbox is None:
        return None
    return img.crop(bbox)


@lru_cache(maxsize=1024)
def _pen_width(f: ImageFont.FreeTypeFont) -> float:
    """The font's stroke width in pixels, about: the ink of an `l` over its height."""
    m = f.getmask("l")
    a = np.asarray(m, np.float32).reshape(m.size[1], m.size[0]) / 255 if m.size[0] * m.size[1] else None
    if a is None or a.sum() == 0:
        return max(1.0, f.size * 0.07)
    rows = (a > 0.3).any(1).sum()
    return float(min(max(a.sum() / max(rows, 1), 1.0), f.size * 0.2))


def slant(mask: Image.Image, rng: random.Random, strength: float) -> Image.Image:
    sh = rng.uniform(-0.35, 0.25) * strength
    w, h = mask.size
    extra = int(abs(sh) * h) + 2
    m = mask.transform((w + extra, h), Image.Transform.AFFINE,
                       (1, sh, -extra if sh > 0 else 0, 0, 1, 0), Image.Resampling.BILINEAR)
    rot = rng.gauss(0, 2.0 * strength)
    if abs(rot) > 0.3:
        m = m.rotate(rot, Image.Resampling.BILINEAR, expand=True)
    bbox = m.getbbox()
    return m.crop(bbox) if bbox else m


def compose_cell(mask: Image.Image | None, rng: random.Random, strength: float,
                 neighbours: list[Image.Image]) -> Image.Image:
    """Places an ink mask in a ruled cell and turns it into a grayscale photo-like crop."""
    ch = rng.randint(40, 72)
    cw = int(ch * rng.uniform(3.8, 7.0))
    ink: np.ndarray = np.zeros((ch, cw), np.float32)
    if mask is not None:
        th = ch * rng.uniform(0.42, 0.82)
        sc = th / max(mask.height, 1)
        mw = max(1, int(mask.width * sc))
        if mw > cw * 0.96:
            sc *= cw * 0.96 / mw
            mw = max(1, int(mask.width * sc))
        mh = max(1, int(mask.height * sc))
        m = np.asarray(mask.resize((mw, mh), Image.Resampling.BILINEAR), np.float32) / 255
        x0 = int(rng.uniform(0.02, 1.0) ** 1.5 * max(0, cw - mw))
        y0 = int((ch - mh) / 2 + rng.uniform(-0.12, 0.12) * ch)
        _paste_max(ink, m, x0, y0)
    # neighbouring-row leakage: a bit of another string above or below
    if neighbours and rng.random() < 0.3 * strength:
        m = _neighbour(neighbours, rng, ch, 0.5, 0.8)
        nh, nw = m.shape
        vis = rng.uniform(0.1, 0.3) * ch
        y0 = int(-nh + vis) if rng.random() < 0.5 else int(ch - vis)
        _paste_max(ink, m, rng.randint(0, max(0, cw - nw)), y0)
    # the next column's writing across the vertical rule: the end of a string at the left
    # edge or the start of one at the right edge (real cells show both, read as extra glyphs)
    if neighbours and rng.random() < 0.2 * strength:
        m = _neighbour(neighbours, rng, ch, 0.4, 0.8)
        nh, nw = m.shape
        vis = int(rng.uniform(0.03, 0.12) * cw)
        x0 = vis - nw if rng.random() < 0.5 else cw - vis
        _paste_max(ink, m, x0, int((ch - nh) / 2 + rng.uniform(-0.2, 0.2) * ch))
    # cross-out: a scribble over part of the ink (the label is what remains legible)
    img = Image.fromarray((ink * 255).astype(np.uint8))
    d = ImageDraw.Draw(img)
    lw = max(1, int(ch * rng.uniform(0.03, 0.07)))
    # ruling: cell borders, sometimes fragments, sometimes missing
    rule = Image.new("L", (cw, ch), 0)
    rd = ImageDraw.Draw(rule)
    rw = rng.choice([1, 1, 2, 2, 3])
    for edge in ("top", "bottom", "left", "right"):
        if rng.random() < 0.7:
            off = rng.randint(0, 4)
            if edge == "top":
                rd.line([(0, off + rng.uniform(-2, 2)), (cw, off + rng.uniform(-2, 2))], fill=255, width=rw)
            elif edge == "bottom":
                rd.line([(0, ch - 1 - off + rng.uniform(-2, 2)), (cw, ch - 1 - off + rng.uniform(-2, 2))],
                        fill=255, width=rw)
            elif edge == "left":
                rd.line([(off, 0), (off + rng.uniform(-2, 2), ch)], fill=255, width=rw)
            else:
                rd.line([(cw - 1 - off, 0), (cw - 1 - off + rng.uniform(-2, 2), ch)], fill=255, width=rw)
    if rng.random() < 0.1:  # a printed move number at the left edge
        d.text((2, ch * 0.3), str(rng.randint(1, 60)), fill=200,
               font=font(str(FONTS / "Delius-Regular.ttf"), int(ch * 0.3)))
    # specks (near-blank cells get some too)
    for _ in range(rng.choice([0, 0, 0, 1, 2, 5])):
        x, y = rng.uniform(0, cw), rng.uniform(0, ch)
        r = rng.uniform(0.5, 2.0)
        d.ellipse([x - r, y - r, x + r, y + r], fill=rng.randint(80, 255))
    del lw
    ink = np.asarray(img, np.float32) / 255
    rule_a = np.asarray(rule, np.float32) / 255 * rng.uniform(0.5, 1.0)
    # paper and ink colours
    paper = rng.uniform(170, 250)
    grad = np.linspace(rng.uniform(-25, 10), rng.uniform(-25, 10), cw)[None, :] + np.linspace(
        rng.uniform(-15, 5), rng.uniform(-15, 5), ch)[:, None]
    page = paper + grad * strength
    pencil = rng.random() < 0.2
    ink_val = rng.uniform(60, 150) if pencil else rng.uniform(0, 110)
    if pencil:
        ink = ink * np.clip(np.random.default_rng(rng.randrange(1 << 30)).normal(0.8, 0.25, ink.shape), 0.2, 1)
    out = page * (1 - ink) + ink_val * ink
    out = out * (1 - rule_a) + rng.uniform(30, 120) * rule_a
    if rng.random() < 0.3:  # header-like dark band
        pass
    noise = np.random.default_rng(rng.randrange(1 << 30)).normal(0, rng.uniform(0, 10) * strength, out.shape)
    out = np.clip(out + noise, 0, 255).astype(np.uint8)
    im = Image.fromarray(out)
    if rng.random() < 0.5 * strength:
        im = im.filter(ImageFilter.GaussianBlur(rng.uniform(0.3, 1.2)))
    if rng.random() < 0.3 * strength:
        buf = io.BytesIO()
        im.save(buf, "JPEG", quality=rng.randint(25, 85))
        im = Image.open(io.BytesIO(buf.getvalue())).convert("L")
    # sloppy crop
    l, t = rng.randint(0, int(cw * 0.04)), rng.randint(0, int(ch * 0.12))
    r, b = cw - rng.randint(0, int(cw * 0.04)), ch - rng.randint(0, int(ch * 0.12))
    return im.crop((l, t, r, b))


def _neighbour(neighbours: list[Image.Image], rng: random.Random, ch: int, lo: float, hi: float) -> np.ndarray:
    """One of the other strings' ink masks, scaled to lo-hi of the cell's height (0-1 floats)."""
    nb = neighbours[rng.randrange(len(neighbours))]
    sc = ch * rng.uniform(lo, hi) / max(nb.height, 1)
    nw, nh = max(1, int(nb.width * sc)), max(1, int(nb.height * sc))
    return np.asarray(nb.resize((nw, nh), Image.Resampling.BILINEAR), np.float32) / 255


def _paste_max(dst: np.ndarray, src: np.ndarray, x0: int, y0: int) -> None:
    h, w = dst.shape
    sh, sw = src.shape
    xs, ys = max(0, -x0), max(0, -y0)
    xe, ye = min(sw, w - x0), min(sh, h - y0)
    if xe <= xs or ye <= ys:
        return
    region = dst[y0 + ys:y0 + ye, x0 + xs:x0 + xe]
    np.maximum(region, src[ys:ye, xs:xe], out=region)


def crossed(text_mask: Image.Image, rng: random.Random) -> Image.Image:
    """Strikes the mask through (scribble)."""
    m = text_mask.copy()
    d = ImageDraw.Draw(m)
    w, h = m.size
    lw = max(2, h // 10)
    if rng.random() < 0.5:
        d.line([(0, h * rng.uniform(0.3, 0.7)), (w, h * rng.uniform(0.3, 0.7))], fill=255, width=lw)
    else:
        pts = [(w * i / 6, h * (0.2 if i % 2 else 0.8)) for i in range(7)]
        d.line(pts, fill=255, width=lw)
    return m


class Synth:
    """Draws synthetic (image, label) cells from a corpus and a set of font entries."""

    def __init__(self, corpus: dict[str, list[str]], entries: list[dict], seed: int, strength: float = 1.0,
                 blank_rate: float = 0.05, extras: bool = False):
        """`extras` (training cells only): pen-drawn Hershey hands (`PEN_RATE`), results
        (`RESULT_RATE`) and `Л` in Latin-only hands; the held-out and selection sets are
        drawn without them, as before."""
        self.rng = random.Random(seed)
        np.random.seed(seed % (1 << 31))
        self.corpus = corpus
        self.notations = [n for n in NOTATION_WEIGHTS if corpus.get(n)]
        self.nweights = [NOTATION_WEIGHTS[n] for n in self.notations]
        self.all = entries
        self.cyr = [e for e in entries if e["cyr"]]
        self.w_all = [e["weight"] for e in self.all]
        self.w_cyr = [e["weight"] for e in self.cyr]
        self.strength = strength
        self.blank_rate = blank_rate
        self.neigh: list[Image.Image] = []
        self.extras = extras
        self.word_rate = RESIGN_RATE

    def text(self, notation: str | None = None) -> str:
        nt = notation or self.rng.choices(self.notations, self.nweights)[0]
        return self.rng.choice(self.corpus[nt])

    def mask(self, text: str) -> Image.Image | None:
        """A Cyrillic-capable hand draws the text as written; any other hand draws its
        Latin look-alikes (К -> K, р -> p, С -> C), a `Ф` made of an o and a stroke, and
        never a `Л`."""
        g = canonical(text)
        cyr_text = any(is_cyrillic(c) for c in text)
        size = self.rng.choice([28, 34, 40, 48])
        if self.extras and self.rng.random() < PEN_RATE:  # a Hershey face drawn with a pen (strokes.py)
            from .strokes import draw
            m = draw(text, self.rng, size, self.strength)
            return None if m is None else slant(m, self.rng, self.strength * 0.5)
        # Л: half the time a Cyrillic hand, else any hand (a Latin one draws it with a pen)
        if ("Л" in g and (not self.extras or self.rng.random() < 0.5)) or (cyr_text and self.rng.random() < 0.5):
            e = self.rng.choices(self.cyr, self.w_cyr)[0]
        else:
            e = self.rng.choices(self.all, self.w_all)[0]
        s = text if e["cyr"] else g
        m = draw_text(s, e, size, self.rng, self.strength)
        if m is None:
            return None
        return slant(m, self.rng, self.strength)

    def word_mask(self, word: str) -> Image.Image | None:
        """A resign word as a hand writes it (lowercase letters drawn as they are, not as
        their glyph class): a Cyrillic word in a Cyrillic hand; `ł` as `l` in a hand
        without it (the label is the same: `canonical` folds `ł` to `l`)."""
        size = self.rng.choice([28, 34, 40, 48])
        if any(is_cyrillic(c) for c in word):
            e = self.rng.choices(self.cyr, self.w_cyr)[0]
        else:
            e = self.rng.choices(self.all, self.w_all)[0]
            if "ł" in word and not _draws(e["latin"], "ł"):
                word = word.replace("ł", "l")
        m = draw_text(word, e, size, self.rng, self.strength)
        return None if m is None else slant(m, self.rng, self.strength)

    def sample(self, notation: str | None = None) -> tuple[Image.Image, str]:
        rng = self.rng
        if notation is None and rng.random() < self.blank_rate:
            return compose_cell(None, rng, self.strength, self.neigh), ""
        text = self.text(notation)
        word = self.extras and notation is None and rng.random() < self.word_rate
        if word:
            text = rng.choice([w for ws in RESIGN_WORDS.values() for w in ws])
        elif self.extras and notation is None and rng.random() < RESULT_RATE:
            text = rng.choice(RESULT_TEXTS)
        m = self.word_mask(text) if word else self.mask(text)
        label = canonical(text)
        if m is None:
            return compose_cell(None, rng, self.strength, self.neigh), ""
        if notation is None and rng.random() < 0.03:
            # crossed-out attempt, then the real move to its right
            bad = self.mask(self.text())
            if bad is not None:
                bad = crossed(bad, rng)
                gap = int(m.height * 0.4)
                both = Image.new("L", (bad.width + gap + m.width, max(bad.height, m.height)), 0)
                both.paste(bad, (0, 0))
                both.paste(m, (bad.width + gap, 0))
                m = both
        if len(self.neigh) < 64:
            self.neigh.append(m)
        elif rng.random() < 0.05:
            self.neigh[rng.randrange(64)] = m
        return compose_cell(m, rng, self.strength, self.neigh), label


@lru_cache(maxsize=4096)
def _draws(font_path: str, c: str) -> bool:
    """Whether the font file draws `c` (not its missing-glyph box)."""
    f = font(font_path, 32)
    m, missing = np.asarray(f.getmask(c)), np.asarray(f.getmask("\ue000"))
    return m.shape != missing.shape or not (m == missing).all()


@lru_cache(maxsize=1)
def _cyr_fonts() -> frozenset[str]:
    from .common import fonts
    return frozenset(r["file"] for r in fonts("latin+cyrillic"))


def _synth_job(args):
    corpus_path, font_files, extra_role, seed, n, strength, notation, blank_rate = args[:8]
    extras = args[8] if len(args) > 8 else False
    corpus = load_corpus(Path(corpus_path), "val" if notation else "train")
    s = Synth(corpus, font_entries(font_files, extra_role), seed, strength, blank_rate, extras)
    if len(args) > 9:
        s.word_rate = args[9]
    xs = np.empty((n, *preprocess(Image.new("L", (4, 4), 255)).shape), np.uint8)
    ys = []
    for i in range(n):
        img, label = s.sample(notation)
        xs[i] = preprocess(img)
        ys.append(label)
    return xs, ys


def augment_real(img: Image.Image, rng: random.Random) -> Image.Image:
    """Photometric and geometric jitter of a real cell crop."""
    if rng.random() < 0.6:
        sh = rng.uniform(-0.15, 0.15)
        img = img.transform(img.size, Image.Transform.AFFINE, (1, sh, -sh * img.height / 2, 0, 1, 0),
                            Image.Resampling.BILINEAR, fillcolor=int(np.percentile(np.asarray(img), 90)))
    if rng.random() < 0.5:
        img = img.rotate(rng.gauss(0, 1.5), Image.Resampling.BILINEAR,
                         fillcolor=int(np.percentile(np.asarray(img), 90)))
    a = np.asarray(img, np.float32)
    a = (a - a.mean()) * rng.uniform(0.6, 1.3) + a.mean() + rng.uniform(-30, 25)
    a += np.random.default_rng(rng.randrange(1 << 30)).normal(0, rng.uniform(0, 8), a.shape)
    img = Image.fromarray(np.clip(a, 0, 255).astype(np.uint8))
    if rng.random() < 0.3:
        img = img.filter(ImageFilter.GaussianBlur(rng.uniform(0.3, 1.0)))
    if rng.random() < 0.25:
        buf = io.BytesIO()
        img.save(buf, "JPEG", quality=rng.randint(30, 85))
        img = Image.open(io.BytesIO(buf.getvalue())).convert("L")
    # horizontal scale (writing width)
    if rng.random() < 0.4:
        img = img.resize((max(4, int(img.width * rng.uniform(0.8, 1.2))), img.height), Image.Resampling.BILINEAR)
    return img


def cell_crop(ctx: Image.Image, box: tuple[int, int, int, int], margins: tuple[float, float, float, float]):
    """Cuts a cell out of its context crop; margins (left, top, right, bottom) are
    fractions of the cell's width/height added (positive) or removed (negative)."""
    cx, cy, w, h = box
    l, t, r, b = margins
    x0, y0 = max(0, int(cx - l * w)), max(0, int(cy - t * h))
    x1, y1 = min(ctx.width, int(cx + w + r * w)), min(ctx.height, int(cy + h + b * h))
    return ctx.crop((x0, y0, max(x1, x0 + 4), max(y1, y0 + 4)))


AS_CUT = (0.02, 0.1, 0.02, 0.1)


def _hcs_job(args):
    rows, copies, seed = args
    from .hcs import OUT
    rng = random.Random(seed)
    xs, ys, src = [], [], []
    for page, move, side, label, box in rows:
        ctx = Image.open(OUT / page / f"{move}_{side[0]}.png").convert("L")
        lab = canonical(label)
        xs.append(preprocess(cell_crop(ctx, box, AS_CUT)))
        ys.append(lab)
        src.append(page)
        for _ in range(copies):
            m = (rng.uniform(-0.04, 0.1), rng.uniform(-0.12, 0.3), rng.uniform(-0.04, 0.1), rng.uniform(-0.12, 0.3))
            img = cell_crop(ctx, box, m)
            xs.append(preprocess(augment_real(img, rng)))
            ys.append(lab)
            src.append(page)
    return np.stack(xs), ys, src


def selection_games() -> set[str]:
    """Every seventh HCS training game (sorted): the real cells models are chosen on.
    They never train; validation games are read once per shipped model, to report."""
    return set(sorted(load_split()["hcs_train_games"])[::7])


def hcs_rows(split: str) -> list[tuple[str, str, str, str, tuple[int, int, int, int]]]:
    """Cells of one split: `train` (less the selection games), `select`, or `val`."""
    from .hcs import OUT
    rows = []
    rng = random.Random(7)
    select = selection_games()
    for line in (OUT / "index.tsv").read_text(encoding="utf-8").splitlines()[1:]:
        p = line.split("\t")
        game = p[0].split("_")[0]
        part = "select" if p[8] == "train" and game in select else p[8]
        if part == split and encode(p[7]) is not None:
            if split == "train" and not p[7] and rng.random() > 0.4:
                continue  # enough empty cells: keep 40% of them
            rows.append((p[0], p[1], p[2], p[7], (int(p[9]), int(p[10]), int(p[5]), int(p[6]))))
    return rows


def save(name: str, xs: np.ndarray, ys: list[str], **extra) -> None:
    SHARDS.mkdir(parents=True, exist_ok=True)
    np.savez(SHARDS / f"{name}.npz", x=xs, y=np.array(ys, dtype=object), **extra)


def render_hcs(pool, hcs_copies: int, jobs: int, seed: int, t0: float) -> None:
    """The real-cell shards: HCS train cells (as cut plus augmented copies) and val."""
    rows = hcs_rows("train")
    chunks = [(rows[i::jobs * 4], hcs_copies, seed + 100 + i) for i in range(jobs * 4)]
    parts = pool.map(_hcs_job, chunks)
    save("hcs_train", np.concatenate([p[0] for p in parts]), sum((p[1] for p in parts), []),
         src=np.array(sum((p[2] for p in parts), []), dtype=object))
    for part in ("val", "select"):
        vrows = hcs_rows(part)
        parts = pool.map(_hcs_job, [(vrows, 0, seed + 99)])
        save(f"hcs_{part}", parts[0][0], parts[0][1], src=np.array(parts[0][2], dtype=object),
             key=np.array([f"{r[0]}\t{r[1]}\t{r[2]}" for r in vrows], dtype=object))
    print(f"render: hcs {len(rows)}x{hcs_copies + 1} train, {len(vrows)} val cells ({time.time() - t0:.0f}s)")


def render_all(synthetic: int, hcs_copies: int, val_per_notation: int, jobs: int, seed: int,
               corpus: Path | None = None, synthetic_seed: int | None = None) -> None:
    """All shards. `synthetic_seed` (default `seed`) seeds the synthetic training cells
    alone, so a later stage can draw fresh ones while the held-out, selection and real
    sets stay those of `seed`."""
    corpus = corpus or WORK / "corpus.tsv"
    split = load_split()
    t0 = time.time()
    with Pool(jobs) as pool:
        render_hcs(pool, hcs_copies, jobs, seed, t0)
        # held-out-font synthetic sets
        for i, nt in enumerate(("en", "ru", "pl", "de")):
            xs, ys = _synth_job((str(corpus), split["val_fonts"], None, seed + 1000 + i, val_per_notation, 0.6,
                                 nt, 0.0))
            save(f"synval_{nt}", xs, ys)
            # the selection sets: the families fonts.py keeps for choosing (never trained on)
            xs, ys = _synth_job((str(corpus), [], "select", seed + 2000 + i, val_per_notation, 0.6, nt, 0.0))
            save(f"synsel_{nt}", xs, ys)
        print(f"render: held-out-font and selection sets ({time.time() - t0:.0f}s)")
        # synthetic training cells, in shards
        per = 20000
        sseed = seed if synthetic_seed is None else synthetic_seed
        jobs_args = [(str(corpus), split["train_fonts"], "train", sseed + 10 + k, min(per, synthetic - k * per), 1.0,
                      None, 0.05, True)
                     for k in range(math.ceil(synthetic / per))]
        for k, (xs, ys) in enumerate(pool.imap(_synth_job, jobs_args)):
            save(f"syn_{k:03d}", xs, ys)
            print(f"render: synthetic shard {k} ({len(ys)} cells, {time.time() - t0:.0f}s)", flush=True)


def render_words(n: int, seed: int, corpus: Path | None = None, jobs: int = 2) -> None:
    """`syn_words.npz`: `n` training cells that all hold a resign word (the train hands,
    as `Synth.word_mask` draws them), for a stage that teaches the reader the words."""
    corpus = corpus or WORK / "corpus.tsv"
    split = load_split()
    per = math.ceil(n / jobs)
    args = [(str(corpus), split["train_fonts"], "train", seed + k, per, 1.0, None, 0.0, True, 1.0)
            for k in range(jobs)]
    with Pool(jobs) as pool:
        parts = pool.map(_synth_job, args)
    save("syn_words", np.concatenate([p[0] for p in parts]), [y for p in parts for y in p[1]])
    print(f"render: {per * jobs} resign-word cells -> syn_words")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--synthetic", type=int, default=300000)
    ap.add_argument("--hcs-copies", type=int, default=6)
    ap.add_argument("--val-per-notation", type=int, default=1000)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--seed", type=int, default=4)
    ap.add_argument("--synthetic-seed", type=int, help="seed of the synthetic training cells alone (default --seed)")
    ap.add_argument("--only-hcs", action="store_true",
                    help="re-render the real-cell shards only (after re-cutting HCS), keep the synthetic ones")
    a = ap.parse_args()
    if a.only_hcs:
        with Pool(a.jobs) as pool:
            render_hcs(pool, a.hcs_copies, a.jobs, a.seed, time.time())
        return
    for old in SHARDS.glob("*.npz"):
        old.unlink()
    render_all(a.synthetic, a.hcs_copies, a.val_per_notation, a.jobs, a.seed, synthetic_seed=a.synthetic_seed)


if __name__ == "__main__":
    main()
