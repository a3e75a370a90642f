"""The values reader: the cell reader fine-tuned on the handwritten numbers of a form's header.

The cell reader learned moves: it has never seen a `9` written alone, a board number of
three digits or a date, and it reads a round's `1` and `7` by how moves write them. The
values reader is the same network (same input, alphabet and output) started from the
shipped `models/cellreader.onnx` and fine-tuned on the crops the product itself cuts for
a round, a board, a date and a written result (`SCORESHEET_DUMP_VALUES`, see
`src/pipeline/fields.rs`), on forms drawn by `forms.py` in the `train` hands only: the
`select` and `val` hands, and the held-out form families, stay for choosing and
reporting. A value field with nothing written whose crop still holds ink (a stray
stroke, print, the printed result options with one of them marked) is learned as blank.

    python -m training.values_reader collect --forms DIR --crops DIR --out FILE.npz [--width 192]
    python -m training.values_reader train --data FILE.npz [FILE.npz ...] --run NAME [--steps 1200]
    python -m training.values_reader evaluate --data FILE.npz [...] --runs base NAME ...
    python -m training.values_reader export --run NAME [--width 192] [--wide 384]

`collect` pairs each dumped crop with the page's truth (`fields` of the form's JSON) and
keeps it where the crop's box covers most of where the value was written (a value looked
for in the wrong place teaches nothing). `train` holds out every tenth hand and reports
the reading there. `export` writes `models/valuereader.onnx` and its manifest.
"""
from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
from PIL import Image

from .common import ALPHABET, BLANK, MEAN, MODELS, PAD, ROOT, RUNS, STD, W, encode, greedy, preprocess, seed_all

FIELDS = ("round", "board", "date", "result")
NAME, VERSION = "valuereader", "1.1.0"
BASE = ROOT / "models" / "cellreader.onnx"


def _overlap(a: list[int], b: list[int]) -> float:
    """Share of box `b`'s area inside box `a` (both `x y w h`)."""
    x0, y0 = max(a[0], b[0]), max(a[1], b[1])
    x1, y1 = min(a[0] + a[2], b[0] + b[2]), min(a[1] + a[3], b[1] + b[3])
    inter = max(0, x1 - x0) * max(0, y1 - y0)
    return inter / max(1, b[2] * b[3])


def collect(forms: Path, crops: Path, out: Path, width: int = W) -> None:
    xs, labels, meta = [], [], []
    skipped = {"no truth": 0, "elsewhere": 0, "unspellable": 0}
    for png in sorted(crops.glob("*.png")):
        stem, field = png.stem.rsplit(".", 1)
        if field not in FIELDS:
            continue
        page = forms / f"{stem}.json"
        if not page.exists():
            skipped["no truth"] += 1
            continue
        truth = json.loads(page.read_text(encoding="utf-8"))
        entry = next((f for f in truth.get("fields", []) if f["field"] == field), None)
        if entry is None:
            skipped["no truth"] += 1
            continue
        box = [int(v) for v in png.with_suffix(".box").read_text().split()]
        if entry.get("blank"):
            label = ""
            if _overlap(box, entry["area"]) < 0.3 and _overlap(entry["area"], box) < 0.3:
                skipped["elsewhere"] += 1
                continue
        else:
            written = entry.get("written")
            if written is None and field == "result" and entry.get("how"):
                # The result is marked among the printed options: the crop holds print
                # and a mark, and nothing written.
                written = ""
            elif written is None:
                skipped["no truth"] += 1
                continue
            elif _overlap(box, entry["value_box"]) < 0.6:
                skipped["elsewhere"] += 1
                continue
            label = written
        if encode(label) is None:
            skipped["unspellable"] += 1
            continue
        xs.append(preprocess(Image.open(png), width=width))
        labels.append(label)
        meta.append((stem, field, truth.get("hand", ""), truth.get("family", "")))
    out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(out, x=np.stack(xs), labels=np.array(labels, dtype=object),
                        meta=np.array(meta, dtype=object))
    by = {f: sum(1 for m in meta if m[1] == f) for f in FIELDS}
    print(f"collect: {len(xs)} crops {by}, blank {labels.count('')}; skipped {skipped} -> {out}")


def _load(paths: list[Path]) -> tuple[np.ndarray, list[str], list[tuple]]:
    xs, ls, ms = [], [], []
    for p in paths:
        d = np.load(p, allow_pickle=True)
        xs.append(d["x"])
        ls += list(d["labels"])
        ms += [tuple(m) for m in d["meta"]]
    return np.concatenate(xs), ls, ms


def _input(u8: np.ndarray):
    import torch
    return ((torch.from_numpy(u8).float() / 255.0 - MEAN) / STD).unsqueeze(1)


def _accuracy(model, x: np.ndarray, labels: list[str]) -> float:
    import torch

    from .common import canonical
    model.eval()
    with torch.no_grad():
        lp = np.concatenate([model(_input(x[i:i + 128])).numpy() for i in range(0, len(x), 128)])
    return float(np.mean([greedy(lp[i]) == canonical(labels[i]) for i in range(len(x))])) if len(x) else 0.0


def train(data: list[Path], run: str, steps: int, batch: int, lr: float, seed: int) -> None:
    import torch
    from torch import nn

    from .pretrained import PretrainedReader
    from .train import ctc_step, jitter
    seed_all(seed)
    torch.set_num_threads(2)
    x, labels, meta = _load(data)
    hands = sorted({m[2] for m in meta})
    apart = set(hands[::10])
    tr = [i for i, m in enumerate(meta) if m[2] not in apart]
    te = [i for i, m in enumerate(meta) if m[2] in apart]
    enc = [encode(t) or [] for t in labels]
    out = RUNS / run
    out.mkdir(parents=True, exist_ok=True)
    model = PretrainedReader(source=str(BASE))
    before = _accuracy(model, x[te], [labels[i] for i in te])
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=steps, pct_start=0.1)
    ctc = nn.CTCLoss(blank=BLANK, zero_infinity=True)
    rng = np.random.default_rng(seed)
    gen = torch.Generator().manual_seed(seed)
    log = open(out / "log.tsv", "w")
    log.write("step\tloss\tsec\n")
    t0, run_loss = time.time(), 0.0
    for step in range(1, steps + 1):
        model.train()
        idx = rng.choice(tr, batch)
        xin = jitter(_input(x[idx]), gen)
        lab = [enc[i] for i in idx]
        tgt = torch.tensor([c for l in lab for c in l], dtype=torch.long)
        tlen = torch.tensor([len(l) for l in lab], dtype=torch.long)
        loss = ctc_step(model, ctc, opt, sched, xin, tgt, tlen)
        run_loss = 0.95 * run_loss + 0.05 * float(loss) if step > 1 else float(loss)
        if step % 50 == 0 or step == steps:
            log.write(f"{step}\t{run_loss:.4f}\t{time.time() - t0:.0f}\n")
            log.flush()
            print(f"train {run}: step {step}/{steps} loss {run_loss:.3f} {time.time() - t0:.0f}s", flush=True)
    after = _accuracy(model, x[te], [labels[i] for i in te])
    torch.save(model.state_dict(), out / "model.pt")
    metrics = {"crops": len(tr), "hands": len(hands) - len(apart), "width": int(x.shape[2]), "steps": steps,
               "batch": batch, "lr": lr, "seed": seed, "data": [str(p.name) for p in data],
               "hands_apart": {"crops": len(te), "hands": len(apart), "exact_base": round(before, 4),
                               "exact": round(after, 4)},
               "seconds": round(time.time() - t0)}
    (out / "metrics.json").write_text(json.dumps(metrics, indent=1) + "\n")
    print(f"train {run}: hands apart ({len(te)} crops) read exactly {before:.3f} -> {after:.3f}")


def evaluate(data: list[Path], runs: list[str]) -> None:
    """Exact readings per field of each run's reader (`base`: the shipped cell reader)."""
    import torch

    from .common import canonical
    from .pretrained import PretrainedReader
    torch.set_num_threads(2)
    x, labels, meta = _load(data)
    for run in runs:
        model = PretrainedReader(source=str(BASE))
        if run != "base":
            model.load_state_dict(torch.load(RUNS / run / "model.pt"))
        model.eval()
        with torch.no_grad():
            lp = np.concatenate([model(_input(x[i:i + 128])).numpy() for i in range(0, len(x), 128)])
        right = [greedy(lp[i]) == canonical(labels[i]) for i in range(len(x))]
        by = {f: f"{sum(r for r, m in zip(right, meta) if m[1] == f)}/{sum(1 for m in meta if m[1] == f)}"
              for f in FIELDS}
        blank = [r for r, label in zip(right, labels) if label == ""]
        print(f"evaluate {run}: {sum(right)}/{len(x)} exact {by}, blank read blank {sum(blank)}/{len(blank)}")


def export(run: str, width: int | None = None, wide: int | None = None) -> None:
    import torch

    from .pretrained import PretrainedReader
    torch.set_num_threads(2)
    model = PretrainedReader(source=str(BASE))
    model.load_state_dict(torch.load(RUNS / run / "model.pt"))
    model.eval()
    onnx_path = MODELS / f"{NAME}.onnx"
    # The trunk is convolutional: a reader trained on one canvas width reads another.
    width = width or json.loads((RUNS / run / "metrics.json").read_text()).get("width", W)
    dummy = torch.zeros(2, 1, 48, width)
    # With a wide canvas the width is left free: the crops too wide for `width` are read
    # on `wide`, the rest as before.
    axes = {"image": {0: "batch", 3: "width"}, "logp": {0: "batch", 1: "steps"}} if wide else \
        {"image": {0: "batch"}, "logp": {0: "batch"}}
    torch.onnx.export(model, (dummy,), str(onnx_path), input_names=["image"], output_names=["logp"],
                      dynamic_axes=axes, opset_version=17, dynamo=False)
    with torch.no_grad():
        steps = int(model(dummy).shape[1])
    base = json.loads(BASE.with_suffix(".json").read_text(encoding="utf-8"))
    manifest = {
        "name": NAME, "version": VERSION, "onnx": onnx_path.name, "alphabet": ALPHABET, "blank": BLANK,
        "input": {"name": "image", "layout": "NCHW", "height": 48, "width": width, "channels": 1,
                  "resize": "fit-height", **({"wide": wide} if wide else {}), "pad_value": PAD,
                  "scale": 1 / 255, "mean": MEAN, "std": STD},
        "output": {"name": "logp", "layout": "NTC", "steps": steps, "log_softmax": True},
        "continued_from": f"{base['name']} {base['version']}",
        "metrics": json.loads((RUNS / run / "metrics.json").read_text()),
    }
    (MODELS / f"{NAME}.json").write_text(json.dumps(manifest, indent=1, ensure_ascii=False) + "\n",
                                         encoding="utf-8")
    print(f"export: {onnx_path} ({onnx_path.stat().st_size / 1e6:.2f} MB)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("collect")
    c.add_argument("--forms", type=Path, required=True)
    c.add_argument("--crops", type=Path, required=True)
    c.add_argument("--out", type=Path, required=True)
    c.add_argument("--width", type=int, default=W, help="the canvas the crops are fitted into (48 high)")
    t = sub.add_parser("train")
    t.add_argument("--data", type=Path, nargs="+", required=True)
    t.add_argument("--run", default="values")
    t.add_argument("--steps", type=int, default=1200)
    t.add_argument("--batch", type=int, default=32)
    t.add_argument("--lr", type=float, default=3e-4)
    t.add_argument("--seed", type=int, default=1)
    v = sub.add_parser("evaluate")
    v.add_argument("--data", type=Path, nargs="+", required=True)
    v.add_argument("--runs", nargs="+", default=["base"])
    e = sub.add_parser("export")
    e.add_argument("--run", default="values")
    e.add_argument("--width", type=int, help="the canvas it reads (default: the one it was trained on)")
    e.add_argument("--wide", type=int, help="the canvas for crops too wide for --width (free width)")
    a = ap.parse_args()
    if a.cmd == "collect":
        collect(a.forms, a.crops, a.out, a.width)
    elif a.cmd == "evaluate":
        evaluate(a.data, a.runs)
    elif a.cmd == "train":
        train(a.data, a.run, a.steps, a.batch, a.lr, a.seed)
    else:
        export(a.run, a.width, a.wide)


if __name__ == "__main__":
    main()
