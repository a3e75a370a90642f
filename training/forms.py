"""Many scoresheet forms, drawn from parameters, to test the grid on forms it was not built on.

Each family is a set of parameters modelled on a kind of form federations and clubs
print (FIDE/ECF/US Chess/Chess.com-style sheets, DSB "Partieformular", PZSzach "Zapis
partii", RCF "Бланк записи", club and school forms): one to three blocks of 20 to 60
rows, a printed number column or none, heading rows (plain, shaded, white on grey, two
lines, or none), solid, light or dotted ruling, missing inner verticals, a header box
above and a result and signature box below, continuation sheets numbered from 51 or 61,
the form's language, and a scan or a phone photo (perspective, shadow).

`HELD_OUT` families are never used to tune anything: they stand for the forms a user
brings. For each page `<stem>.png` this writes `<stem>.json` (the family, the printed
move numbers, and every move cell's box where the picture shows it: the form's cell
centre through the photo's perspective and the page's turn) and, with a game written
in, `<stem>.pgn` and `<stem>.tsv` as `sheets.py` does.

    python -m training.forms --out DIR [--families all|tune|held-out] [--per-family 3] [--seed 1]
                             [--fonts train|val|select]
    python -m training.forms --check DIR [--bin target/release/scoresheet]
    python -m training.forms --game-over-sheets FAMILY --out DIR [--sheets 2] [--stem game] [--seed 1] [--fonts val]

`--check` runs `scoresheet cells` over DIR and prints, per family and overall, the share
of pages whose move table was found and of pages whose every move cell was found with
its right number and side (the product's boxes brought back from its straightened page
onto the picture with `cells`' pages.tsv).
"""
from __future__ import annotations

import argparse
import json
import math
import random
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image, ImageDraw, ImageFilter

from .common import FONTS, RESIGN_WORDS, ROOT, load_split
from .corpus import written
from .render import font, font_entries
from .sheets import RESULT_SPELLINGS, Ink, _plain, drawable, val_games

PAGE_W, PAGE_H = 1240, 1754
PRINT_FONTS = ["PlaypenSans-Regular.ttf", "Delius-Regular.ttf", "ComicRelief-Regular.ttf",
               "ShantellSans-Regular.ttf", "Pangolin-Regular.ttf"]

LANG: dict[str, dict[str, Any]] = {
    "en": {"title": "OFFICIAL SCORESHEET", "white": "WHITE", "black": "BLACK", "no": "",
           "fields": ["Event", "Round", "Board", "Date", "White", "Black"], "result": "Result",
           "sign": ["White signature", "Black signature"], "move": "Move"},
    "de": {"title": "SCHACH PARTIEFORMULAR", "white": "Weiß", "black": "Schwarz", "no": "Nr.",
           "fields": ["Turnier", "Runde", "Brett", "Datum", "Weiß", "Schwarz"], "result": "Ergebnis",
           "sign": ["Unterschrift Weiß", "Unterschrift Schwarz"], "move": "Zug"},
    "pl": {"title": "ZAPIS PARTII SZACHOWEJ", "white": "Białe", "black": "Czarne", "no": "Nr",
           "fields": ["Turniej", "Runda", "Szachownica", "Data", "Białe", "Czarne"], "result": "Wynik",
           "sign": ["Podpis białych", "Podpis czarnych"], "move": "Ruch"},
    "ru": {"title": "БЛАНК ЗАПИСИ ШАХМАТНОЙ ПАРТИИ", "white": "Белые", "black": "Чёрные", "no": "№",
           "fields": ["Турнир", "Тур", "Доска", "Дата", "Белые", "Чёрные"], "result": "Результат",
           "sign": ["Подпись белых", "Подпись чёрных"], "move": "Ход"},
    "fr": {"title": "FEUILLE DE PARTIE", "white": "Blancs", "black": "Noirs", "no": "N°",
           "fields": ["Tournoi", "Ronde", "Table", "Date", "Blancs", "Noirs"], "result": "Résultat",
           "sign": ["Signature Blancs", "Signature Noirs"], "move": "Coup"},
    "es": {"title": "PLANILLA DE ANOTACIÓN", "white": "Blancas", "black": "Negras", "no": "Nº",
           "fields": ["Torneo", "Ronda", "Mesa", "Fecha", "Blancas", "Negras"], "result": "Resultado",
           "sign": ["Firma blancas", "Firma negras"], "move": "Jugada"},
}
NOTATION_OF = {"en": "en", "de": "de", "pl": "pl", "ru": "ru", "fr": "en", "es": "en"}

BASE: dict[str, Any] = {"lang": "en", "blocks": 2, "rows": 30, "numbers": "printed", "start": 1, "heading": "plain",
        "heading_per_block": True, "ruling": "solid", "inner_vertical": True, "header_box": True,
        "result_box": True, "zebra": False, "table_width": 0.86, "number_width": 0.14, "capture": "scan",
        "outer": 3}


def _fam(**kw) -> dict:
    return {**BASE, **kw}


FAMILIES: dict[str, dict] = {
    "fide-2x30": _fam(),
    "fide-2x30-shaded": _fam(heading="shaded"),
    "ecf-2x40": _fam(rows=40, heading="plain"),
    "uschess-2x25-inverse": _fam(rows=25, heading="inverse"),
    "chesscom-2x25": _fam(rows=25, heading="plain", header_box=False),
    "chesscom-photo-2x25": _fam(rows=25, heading="plain", capture="photo"),
    "dsb-2x30-band": _fam(lang="de", heading="inverse"),
    "dsb-2x40": _fam(lang="de", rows=40, heading="shaded"),
    "dsb-3x20": _fam(lang="de", blocks=3, rows=20, table_width=0.9),
    "pzszach-2x30": _fam(lang="pl"),
    "pzszach-2x40-light": _fam(lang="pl", rows=40, ruling="light"),
    "rcf-2x40": _fam(lang="ru", rows=40),
    "rcf-2x30-two-line": _fam(lang="ru", heading="two_line"),
    "club-1x40": _fam(blocks=1, rows=40, table_width=0.55, number_width=0.16),
    "club-1x60": _fam(blocks=1, rows=60, table_width=0.6, header_box=False),
    "school-2x20-big": _fam(rows=20, heading="shaded", number_width=0.16),
    "three-block-3x25": _fam(blocks=3, rows=25, table_width=0.92),
    "no-numbers-2x30": _fam(numbers="none"),
    "blank-numbers-2x30": _fam(numbers="blank"),
    "dotted-2x30": _fam(ruling="dotted"),
    "no-inner-vertical-2x30": _fam(inner_vertical=False),
    "zebra-2x30": _fam(zebra=True, heading="shaded"),
    "heading-once-2x30": _fam(heading_per_block=False),
    "continuation-2x25-from-51": _fam(rows=25, start=51),
    "continuation-2x30-from-61": _fam(lang="de", start=61, heading="shaded"),
    "ffe-2x30": _fam(lang="fr", heading="shaded"),
    "fexda-2x30-no-heading": _fam(lang="es", heading="none"),
    "photo-2x30": _fam(lang="pl", capture="photo"),
}
# Never tuned on: the stand-ins for the forms users bring.
HELD_OUT = {"uschess-2x25-inverse", "dsb-3x20", "club-1x60", "zebra-2x30", "fexda-2x30-no-heading",
            "continuation-2x30-from-61"}


def _rule(d: ImageDraw.ImageDraw, a, b, style: str, width: int) -> None:
    gray = {"solid": 0, "light": 150, "dotted": 40}[style]
    if style != "dotted":
        d.line([a, b], fill=gray, width=width)
        return
    (x0, y0), (x1, y1) = a, b
    n = int(max(abs(x1 - x0), abs(y1 - y0)) / 6)
    for k in range(n):
        t0, t1 = k / n, (k + 0.5) / n
        d.line([(x0 + (x1 - x0) * t0, y0 + (y1 - y0) * t0), (x0 + (x1 - x0) * t1, y0 + (y1 - y0) * t1)],
               fill=gray, width=width)


def draw_form(fam: dict, rng: random.Random, tags: dict, hand: dict | None):
    """The printed form; returns the page and the move cells' boxes by (move, side)."""
    lang = LANG[fam["lang"]]
    page = Image.new("L", (PAGE_W, PAGE_H), 255)
    d = ImageDraw.Draw(page)
    pfont = str(FONTS / rng.choice(PRINT_FONTS))
    pf = lambda s: font(pfont, s)
    mx = int(PAGE_W * (1 - fam["table_width"]) / 2)
    tw = d.textlength(lang["title"], font=pf(38))
    d.text(((PAGE_W - tw) / 2, 40), lang["title"], font=pf(38), fill=0)
    y = 110
    if fam["header_box"]:
        ink = _ink(page, hand, rng) if hand else None
        keys = ["event", "round", "board", "date", "white", "black"]
        fx0, fw = 70, (PAGE_W - 140) // 2
        d.rectangle([fx0 - 10, y - 10, PAGE_W - 60, y + 3 * 50], outline=0, width=2)
        for i, label in enumerate(lang["fields"]):
            col, row = i % 2, i // 2
            fx, fy = fx0 + col * fw, y + row * 50
            d.text((fx, fy), label + ":", font=pf(22), fill=0)
            lx = fx + d.textlength(label + ":", font=pf(22)) + 10
            d.line([(lx, fy + 32), (fx + fw - 30, fy + 32)], fill=90, width=1)
            val = tags.get(keys[i], "")
            if ink and hand and val and val != "?":
                ink.write(_plain(val, hand["latin"])[:24], (int(lx) + 5, fy - 8, int(fx + fw - 40 - lx), 42))
        y += 3 * 50 + 20
    top = y + 20
    bottom = PAGE_H - (230 if fam["result_box"] else 90)
    blocks, rows = fam["blocks"], fam["rows"]
    heading_rows = {"none": 0, "plain": 1, "shaded": 1, "inverse": 1, "two_line": 2}[fam["heading"]]
    rh = (bottom - top) / (rows + heading_rows)
    gap = 16 if blocks > 1 else 0
    bw = (PAGE_W - 2 * mx - gap * (blocks - 1)) / blocks
    numbered = fam["numbers"] != "none"
    boxes = {}
    thin = 1
    for block in range(blocks):
        bx = mx + block * (bw + gap)
        nw = bw * fam["number_width"] if numbered else 0
        cw = (bw - nw) / 2
        xs = [bx, bx + nw, bx + nw + cw, bx + bw] if numbered else [bx, bx + cw, bx + bw]
        y0 = top
        if heading_rows and (fam["heading_per_block"] or block == 0):
            hy1 = top + heading_rows * rh
            if fam["heading"] in ("shaded", "inverse"):
                d.rectangle([bx, top, bx + bw, hy1], fill=200 if fam["heading"] == "shaded" else 90)
            ink_fill = 255 if fam["heading"] == "inverse" else 0
            names = ([lang["no"]] if numbered else []) + [lang["white"], lang["black"]]
            hs = int(min(24, rh * 0.55))
            for j, name in enumerate(names):
                tx = (xs[j] + xs[j + 1] - d.textlength(name, font=pf(hs))) / 2
                d.text((tx, top + (rh - hs * 1.3) / 2), name, font=pf(hs), fill=ink_fill)
            if heading_rows == 2:  # a second line: "Move" under the number, nothing else
                if numbered:
                    sub = lang["move"]
                    tx = (xs[0] + xs[1] - d.textlength(sub, font=pf(int(hs * 0.8)))) / 2
                    d.text((tx, top + rh + (rh - hs) / 2), sub, font=pf(int(hs * 0.8)), fill=ink_fill)
                _rule(d, (bx, top + rh), (bx + bw, top + rh), fam["ruling"], thin)
        if heading_rows:  # rows line up across blocks, headed or not
            y0 = top + heading_rows * rh
        for r in range(rows):
            n = fam["start"] + block * rows + r
            yy = y0 + r * rh
            if fam["zebra"] and r % 2 == 1:
                d.rectangle([bx, yy, bx + bw, yy + rh], fill=232)
            if fam["numbers"] == "printed":
                ns = int(min(20, rh * 0.5))
                tw = d.textlength(str(n), font=pf(ns))
                d.text((xs[0] + (nw - tw) / 2, yy + (rh - ns * 1.3) / 2), str(n), font=pf(ns), fill=40)
            a0 = 1 if numbered else 0
            for side, (a, b) in (("white", (xs[a0], xs[a0 + 1])), ("black", (xs[a0 + 1], xs[a0 + 2]))):
                boxes[(n, side)] = (int(a), int(yy), int(b - a), int(rh))
        # ruling
        ty = top if heading_rows and (fam["heading_per_block"] or block == 0) else y0
        for r in range(rows + 1):
            yy = y0 + r * rh
            _rule(d, (bx, yy), (bx + bw, yy), fam["ruling"], fam["outer"] if r in (0, rows) else thin)
        if ty < y0:
            _rule(d, (bx, ty), (bx + bw, ty), fam["ruling"], fam["outer"])
        for j, xx in enumerate(xs):
            inner = 0 < j < len(xs) - 1
            if inner and not fam["inner_vertical"] and j == len(xs) - 2:
                continue
            _rule(d, (xx, ty), (xx, y0 + rows * rh), fam["ruling"], thin if inner else fam["outer"])
    if fam["result_box"]:
        ry = bottom + 40
        d.text((mx, ry), lang["result"] + ":", font=pf(22), fill=0)
        x = mx + d.textlength(lang["result"] + ":", font=pf(22)) + 20
        for opt in ("1-0", "½-½", "0-1"):
            d.rectangle([x, ry - 4, x + 70, ry + 34], outline=0, width=2)
            tags.setdefault("result_boxes", []).append((opt, (x, ry - 4, x + 70, ry + 34)))
            d.text((x + 12, ry), opt, font=pf(22), fill=0)
            x += 90
        for k, label in enumerate(lang["sign"]):
            sx = mx + k * (PAGE_W - 2 * mx) / 2
            d.line([(sx, ry + 110), (sx + (PAGE_W - 2 * mx) / 2 - 40, ry + 110)], fill=0, width=1)
            d.text((sx, ry + 116), label, font=pf(16), fill=0)
    return page, boxes


def capture(page: Image.Image, fam: dict, rng: random.Random) -> tuple[Image.Image, float, tuple | None]:
    """A scan (paper tone, small rotation, blur, noise) or a phone photo (also
    perspective and a shadow). Returns the picture, its rotation in degrees and, for a
    photo, the quad of the form that fills the picture (see `unwarp`)."""
    a: np.ndarray = np.asarray(page, np.float32)
    h, w = a.shape
    paper = rng.uniform(210, 245)
    shade = np.linspace(rng.uniform(-15, 5), rng.uniform(-15, 5), w)[None, :] + np.linspace(
        rng.uniform(-10, 5), rng.uniform(-10, 5), h)[:, None]
    if fam["capture"] == "photo":  # a soft shadow across one side
        x = np.linspace(0, 1, w)[None, :]
        shade = shade - rng.uniform(20, 60) * np.clip((x - rng.uniform(0.5, 0.9)) * 4, 0, 1)
    a = a / 255 * (paper + shade)
    img = Image.fromarray(np.clip(a, 0, 255).astype(np.uint8))
    angle = rng.uniform(-1.0, 1.0)
    if fam["capture"] == "photo":
        d = 0.025
        c = [rng.uniform(-d, d) * s for s in (w, h, w, h, w, h, w, h)]
        # corners of the source quad: upper left, lower left, lower right, upper right
        quad = (c[0], c[1], c[2], h + c[3], w + c[4], h + c[5], w + c[6], c[7])
        img = img.transform((w, h), Image.Transform.QUAD, quad, Image.Resampling.BILINEAR, fillcolor=int(paper) - 60)
    else:
        quad = None
    img = img.rotate(angle, Image.Resampling.BILINEAR, fillcolor=int(paper) - 30)
    img = img.filter(ImageFilter.GaussianBlur(rng.uniform(0.3, 0.9)))
    a = np.asarray(img, np.float32) + np.random.default_rng(rng.randrange(1 << 30)).normal(0, rng.uniform(2, 5), (h, w))
    return Image.fromarray(np.clip(a, 0, 255).astype(np.uint8)), angle, quad


def turned(size: tuple[int, int], angle: float, x: float, y: float) -> tuple[float, float]:
    """Where the point (x, y) lies after `Image.rotate(angle)` (counter-clockwise on
    screen, about the centre, same canvas)."""
    w, h = size
    a = math.radians(angle)
    dx, dy = x - w / 2, y - h / 2
    return w / 2 + dx * math.cos(a) + dy * math.sin(a), h / 2 - dx * math.sin(a) + dy * math.cos(a)


def straightened_page(size: tuple[int, int], skew: float) -> dict:
    """The page the product makes of a picture of `size` turned back by `skew` degrees:
    on a canvas grown to hold it (`rotated_size` in src/page/mod.rs), not turned below
    0.05 degrees."""
    w, h = size
    if abs(skew) < 0.05:
        return {"width": w, "height": h, "skew_deg": 0.0}
    sin, cos = abs(math.sin(math.radians(skew))), math.cos(math.radians(skew))
    return {"width": math.ceil(w * cos + h * sin), "height": math.ceil(w * sin + h * cos), "skew_deg": skew}


def straightened_to_picture(page: dict, size: tuple[int, int], x: float, y: float) -> tuple[float, float]:
    """A point of the product's straightened page (`page`: the canvas size and the skew
    it turned the picture by, from `cells`' pages.tsv; see `raster::rotate`) on the
    picture of `size`."""
    a = math.radians(page["skew_deg"])
    dx, dy = x - (page["width"] - 1) / 2, y - (page["height"] - 1) / 2
    return ((size[0] - 1) / 2 + dx * math.cos(a) - dy * math.sin(a),
            (size[1] - 1) / 2 + dx * math.sin(a) + dy * math.cos(a))


def unwarp(quad: tuple, size: tuple[int, int], x: float, y: float) -> tuple[float, float]:
    """Where the form's point (x, y) lies in a picture `Image.Transform.QUAD`-transformed with
    `quad` (source corners upper left, lower left, lower right, upper right): the
    picture's pixel (u w, v h) shows the form's point bilinear in the corners at (u, v);
    Newton's method inverts it."""
    w, h = size
    ul, ll, lr, ur = [np.array(quad[i:i + 2], float) for i in (0, 2, 4, 6)]
    target = np.array([x, y], float)
    u, v = x / w, y / h
    for _ in range(20):
        p = (1 - u) * (1 - v) * ul + (1 - u) * v * ll + u * v * lr + u * (1 - v) * ur
        du = -(1 - v) * ul - v * ll + v * lr + (1 - v) * ur
        dv = -(1 - u) * ul + (1 - u) * ll + u * lr - u * ur
        step = np.linalg.solve(np.column_stack([du, dv]), target - p)
        u, v = u + step[0], v + step[1]
        if abs(step).max() < 1e-7:
            break
    return u * w, v * h


def hand_fonts(which: str) -> list[dict]:
    """Font entries (`render.font_entries`) of the train, val or select hands."""
    split = load_split()
    if which == "val":
        return font_entries(split["val_fonts"], None)
    if which == "select":
        return font_entries([], "select")
    return font_entries(split["train_fonts"], "train")


def _ink(page: Image.Image, entry: dict, rng: random.Random) -> Ink:
    ink = Ink(page, entry["latin"], rng)
    ink.entry = entry
    return ink


PGN_OF = {"1-0": "1-0", "½-½": "1/2-1/2", "0-1": "0-1"}


def mark_result(page: Image.Image, boxes: list, result: str, how: str, value: float, rng: random.Random) -> None:
    """A player's mark on the form's printed result options: `circle` round the one
    of `result`, a `tick` or a `cross` over it (pen of grey `value`)."""
    x0, y0, x1, y1 = next(b for opt, b in boxes if PGN_OF[opt] == result)
    d = ImageDraw.Draw(page)
    j = lambda: rng.uniform(-4, 4)
    wd = rng.choice([2, 3])
    if how == "circle":
        d.ellipse([x0 - 8 + j(), y0 - 6 + j(), x1 + 8 + j(), y1 + 6 + j()], outline=int(value), width=wd)
    elif how == "tick":
        pts = [(x0 + 8 + j(), y0 + 18 + j()), (x0 + 26 + j(), y1 - 2 + j()), (x1 + 6 + j(), y0 - 14 + j())]
        d.line(pts, fill=int(value), width=wd + 1, joint="curve")
    else:
        d.line([(x0 + 4 + j(), y0 + 2 + j()), (x1 - 4 + j(), y1 - 2 + j())], fill=int(value), width=wd + 1)
        d.line([(x0 + 4 + j(), y1 - 2 + j()), (x1 - 4 + j(), y0 + 2 + j())], fill=int(value), width=wd + 1)


def make_page(name: str, fam: dict, rng: random.Random, games: list, hands: list[dict], out: Path,
              stem: str, game=None, hand: dict | None = None, write_result: float = 0.0,
              resign: float = 0.0) -> int:
    """One page of family `fam` (its game and hand drawn at random unless given);
    returns the plies written on it. With `write_result`, that share of the pages whose
    whole game fits and ends without mate also shows its result: written in the cell
    after the last move, or (on a form that prints `1-0 ½-½ 0-1` boxes) a circle, tick
    or cross on one of them."""
    notation = NOTATION_OF[fam["lang"]]
    pool = [h for h in hands if notation != "ru" or h["cyr"]] or hands
    hand = hand or rng.choice(pool)
    game = game or rng.choice(games)
    tags = {"event": game.headers.get("Event", ""), "round": game.headers.get("Round", ""),
            "white": game.headers.get("White", ""), "black": game.headers.get("Black", ""),
            "date": game.headers.get("Date", "").replace("??", "").strip(".")}
    page, boxes = draw_form(fam, rng, tags, hand)
    ink = _ink(page, hand, rng)
    board = game.board()
    moves = list(game.mainline_moves())
    skip = 2 * (fam["start"] - 1)  # a continuation sheet holds the game from move `start`
    for mv in moves[:skip]:
        board.push(mv)
    labels = []
    for i, mv in enumerate(moves[skip:skip + 2 * fam["blocks"] * fam["rows"]]):
        n, side = fam["start"] + i // 2, ("white" if i % 2 == 0 else "black")
        text = written(board, mv, notation, rng, 0.1 if notation != "ru" else 0.4)
        board.push(mv)
        x, y, w, h = boxes[(n, side)]
        ink.write(text, (x + 3, y + 3, w - 6, h - 6))
        labels.append(f"{stem}\t{n}\t{side}\t{text}")
    # (`write_result` first: without it the pages come out as before.)
    result, how = None, None
    held = 2 * fam["blocks"] * fam["rows"]
    if (write_result > 0 and skip == 0 and len(moves) < held and not board.is_checkmate()
            and game.headers.get("Result") in RESULT_SPELLINGS and rng.random() < write_result):
        result = game.headers["Result"]
        ways = ["after"] + (["circle", "tick", "cross"] if "result_boxes" in tags else [])
        how = rng.choice(ways)
        if how == "after":
            i = len(moves)
            side = "white" if i % 2 == 0 else "black"
            x, y, w, h = boxes[(fam["start"] + i // 2, side)]
            wrote = rng.choice(RESULT_SPELLINGS[result])
            # (`resign` after: without it the pages come out as before.) The side to move
            # resigns in its own cell.
            if resign > 0 and result == ("1-0" if side == "black" else "0-1") and rng.random() < resign:
                wrote = drawable(rng.choice(RESIGN_WORDS[fam["lang"]]), ink.entry)
                how = "resign"
            ink.write(wrote, (x + 3, y + 3, w - 6, h - 6))
            how = f"{how}: {wrote}"
        else:
            mark_result(page, tags["result_boxes"], result, how, ink.value, rng)
    img, angle, quad = capture(page, fam, rng)
    img.save(out / f"{stem}.png", optimize=True)
    # The boxes where the picture shows them: their centres moved through the
    # photo's perspective and the turn (sizes kept). `check` brings the product's
    # boxes, which lie on its straightened page, back onto the picture.
    moved = {}
    for key, (x, y, w, h) in boxes.items():
        cx, cy = x + w / 2, y + h / 2
        if quad is not None:
            cx, cy = unwarp(quad, img.size, cx, cy)
        cx, cy = turned(img.size, angle, cx, cy)
        moved[key] = (round(cx - w / 2), round(cy - h / 2), w, h)
    boxes = moved
    truth = {"family": name, "held_out": name in HELD_OUT, "notation": notation, "lang": fam["lang"],
             "start": fam["start"], "blocks": fam["blocks"], "rows": fam["rows"], "angle": round(angle, 3),
             "capture": fam["capture"], "hand": hand["name"], "plies": len(labels),
             "result": result, "result_how": how,
             "cells": [{"move": n, "side": s, "box": list(b)} for (n, s), b in sorted(boxes.items())]}
    (out / f"{stem}.json").write_text(json.dumps(truth) + "\n", encoding="utf-8")
    (out / f"{stem}.tsv").write_text("page\tmove\tside\tlabel\n" + "\n".join(labels) + "\n", encoding="utf-8")
    return len(labels)


def make_game_sheets(name: str, fam: dict, rng: random.Random, games: list, hands: list[dict], out: Path,
                     stem: str, sheets: int = 2) -> None:
    """One game written over `sheets` pages of family `fam` in one hand: `<stem>.png`,
    then `<stem>-2.png` ... printed from the move after the last one the page before
    holds (51, 61 ...), and `<stem>.pgn`, the game as far as the sheets hold it."""
    import chess.pgn
    per = fam["blocks"] * fam["rows"]
    long = [g for g in games if len(list(g.mainline_moves())) > 2 * per * (sheets - 1) + 16]
    game = rng.choice(long)
    notation = NOTATION_OF[fam["lang"]]
    hand = rng.choice([h for h in hands if notation != "ru" or h["cyr"]] or hands)
    plies = 0
    for k in range(sheets):
        page_stem = stem if k == 0 else f"{stem}-{k + 1}"
        plies += make_page(name, {**fam, "start": 1 + k * per}, rng, games, hands, out, page_stem, game, hand)
    g = chess.pgn.Game()
    for key in ("Event", "Site", "Date", "Round", "White", "Black", "Result"):
        g.headers[key] = game.headers.get(key, "?")
    moves = list(game.mainline_moves())
    if plies < len(moves):
        g.headers["Result"] = "*"
    node: chess.pgn.GameNode = g
    for mv in moves[:plies]:
        node = node.add_variation(mv)
    (out / f"{stem}.pgn").write_text(str(g) + "\n", encoding="utf-8")
    print(f"forms: {stem}: {plies} plies over {sheets} sheets ({hand['name']})")


def check(folder: Path, binary: Path, list_failed: bool = False, overlays: Path | None = None) -> dict:
    """Runs `scoresheet cells` over the pages of `folder` and scores the grid: each
    truth cell must be met by a found cell of its move and side, their centres on the
    picture within 35% of the cell's width and 45% of its height (`cells`' pages.tsv
    gives the straightened page's geometry)."""
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([str(binary), "cells", str(folder), "--out", tmp]
                       + (["--overlay"] if overlays else []), capture_output=True, text=True)
        if overlays:
            write_overlays(folder, Path(tmp), overlays)
        # The straightened pages' geometry (canvas and skew).
        listed = Path(tmp) / "pages.tsv"
        pages = {}
        for line in (listed.read_text().splitlines()[1:] if listed.exists() else []):
            p = line.split("\t")
            pages[p[0]] = {"width": int(p[1]), "height": int(p[2]), "skew_deg": float(p[3])}
        found: dict[str, list[tuple[int, str, tuple[float, float, int, int]]]] = {}
        sizes: dict[str, tuple[int, int]] = {}
        index = Path(tmp) / "index.tsv"
        for line in (index.read_text().splitlines()[1:] if index.exists() else []):
            p = line.split("\t")
            if p[0] not in sizes:
                with Image.open(folder / f"{p[0]}.png") as im:
                    sizes[p[0]] = im.size
            size = sizes[p[0]]
            if p[0] not in pages:
                # A binary older than pages.tsv: the page as the product would straighten
                # it with the skew estimated right.
                angle = json.loads((folder / f"{p[0]}.json").read_text())["angle"]
                pages[p[0]] = straightened_page(size, -angle)
            x, y, w, h = (int(v) for v in p[3:7])
            cx, cy = straightened_to_picture(pages[p[0]], size, x + w / 2, y + h / 2)
            found.setdefault(p[0], []).append((int(p[1]), p[2], (cx - w / 2, cy - h / 2, w, h)))
    per: dict[str, list[int]] = {}
    for tj in sorted(folder.glob("*.json")):
        t = json.loads(tj.read_text())
        cells = found.get(tj.stem, [])
        table = bool(cells)
        right = table and len(cells) == len(t["cells"])
        why = "no table" if not table else f"{len(cells)} cells found, {len(t['cells'])} drawn"
        if right:
            for c in t["cells"]:
                x, y, w, h = c["box"]
                cx, cy = x + w / 2, y + h / 2
                hit = [m for m in cells if abs(m[2][0] + m[2][2] / 2 - cx) < w * 0.35
                       and abs(m[2][1] + m[2][3] / 2 - cy) < h * 0.45]
                if not any(m[0] == c["move"] and m[1] == c["side"] for m in hit):
                    right = False
                    met = ", ".join(f"{m[0]}{m[1][0]}" for m in hit) or "nothing"
                    why = f"move {c['move']} {c['side']} met by {met}"
                    break
        if list_failed and not right:
            print(f"forms: failed {tj.stem}: {why}")
        row = per.setdefault(t["family"] + (" (held out)" if t["held_out"] else ""), [0, 0, 0])
        row[0] += 1
        row[1] += table
        row[2] += right
    total = [sum(v[i] for v in per.values()) for i in range(3)]
    for family, (drawn, tables, numbered) in sorted(per.items()):
        print(f"forms: {family:40s} pages {drawn:3d}  table found {tables}/{drawn}"
              f"  all cells numbered right {numbered}/{drawn}")
    n = max(total[0], 1)
    print(f"forms: all {total[0]} pages: table found {100 * total[1] / n:.1f}%, "
          f"every cell numbered right {100 * total[2] / n:.1f}%")
    return {"pages": total[0], "table_found": total[1], "numbered_right": total[2], "per_family": per}


def score_results(folder: Path, reports: Path) -> dict:
    """The results `read -o reports` found, against what the pages show: per way of
    showing one, how many were read right; and on pages that show none, how many got
    a result from the sheet anyway (invented)."""
    by_how: dict[str, list[int]] = {}
    invented, plain = [], 0
    for truth_file in sorted(folder.glob("*.json")):
        truth = json.loads(truth_file.read_text(encoding="utf-8"))
        rep = reports / truth_file.name
        if not rep.exists() or truth.get("start", 1) != 1:
            continue
        r = json.loads(rep.read_text(encoding="utf-8"))
        if truth.get("result"):
            how = truth["result_how"].split(":")[0]
            ok = r.get("result") == truth["result"]
            by_how.setdefault(how, []).append(int(ok))
            if not ok:
                print(f"results: {truth_file.stem}: {truth['result_how']} {truth['result']}, read "
                      f"{r.get('result')} ({r.get('result_from') or r.get('result_note', '')})")
        else:
            plain += 1
            if r.get("result_from") == "sheet":
                invented.append(truth_file.stem)
    for how, oks in sorted(by_how.items()):
        print(f"results: {how}: {sum(oks)}/{len(oks)} right")
    oks = [o for v in by_how.values() for o in v]
    if oks:
        print(f"results: all shown: {sum(oks)}/{len(oks)} right ({100 * sum(oks) / len(oks):.1f}%); "
              f"pages showing none: {len(invented)} of {plain} given a result from the sheet {invented}")
    return {"right": sum(oks), "shown": len(oks), "invented": len(invented), "plain": plain}


def write_overlays(folder: Path, cells: Path, out: Path) -> None:
    """The report of what `cells` found: the first page of each family with its grid
    drawn (`cells --overlay`, halved), and `index.md` naming each picture."""
    out.mkdir(parents=True, exist_ok=True)
    lines = ["# What `scoresheet cells` finds on each form family", "",
             f"Pages: `{folder}`. Each picture is `cells --overlay` of the family's first page: "
             "White cells green with their move number in red, Black cells blue, a red line "
             "through the cells in move order.", ""]
    seen: set[str] = set()
    for tj in sorted(folder.glob("*.json")):
        t = json.loads(tj.read_text())
        if t["family"] in seen:
            continue
        seen.add(t["family"])
        held = " (held out)" if t["held_out"] else ""
        drawn = cells / f"{tj.stem}.overlay.png"
        if not drawn.exists():
            lines.append(f"- {t['family']}{held}: `{tj.stem}`: no table found")
            continue
        with Image.open(drawn) as im:
            im.convert("RGB").resize((im.width // 2, im.height // 2)).save(out / f"{t['family']}.jpg", quality=80)
        lines.append(f"- {t['family']}{held}: `{tj.stem}`")
        lines.append(f"  ![{t['family']}]({t['family']}.jpg)")
    (out / "index.md").write_text("\n".join(lines) + "\n")
    print(f"forms: overlays of {len(seen)} families -> {out}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path)
    ap.add_argument("--families", default="all", choices=["all", "tune", "held-out"])
    ap.add_argument("--per-family", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--fonts", default="train", choices=["train", "val", "select"])
    ap.add_argument("--check", type=Path, help="score the grid on a folder this wrote")
    ap.add_argument("--list-failed", action="store_true", help="with --check: name each page scored wrong and why")
    ap.add_argument("--overlays", type=Path, metavar="DIR",
                    help="with --check: write each family's first page with its grid drawn, and an index.md, into DIR")
    ap.add_argument("--game-over-sheets", metavar="FAMILY",
                    help="one game written over --sheets pages of FAMILY (a first sheet and its continuation sheets)")
    ap.add_argument("--sheets", type=int, default=2)
    ap.add_argument("--write-result", type=float, default=0.0, metavar="P",
                    help="that share of the pages whose game fits shows its result (after the last move, "
                         "or marked on the form's result boxes)")
    ap.add_argument("--resign", type=float, default=0.0, metavar="P",
                    help="with --write-result: that share of the results written after the last move whose "
                         "loser is to move is a resign word in the form's language")
    ap.add_argument("--results", type=Path, metavar="REPORTS",
                    help="with --check: score the results `read -o REPORTS` found against the pages'")
    ap.add_argument("--stem", default="game")
    ap.add_argument("--bin", type=Path, default=ROOT / "target" / "release" / "scoresheet")
    a = ap.parse_args()
    if a.check and a.results:
        score_results(a.check, a.results)
        return
    if a.check:
        check(a.check, a.bin, a.list_failed, a.overlays)
        return
    if a.out is None:
        ap.error("--out or --check")
    a.out.mkdir(parents=True, exist_ok=True)
    if a.game_over_sheets:
        make_game_sheets(a.game_over_sheets, FAMILIES[a.game_over_sheets], random.Random(a.seed), val_games(),
                         hand_fonts(a.fonts), a.out, a.stem, a.sheets)
        return
    names = [n for n in FAMILIES if a.families == "all" or (n in HELD_OUT) == (a.families == "held-out")]
    rng = random.Random(a.seed)
    games = val_games()
    hands = hand_fonts(a.fonts)
    for name in names:
        for k in range(a.per_family):
            stem = f"form_{name}_{a.seed}_{k:02d}"
            make_page(name, FAMILIES[name], rng, games, hands, a.out, stem, write_result=a.write_result,
                      resign=a.resign)
    print(f"forms: {len(names) * a.per_family} pages of {len(names)} families -> {a.out}")


if __name__ == "__main__":
    main()
