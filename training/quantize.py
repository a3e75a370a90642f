"""The shipped reader -> an int8 copy for speed (static QDQ quantisation, ONNX Runtime).

Weights int8 per output channel, activations uint8 with ranges calibrated on training
cells only (HCS training pages and synthetic training fonts, never the held-out games
or fonts). Prints greedy exact-cell accuracy and CER of both models on the held-out
sets and their speed on one thread, and writes `training/runs/int8/cellreader.int8.onnx`
with a manifest beside it, to judge end to end:

    python -m training.quantize [--calibration 1024] [--seed 5] [--method Percentile]
    scoresheet eval ../shared/data/hcs/pages --labels ../shared/data/hcs/labels.tsv \
        --split val --model training/runs/int8/cellreader.int8.json

Not shipped: with cellreader 2.2.0 (convolutions only, first and last in float, the
defaults here) it is about 1.1x faster and its readings differ from the float model's on
8% of the HCS selection cells; what each reader's int8 copy measured is in
docs/measurements.md ("training/quantize.py: the int8 copy").
"""
from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

import numpy as np
import onnxruntime as ort
from onnxruntime.quantization import CalibrationDataReader, CalibrationMethod, QuantFormat, QuantType, quantize_static
from onnxruntime.quantization.shape_inference import quant_pre_process

from .common import RUNS, greedy, normalise
from .evaluate import scores
from .render import SHARDS

MODELS = Path(__file__).resolve().parent.parent / "models"


class Cells(CalibrationDataReader):
    def __init__(self, x: np.ndarray, batch: int = 64):
        self.batches = [x[i:i + batch] for i in range(0, len(x), batch)]

    def get_next(self):
        if not self.batches:
            return None
        return {"image": normalise(self.batches.pop())[:, None]}


def session(path: Path, threads: int = 1) -> ort.InferenceSession:
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    return ort.InferenceSession(str(path), so, providers=["CPUExecutionProvider"])


def read(s: ort.InferenceSession, x: np.ndarray, batch: int = 256) -> list[str]:
    out: list[str] = []
    for i in range(0, len(x), batch):
        lp = s.run(None, {"image": normalise(x[i:i + batch])[:, None]})[0]
        out.extend(greedy(m) for m in lp)
    return out


def calibration_cells(n: int, seed: int) -> np.ndarray:
    """Half real HCS training cells, half synthetic training-font cells."""
    rng = np.random.default_rng(seed)
    real = np.load(SHARDS / "hcs_train.npz", allow_pickle=True)["x"]
    syn = np.load(SHARDS / "syn_000.npz", allow_pickle=True)["x"]
    pick = lambda a, k: a[rng.choice(len(a), size=min(k, len(a)), replace=False)]
    return np.concatenate([pick(real, n // 2), pick(syn, n - n // 2)])


def figures(s: ort.InferenceSession) -> dict:
    out: dict = {}
    d = np.load(SHARDS / "hcs_val.npz", allow_pickle=True)
    y = d["y"].tolist()
    lab = [i for i, t in enumerate(y) if t]
    pred = read(s, d["x"][lab])
    out["hcs_val"] = scores(pred, [y[i] for i in lab])
    for nt in ("en", "ru", "pl", "de"):
        f = SHARDS / f"synval_{nt}.npz"
        if f.exists():
            v = np.load(f, allow_pickle=True)
            out[f"synthetic_{nt}"] = scores(read(s, v["x"]), v["y"].tolist())
    x = normalise(d["x"][:76])[:, None]
    s.run(None, {"image": x})
    t = time.perf_counter()
    for _ in range(5):
        s.run(None, {"image": x})
    out["ms_per_76_cells_1_thread"] = round((time.perf_counter() - t) / 5 * 1000, 1)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--calibration", type=int, default=1024)
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--ops", default="Conv", help="operator types to quantise, comma-separated")
    ap.add_argument("--keep-float",
                    default="/trunk/trunk/trunk/Conv/0/Conv/Conv/Conv,/trunk/trunk/trunk/Conv/36/Conv/Conv/Conv",
                    help="nodes left in float32, comma-separated (default: cellreader 2.2.0's first and "
                         "last convolutions, the most sensitive to rounding; the CRNN's first was "
                         "/conv/conv.0/conv.0.0/Conv)")
    ap.add_argument("--method", default="MinMax", choices=["MinMax", "Percentile", "Entropy"])
    ap.add_argument("--out", default=str(RUNS / "int8" / "cellreader.int8.onnx"))
    a = ap.parse_args()
    src = MODELS / "cellreader.onnx"
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        pre = Path(tmp) / "pre.onnx"
        # (2.2.0's graph defeats the symbolic shape inference; the plain one suffices)
        quant_pre_process(str(src), str(pre), skip_symbolic_shape=True)
        quantize_static(str(pre), a.out, Cells(calibration_cells(a.calibration, a.seed)),
                        quant_format=QuantFormat.QDQ, per_channel=True,
                        activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8,
                        op_types_to_quantize=a.ops.split(","),
                        nodes_to_exclude=[n for n in a.keep_float.split(",") if n],
                        calibrate_method=getattr(CalibrationMethod, a.method))
    report: dict = {"float32": figures(session(src)), "int8": figures(session(Path(a.out)))}
    report["int8_bytes"] = Path(a.out).stat().st_size
    manifest = json.loads((MODELS / "cellreader.json").read_text(encoding="utf-8"))
    manifest["onnx"] = Path(a.out).name
    manifest["quantized"] = {"format": "QDQ int8", "method": a.method, "calibration_cells": a.calibration}
    Path(a.out).with_suffix(".json").write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
