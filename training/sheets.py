"""Synthetic whole scoresheets: a printed form with a real game handwritten into it.

    python -m training.sheets --notation ru|pl|en|de --fonts val|train --count N --out DIR --seed S

For each sheet writes `<stem>.png` (grayscale page, ~150 dpi A4, scan-like noise and
a slight rotation), `<stem>.pgn` (the true game, English SAN) and `<stem>.tsv`
(`page move side label`, as in HCS: what is written in each filled cell, real Cyrillic
letters kept). Forms: Russian «Бланк записи шахматной партии» (№ / Белые / Чёрные,
2 x 30 or 2 x 40 rows), Polish (Nr / Biały / Czarny), English FIDE-like (2 x 30),
German (Nr. / Weiß / Schwarz). Games come from the validation split of the corpus
games (every 20th game of each shared PGN file, never used for training text);
handwriting uses one font per sheet from the held-out (`val`) or training fonts.
"""
from __future__ import annotations

import argparse
import random
import unicodedata
from pathlib import Path
from typing import Any

import chess
import chess.pgn
import numpy as np
from PIL import Image, ImageDraw, ImageFilter

from .common import FONTS, GAMES, HELD_OUT_EVERY, RESIGN_WORDS, fonts, load_split
from .corpus import written
from .render import _draws as _has
from .render import draw_text, entry_for, font

PRINT_FONT = str(FONTS / "PlaypenSans-Regular.ttf")
PAGE_W, PAGE_H = 1240, 1754
FORMS: dict[str, dict[str, Any]] = {
    "ru": {"title": "Бланк записи шахматной партии", "cols": ("№", "Белые", "Чёрные"),
           "fields": [("Турнир", "event"), ("Тур", "round"), ("Дата", "date"), ("Белые", "white"),
                      ("Чёрные", "black")], "result": "Результат", "rows": (30, 40)},
    "pl": {"title": "Zapis partii szachowej", "cols": ("Nr", "Biały", "Czarny"),
           "fields": [("Turniej", "event"), ("Runda", "round"), ("Data", "date"), ("Biały", "white"),
                      ("Czarny", "black")], "result": "Wynik", "rows": (30, 40)},
    "en": {"title": "OFFICIAL SCORESHEET", "cols": ("", "WHITE", "BLACK"),
           "fields": [("Event", "event"), ("Round", "round"), ("Date", "date"), ("White", "white"),
                      ("Black", "black")], "result": "Result", "rows": (30,)},
    "de": {"title": "Partieformular", "cols": ("Nr.", "Weiß", "Schwarz"),
           "fields": [("Turnier", "event"), ("Runde", "round"), ("Datum", "date"), ("Weiß", "white"),
                      ("Schwarz", "black")], "result": "Ergebnis", "rows": (30, 40)},
}


def val_games(min_moves: int = 12) -> list[chess.pgn.Game]:
    """Every `HELD_OUT_EVERY`th game of each shared PGN file (the corpus's validation split)."""
    out = []
    for f in sorted(GAMES.glob("*.pgn")):
        with open(f, encoding="utf-8") as fh:
            i = 0
            while True:
                if i % HELD_OUT_EVERY == 0:
                    g = chess.pgn.read_game(fh)
                    if g is None:
                        break
                    n = sum(1 for _ in g.mainline_moves())
                    if n >= 2 * min_moves:
                        out.append(g)
                else:
                    if chess.pgn.skip_game(fh) is False:
                        break
                i += 1
                if i > 400:  # enough games per file; keeps start-up short
                    break
    return out


def _plain(text: str, font_path: str) -> str:
    """Drops diacritics a font lacks (names are decoration, not data)."""
    return "".join(unicodedata.normalize("NFKD", c)[0] if c != " " and not _has(font_path, c) else c
                   for c in text)


class Ink:
    """Draws handwriting on a page: one font, slant, size and colour per writer."""

    def __init__(self, page: Image.Image, font_path: str | dict, rng: random.Random):
        """`font_path`: a font file, or a font entry (`render.font_entries`)."""
        self.entry = font_path if isinstance(font_path, dict) else entry_for(font_path)
        self.page, self.font, self.rng = page, self.entry["latin"], rng
        self.slant = rng.uniform(-0.25, 0.15)
        self.scale = rng.uniform(0.55, 0.75)
        self.value = rng.uniform(10, 70)
        self.stroke = 1 if rng.random() < 0.3 else 0

    def write(self, text: str, box: tuple[int, int, int, int], left: bool = True) -> None:
        x, y, w, h = box
        rng = self.rng
        m = draw_text(text, self.entry, 40, rng, 0.7, self.stroke)
        if m is None:
            return
        sh = self.slant + rng.uniform(-0.05, 0.05)
        mw, mh = m.size
        extra = int(abs(sh) * mh) + 2
        m = m.transform((mw + extra, mh), Image.Transform.AFFINE, (1, sh, -extra if sh > 0 else 0, 0, 1, 0),
                        Image.Resampling.BILINEAR)
        sc = h * (self.scale + 0.35) * rng.uniform(0.92, 1.08) / 40  # by font size, as a hand keeps its size
        if m.height * sc > h * 1.05:
            sc = h * 1.05 / m.height
        if m.width * sc > w * 0.92:
            sc = w * 0.92 / m.width
        m = m.resize((max(1, int(m.width * sc)), max(1, int(m.height * sc))), Image.Resampling.BILINEAR)
        x0 = x + (int(rng.uniform(0.03, 0.25) * max(0, w - m.width)) if left else (w - m.width) // 2)
        y0 = y + (h - m.height) // 2 + int(rng.uniform(-0.12, 0.12) * h)
        a = np.asarray(m, np.float32) / 255
        region = self.page.crop((x0, y0, x0 + m.width, y0 + m.height))
        r = np.asarray(region, np.float32)
        out = r * (1 - a) + self.value * a
        self.page.paste(Image.fromarray(np.clip(out, 0, 255).astype(np.uint8)), (x0, y0))


def draw_form(notation: str, rows: int, rng: random.Random, hand: Ink | None, tags: dict) -> tuple[
        Image.Image, dict[tuple[int, str], tuple[int, int, int, int]]]:
    """The printed form (and the handwritten header values); returns cell boxes."""
    form = FORMS[notation]
    page = Image.new("L", (PAGE_W, PAGE_H), 255)
    d = ImageDraw.Draw(page)
    pf = lambda s: font(PRINT_FONT, s)
    mx = 70
    title = form["title"]
    tw = d.textlength(title, font=pf(40))
    d.text(((PAGE_W - tw) / 2, 50), title, font=pf(40), fill=0)
    y = 130
    fw = (PAGE_W - 2 * mx) // 2
    ink = Ink(page, hand.entry, rng) if hand else None
    for i, (label, key) in enumerate(form["fields"]):
        col, row = i % 2, i // 2
        fx, fy = mx + col * fw, y + row * 52
        d.text((fx, fy), label + ":", font=pf(24), fill=0)
        lx = fx + d.textlength(label + ":", font=pf(24)) + 10
        d.line([(lx, fy + 34), (fx + fw - 30, fy + 34)], fill=0, width=2)
        val = tags.get(key, "")
        if ink and hand and val and val != "?":
            ink.write(_plain(val, hand.font)[:28], (int(lx) + 5, fy - 8, int(fx + fw - 40 - lx), 44))
    top = y + 3 * 52 + 30
    bottom = PAGE_H - 150
    rh = (bottom - top) / (rows + 1)
    bw = (PAGE_W - 2 * mx) / 2
    boxes = {}
    for block in range(2):
        bx = mx + block * bw
        nw = bw * 0.14
        cw = (bw - nw) / 2
        xs = [bx, bx + nw, bx + nw + cw, bx + bw]
        # header row
        hs = int(min(24, rh * 0.55))
        for j, name in enumerate(form["cols"]):
            tw = d.textlength(name, font=pf(hs))
            d.text(((xs[j] + xs[j + 1] - tw) / 2, top + (rh - hs * 1.3) / 2), name, font=pf(hs), fill=0)
        for r in range(rows + 2):
            yy = top + r * rh if r <= rows + 1 else bottom
            if r <= rows + 1:
                d.line([(bx, yy), (bx + bw, yy)], fill=0, width=3 if r in (0, 1, rows + 1) else 1)
        for j, xx in enumerate(xs):
            d.line([(xx, top), (xx, top + (rows + 1) * rh)], fill=0, width=3 if j in (0, 3) else 1)
        for r in range(rows):
            n = block * rows + r + 1
            yy = top + (r + 1) * rh
            ns = int(min(20, rh * 0.5))
            tw = d.textlength(str(n), font=pf(ns))
            d.text((xs[0] + (nw - tw) / 2, yy + (rh - ns * 1.3) / 2), str(n), font=pf(ns), fill=60)
            for side, (a, b) in (("white", (xs[1], xs[2])), ("black", (xs[2], xs[3]))):
                boxes[(n, side)] = (int(a) + 2, int(yy) + 2, int(b - a) - 4, int(rh) - 4)
    ry = bottom + 40
    d.text((mx, ry), form["result"] + ":", font=pf(24), fill=0)
    d.line([(mx + 160, ry + 34), (mx + 420, ry + 34)], fill=0, width=2)
    return page, boxes


def scan(page: Image.Image, rng: random.Random) -> Image.Image:
    """Paper tone, shading, slight rotation, blur and sensor noise."""
    a: np.ndarray = np.asarray(page, np.float32)
    h, w = a.shape
    paper = rng.uniform(215, 245)
    shade = np.linspace(rng.uniform(-15, 5), rng.uniform(-15, 5), w)[None, :] + np.linspace(
        rng.uniform(-10, 5), rng.uniform(-10, 5), h)[:, None]
    a = a / 255 * (paper + shade)
    img = Image.fromarray(np.clip(a, 0, 255).astype(np.uint8))
    img = img.rotate(rng.uniform(-1.2, 1.2), Image.Resampling.BILINEAR, fillcolor=int(paper) - 30)
    img = img.filter(ImageFilter.GaussianBlur(rng.uniform(0.3, 0.8)))
    a = np.asarray(img, np.float32) + np.random.default_rng(rng.randrange(1 << 30)).normal(0, rng.uniform(2, 5), (h, w))
    return Image.fromarray(np.clip(a, 0, 255).astype(np.uint8))


# How players write a result after the last move (`--write-result`).
RESULT_SPELLINGS = {"1-0": ["1-0", "1-0", "1:0"], "0-1": ["0-1", "0-1", "0:1"],
                    "1/2-1/2": ["½-½", "1/2", "="]}

# How players write that they resigned, by the form's language (`--resign`): pages with
# them measure how the product reads such a cell.


def drawable(word: str, entry: dict) -> str:
    """A resign word as the hand can draw it: `ł`, which many Latin files lack (and which
    has no plain form to fold to), as `l`; other missing letters as `_plain` folds them."""
    from .render import is_cyrillic
    if all(is_cyrillic(c) or c == "." for c in word):
        return word
    return _plain(word if _has(entry["latin"], "ł") else word.replace("ł", "l"), entry["latin"])


def make_sheet(notation: str, font_path: str | dict, game: chess.pgn.Game, rng: random.Random, stem: str, out: Path,
               write_result: float = 0.0, resign: float = 0.0) -> None:
    rows = rng.choice(FORMS[notation]["rows"])
    moves = list(game.mainline_moves())
    cap = 2 * rows * 2
    moves = moves[:cap]
    tags = {"event": game.headers.get("Event", ""), "round": game.headers.get("Round", ""),
            "date": game.headers.get("Date", "").replace("??", "").strip("."),
            "white": game.headers.get("White", ""), "black": game.headers.get("Black", "")}
    hand = Ink(Image.new("L", (1, 1)), font_path, rng)
    page, boxes = draw_form(notation, rows, rng, hand, tags)
    ink = Ink(page, font_path, rng)
    long_p = rng.choice([0.0, 0.05, 0.3, 0.9]) if notation != "en" else rng.choice([0.0, 0.05, 0.5])
    board = game.board()
    labels = []
    for i, mv in enumerate(moves):
        n, side = i // 2 + 1, ("white" if i % 2 == 0 else "black")
        text = written(board, mv, notation, rng, long_p)
        board.push(mv)
        ink.write(text, boxes[(n, side)])
        labels.append(f"{stem}\t{n}\t{side}\t{text}")
    result = game.headers.get("Result", "*")
    wrote = None
    # (`write_result` first: without it no draw is taken, so the sheets come out as before.)
    if (write_result > 0 and len(moves) < cap and result in RESULT_SPELLINGS
            and not board.is_checkmate() and rng.random() < write_result):
        i = len(moves)
        side = "white" if i % 2 == 0 else "black"
        wrote = rng.choice(RESULT_SPELLINGS[result])
        # (`resign` after: without it the sheets come out as before.) The side to move
        # resigns in its own cell.
        if resign > 0 and result == ("1-0" if side == "black" else "0-1") and rng.random() < resign:
            wrote = drawable(rng.choice(RESIGN_WORDS[notation]), ink.entry)
        ink.write(wrote, boxes[(i // 2 + 1, side)])
    scan(page, rng).save(out / f"{stem}.png", optimize=True)
    g = chess.pgn.Game()
    for k in ("Event", "Site", "Date", "Round", "White", "Black", "Result"):
        g.headers[k] = game.headers.get(k, "?")
    if wrote:
        g.headers["Annotator"] = f"result written after the last move: {wrote}"
    elif len(moves) < len(list(game.mainline_moves())):
        g.headers["Result"] = "*"
        g.headers["Annotator"] = f"truncated to the {len(moves)} plies the sheet holds"
    node: chess.pgn.GameNode = g
    for mv in moves:
        node = node.add_variation(mv)
    (out / f"{stem}.pgn").write_text(str(g) + "\n", encoding="utf-8")
    (out / f"{stem}.tsv").write_text("page\tmove\tside\tlabel\n" + "\n".join(labels) + "\n", encoding="utf-8")


def score_results(sheets: Path, reports: Path) -> None:
    """Per sheet that writes a result: the result `read` reported against the truth."""
    import json
    by_kind: dict[str, list[int]] = {}
    for pgn in sorted(sheets.glob("*.pgn")):
        g = chess.pgn.read_game(pgn.open(encoding="utf-8"))
        assert g is not None, f"{pgn} holds no game"
        wrote = g.headers.get("Annotator", "").partition("after the last move: ")[2]
        rep = reports / f"{pgn.stem}.json"
        if not wrote or not rep.exists():
            continue
        r = json.loads(rep.read_text(encoding="utf-8"))
        ok = r.get("result") == g.headers["Result"]
        kind = ("resign" if any(wrote in ws for ws in RESIGN_WORDS.values())
                else "decisive" if g.headers["Result"] != "1/2-1/2" else f"draw {wrote}")
        by_kind.setdefault(kind, []).append(int(ok))
        if not ok:
            print(f"results: {pgn.stem}: wrote {wrote}, read {r.get('result')} "
                  f"({r.get('result_from') or r.get('result_note', '')})")
    for kind, oks in sorted(by_kind.items()):
        print(f"results: {kind}: {sum(oks)}/{len(oks)} right ({100 * sum(oks) / len(oks):.1f}%)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--notation", required=True, choices=list(FORMS))
    ap.add_argument("--fonts", default="val", choices=["val", "train", "select"],
                    help="select: the selection hands of training/fonts.py (never trained on)")
    ap.add_argument("--count", type=int, default=1)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--write-result", type=float, default=0.0,
                    help="share of sheets whose player writes the result after the last move")
    ap.add_argument("--resign", type=float, default=0.0,
                    help="with --write-result: that share of the results whose loser is to move is "
                         "written as a resign word")
    ap.add_argument("--score", type=Path, metavar="READ_DIR",
                    help="compare the reports `read` wrote in READ_DIR with the sheets in --out")
    a = ap.parse_args()
    if a.score:
        return score_results(a.out, a.score)
    rng = random.Random(a.seed * 7919 + sorted(FORMS).index(a.notation))
    split = load_split()
    pool = split["val_fonts"] if a.fonts == "val" else split["train_fonts"]
    if a.notation == "ru":
        cyr = {r["file"] for r in fonts("latin+cyrillic")}
        pool = [f for f in pool if f in cyr]
    pool = [str(FONTS / f) for f in sorted(pool)]
    if a.fonts == "select":
        from .render import font_entries
        pool = [e for e in sorted(font_entries([], "select"), key=lambda e: e["name"])
                if a.notation != "ru" or e["cyr"]]
    games = val_games()
    a.out.mkdir(parents=True, exist_ok=True)
    for k in range(a.count):
        stem = f"synth_{a.notation}_{a.fonts}_{a.seed}_{k:03d}"
        f = rng.choice(pool)
        make_sheet(a.notation, f, rng.choice(games), rng, stem, a.out, a.write_result, a.resign)
        print(f"sheets: {stem} ({f['name'] if isinstance(f, dict) else Path(f).stem})")


if __name__ == "__main__":
    main()
