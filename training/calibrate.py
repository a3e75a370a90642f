"""Calibrated confidence: fits the map from the decoder's confidence in a move to the
probability that the move is right, and writes it into the model manifest.

The product reads, with the manifest's reader and no calibration (`scoresheet read
-o`), selection data, never trained on and outside validation: the HCS pages of the
selection games (every seventh training game, `render.selection_games`; a cell is right
as `scoresheet eval` counts it against `labels.tsv`) and synthetic sheets in the
*selection* hands (`training/fonts.py`),
Russian and Polish, 72 of each (seeds 41 and 53; a move is right when it is the true
game's). A logistic regression is fitted on seven features of every cell or move (the
same as `src/vocab/calibration.rs`):

* ln(c + 0.001) and ln(1 - c + 0.001), c the decoder's confidence (its beam's share);
* a written form of the move explains the cell (0/1);
* that form is also the reader's own reading, decorations ignored (0/1);
* the mean of ln(1 - c + 0.001) over the sheet's cells (how sure the sheet is);
* ln(p + 0.001) and ln(1 - p + 0.001), p the reader's own probability that the cell
  says the move (the report's `cell_p`; 0 when no move is read from the cell).

The review threshold is chosen on the same data: the highest (0.01 steps) that flags
no more than a tenth of the moves (`FLAG_SHARE`: about what the uncalibrated product
flagged at 0.8 when the rule was set; docs/measurements.md). `scoresheet eval` then
measures the result on held-out games and fonts. About 3 minutes on 2 cores.

    python -m training.calibrate [--manifest models/cellreader.json] [--scoresheet BIN]
"""
from __future__ import annotations

import argparse
import json
import math
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import chess.pgn
import numpy as np

from .common import HCS, MODEL_NAME, MODELS, ROOT, WORK
from .hcs import read_labels

EPS = 1e-3
GRID = [round(0.5 + 0.01 * k, 2) for k in range(50)]
FLAG_SHARE = 0.10
SYNTHETIC = [(41, 24), (53, 48)]  # (seed, sheets) per notation, selection hands
# Display piece letters -> English, to compare a written form with the (English) reading.
LETTERS = {"ru": [("Кр", "K"), ("К", "N"), ("Ф", "Q"), ("Л", "R"), ("С", "B")],
           "pl": [("H", "Q"), ("W", "R"), ("G", "B"), ("S", "N")],
           "de": [("D", "Q"), ("T", "R"), ("L", "B"), ("S", "N")], "en": []}


def normalise(text: str) -> str:
    """`eval::normalise` for English readings: decorations dropped, castling zeros as O."""
    text = re.sub(r"[+#x:\-!?=X()\s]", "", text.replace("0", "O"))
    return text.replace("e.p.", "").replace("ep", "")


def log_doubt(c: float) -> float:
    return math.log(1 - min(max(c, 0.0), 1.0) + EPS)


def same_reading(written: str, read: str, notation: str) -> bool:
    for letters, english in LETTERS[notation]:
        written = written.replace(letters, english)
    return normalise(written) == normalise(read)


def features(m: dict, notation: str, sheet: float) -> list[float]:
    c = min(max(float(m["confidence"]), 0.0), 1.0)
    written = m.get("written") or ""
    same = bool(written) and same_reading(written, m["read"], notation)
    cell_p = min(max(float(m.get("cell_p") or 0.0), 0.0), 1.0)
    return [math.log(c + EPS), log_doubt(c), float(bool(written)), float(same), sheet,
            math.log(cell_p + EPS), log_doubt(cell_p)]


def sheet_doubt(moves: list[dict]) -> float:
    d = [log_doubt(float(m["confidence"])) for m in moves if m.get("box") and m.get("state") != "locked"]
    return sum(d) / len(d) if d else 0.0


def structural(m: dict) -> bool:
    """Flagged whatever the confidence: no written form explains the cell (a replaced,
    skipped or assumed move, or a cell read as something else)."""
    return m.get("state") != "locked" and not m.get("written")


Data = tuple[list, list, list, list]


def add(data: Data, m: dict, notation: str, sheet: float, right: bool) -> None:
    data[0].append(features(m, notation, sheet))
    data[1].append(float(right))
    data[2].append(bool(m["review"]))
    data[3].append(structural(m))


def collect_hcs(reports: Path, labels: dict, data: Data) -> None:
    """Every labelled cell, right when its reading is the label."""
    for path in sorted(reports.glob("*.json")):
        report = json.loads(path.read_text(encoding="utf-8"))
        sheet = sheet_doubt(report["moves"])
        for m in report["moves"]:
            label = labels.get((path.stem, m["move"], m["side"]))
            if m.get("box") and label is not None:
                right = normalise(m.get("written") or m["read"]) == normalise(label)
                add(data, m, report["notation"], sheet, right)


def collect_synthetic(reports: Path, sheets: Path, data: Data) -> None:
    """Every decoded move, right when it is the true game's move of that ply."""
    for path in sorted(reports.glob("*.json")):
        report = json.loads(path.read_text(encoding="utf-8"))
        sheet = sheet_doubt(report["moves"])
        game = chess.pgn.read_game((sheets / f"{path.stem}.pgn").open(encoding="utf-8"))
        assert game is not None, f"{path.stem}.pgn holds no game"
        board, truth = game.board(), []
        for mv in game.mainline_moves():
            truth.append(board.san(mv).rstrip("+#"))
            board.push(mv)
        decoded = [m for m in report["moves"] if m.get("ply") is not None]
        for m, want in zip(decoded, truth):
            add(data, m, report["notation"], sheet, (m.get("san") or "").rstrip("+#") == want)


def fit(x: np.ndarray, y: np.ndarray, l2: float = 1e-3,
        weight: np.ndarray | None = None) -> tuple[np.ndarray, float]:
    """Logistic regression by Newton's method: weighted mean cross-entropy + l2 * |w|^2
    (the bias not penalised). Returns the weights and the bias."""
    n, k = x.shape
    wt = np.ones(n) if weight is None else weight.astype(np.float64) * n / weight.sum()
    X = np.hstack([x.astype(np.float64), np.ones((n, 1))])
    Y = y.astype(np.float64)
    ridge = np.diag([2 * l2] * k + [0.0])
    theta = np.zeros(k + 1)
    for _ in range(100):
        p = 1 / (1 + np.exp(-(X @ theta)))
        grad = X.T @ (wt * (p - Y)) / n + ridge @ theta
        hess = (X * (wt * p * (1 - p))[:, None]).T @ X / n + ridge
        step = np.linalg.solve(hess + 1e-9 * np.eye(k + 1), grad)
        theta -= step
        if np.abs(step).max() < 1e-10:
            break
    return theta[:k], float(theta[k])


def ece(p: np.ndarray, y: np.ndarray) -> float:
    """Calibration error over ten equal-width bins (as `scoresheet eval` reports it)."""
    total = 0.0
    for k in range(10):
        sel = (p >= k / 10) & ((p < (k + 1) / 10) if k < 9 else (p <= 1))
        if sel.any():
            total += sel.mean() * abs(y[sel].mean() - p[sel].mean())
    return float(total)


def raw_manifest(manifest: Path, out: Path) -> Path:
    """A copy of the manifest without calibration (the model file by absolute path)."""
    m = json.loads(manifest.read_text(encoding="utf-8"))
    m.pop("calibration", None)
    m["onnx"] = str((manifest.parent / m["onnx"]).resolve())
    raw = out / "raw.json"
    raw.write_text(json.dumps(m), encoding="utf-8")
    return raw


def read(raw: Path, inputs: list[Path], out: Path, binary: str | None) -> None:
    cmd = [binary] if binary else ["cargo", "run", "--release", "--quiet", "--bin", "scoresheet", "--"]
    cmd += ["read", *map(str, inputs), "-o", str(out), "--model", str(raw), "-q"]
    subprocess.run(cmd, cwd=ROOT, check=True)


def calibrate(manifest: Path, binary: str | None = None, dry_run: bool = False,
              keep: Path | None = None) -> None:
    """Fits the calibration of `manifest`'s reader and writes it into the manifest."""
    labels = read_labels()
    from .render import selection_games
    select = selection_games()
    pages = sorted(p for p in (HCS / "pages").iterdir()
                   if p.stem[:3] in select and any(k[0] == p.stem for k in labels))
    data: Data = ([], [], [], [])
    work = WORK / "calibration"
    with tempfile.TemporaryDirectory() as tmp:
        if keep is not None:
            keep.mkdir(parents=True, exist_ok=True)
            tmp = str(keep)
        raw = raw_manifest(manifest, Path(tmp))
        read(raw, pages, Path(tmp) / "hcs", binary)
        collect_hcs(Path(tmp) / "hcs", labels, data)
        cells = len(data[1])
        for notation in ["ru", "pl"]:
            for seed, count in SYNTHETIC:
                sheets = work / f"{notation}_{seed}_select"
                if not any(sheets.glob("*.pgn")):
                    subprocess.run([sys.executable, "-m", "training.sheets", "--notation", notation,
                                    "--fonts", "select", "--count", str(count), "--seed", str(seed),
                                    "--out", str(sheets)], cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
                reports = Path(tmp) / f"{notation}_{seed}"
                read(raw, [sheets], reports, binary)
                collect_synthetic(reports, sheets, data)
    x, y = np.array(data[0], np.float32), np.array(data[1], np.float32)
    flags, struct = np.array(data[2]), np.array(data[3])
    # Real cells weigh as much in all as the synthetic moves: the real pages are the
    # users' kind, and a few hundred of them would otherwise be outvoted 8 to 1.
    real = np.arange(len(y)) < cells
    weight = np.where(real, (len(y) - cells) / max(cells, 1), 1.0)
    w, b = fit(x, y, weight=weight)
    p = 1 / (1 + np.exp(-(x @ w + b)))
    budget = flags.mean()
    chosen = max((t for t in GRID if (struct | (p < t)).mean() <= FLAG_SHARE), default=GRID[0])
    flagged = struct | (p < chosen)
    print(f"calibrate: {len(pages)} HCS selection pages ({cells} cells) and "
          f"{len(y) - cells} moves of synthetic sheets, {y.mean():.1%} right")
    print(f"  weights {np.round(w, 4).tolist()} bias {b:.4f}")
    q = np.clip(p, 1e-9, 1 - 1e-9)
    print(f"  calibration error {ece(np.exp(x[:, 0]) - EPS, y):.3f} raw -> {ece(p, y):.3f}, "
          f"log-loss {-(y * np.log(q) + (1 - y) * np.log(1 - q)).mean():.4f}")
    print(f"  calibration error on the HCS cells {ece(p[real], y[real]):.3f}, "
          f"on the synthetic moves {ece(p[~real], y[~real]):.3f}")
    print(f"  review below {chosen}: flags {flagged.mean():.1%} (raw {budget:.1%}), "
          f"silent errors {(~flagged & (y == 0)).mean():.2%} (raw {(~flags & (y == 0)).mean():.2%})")
    for share in (0.05, 0.10, 0.20):
        k = int(round(share * len(y)))
        for name, score in (("raw", np.exp(x[:, 0]) - EPS), ("calibrated", p)):
            order = np.argsort(score, kind="stable")
            left = (y[order[k:]] == 0).sum() / len(y)
            print(f"  checking the least sure {share:.0%} ({name}): {left:.2%} left wrong")
    if dry_run:
        return
    path = manifest
    man = json.loads(path.read_text(encoding="utf-8"))
    man["calibration"] = {
        "log_confidence": round(float(w[0]), 5), "log_doubt": round(float(w[1]), 5),
        "written": round(float(w[2]), 5), "written_is_read": round(float(w[3]), 5),
        "sheet_log_doubt": round(float(w[4]), 5), "cell_log_p": round(float(w[5]), 5),
        "cell_log_doubt": round(float(w[6]), 5),
        "bias": round(b, 5), "review_below": chosen,
    }
    man.setdefault("metrics", {})["calibration"] = {
        "hcs_select_pages": len(pages), "hcs_cells": cells, "synthetic_moves": len(y) - cells,
        "calibration_error": {"raw": round(ece(np.exp(x[:, 0]) - EPS, y), 4), "calibrated": round(ece(p, y), 4)},
        "flagged": {"raw": round(float(budget), 4), "calibrated": round(float(flagged.mean()), 4)},
        "silent_errors": {"raw": round(float((~flags & (y == 0)).mean()), 4),
                          "calibrated": round(float((~flagged & (y == 0)).mean()), 4)},
    }
    path.write_text(json.dumps(man, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"calibrate: wrote {path}")
    if path.resolve() == (MODELS / f"{MODEL_NAME}.json").resolve():
        from .card import write_card
        write_card(man)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--manifest", type=Path, default=MODELS / f"{MODEL_NAME}.json")
    ap.add_argument("--scoresheet", help="the scoresheet binary (default: cargo run --release)")
    ap.add_argument("--dry-run", action="store_true", help="print the fit, write nothing")
    ap.add_argument("--keep", type=Path, help="keep the uncalibrated reports in this folder")
    a = ap.parse_args()
    calibrate(a.manifest, a.scoresheet, a.dry_run, a.keep)


if __name__ == "__main__":
    main()
