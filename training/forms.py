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
in, `<stem>.pgn` and `<stem>.tsv` as `sheets.py` does. The JSON also holds the header's
truth (`fields`: each printed field's label, where its value is written and what, or that
it is blank; `result_options`, the printed results and the one marked; see
`header_truth`); `FIELD_FAMILIES` print the header and result in other ways
(`draw_form_v2`) and `fields_eval.py` scores a reading of them.

    python -m training.forms --out DIR [--families all|tune|held-out] [--per-family 3] [--seed 1]
                             [--fonts train|val|select] [--only fields|NAME,...] [--blank-fields P]
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
import unicodedata
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image, ImageDraw, ImageFilter

from . import fieldtext
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
# Forms that differ in where and how they print the header fields and the result
# (`draw_form_v2`): `header` corner (labels in the boxes' corners), above (labels above
# boxes), cells / cells2 (a printed table row of labels over value cells), lines (one
# labelled line per field), strip (a column of fields right of the table), split (the
# names below the table beside the signatures), bottom (every field below the table);
# `result` fide (`RESULT: 1-0 ½-½ 0-1` in a box under the table, signatures below), line
# (`Result ______`, written on), row or column of options (`options` `-` or `:`,
# `boxed` or not); `abbrev` (True, or the fields to shorten) prints Rd., Bd., Br., Stół, Стол.
FAMILIES.update({
    "fide-corner-2x30": _fam(header="corner", result="fide", abbrev=True, colon=False),
    "dsb-above-line-2x30": _fam(lang="de", header="above", result="line", abbrev={"round"}, heading="shaded"),
    "pzszach-strip-2x30": _fam(lang="pl", header="strip", result="column", boxed=True, table_width=0.9),
    "rcf-cells-line-2x40": _fam(lang="ru", rows=40, header="cells", result="line"),
    "club-signatures-photo-2x25": _fam(rows=25, header="split", result="row", options=":", abbrev=True,
                                       capture="photo"),
    "ecf-bottom-line-2x30": _fam(header="bottom", result="line", heading="shaded"),
    "pzszach-cells-fide-2x30": _fam(lang="pl", header="cells2", result="fide", options=":", abbrev=True,
                                    shade=False),
    "dsb-lines-column-2x30": _fam(lang="de", header="lines", result="column", options=":", abbrev=True),
    "rcf-above-row-photo-2x30": _fam(lang="ru", header="above", result="row", boxed=True, abbrev=True,
                                     capture="photo", heading="two_line"),
})
# Tune families combining placement, result print, language and capture in ways none of
# the above does (a selection set for the header reader beside the older tune forms).
FAMILIES.update({
    "pzszach-bottom-row-photo-2x30": _fam(lang="pl", header="bottom", result="row", options=":", boxed=True,
                                          abbrev=True, capture="photo"),
    "rcf-lines-fide-2x30": _fam(lang="ru", header="lines", result="fide", abbrev=True, heading="shaded"),
    "dsb-corner-column-photo-2x25": _fam(lang="de", rows=25, header="corner", result="column", abbrev=True,
                                         capture="photo"),
})
# Never tuned on: the stand-ins for the forms users bring.
HELD_OUT = {"uschess-2x25-inverse", "dsb-3x20", "club-1x60", "zebra-2x30", "fexda-2x30-no-heading",
            "continuation-2x30-from-61",
            "ecf-bottom-line-2x30", "pzszach-cells-fide-2x30", "dsb-lines-column-2x30", "rcf-above-row-photo-2x30"}
# The families whose header and result are printed in the newer ways.
FIELD_FAMILIES = [n for n, f in FAMILIES.items() if "header" in f]


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


def _table(d: ImageDraw.ImageDraw, fam: dict, lang: dict, pf, x0: int, x1: int, top: float,
           bottom: float) -> dict:
    """The move table between x0 and x1, top and bottom; returns the move cells' boxes by
    (move, side)."""
    mx = x0
    blocks, rows = fam["blocks"], fam["rows"]
    heading_rows = {"none": 0, "plain": 1, "shaded": 1, "inverse": 1, "two_line": 2}[fam["heading"]]
    rh = (bottom - top) / (rows + heading_rows)
    gap = 16 if blocks > 1 else 0
    bw = (x1 - x0 - gap * (blocks - 1)) / blocks
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
    return boxes


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
            area = (int(lx) + 5, fy - 8, int(fx + fw - 40 - lx), 42)
            text = _plain(val, hand["latin"])[:24] if hand and val and val != "?" else ""
            if keys[i] in tags.get("blank", ()):
                text = ""
            inked = _inked(page, ink, text, area) if ink and hand and text else None
            tags.setdefault("fields", []).append(_field_truth(
                keys[i], label + ":", _text_box(d, (fx, fy), label + ":", pf(22)), area, inked,
                _old_pgn(keys[i], text) if inked else None, text if inked else None))
        y += 3 * 50 + 20
    top = y + 20
    bottom = PAGE_H - (230 if fam["result_box"] else 90)
    boxes = _table(d, fam, lang, pf, mx, PAGE_W - mx, top, bottom)
    if fam["result_box"]:
        ry = bottom + 40
        d.text((mx, ry), lang["result"] + ":", font=pf(22), fill=0)
        tags["result_label"] = (lang["result"] + ":", _text_box(d, (mx, ry), lang["result"] + ":", pf(22)))
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


# ---- What the form says around the moves: header fields and result options ----

# Printed fonts of the newer families: the system's DejaVu and Liberation faces (Debian
# fonts-dejavu-core, fonts-liberation) where present, else the older families' faces.
SYSTEM_PRINT = ["/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
                "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf",
                "/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf",
                "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
                "/usr/share/fonts/truetype/liberation/LiberationSans-Bold.ttf",
                "/usr/share/fonts/truetype/liberation/LiberationSerif-Regular.ttf",
                "/usr/share/fonts/truetype/liberation/LiberationSansNarrow-Regular.ttf"]

# Field labels of the newer families: (full, abbreviated) by language.
LABELS: dict[str, dict[str, tuple[str, str]]] = {
    "en": {"event": ("Event", "Event"), "round": ("Round", "Rd."), "board": ("Board", "Bd."),
           "date": ("Date", "Date"), "white": ("White", "White"), "black": ("Black", "Black"),
           "result": ("Result", "Result")},
    "de": {"event": ("Turnier", "Turnier"), "round": ("Runde", "Rd."), "board": ("Brett", "Br."),
           "date": ("Datum", "Datum"), "white": ("Weiß", "Weiß"), "black": ("Schwarz", "Schwarz"),
           "result": ("Ergebnis", "Ergebnis")},
    "pl": {"event": ("Turniej", "Turniej"), "round": ("Runda", "Rd."), "board": ("Szachownica", "Stół"),
           "date": ("Data", "Data"), "white": ("Białe", "Białe"), "black": ("Czarne", "Czarne"),
           "result": ("Wynik", "Wynik")},
    "ru": {"event": ("Турнир", "Турнир"), "round": ("Тур", "Тур"), "board": ("Доска", "Стол"),
           "date": ("Дата", "Дата"), "white": ("Белые", "Белые"), "black": ("Чёрные", "Чёрные"),
           "result": ("Результат", "Результат")},
}
# Other wordings forms print for the same fields (`--label-words varied`): synonyms,
# a number sign after the label (`Round No.`, `Brett-Nr.`, `Тур №`), a longer phrase. The
# reader's own list was not drawn from these; they test it on words it may not know.
LABEL_VARIANTS: dict[str, dict[str, tuple[str, ...]]] = {
    "en": {"event": ("Tournament", "Competition", "Event name"), "round": ("Round No.", "Rnd"),
           "board": ("Table", "Board No.", "Board no"), "date": ("Date played",),
           "white": ("White player",), "black": ("Black player",), "result": ("Final result",)},
    "de": {"event": ("Veranstaltung", "Wettkampf"), "round": ("Runde Nr.", "Rd"),
           "board": ("Tisch", "Brett-Nr.", "Brett Nr."), "date": ("Spieldatum",),
           "white": ("Weiss", "Spieler Weiß"), "black": ("Spieler Schwarz",), "result": ("Resultat",)},
    "pl": {"event": ("Zawody", "Nazwa turnieju"), "round": ("Runda nr", "Rd"),
           "board": ("Nr stołu", "Szach."), "date": ("Data gry",),
           "white": ("Biały", "Grający białymi"), "black": ("Czarny", "Grający czarnymi"),
           "result": ("Rezultat",)},
    "ru": {"event": ("Соревнование", "Название турнира"), "round": ("Тур №",),
           "board": ("Доска №", "Стол №"), "date": ("Дата игры",),
           "white": ("Белыми",), "black": ("Черные", "Чёрными"), "result": ("Итог",)},
}
# "fixed" (the LABELS above), "varied" (each label drawn from LABELS and LABEL_VARIANTS)
# or "bilingual" (a form not in English prints each label with its English one after a
# slash, `Runde / Round`, as forms for international events do).
LABEL_WORDS = "fixed"
SIGN = {"en": "Signature", "de": "Unterschrift", "pl": "Podpis", "ru": "Подпись"}
FIELD_KEYS = ["event", "round", "board", "date", "white", "black"]
OPTIONS = {"-": ("1-0", "½-½", "0-1"), ":": ("1:0", "½:½", "0:1")}


def _text_box(d: ImageDraw.ImageDraw, xy: tuple[float, float], text: str, f) -> tuple[int, int, int, int]:
    """The printed text's ink box (x, y, w, h) on the form."""
    x0, y0, x1, y1 = d.textbbox(xy, text, font=f)
    return int(x0), int(y0), int(x1 - x0), int(y1 - y0)


def _inked(page: Image.Image, ink: Ink | None, text: str, area: tuple[int, int, int, int]) -> list[int] | None:
    """Writes `text` into `area` and returns the box (x, y, w, h) of the ink it left: the
    pixels the write changed."""
    if ink is None or not text:
        return None
    x, y, w, h = area
    pad = 40
    crop = (max(0, x - pad), max(0, y - pad), min(page.width, x + w + pad), min(page.height, y + h + pad))
    before = np.asarray(page.crop(crop), np.int16)
    ink.write(text, area)
    return _changed(page, crop, before)


def _changed(page: Image.Image, crop: tuple[int, int, int, int], before: np.ndarray) -> list[int] | None:
    after = np.asarray(page.crop(crop), np.int16)
    ys, xs = np.nonzero(np.abs(after - before) > 12)
    if not len(xs):
        return None
    return [crop[0] + int(xs.min()), crop[1] + int(ys.min()), int(xs.max() - xs.min()) + 1,
            int(ys.max() - ys.min()) + 1]


def _field_truth(field: str, label: str | None, label_box, area, inked, value: str | None,
                 written_text: str | None) -> dict:
    """One header field's truth on the form (boxes x, y, w, h; moved onto the picture
    by `make_page`)."""
    return {"field": field, "label": label, "label_box": list(label_box) if label_box else None,
            "area": list(area), "value": value if inked else None, "written": written_text if inked else None,
            "value_box": inked, "blank": inked is None}


def _old_pgn(field: str, text: str) -> str:
    """The PGN value of what the older families write (the game's own header values)."""
    if field == "date":
        return fieldtext.pgn_date(text) or text
    return text.strip()


def _drawable(text: str, entry: dict) -> str:
    """`text` as the hand can draw it: letters its font files lack folded to their plain
    forms (a Cyrillic letter looked up in the hand's Cyrillic file), `½` as `1/2`."""
    from .render import _draws, is_cyrillic
    out = []
    for c in text:
        path = entry["cyr"] if is_cyrillic(c) and entry.get("cyr") else entry["latin"]
        if c == " " or _draws(path, c):
            out.append(c)
        elif c == "½":
            out.append("1/2")
        elif c in "łŁß":
            out.append({"ł": "l", "Ł": "L", "ß": "ss"}[c])
        else:
            out.append(unicodedata.normalize("NFKD", c)[0])
    return "".join(out)


def field_values(fam: dict, rng: random.Random, game, hand: dict, blank: float) -> dict:
    """What the player writes in each field of a newer family's form: field -> (written,
    PGN value), or None where the field stays blank; `result` from the game (none for an
    unfinished one). With `blank`, that share of the pages leaves some or all fields
    blank."""
    lang = fam["lang"]
    when, when_pgn, year = fieldtext.date(lang, rng)
    values: dict[str, tuple[str, str] | None] = {
        "event": fieldtext.event(lang, rng, year), "round": fieldtext.round_no(rng),
        "board": fieldtext.board_no(rng), "date": (when, when_pgn), "white": fieldtext.name(lang, rng),
        "black": fieldtext.name(lang, rng)}
    res = game.headers.get("Result", "*")
    values["result"] = (fieldtext.result_written(res, lang, rng), res) if res in fieldtext.RESULT_WRITTEN else None
    for k, v in values.items():
        if v is not None and k not in ("round", "board", "date"):
            w, p = v
            values[k] = (_drawable(w, hand), _drawable(p, hand) if k != "result" else p)
    pick = random.Random(rng.random())
    if blank > 0 and pick.random() < blank:
        keys = list(values)
        gone = set(keys) if pick.random() < 0.35 else {k for k in keys if pick.random() < 0.5} or {pick.choice(keys)}
        for k in gone:
            values[k] = None
    return values


def draw_form_v2(fam: dict, rng: random.Random, hand: dict, values: dict):
    """A newer family's form: where its header fields and result options are printed
    (`header`: `corner`, `above`, `cells`, `cells2`, `lines`, `strip`, `split`, `bottom`;
    `result`: `fide`, `line`, `row`, `column`; `options`: `-` or `:`, `boxed`), with
    `values` written in. Returns the page, the move cells' boxes, the fields' truth and
    the result options [(PGN result, printed text, box)]."""
    lang = fam["lang"]
    short = fam.get("abbrev", False)
    def printed(lg: str, k: str) -> str:
        return LABELS[lg][k][1 if short is True or (short and k in short) else 0]

    labels = {k: printed(lang, k) for k in LABELS[lang]}
    if LABEL_WORDS == "varied":
        labels = {k: rng.choice((v,) + LABEL_VARIANTS[lang][k]) for k, v in labels.items()}
    elif LABEL_WORDS == "bilingual" and lang != "en":
        labels = {k: f"{v} / {printed('en', k)}" for k, v in labels.items()}
    page = Image.new("L", (PAGE_W, PAGE_H), 255)
    d = ImageDraw.Draw(page)
    faces = [f for f in SYSTEM_PRINT if Path(f).exists()] if all(Path(f).exists() for f in SYSTEM_PRINT) else [
        str(FONTS / f) for f in PRINT_FONTS]
    pfont = rng.choice(faces)
    pf = lambda s: font(pfont, s)
    ink = _ink(page, hand, rng)
    fields: list[dict] = []
    colon = fam.get("colon", rng.random() < 0.5)

    def label(text: str, x: float, y: float, size: int, suffix: str = "") -> tuple[str, tuple]:
        if text.endswith("."):  # `Rd.`, not `Rd.:`
            suffix = ""
        d.text((x, y), text + suffix, font=pf(size), fill=0)
        return text + suffix, _text_box(d, (x, y), text + suffix, pf(size))

    def put(key: str, lab: tuple[str, tuple] | None, area: tuple) -> None:
        v = values.get(key)
        area = tuple(int(a) for a in area)
        inked = _inked(page, ink, v[0], area) if v else None
        fields.append(_field_truth(key, lab[0] if lab else None, lab[1] if lab else None, area, inked,
                                   v[1] if v else None, v[0] if v else None))

    def line_field(key: str, x: float, y: float, length: float, size: int = 22) -> None:
        """`Label: ______` with the value written on the line."""
        lab = label(labels[key], x, y, size, ":" if colon else "")
        lx = lab[1][0] + lab[1][2] + 12
        d.line([(lx, y + size + 10), (x + length, y + size + 10)], fill=70, width=1)
        put(key, lab, (lx + 4, y - 10, x + length - lx - 8, size + 20))

    mx = int(PAGE_W * (1 - fam["table_width"]) / 2)
    tw = d.textlength(LANG[lang]["title"], font=pf(36))
    d.text(((PAGE_W - tw) / 2, 36), LANG[lang]["title"], font=pf(36), fill=0)
    y = 100
    header = fam["header"]
    grid = [[("event", 0.52), ("date", 0.24), ("round", 0.12), ("board", 0.12)], [("white", 0.5), ("black", 0.5)]]
    x0, x1 = mx, PAGE_W - mx
    if header in ("corner", "above"):
        for row in grid:
            x = float(x0)
            for key, share in row:
                w = (x1 - x0) * share
                if header == "corner":
                    d.rectangle([x, y, x + w, y + 72], outline=0, width=2)
                    lab = label(labels[key], x + 6, y + 4, 15)
                    put(key, lab, (x + 8, y + 22, w - 16, 46))
                else:
                    lab = label(labels[key], x + 4, y, 17)
                    d.rectangle([x + 2, y + 24, x + w - 10, y + 74], outline=0, width=1)
                    put(key, lab, (x + 8, y + 28, w - 24, 42))
                x += w
            y += 72 if header == "corner" else 88
        y += 10
    elif header in ("cells", "cells2"):
        rows = ([[("event", 0.25), ("round", 0.07), ("board", 0.07), ("date", 0.16), ("white", 0.225),
                  ("black", 0.225)]] if header == "cells" else grid)
        shade = fam.get("shade", True)
        for row in rows:
            x = float(x0)
            for key, share in row:
                w = (x1 - x0) * share
                if shade:
                    d.rectangle([x, y, x + w, y + 32], fill=220)
                d.rectangle([x, y, x + w, y + 32], outline=0, width=1)
                d.rectangle([x, y + 32, x + w, y + 92], outline=0, width=1)
                size = 17
                while d.textlength(labels[key], font=pf(size)) > w - 6 and size > 10:
                    size -= 1
                lab = label(labels[key], x + (w - d.textlength(labels[key], font=pf(size))) / 2, y + 6, size)
                put(key, lab, (x + 5, y + 38, w - 10, 50))
                x += w
            d.rectangle([x0, y, x1, y + 92], outline=0, width=2)
            y += 92 + 8
        y += 6
    elif header == "lines":  # one field a line, the whole width
        lengths = {"event": 0.75, "round": 0.3, "board": 0.3, "date": 0.45, "white": 0.75, "black": 0.75}
        for key in FIELD_KEYS:
            line_field(key, x0, y, (x1 - x0) * lengths[key], 20)
            y += 42
        y += 6
    elif header == "split":  # the event, round, board and date in one line; the names below the table
        spans = [("event", 0.42), ("round", 0.14), ("board", 0.14), ("date", 0.30)]
        x = float(x0)
        for key, share in spans:
            line_field(key, x, y + 6, (x1 - x0) * share - 14, 20)
            x += (x1 - x0) * share
        y += 56
    # The footer under the table, bottom up.
    result = fam["result"]
    strip = header == "strip"
    foot = {"fide": 80 + 100, "line": 60 + 100, "row": 60 + 100, "column": 175}[result] if not strip else 100
    if header == "split":
        foot = 130 + (80 if result != "column" else 175)
    if header == "bottom":
        foot += 3 * 52
    bottom = PAGE_H - 50 - foot
    top = y + 14
    table_x1 = x1 - (330 if strip else 0)
    boxes = _table(d, fam, LANG[lang], pf, x0, table_x1, top, bottom)
    options: list[tuple[str, str, tuple]] = []
    opts = OPTIONS[fam.get("options", "-")]

    def option(text: str, pgn: str, x: float, y: float, size: int = 24) -> float:
        """A printed result option at (x, y); returns its width."""
        tb = d.textbbox((x, y), text, font=pf(size))
        if fam.get("boxed"):
            bx0, by0, bx1, by1 = x - 12, tb[1] - 9, max(x + 70, tb[2] + 12), tb[3] + 9
            d.rectangle([bx0, by0, bx1, by1], outline=0, width=2)
        else:
            bx0, by0, bx1, by1 = tb[0] - 6, tb[1] - 6, tb[2] + 6, tb[3] + 6
        d.text((x, y), text, font=pf(size), fill=0)
        options.append((pgn, text, (bx0, by0, bx1, by1)))
        return bx1 - x

    def result_area(x: float, y: float, width: float) -> float:
        """The result where the family prints it; returns the height used."""
        rlab = labels["result"].upper() if result == "fide" and lang == "en" else labels["result"]
        if result == "line":
            lab = label(rlab, x, y, 22, ":" if colon else "")
            lx = lab[1][0] + lab[1][2] + 12
            d.line([(lx, y + 32), (lx + 240, y + 32)], fill=70, width=1)
            put("result", lab, (lx + 4, y - 10, 232, 44))
            return 50
        if result == "column":
            lab = label(rlab, x, y, 20, ":" if colon else "")
            yy = y + 40
            for text, pgn in zip(opts, ("1-0", "1/2-1/2", "0-1")):
                option(text, pgn, x + 20, yy, 22)
                yy += 44
            fields.append(_field_truth("result", lab[0], lab[1], (x, y, 200, yy - y), None, None, None))
            return yy - y
        h = 60 if result == "fide" else 44
        if result == "fide":
            d.rectangle([x, y, x + width, y + h], outline=0, width=2)
        lab = label(rlab, x + 14, y + (h - 30) / 2 + 2, 22, ":")
        ox = lab[1][0] + lab[1][2] + 40
        for text, pgn in zip(opts, ("1-0", "1/2-1/2", "0-1")):
            ox += option(text, pgn, ox, y + (h - 30) / 2 + 2) + (60 if result == "fide" else 34)
        fields.append(_field_truth("result", lab[0], lab[1], (x, y, ox - x, h), None, None, None))
        return h

    def signatures(y: float, xa: float, xb: float) -> None:
        for k, who in enumerate(("white", "black")):
            w = (xb - xa) / 2
            sx = xa + k * w
            d.line([(sx, y + 40), (sx + w - 40, y + 40)], fill=0, width=1)
            d.text((sx, y + 46), f"{SIGN[lang]} ({labels[who]})", font=pf(15), fill=0)

    fy = bottom + 26
    if strip:  # the fields and the result in one column right of the table
        sx, sw = table_x1 + 30, x1 - table_x1 - 30
        yy = top
        for key in FIELD_KEYS:
            lab = label(labels[key], sx, yy, 17)
            d.line([(sx, yy + 70), (sx + sw, yy + 70)], fill=0, width=1)
            put(key, lab, (sx + 2, yy + 24, sw - 4, 44))
            yy += 92
        result_area(sx, yy + 10, sw)
        signatures(fy, x0, x1)
    else:
        if header == "bottom":  # the fields under the table, two columns
            half = (x1 - x0) / 2
            for i, key in enumerate(["event", "date", "round", "board", "white", "black"]):
                line_field(key, x0 + (i % 2) * half, fy + (i // 2) * 52, half - 30, 20)
            fy += 3 * 52 + 6
        if header == "split":  # the names beside the signature lines
            for k, who in enumerate(("white", "black")):
                yy = fy + k * 62
                line_field(who, x0, yy, (x1 - x0) * 0.55, 20)
                nx = x0 + (x1 - x0) * 0.6
                d.line([(nx, yy + 30), (x1, yy + 30)], fill=0, width=1)
                d.text((nx, yy + 34), SIGN[lang], font=pf(14), fill=0)
            fy += 130
            result_area(x0, fy, (x1 - x0) * 0.7)
        elif result == "column":
            result_area(x0, fy, 240)
            signatures(fy + 60, x0 + 300, x1)
        else:
            used = result_area(x0, fy, x1 - x0)
            signatures(fy + used + 20, x0, x1)
    return page, boxes, fields, options, ink


def mark_options(page: Image.Image, options: list, result: str, how: str, ink: Ink,
                 rng: random.Random) -> list[int] | None:
    """Circles, ticks or crosses the printed option of `result` (`mark_result`);
    returns the mark's box."""
    boxes = [(next(o for o, p in PGN_OF.items() if p == pgn), b) for pgn, _, b in options]
    x0, y0, x1, y1 = next(b for pgn, _, b in options if pgn == result)
    crop = (max(0, int(x0) - 60), max(0, int(y0) - 60), min(page.width, int(x1) + 60), min(page.height, int(y1) + 60))
    before = np.asarray(page.crop(crop), np.int16)
    mark_result(page, boxes, result, how, ink.value, rng)
    return _changed(page, crop, before)


def moved_box(box, quad: tuple | None, size: tuple[int, int], angle: float) -> list[int] | None:
    """A box (x, y, w, h) of the form where the picture shows it: the bounding box of its
    corners moved through the photo's perspective and the turn."""
    if box is None:
        return None
    x, y, w, h = box
    pts = []
    for cx, cy in ((x, y), (x + w, y), (x, y + h), (x + w, y + h)):
        if quad is not None:
            cx, cy = unwarp(quad, size, cx, cy)
        pts.append(turned(size, angle, cx, cy))
    xs, ys = [p[0] for p in pts], [p[1] for p in pts]
    return [round(min(xs)), round(min(ys)), round(max(xs) - min(xs)), round(max(ys) - min(ys))]


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
              resign: float = 0.0, blank_fields: float = 0.0, pinned: dict | None = None) -> int:
    """One page of family `fam` (its game and hand drawn at random unless given);
    returns the plies written on it. With `write_result`, that share of the pages whose
    whole game fits and ends without mate also shows its result: written in the cell
    after the last move, or (on a form that prints `1-0 ½-½ 0-1` boxes) a circle, tick
    or cross on one of them. A newer family (one with a `header` layout) always shows
    its header fields and result (circled, ticked or crossed among its printed options,
    or written on its result line), unless `blank_fields` leaves them blank: that share
    of the pages leaves some or all fields blank (the older families too, then).
    `pinned`, where given, holds the header's values: drawn into it when empty, else
    written as they are (the sheets of one game share a header)."""
    notation = NOTATION_OF[fam["lang"]]
    pool = [h for h in hands if notation != "ru" or h["cyr"]] or hands
    hand = hand or rng.choice(pool)
    game = game or rng.choice(games)
    tags = {"event": game.headers.get("Event", ""), "round": game.headers.get("Round", ""),
            "white": game.headers.get("White", ""), "black": game.headers.get("Black", ""),
            "date": game.headers.get("Date", "").replace("??", "").strip(".")}
    result, how, mark = None, None, None
    if "header" in fam:
        if pinned:
            values = pinned
        else:
            values = field_values(fam, rng, game, hand, blank_fields)
            if pinned is not None:
                pinned.update(values)
        page, boxes, fields, options, fink = draw_form_v2(fam, rng, hand, values)
        shown = values.get("result")
        if shown and fam["result"] == "line":
            result, how = shown[1], f"line: {shown[0]}"
        elif shown:
            result, how = shown[1], rng.choice(["circle", "circle", "tick", "cross"])
            mark = mark_options(page, options, result, how, fink, rng)
    else:
        if blank_fields > 0:  # (drawn only with the option: without it the pages come out as before)
            pick = random.Random(rng.random())
            if pick.random() < blank_fields:
                keys = ["event", "round", "board", "date", "white", "black"]
                tags["blank"] = set(keys) if pick.random() < 0.35 else {k for k in keys if pick.random() < 0.5}
        page, boxes = draw_form(fam, rng, tags, hand)
        fields = tags.get("fields", [])
        options = [(PGN_OF[o], o, b) for o, b in tags.get("result_boxes", [])]
        if "result_label" in tags:
            fields.append(_field_truth("result", tags["result_label"][0], tags["result_label"][1],
                                       tuple(int(v) for v in tags["result_label"][1]), None, None, None))
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
    held = 2 * fam["blocks"] * fam["rows"]
    if ("header" not in fam and write_result > 0 and skip == 0 and len(moves) < held and not board.is_checkmate()
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
            mark = mark_options(page, options, result, how, ink, rng)
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
    truth.update(header_truth(fields, options, result, how, mark, quad, img.size, angle))
    truth["layout"] = {"header": fam.get("header", "box" if fam["header_box"] else "none"),
                       "result": fam.get("result", "row" if fam["result_box"] else "none"),
                       "options": fam.get("options", "-"), "boxed": fam.get("boxed", "header" not in fam)}
    (out / f"{stem}.json").write_text(json.dumps(truth) + "\n", encoding="utf-8")
    (out / f"{stem}.tsv").write_text("page\tmove\tside\tlabel\n" + "\n".join(labels) + "\n", encoding="utf-8")
    return len(labels)


def header_truth(fields: list[dict], options: list, result: str | None, how: str | None, mark,
                 quad: tuple | None, size: tuple[int, int], angle: float) -> dict:
    """The header's truth where the picture shows it: `fields` (each field the form
    prints: its label and label box, where its value goes (`area`), the ink's box
    (`value_box`), the PGN value and the text as written, or `blank`), and the printed
    result options with the one marked."""
    out = []
    for f in fields:
        f = dict(f)
        if f["field"] == "result" and result and how and not how.startswith(("line", "after", "resign")):
            f.update(value=result, written=None, value_box=mark, blank=False, how=how)
        elif f["field"] == "result" and how and how.startswith("line"):
            f["how"] = "written"
        for k in ("label_box", "area", "value_box"):
            f[k] = moved_box(f[k], quad, size, angle)
        out.append(f)
    opts = [{"text": text, "result": pgn, "box": moved_box((b[0], b[1], b[2] - b[0], b[3] - b[1]), quad, size, angle),
             "marked": pgn == result and bool(how) and how in ("circle", "tick", "cross")}
            for pgn, text, b in options]
    return {"fields": out, "result_options": opts}


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
    header: dict = {}  # every sheet of the game carries the same header
    for k in range(sheets):
        page_stem = stem if k == 0 else f"{stem}-{k + 1}"
        plies += make_page(name, {**fam, "start": 1 + k * per}, rng, games, hands, out, page_stem, game, hand,
                           pinned=header)
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
    ap.add_argument("--only", metavar="NAMES",
                    help="comma-separated family names (of --families), or `fields` for the newer header forms")
    ap.add_argument("--blank-fields", type=float, default=0.0, metavar="P",
                    help="that share of each family's pages (spread evenly) leaves some or all header fields "
                         "(and the result) blank")
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
    ap.add_argument("--label-words", default="fixed", choices=["fixed", "varied", "bilingual"],
                    help="varied: each newer form's labels drawn among other wordings of them (LABEL_VARIANTS); "
                         "bilingual: a form not in English prints each label with its English one (`Runde / Round`)")
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
    if a.only:
        want = set(FIELD_FAMILIES) if a.only == "fields" else set(a.only.split(","))
        unknown = want - set(FAMILIES)
        if unknown:
            ap.error(f"no family {', '.join(sorted(unknown))}")
        names = [n for n in names if n in want]
    global LABEL_WORDS
    LABEL_WORDS = a.label_words
    rng = random.Random(a.seed)
    games = val_games()
    hands = hand_fonts(a.fonts)
    for name in names:
        for k in range(a.per_family):
            stem = f"form_{name}_{a.seed}_{k:02d}"
            # The blank pages spread evenly over each family's pages (the last of three at 0.34).
            blank = float(math.floor((k + 1) * a.blank_fields) > math.floor(k * a.blank_fields))
            make_page(name, FAMILIES[name], rng, games, hands, a.out, stem, write_result=a.write_result,
                      resign=a.resign, blank_fields=blank)
    print(f"forms: {len(names) * a.per_family} pages of {len(names)} families -> {a.out}")


if __name__ == "__main__":
    main()
