#!/usr/bin/env python3
"""Plays the reviewer over a folder of `scoresheet read` outputs whose truth is known,
so that `scoresheet learn` can be measured without a human.

For each report: every cell whose move (or, with cell labels, whose written form)
differs from the truth is corrected with the truth, flagged or not; every other
flagged move is confirmed (a correction to the move already there, as the review
page's Enter does). Corrections go through `scoresheet fix --apply` with a
corrections file, so the folder ends as a human would leave it. A correction `fix`
refuses (the label is no legal move there: the player's slip) is replaced by a
confirmation of the tool's move, as a reviewer would accept what the game allows.
The round repeats (a re-read may move other cells) until nothing is wrong or
flagged, at most --rounds times.

Truth, per report (the image is the report's `source`): a game `<stem>.pgn` beside
the image (English SAN; one move per cell), or cell labels (`--labels` file in the
HCS format `page move side label`, or `<stem>.tsv` beside the image).

    tools/simulate_review.py OUTDIR [--labels labels.tsv] [--scoresheet BIN]
                             [--model MANIFEST] [--rounds 4] [--limit N]

Standard library only. Prints one line per sheet and a total.
"""
from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

CYRILLIC = str.maketrans({"К": "K", "к": "K", "р": "p", "Р": "P", "С": "C", "с": "c", "е": "e",
                          "Е": "E", "а": "a", "А": "A", "х": "x", "Х": "x", "В": "B", "Н": "H",
                          "О": "O", "о": "O", "Т": "T", "М": "M"})


def normalise(text: str) -> str:
    """As `scoresheet eval` compares cells: decorations dropped, castling zeros as O."""
    text = re.sub(r"[+#x:\-!?=X()\s]", "", text.translate(CYRILLIC).replace("0", "O"))
    return text.replace("e.p.", "").replace("ep", "")


def san_core(s: str | None) -> str:
    return (s or "").rstrip("+#")


def pgn_moves(path: Path) -> list[str]:
    """The mainline SAN moves of a one-game PGN (no variations expected)."""
    text = path.read_text(encoding="utf-8")
    body = "\n".join(line for line in text.splitlines() if not line.startswith("["))
    body = re.sub(r"\{[^}]*\}|;[^\n]*", " ", body)
    out = []
    for tok in body.split():
        tok = re.sub(r"^\d+\.+", "", tok)
        if not tok or tok in ("1-0", "0-1", "1/2-1/2", "*") or re.fullmatch(r"\$\d+", tok):
            continue
        out.append(tok)
    return out


def load_labels(path: Path) -> dict[str, dict[tuple[int, str], str]]:
    per: dict[str, dict[tuple[int, str], str]] = {}
    for line in path.read_text(encoding="utf-8").splitlines()[1:]:
        parts = line.split("\t")
        if len(parts) >= 4:
            per.setdefault(parts[0], {})[(int(parts[1]), parts[2])] = parts[3]
    return per


def image_of(report: dict) -> Path:
    src = report.get("source_path") or report["source"]
    return Path(src.split("#")[0])


def cell_index(move: int, side: str) -> int:
    return (move - 1) * 2 + (side == "black")


def wanted(report: dict, labels: dict | None) -> dict[tuple[int, str], tuple[str, str]]:
    """Per cell: (kind, truth) with kind `san` (a game) or `label` (a cell label)."""
    image = image_of(report)
    pgn = image.with_suffix(".pgn")
    if pgn.exists():
        game = pgn_moves(pgn)
        return {(i // 2 + 1, "white" if i % 2 == 0 else "black"): ("san", s) for i, s in enumerate(game)}
    cells = (labels or {}).get(image.stem)
    if cells is None and image.with_suffix(".tsv").exists():
        cells = load_labels(image.with_suffix(".tsv")).get(image.stem, {})
    return {k: ("label", v) for k, v in (cells or {}).items()}


def plan(report: dict, truth: dict, refused: set) -> tuple[list[dict], int, int]:
    """Corrections for one round: wrong cells corrected, flagged right ones confirmed."""
    out, wrong, confirm = [], 0, 0
    done = {(c["move"], c["side"]) for c in report.get("corrections", [])}
    for m in report["moves"]:
        if not m.get("box"):
            continue
        cell = (m["move"], m["side"])
        if cell in done and m.get("state") == "locked":
            continue
        kind, want = truth.get(cell, (None, None))
        if kind == "san":
            bad = san_core(m.get("san")) != san_core(want)
        elif kind == "label":
            bad = normalise(m.get("written") or m.get("read") or "") != normalise(want)
        else:
            bad = False
        if bad and cell not in refused:
            out.append({"move": cell[0], "side": cell[1], "input": want})
            wrong += 1
        elif m.get("review") and m.get("san"):
            out.append({"move": cell[0], "side": cell[1], "input": m["san"], "san": m["san"]})
            confirm += 1
    return out, wrong, confirm


def apply(fix: list[str], outdir: Path, name: str, corrections: list[dict]) -> bool:
    """Applies corrections to one report with `fix --apply`; True when it took them."""
    body = {"format": "scoresheet-corrections",
            "corrections": [dict(c, report=name, by="simulated-reviewer") for c in corrections]}
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(body, f)
        tmp = f.name
    r = subprocess.run([*fix, "--apply", tmp, str(outdir)], capture_output=True, text=True)
    Path(tmp).unlink()
    return r.returncode == 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("outdir", type=Path)
    ap.add_argument("--labels", type=Path)
    ap.add_argument("--scoresheet", default="scoresheet")
    ap.add_argument("--model")
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--limit", type=int, help="review only the first N reports (by name)")
    args = ap.parse_args()
    labels = load_labels(args.labels) if args.labels else None
    fix = [args.scoresheet, "fix", "--by", "simulated-reviewer"]
    if args.model:
        fix += ["--model", args.model]
    names = sorted(p.name for p in args.outdir.glob("*.json")
                   if '"moves"' in p.read_text(encoding="utf-8")[:100000])
    if args.limit is not None:
        names = names[: args.limit]
    totals = {"sheets": 0, "reviewed": 0, "corrected": 0, "confirmed": 0}
    for name in names:
        path = args.outdir / name
        report = json.loads(path.read_text(encoding="utf-8"))
        truth = wanted(report, labels)
        if not truth:
            print(f"{name}: no truth beside {image_of(report)}; left unreviewed", file=sys.stderr)
            continue
        totals["sheets"] += 1
        refused: set = set()
        corrected = confirmed = 0
        for _ in range(args.rounds):
            todo, wrong, confirm = plan(report, truth, refused)
            if not todo:
                break
            if apply(fix, args.outdir, name, todo):
                corrected += wrong
                confirmed += confirm
            else:
                # One at a time, in the order of the game; a refused one is confirmed
                # as the tool has it instead.
                todo.sort(key=lambda c: cell_index(c["move"], c["side"]))
                for c in todo:
                    report = json.loads(path.read_text(encoding="utf-8"))
                    if apply(fix, args.outdir, name, [c]):
                        corrected += "san" not in c
                        confirmed += "san" in c
                        continue
                    refused.add((c["move"], c["side"]))
                    m = next((m for m in report["moves"]
                              if (m["move"], m["side"]) == (c["move"], c["side"])), None)
                    if m and m.get("san") and "san" not in c and apply(
                            fix, args.outdir, name, [{**c, "input": m["san"], "san": m["san"]}]):
                        confirmed += 1
            report = json.loads(path.read_text(encoding="utf-8"))
        flagged = sum(1 for m in report["moves"] if m.get("review") and m.get("san"))
        done = flagged == 0 and bool(report.get("corrections"))
        totals["reviewed"] += done
        totals["corrected"] += corrected
        totals["confirmed"] += confirmed
        print(f"{name}: {corrected} corrected, {confirmed} confirmed, {flagged} still flagged"
              f"{'' if done else ' (not reviewed through)'}")
    print(f"simulate_review: {totals['sheets']} sheets, {totals['reviewed']} reviewed through, "
          f"{totals['corrected']} corrections, {totals['confirmed']} confirmations")
    return 0


if __name__ == "__main__":
    sys.exit(main())
