"""Shared definitions: paths, the model alphabet and glyph canonicalisation (the same
as `src/glyph.rs`), and the cell preprocessing contract shared with the Rust side.

Preprocessing (identical in Rust): grayscale u8 crop, ink dark on light paper ->
bilinear resize to height H keeping aspect, width min(round(w*H/h), W) -> pasted at
x=0 on an H x W canvas of PAD -> float (p/255 - MEAN)/STD.
"""
from __future__ import annotations

import json
import os
import random
from pathlib import Path

import numpy as np
from PIL import Image

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared" if (ROOT.parent / "shared").exists() else ROOT / "shared"
if (ROOT / "../shared").exists():
    SHARED = (ROOT / "../shared").resolve()
DATA = SHARED / "data"
FONTS = SHARED / "fonts"
HCS = DATA / "hcs"
GAMES = DATA / "games"
# The first and then every 20th game of each PGN file is a validation game (never
# training text); the Rust side holds the same games out (`HELD_OUT_EVERY`,
# src/notation/pgn.rs).
HELD_OUT_EVERY = 20
WORK = ROOT / "training" / "data"
RUNS = ROOT / "training" / "runs"
MODELS = ROOT / "models"
SPLIT_FILE = ROOT / "training" / "split.json"

MODEL_NAME = "cellreader"
MODEL_VERSION = "2.2.0"

# Class order; index 0 is the CTC blank. Never reorder: the manifest carries it.
# `n`, `u`, `д`, `я` (2.2.0) spell, with the glyphs before them, the words a player writes
# after the last move to say who resigned (`RESIGN_WORDS`); a lowercase `s` or `o` is
# its capital's glyph class and `ł` is `l`'s.
ALPHABET = ["<blank>"] + list("abcdefghijlprx") + list("0123456789") + list(
    "ABCDEFGHKLMNOPQRSTVWX") + ["Ф", "Л"] + list(":-=+#().!?") + ["½", "/"] + ["n", "u", "д", "я"]
BLANK = 0
CLASS = {c: i for i, c in enumerate(ALPHABET) if i != BLANK}

# Input geometry and normalisation (the manifest records these). 48 rows: the pretrained
# recogniser (`pretrained.py`) needs at least 40; 192 keeps the old 4:1 cell shape.
H, W = 48, 192
PAD = 255
MEAN, STD = 0.5, 0.5

# A second look at unsure cells (the manifest carries it; `src/model/manifest.rs`,
# `SecondLook`): a cell whose greedy path has probability below `below` is read again
# moved by each of `shifts` rows (positive: down, PAD filling), and its readings'
# probabilities are averaged. Picked on the HCS train pages and 72 train-font sheets
# per notation, not on validation: 0.8 over 0.6 and 1.0 (every cell), one row up and
# down over two rows and over both (as good, and half the extra reads of both).
SECOND_LOOK = {"below": 0.8, "shifts": [-1, 1]}

_CANON = {
    "К": "K", "к": "K", "р": "p", "Р": "P", "С": "C", "с": "c", "е": "e", "Е": "E",
    "а": "a", "А": "A", "х": "x", "Х": "x", "В": "B", "Н": "H", "О": "O",
    "Т": "T", "М": "M", "л": "Л", "ф": "Ф", "о": "O", "o": "O", "s": "S", "ł": "l",
}

# Where the resign words live (one list for both sides): `src/pipeline/result.rs` reads
# every word of it, the generators draw each `drawn` times.
RESIGN_WORDS_FILE = ROOT / "src" / "resign_words.tsv"


def read_resign_words(path: Path = RESIGN_WORDS_FILE) -> dict[str, list[str]]:
    """Language -> its words, each repeated `drawn` times (the draw's weights; a word
    drawn 0 times is read by scoresheet but never drawn), in the file's order."""
    lines = [line for line in path.read_text(encoding="utf-8").splitlines() if not line.startswith("#")]
    words: dict[str, list[str]] = {}
    for line in lines[1:]:
        if line.strip():
            lang, word, drawn = line.split("\t")
            words.setdefault(lang, []).extend([word] * int(drawn))
    return words


# Words written after the last move for a resignation, by language (the loser writes
# them in his own cell, or the arbiter after the last move): drawn by `sheets.py` and
# `forms.py --resign`, and a share of the reader's training cells. The reader's glyphs
# spell them (`canonical`).
RESIGN_WORDS = read_resign_words()


def canonical(text: str) -> str:
    """Glyph string of `text`: look-alikes mapped as in `src/glyph.rs`, spaces dropped."""
    return "".join(_CANON.get(c, c) for c in text if not c.isspace())


def encode(text: str) -> list[int] | None:
    """Class indices of `text` after canonicalisation; None if a glyph is unknown."""
    out = []
    for c in canonical(text):
        i = CLASS.get(c)
        if i is None:
            return None
        out.append(i)
    return out


def needs_cyrillic(glyphs: str) -> bool:
    """True when a canonical glyph string holds a glyph only Cyrillic fonts draw."""
    return any(c in "ФЛ" for c in glyphs)


def greedy(logp: np.ndarray) -> str:
    """Best-path CTC decoding of one [T, C] matrix."""
    best = logp.argmax(-1)
    out, prev = [], -1
    for b in best:
        if b != prev and b != BLANK:
            out.append(ALPHABET[b])
        prev = b
    return "".join(out)


def preprocess(img: Image.Image, height: int = H, width: int = W) -> np.ndarray:
    """Cell crop (any size, mode L) -> uint8 [height, width] canvas (before
    normalisation; the shards' H x W unless a reader takes another size)."""
    img = img.convert("L")
    w, h = img.size
    nw = max(1, min(int(round(w * height / max(h, 1))), width))
    small = img.resize((nw, height), Image.Resampling.BILINEAR)
    canvas = np.full((height, width), PAD, np.uint8)
    canvas[:, :nw] = np.asarray(small)
    return canvas


def normalise(u8: np.ndarray) -> np.ndarray:
    """uint8 canvas(es) -> float32 model input, same shape."""
    return ((u8.astype(np.float32) / 255.0) - MEAN) / STD


def fonts(scripts: str | None = None) -> list[dict]:
    """Rows of `fonts.tsv` (file, family, scripts, ...), optionally one script only."""
    rows = []
    lines = (FONTS / "fonts.tsv").read_text(encoding="utf-8").splitlines()
    head = lines[0].split("\t")
    for line in lines[1:]:
        if line.strip():
            row = dict(zip(head, line.split("\t")))
            if scripts is None or row["scripts"] == scripts:
                rows.append(row)
    return rows


def load_split() -> dict:
    return json.loads(SPLIT_FILE.read_text())


def seed_all(seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed)
    os.environ["PYTHONHASHSEED"] = str(seed)


def levenshtein(a: str, b: str) -> int:
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]
