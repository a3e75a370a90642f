"""The whole training pipeline in one seeded command, from the repository root:

    python -m training.run            # split -> corpus -> hcs cells -> render -> train
                                      # -> evaluate -> export (models/) -> calibrate -> fixtures

About four and a half hours on 2 cores with the defaults (data ~10 min, four training
stages of 1500, 3000, 6000 and 3000 steps; `models/README.md` gives the shipped model's
times). Each step also runs alone
(`python -m training.<step> --help`). `--quick` does a few-minute smoke run that
still writes a (poor) model: use it to check the plumbing, never to ship.
"""
from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from . import calibrate, corpus, export, fixtures, fonts, hcs, render, split, train
from .common import MODEL_NAME, MODELS, RUNS, SPLIT_FILE, WORK, seed_all


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=4)
    ap.add_argument("--synthetic", type=int, default=160000)
    ap.add_argument("--hcs-copies", type=int, default=6)
    ap.add_argument("--arch", default="pretrained", choices=["pretrained", "crnn"],
                    help="pretrained: PP-OCRv6 tiny with our head (pretrained.py); crnn: from scratch")
    ap.add_argument("--steps", type=int, default=1500)
    ap.add_argument("--lr", type=float, default=1e-3, help="first stage's peak LR")
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--stage2-steps", type=int, default=3000,
                    help="second stage: real cells jittered, weights averaged (EMA 0.999) (0: none)")
    ap.add_argument("--stage3-steps", type=int, default=6000,
                    help="third stage: peak LR 3e-4, synthetic cells jittered too, EMA 0.999 (0: none)")
    ap.add_argument("--stage4-steps", type=int, default=3000,
                    help="fourth stage: as the third, 3000 more steps (0: none)")
    ap.add_argument("--corpus-source", default="auto", choices=["auto", "rust", "python"])
    ap.add_argument("--cells", default="auto", choices=["auto", "rust", "python"])
    ap.add_argument("--manifest-path", type=Path, help="Cargo.toml for the corpus example and the cutter")
    ap.add_argument("--skip-data", action="store_true", help="reuse the rendered shards")
    ap.add_argument("--reuse-cells", action="store_true", help="reuse the corpus and the cut HCS cells")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--run", default="main")
    ap.add_argument("--name", default=MODEL_NAME)
    a = ap.parse_args()
    if a.quick:
        a.synthetic, a.hcs_copies, a.steps = 8000, 1, 200
    seed_all(a.seed)
    times = {}
    t = time.time()
    if not a.skip_data:
        sp = split.make_split(a.seed)
        SPLIT_FILE.write_text(json.dumps(sp, indent=1, ensure_ascii=False) + "\n")
        if not (a.reuse_cells and (WORK / "corpus.tsv").exists()):
            corpus.build(a.corpus_source, 2000, a.seed, manifest=a.manifest_path)
        if not (a.reuse_cells and (hcs.OUT / "index.tsv").exists()):
            hcs.build(a.cells, a.manifest_path)
        fonts.build()
        for old in render.SHARDS.glob("*.npz"):
            old.unlink()
        render.render_all(a.synthetic, a.hcs_copies, 250 if a.quick else 1000, 2, a.seed)
        # cells that all hold a resign word, mixed in with the synthetic ones (cellreader 2.2.0)
        render.render_words(1000 if a.quick else 10000, a.seed + 500)
        times["data_s"] = round(time.time() - t)
    elif (RUNS / a.run / "train.json").exists():
        times["data_s"] = json.loads((RUNS / a.run / "train.json").read_text()).get("data_s")
    t = time.time()
    if a.quick:
        a.stage2_steps = 0
    if a.quick:
        a.stage3_steps = a.stage4_steps = 0
    # (steps, peak LR, real share, jitter real cells, EMA decay, narrowed synthetic share,
    # seed offset, jitter synthetic cells)
    stages = [(a.steps, a.lr, 0.35, False, 0.0, 0.3, 0, False)]
    if a.stage2_steps:
        stages.append((a.stage2_steps, a.lr / 2, 0.45, True, 0.999, 0.3, 1, False))
    if a.stage3_steps:
        stages.append((a.stage3_steps, a.lr * 0.3, 0.45, True, 0.999, 0.3, 27, True))
    if a.stage4_steps:
        stages.append((a.stage4_steps, a.lr * 0.3, 0.45, True, 0.999, 0.3, 28, True))
    init = None
    for i, (steps, lr, real_frac, jitter, ema, squeeze, offset, jitter_syn) in enumerate(stages):
        name = a.run if i == len(stages) - 1 else f"{a.run}-stage{i + 1}"
        train.train(steps, a.batch, lr, real_frac, name, a.seed + offset, 2, init=init,
                    augment_real=jitter, ema=ema, squeeze_synthetic=squeeze, arch=a.arch,
                    warmup=0.1 if i == 0 else 0.05, augment_synthetic=jitter_syn)
        init = str(RUNS / name / "model.pt")
    times["train_s"] = round(time.time() - t)
    out = RUNS / a.run
    described = ", then ".join(
        f"{n} steps of {a.batch} at peak LR {lr:g} ({100 * rf:.0f}% real cells"
        + (", jittered" if j else "") + (f", EMA {e:g}" if e else "")
        + (f", {100 * q:.0f}% of synthetic cells narrowed" if q else "")
        + (", synthetic cells jittered" if js else "")
        + ")"
        for n, lr, rf, j, e, q, _, js in stages) + ", each from the weights before"
    (out / "train.json").write_text(json.dumps({**times, "arch": a.arch, "steps": a.steps,
                                                "stage2_steps": a.stage2_steps, "stage3_steps": a.stage3_steps,
                                                "stage4_steps": a.stage4_steps,
                                                "stages": described,
                                                "cells": a.cells,
                                                "batch": a.batch,
                                                "synthetic_cells": a.synthetic, "hcs_copies": a.hcs_copies,
                                                "seed": a.seed}) + "\n")
    from .evaluate import evaluate, selection
    model = train.load_run(a.run)
    (out / "selection.json").write_text(json.dumps(selection(model), indent=1) + "\n")
    m, errors = evaluate(model)
    (out / "metrics.json").write_text(json.dumps(m, indent=1) + "\n")
    with open(out / "hcs_val_errors.tsv", "w") as f:
        f.write("cell\tlabel\tread\n" + "".join(f"{k}\t{g}\t{p}\n" for k, g, p in errors))
    print("run: metrics", json.dumps(m))
    export.export(a.run, a.name)
    calibrate.calibrate(MODELS / f"{a.name}.json")
    fixtures.write(a.run)


if __name__ == "__main__":
    main()
