"""How few moves a review map could flag without passing more wrong moves: the bound
behind `learn`'s calibration (issue 50; figures in docs/measurements.md).

Inputs, all from one set of labelled pages read by one reader:
  CAL     `scoresheet read PAGES -o CAL --model M.json` (the map as shipped)
  RAW     the same with a copy of M.json without its `calibration` (the decoder's
          own confidences, the map's features; `calibrate.raw_manifest` writes one)
  ERRORS  `scoresheet eval PAGES --model M.json --errors ERRORS` (the wrong cells)

For the shipped map and for the best map of the same kind there can be (a logistic map
fitted on these very pages with their truth, over the map's seven features and the
shipped map's output: no refit from reviewed sheets can separate right from wrong better
on them), prints the fewest flags at each budget of silent errors (wrong, not flagged).
Structural flags (no written form explains the cell) stay flagged.

    python -m training.flag_tradeoff CAL RAW ERRORS [--budgets 5,8,11] [--threshold 0.93]
"""
from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

import numpy as np

from .calibrate import features, fit, sheet_doubt, structural


def load(cal_dir: Path, raw_dir: Path, errors: Path) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per decoded move: the features (the seven, then the shipped map's log-odds), right
    (1) or wrong (0), and whether it is flagged whatever its confidence."""
    wrong = set()
    for line in errors.read_text(encoding="utf-8").splitlines()[1:]:
        f = line.split("\t")
        wrong.add((Path(f[0]).stem, int(f[1]), f[2]))
    xs, ys, fixed = [], [], []
    for path in sorted(raw_dir.glob("*.json")):
        raw = json.loads(path.read_text(encoding="utf-8"))
        cal = json.loads((cal_dir / path.name).read_text(encoding="utf-8"))
        sheet = sheet_doubt(raw["moves"])
        for r, c in zip(raw["moves"], cal["moves"]):
            if r.get("ply") is None:
                continue
            q = min(max(float(c["confidence"]), 1e-4), 1 - 1e-4)
            xs.append(features(r, raw["notation"], sheet) + [math.log(q / (1 - q))])
            ys.append(0 if (path.stem, r["move"], r["side"]) in wrong else 1)
            fixed.append(structural(r))
    return np.array(xs), np.array(ys), np.array(fixed)


def curve(p: np.ndarray, y: np.ndarray, fixed: np.ndarray, ts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Moves flagged and silent errors at each threshold in `ts`."""
    flagged = (p[None, :] < ts[:, None]) | fixed[None, :]
    return flagged.sum(axis=1), ((y == 0)[None, :] & ~flagged).sum(axis=1)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("cal", type=Path)
    ap.add_argument("raw", type=Path)
    ap.add_argument("errors", type=Path)
    ap.add_argument("--budgets", default="")
    ap.add_argument("--threshold", type=float, default=0.93)
    a = ap.parse_args()
    x, y, fixed = load(a.cal, a.raw, a.errors)
    w, b = fit(x, y, l2=1e-3)
    maps = {"shipped map": 1 / (1 + np.exp(-x[:, -1])), "best map": 1 / (1 + np.exp(-(x @ w + b)))}
    print(f"{len(y)} moves, {int((y == 0).sum())} wrong cells")
    flags0, silent0 = (int(v[0]) for v in curve(maps["shipped map"], y, fixed, np.array([a.threshold])))
    print(f"shipped map at {a.threshold}: flagged {flags0}, silent errors {silent0}")
    budgets = [int(v) for v in a.budgets.split(",") if v] or [silent0, silent0 + 3, silent0 + 6]
    ts = np.linspace(0.0, 1.0, 4001)
    for name, p in maps.items():
        flags, silent = curve(p, y, fixed, ts)
        for budget in budgets:
            ok = flags[silent <= budget]
            print(f"{name}: silent errors <= {budget}: fewest flagged {int(ok.min()) if ok.size else None}")


if __name__ == "__main__":
    main()
