#!/usr/bin/env python3
"""How few moves a review map could flag without passing more wrong moves: the bound
behind `learn`'s calibration (issue 50; figures in docs/measurements.md).

Inputs, all from one set of labelled pages read by one reader:
  CAL     `scoresheet read PAGES -o CAL --model M.json` (the map as shipped)
  RAW     the same with a copy of M.json without its `calibration` (the decoder's
          own confidences: the map's features)
  ERRORS  `scoresheet eval PAGES --model M.json --errors ERRORS` (the wrong cells)

For the shipped map and for the best map of the same kind there can be (a logistic map
fitted on these very pages with their truth, over the map's features and the shipped
map's output: no refit from reviewed sheets can separate right from wrong better on
them), prints the fewest flags at each budget of silent errors (wrong, not flagged).
Moves flagged whatever their confidence (no cell shown) stay flagged.

    tools/flag_tradeoff.py CAL RAW ERRORS [--budgets 5,8,11] [--threshold 0.93]
"""
import argparse
import glob
import json
import math
import os

import numpy as np

EPS = 1e-3


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("cal")
    ap.add_argument("raw")
    ap.add_argument("errors")
    ap.add_argument("--budgets", default="")
    ap.add_argument("--threshold", type=float, default=0.93)
    a = ap.parse_args()
    wrong = set()
    for line in open(a.errors, encoding="utf-8").read().splitlines()[1:]:
        f = line.split("\t")
        wrong.add((os.path.splitext(os.path.basename(f[0]))[0], int(f[1]), f[2]))
    xs, ys, fixed = [], [], []
    for path in sorted(glob.glob(os.path.join(a.raw, "*.json"))):
        raw = json.load(open(path, encoding="utf-8"))
        cal = json.load(open(os.path.join(a.cal, os.path.basename(path)), encoding="utf-8"))
        stem = os.path.basename(path)[:-5]
        doubts = [math.log(1 - m["confidence"] + EPS) for m in raw["moves"]
                  if m.get("box") and m.get("state") != "locked"]
        sheet = sum(doubts) / len(doubts) if doubts else 0.0
        for r, c in zip(raw["moves"], cal["moves"]):
            if r.get("ply") is None:
                continue
            conf = min(max(r["confidence"], 0.0), 1.0)
            p = min(max(r.get("cell_p") or 0.0, 0.0), 1.0)
            q = min(max(c["confidence"], 1e-4), 1 - 1e-4)
            xs.append([math.log(conf + EPS), math.log(1 - conf + EPS),
                       float(r.get("written") is not None), sheet,
                       math.log(p + EPS), math.log(1 - p + EPS), math.log(q / (1 - q))])
            ys.append(0 if (stem, r["move"], r["side"]) in wrong else 1)
            fixed.append(bool(c["review"]) and c["confidence"] >= a.threshold)
    x, y, fixed = np.array(xs), np.array(ys), np.array(fixed)
    xb = np.hstack([x, np.ones((len(x), 1))])
    theta = np.zeros(xb.shape[1])
    ridge = np.r_[np.full(x.shape[1], 2e-3), 0.0]
    for _ in range(60):
        pr = 1 / (1 + np.exp(-xb @ theta))
        grad = xb.T @ (pr - y) / len(y) + ridge * theta
        hess = (xb.T * (pr * (1 - pr))) @ xb / len(y) + np.diag(ridge + 1e-9)
        theta -= np.linalg.solve(hess, grad)
    maps = {"shipped map": 1 / (1 + np.exp(-x[:, 6])), "best map": 1 / (1 + np.exp(-xb @ theta))}
    n, bad = len(y), int((y == 0).sum())
    print(f"{n} moves, {bad} wrong cells")
    ts = np.linspace(0.0, 1.0, 4001)
    shipped = maps["shipped map"]
    flagged = (shipped < a.threshold) | fixed
    silent0 = int(((y == 0) & ~flagged).sum())
    print(f"shipped map at {a.threshold}: flagged {int(flagged.sum())}, silent errors {silent0}")
    budgets = [int(b) for b in a.budgets.split(",") if b] or [silent0, silent0 + 3, silent0 + 6]
    for name, q in maps.items():
        for b in budgets:
            best = min((int(((q < t) | fixed).sum()) for t in ts
                        if int(((y == 0) & ~((q < t) | fixed)).sum()) <= b), default=None)
            print(f"{name}: silent errors <= {b}: fewest flagged {best}")


if __name__ == "__main__":
    main()
