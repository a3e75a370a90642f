"""Scores the header fields `scoresheet read` reads against the generator's truth.

    python -m training.fields_eval PAGES REPORTS [--json FILE] [--list]

PAGES: a folder `training.forms` wrote (`<stem>.png` + `<stem>.json` with `fields`);
REPORTS: the folder `scoresheet read PAGES -o REPORTS` wrote (`<stem>.json`). Prints, per
family (held-out ones marked), for the tune and the held-out families, for the newer
forms among them (the families that print the header and result in other ways, truth
`layout.header` other than `box`) and overall:

- result right: of the pages that show a result (marked among the printed options,
  written on the result line, or after the last move), those whose report's `result` is
  it; result invented: of the pages that show none, those given one from the sheet
  (`result_from: sheet`, or a `result` field with a value; a mate is not invented);
- round, board and date right: of the fields written, those read exactly (date as PGN
  `YYYY.MM.DD` with `??` for parts not written; a round `5.` is `5`);
- names: the character error rate of White and Black (edit distance over the written
  length after case folding and dropping commas and full stops; the lower of the name as
  written and as `Surname, Given`), median and share within 0.2; a name not read counts
  1.0; the event's the same way;
- invented: fields given a value where nothing is written (blank, or not printed on the
  form); missed: written fields given none;
- boxes: of the written fields read with a `box`, those whose box's centre, brought from
  the straightened page onto the picture (the report's `page`), lies in the ink's box
  grown by half its size each way.

A value is what the report's `fields[]` holds for the field (the most confident entry
with a value), else its `game` field where `game.from` says `sheet`. A page without a
report counts every written field missed.
"""
from __future__ import annotations

import argparse
import json
import math
import statistics
import struct
from pathlib import Path

from .common import levenshtein
from .fieldtext import fold, pgn_date, pgn_result

FIELDS = ["event", "round", "board", "date", "white", "black"]
EXACT = ["round", "board", "date"]
TEXT = ["event", "white", "black"]


def cer(read: str | None, truths: list[str]) -> float:
    """Character error rate of `read` against the closest of `truths` (folded); 1.0 for
    nothing read."""
    if read is None or not read.strip():
        return 1.0
    r = fold(read)
    best = 1.0e9
    for t in truths:
        ft = fold(t)
        best = min(best, levenshtein(r, ft) / max(1, len(ft)))
    return best


def norm(field: str, value: str | None) -> str | None:
    """A value in the form it is compared in (PGN date and result, round and board as
    plain numbers)."""
    if value is None:
        return None
    v = str(value).strip()
    if not v or v in ("?", "*"):
        return None
    if field == "date":
        return pgn_date(v) or v
    if field == "result":
        return pgn_result(v) or v
    if field in ("round", "board"):
        v = v.rstrip(".")
        return str(int(v)) if v.isdigit() else v
    return v


def report_values(report: dict | None) -> dict[str, str | None]:
    """What a report gives for each header field, from the sheet: its `fields[]` (the
    most confident entry with a value), else `game` where `from` says `sheet`."""
    out: dict[str, str | None] = {k: None for k in FIELDS + ["result"]}
    if not report:
        return out
    best: dict[str, float] = {}
    for f in report.get("fields") or []:
        k, v = f.get("field"), f.get("value")
        if k in out and v not in (None, "") and f.get("confidence", 0.0) >= best.get(k, -1.0):
            out[k], best[k] = str(v), f.get("confidence", 0.0)
    game = report.get("game") or {}
    for k, src in (game.get("from") or {}).items():
        if src == "sheet" and k in out and out[k] is None and game.get(k) is not None:
            out[k] = str(game[k])
    return out


def straightened_to_picture(page: dict, size: tuple[int, int], x: float, y: float) -> tuple[float, float]:
    """A point of the product's straightened page (`page`: its size and the skew it
    turned the picture by) on the picture of `size` (as `forms.straightened_to_picture`)."""
    a = math.radians(page["skew_deg"])
    dx, dy = x - (page["width"] - 1) / 2, y - (page["height"] - 1) / 2
    return ((size[0] - 1) / 2 + dx * math.cos(a) - dy * math.sin(a),
            (size[1] - 1) / 2 + dx * math.sin(a) + dy * math.cos(a))


def png_size(path: Path) -> tuple[int, int] | None:
    """Width and height from a PNG's header."""
    try:
        head = path.read_bytes()[:24]
    except OSError:
        return None
    if len(head) < 24 or head[:8] != b"\x89PNG\r\n\x1a\n":
        return None
    w, h = struct.unpack(">II", head[16:24])
    return w, h


def box_hits(truth: dict, report: dict | None, size: tuple[int, int] | None) -> list[int]:
    """For each written field read with a box: 1 where the box lies on the ink (see the
    module's doc), else 0."""
    if not report or size is None or not report.get("page") or report["page"].get("rotated_180"):
        return []
    ink = {f["field"]: f["value_box"] for f in truth.get("fields", []) if f.get("value_box")}
    best: dict[str, tuple[float, list]] = {}
    for f in report.get("fields") or []:
        k = f.get("field")
        if k in ink and f.get("value") not in (None, "") and f.get("box"):
            if k not in best or f.get("confidence", 0.0) >= best[k][0]:
                best[k] = (f.get("confidence", 0.0), f["box"])
    hits = []
    for k, (_, (x, y, w, h)) in best.items():
        cx, cy = straightened_to_picture(report["page"], size, x + w / 2, y + h / 2)
        ix, iy, iw, ih = ink[k]
        hits.append(int(ix - iw / 2 <= cx <= ix + 1.5 * iw and iy - ih / 2 <= cy <= iy + 1.5 * ih))
    return hits


def score_page(truth: dict, report: dict | None, size: tuple[int, int] | None = None) -> dict:
    """One page's counts (see the module's doc); `size`, the picture's, to place the
    report's boxes."""
    got = report_values(report)
    printed = {f["field"]: f for f in truth.get("fields", [])}
    s: dict = {"pages": 1, "reports": int(report is not None), "written": {}, "right": {}, "cer": {},
               "invented": 0, "blank": 0, "missed": 0, "invented_fields": [], "missed_fields": [],
               "boxes": box_hits(truth, report, size)}
    for k in FIELDS:
        f = printed.get(k)
        pred = norm(k, got[k])
        if f is None or f.get("blank", True):
            s["blank"] += 1
            if pred is not None:
                s["invented"] += 1
                s["invented_fields"].append(f"{k}={got[k]}")
            continue
        s["written"][k] = 1
        if pred is None:
            s["missed"] += 1
            s["missed_fields"].append(k)
        if k in EXACT:
            s["right"][k] = int(pred is not None and pred == norm(k, f["value"]))
        else:
            s["cer"][k] = cer(got[k], [t for t in (f.get("written"), f.get("value")) if t])
    shown = truth.get("result")
    rep_result = (report or {}).get("result")
    from_sheet = (report or {}).get("result_from") == "sheet" or got["result"] is not None
    if shown:
        s["written"]["result"] = 1
        s["right"]["result"] = int(norm("result", rep_result) == shown)
        if rep_result in (None, "*") and got["result"] is None:
            s["missed"] += 1
            s["missed_fields"].append("result")
    else:
        s["blank"] += 1
        if from_sheet:
            s["invented"] += 1
            s["invented_fields"].append(f"result={got['result'] or rep_result}")
    return s


def summarise(pages: list[dict]) -> dict:
    """Totals over pages' counts."""
    out: dict = {"pages": len(pages), "reports": sum(p["reports"] for p in pages)}
    for k in EXACT + ["result"]:
        n = sum(p["written"].get(k, 0) for p in pages)
        r = sum(p["right"].get(k, 0) for p in pages)
        out[k] = {"right": r, "written": n, "share": r / n if n else None}
    for name, keys in (("names", ["white", "black"]), ("event", ["event"])):
        cers = [p["cer"][k] for p in pages for k in keys if k in p["cer"]]
        out[name] = {"written": len(cers), "median_cer": statistics.median(cers) if cers else None,
                     "within_0_2": sum(c <= 0.2 for c in cers), "share_within_0_2":
                     sum(c <= 0.2 for c in cers) / len(cers) if cers else None}
    out["invented"] = sum(p["invented"] for p in pages)
    out["blank"] = sum(p["blank"] for p in pages)
    out["missed"] = sum(p["missed"] for p in pages)
    out["written"] = sum(sum(p["written"].values()) for p in pages)
    out["boxes"] = {"right": sum(sum(p["boxes"]) for p in pages), "given": sum(len(p["boxes"]) for p in pages)}
    return out


def evaluate(pages_dir: Path, reports_dir: Path, listing: bool = False) -> dict:
    by_family: dict[str, list[dict]] = {}
    held: dict[str, bool] = {}
    newer: dict[str, bool] = {}
    for tj in sorted(pages_dir.glob("*.json")):
        truth = json.loads(tj.read_text(encoding="utf-8"))
        if "fields" not in truth:
            continue
        rp = reports_dir / tj.name
        report = None
        if rp.exists():
            try:
                report = json.loads(rp.read_text(encoding="utf-8"))
            except json.JSONDecodeError:
                print(f"fields: {rp}: not JSON, counted as no report")
        s = score_page(truth, report, png_size(tj.with_suffix(".png")))
        if listing and (s["invented_fields"] or s["missed_fields"]):
            print(f"fields: {tj.stem}: invented {s['invented_fields']} missed {s['missed_fields']}")
        by_family.setdefault(truth["family"], []).append(s)
        held[truth["family"]] = bool(truth.get("held_out"))
        newer[truth["family"]] = (truth.get("layout") or {}).get("header") not in (None, "box", "none")
    result: dict = {"families": {}}
    for fam, pages in sorted(by_family.items()):
        result["families"][fam] = {**summarise(pages), "held_out": held[fam], "newer": newer[fam]}
    groups = {"tune": lambda f: not held[f], "held_out": lambda f: held[f],
              "newer_tune": lambda f: newer[f] and not held[f], "newer_held_out": lambda f: newer[f] and held[f],
              "all": lambda f: True}
    for key, keep in groups.items():
        result[key] = summarise([p for f, ps in by_family.items() if keep(f) for p in ps])
    return result


def _frac(d: dict) -> str:
    return f"{d['right']}/{d['written']}" if d["written"] else "-"


def _cer(d: dict) -> str:
    if not d["written"]:
        return "-"
    return f"{d['median_cer']:.2f} ({d['within_0_2']}/{d['written']}<=0.2)"


def line(name: str, s: dict) -> str:
    return (f"{name:44s} pages {s['pages']:3d}  result {_frac(s['result']):>7s}  round {_frac(s['round']):>7s}  "
            f"board {_frac(s['board']):>7s}  date {_frac(s['date']):>7s}  names CER {_cer(s['names']):>16s}  "
            f"event CER {_cer(s['event']):>15s}  invented {s['invented']}/{s['blank']}  "
            f"missed {s['missed']}/{s['written']}  boxes {s['boxes']['right']}/{s['boxes']['given']}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("pages", type=Path, help="the folder training.forms wrote")
    ap.add_argument("reports", type=Path, help="the folder `scoresheet read PAGES -o REPORTS` wrote")
    ap.add_argument("--json", type=Path, metavar="FILE", help="also write the figures as JSON")
    ap.add_argument("--list", action="store_true", help="name each page's invented and missed fields")
    a = ap.parse_args()
    if not a.pages.is_dir():
        ap.error(f"{a.pages}: no such folder")
    r = evaluate(a.pages, a.reports, a.list)
    if not r["families"]:
        ap.error(f"{a.pages}: no page with header truth (`fields`); generate it with training.forms")
    for fam, s in r["families"].items():
        print("fields: " + line(fam + (" (held out)" if s["held_out"] else ""), s))
    for key, label in (("tune", "tune families"), ("held_out", "held-out families"),
                       ("newer_tune", "newer forms, tune"), ("newer_held_out", "newer forms, held out"),
                       ("all", "all")):
        if r[key]["pages"]:
            print("fields: " + line(label, r[key]))
    if a.json:
        a.json.write_text(json.dumps(r, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
