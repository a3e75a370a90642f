"""Cell fixtures for the Rust numeric check: `tests/fixtures/cells/*.png` plus
`expected.json` (greedy string and the full [T, C] log-prob matrix from PyTorch,
rounded to 1e-5) for a few validation cells the model reads correctly.

The PNGs are already preprocessed canvases (H x W, padded with 255), so the
contract's resize is the identity on them and Rust must reproduce PyTorch exactly.

    python -m training.fixtures [--run main]
"""
from __future__ import annotations

import argparse
import json

import numpy as np
import torch
from PIL import Image

from .common import MODEL_NAME, ROOT, greedy
from .render import SHARDS
from .train import canvas_at, input_size, load_run, to_input

OUT = ROOT / "tests" / "fixtures" / "cells"
# (shard, wanted labels in order of preference, how many)
WANT = [
    ("hcs_val", ["Nf3", "O-O", "exd5", "Qxe7+", "Bb5", "Rxe8+", "Nc6", "e4", "d4"], 3),
    ("hcs_val", [""], 1),
    ("synval_ru", None, 2),
    ("synval_pl", None, 1),
    ("synval_de", None, 1),
]


def write(run: str = "main") -> None:
    torch.set_num_threads(2)
    model = load_run(run)
    model.eval()
    OUT.mkdir(parents=True, exist_ok=True)
    for f in OUT.glob("*.png"):
        f.unlink()
    cells: list[dict] = []
    size = input_size(model)
    for shard, wanted, n in WANT:
        d = np.load(SHARDS / f"{shard}.npz", allow_pickle=True)
        ys = d["y"].tolist()
        if wanted is None:
            # prefer strings with Cyrillic-only glyphs or captures: the interesting classes
            order = sorted(range(len(ys)), key=lambda i: (-(("Ф" in ys[i]) + ("Л" in ys[i]) + (":" in ys[i])
                                                           + ("-" in ys[i])), i))
        else:
            order = [i for w in wanted for i in range(len(ys)) if ys[i] == w]
        taken, seen = 0, set()
        for i in order:
            if taken == n:
                break
            if ys[i] in seen:
                continue
            canvas = canvas_at(d["x"][i], size)
            with torch.no_grad():
                lp = model(to_input(canvas[None])).numpy()[0]
            text = greedy(lp)
            if text != ys[i] or np.exp(lp.max(-1)).min() < 0.6:
                continue
            name = f"{shard.replace('_val', '').replace('val', '')}_{len(cells):02d}.png"
            Image.fromarray(canvas).save(OUT / name)
            src = str(d["key"][i]).replace("\t", " ") if "key" in d.files else shard
            cells.append({"file": name, "text": text, "label": ys[i], "source": src,
                          "logp": np.round(lp.astype(np.float64), 5).tolist()})
            seen.add(ys[i])
            taken += 1
    exp = {"model": f"{MODEL_NAME}.json",
           "note": "PNGs are preprocessed H x W canvases; logp is PyTorch's [T][C] output, rounded to 1e-5",
           "cells": cells}
    (OUT / "expected.json").write_text(json.dumps(exp) + "\n")
    (OUT / "README.md").write_text(
        "# Cell fixtures\n\nWritten by `python -m training.fixtures`: a few validation cells the shipped model\n"
        "reads correctly, with PyTorch's greedy string and log-probabilities in `expected.json`.\n"
        "Each PNG is already a preprocessed model canvas (height x width of the manifest).\n\n"
        "`hcs_*.png` are crops of pages of the Handwritten Chess Scoresheet dataset (HCS) by O. Eicher,\n"
        "D. Farmer, Y. Li and N. Majid (ICDAR 2021 Workshops), CC BY 3.0; changes: cut to one cell,\n"
        "resized and padded. `syn_ru_*`, `syn_pl_*`, `syn_de_*` are synthetic (held-out fonts).\n")
    check()
    print(f"fixtures: {len(cells)} cells -> {OUT}")


def check() -> float:
    """Reads the fixture PNGs back through the contract's preprocessing and the
    exported ONNX model (ONNX Runtime) and compares with expected.json."""
    import onnxruntime as ort

    from .common import MODELS, normalise, preprocess
    exp = json.loads((OUT / "expected.json").read_text())
    man = json.loads((MODELS / exp["model"]).read_text())
    sess = ort.InferenceSession(str(MODELS / man["onnx"]), providers=["CPUExecutionProvider"])
    worst = 0.0
    for c in exp["cells"]:
        x = normalise(preprocess(Image.open(OUT / c["file"]), man["input"]["height"],
                                 man["input"]["width"]))[None, None]
        lp = sess.run([man["output"]["name"]], {man["input"]["name"]: x})[0][0]
        worst = max(worst, float(np.abs(lp - np.array(c["logp"])).max()))
        assert greedy(lp) == c["text"], (c["file"], greedy(lp), c["text"])
    print(f"fixtures: ONNX Runtime on the PNGs matches expected.json, max |diff| {worst:.1e}")
    return worst


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--run", default="main")
    write(ap.parse_args().run)


if __name__ == "__main__":
    main()
