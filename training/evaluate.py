"""Validation figures of a trained reader (greedy CTC, no chess knowledge).

* HCS: the held-out games of `split.json` (all their labelled cells), exact-cell
  accuracy and character error rate, `O` and `0` counted as one character; blank
  cells of those pages (empty label) reported apart.
* Synthetic: corpus val-split strings drawn with the held-out fonts, per notation.
* The same, with the second look at unsure cells (`common.SECOND_LOOK`) the product uses.

Writes `training/runs/<run>/metrics.json`. `--select` reads the selection sets instead
(HCS selection games, `render.selection_games`, and `synsel_*`, drawn with the
`fonts_extra.tsv` families kept for choosing): what models are chosen on, written to
`selection.json`. Validation is read once per shipped model, to report.

    python -m training.evaluate [--run main] [--select]
"""
from __future__ import annotations

import argparse
import json

import numpy as np
import torch

from .common import RUNS, SECOND_LOOK, levenshtein
from .render import SHARDS
from .train import load_run, read


def scores(pred: list[str], gold: list[str]) -> dict:
    norm = lambda s: s.replace("0", "O")
    p = [norm(s) for s in pred]
    g = [norm(s) for s in gold]
    errs = sum(levenshtein(a, b) for a, b in zip(p, g))
    chars = sum(len(b) for b in g)
    return {"cells": len(g), "exact": round(float(np.mean([a == b for a, b in zip(p, g)])), 4),
            "cer": round(errs / max(chars, 1), 4)}


def evaluate(model: torch.nn.Module) -> tuple[dict, list[tuple[str, str, str]]]:
    m: dict = {}
    d = np.load(SHARDS / "hcs_val.npz", allow_pickle=True)
    y = d["y"].tolist()
    pred = read(model, d["x"])
    lab = [i for i, s in enumerate(y) if s]
    blank = [i for i, s in enumerate(y) if not s]
    m["hcs_val"] = scores([pred[i] for i in lab], [y[i] for i in lab])
    m["hcs_val"]["games"] = len({s.split("_")[0] for s in d["src"].tolist()})
    m["hcs_val_blank_cells"] = {"cells": len(blank),
                                "read_as_blank":
                                    round(float(np.mean([pred[i] == "" for i in blank])), 4) if blank else None}
    errors = [(d["key"][i], y[i], pred[i]) for i in lab if pred[i].replace("0", "O") != y[i].replace("0", "O")]
    # The same sets read as the product reads them: unsure cells looked at again.
    look = m["second_look"] = {"hcs_val": scores(read(model, d["x"][lab], second_look=SECOND_LOOK),
                                                 [y[i] for i in lab])}
    for nt in ("en", "ru", "pl", "de"):
        f = SHARDS / f"synval_{nt}.npz"
        if f.exists():
            s = np.load(f, allow_pickle=True)
            m[f"synthetic_{nt}"] = scores(read(model, s["x"]), s["y"].tolist())
            look[f"synthetic_{nt}"] = scores(read(model, s["x"], second_look=SECOND_LOOK), s["y"].tolist())
    return m, errors


def selection(model: torch.nn.Module) -> dict:
    """Greedy figures on the selection sets (the data models are chosen on)."""
    m: dict = {}
    d = np.load(SHARDS / "hcs_select.npz", allow_pickle=True)
    y = d["y"].tolist()
    lab = [i for i, s in enumerate(y) if s]
    pred = read(model, d["x"][lab])
    m["hcs_select"] = scores(pred, [y[i] for i in lab])
    for nt in ("en", "ru", "pl", "de"):
        f = SHARDS / f"synsel_{nt}.npz"
        if f.exists():
            s = np.load(f, allow_pickle=True)
            m[f"synsel_{nt}"] = scores(read(model, s["x"]), s["y"].tolist())
    return m


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--run", default="main")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--select", action="store_true", help="the selection sets, not validation")
    ap.add_argument("--weights", default="model.pt", help="file of the run to read (model.pt, state.pt ...)")
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    model = load_run(a.run, a.weights)
    if a.select:
        m = selection(model)
        (RUNS / a.run / "selection.json").write_text(json.dumps(m, indent=1) + "\n")
        for k, v in m.items():
            print(f"select: {k}: {v}")
        return
    m, errors = evaluate(model)
    (RUNS / a.run / "metrics.json").write_text(json.dumps(m, indent=1) + "\n")
    with open(RUNS / a.run / "hcs_val_errors.tsv", "w") as f:
        f.write("cell\tlabel\tread\n" + "".join(f"{k}\t{g}\t{p}\n" for k, g, p in errors))
    for k, v in m.items():
        print(f"evaluate: {k}: {v}")


if __name__ == "__main__":
    main()
