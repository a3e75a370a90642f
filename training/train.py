"""Trains the CRNN-CTC cell reader on the pre-rendered shards.

Every batch mixes synthetic cells with real HCS train cells (`--real-frac`). Seeded;
a fixed number of steps, so a rerun does the same work. Writes
`training/runs/<run>/model.pt` (final weights) and `log.tsv`.

    python -m training.train [--steps 6000] [--batch 64] [--lr 2e-3] [--run main]
"""
from __future__ import annotations

import argparse
import time

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .common import BLANK, RUNS, H, W, encode, greedy, seed_all
from .model import CRNN
from .render import SHARDS


def make_model(arch: str) -> nn.Module:
    """`pretrained`: PP-OCRv6 tiny with our head (`pretrained.py`); `onnx:PATH`: the same
    network read back from one of our exported readers; `crnn`: from scratch."""
    if arch == "pretrained":
        from .pretrained import PretrainedReader
        return PretrainedReader()
    if arch.startswith("onnx:"):  # going on from an exported reader's weights
        from .pretrained import PretrainedReader
        return PretrainedReader(source=arch[len("onnx:"):])
    return CRNN()


def load_run(run: str, weights: str = "model.pt") -> nn.Module:
    """The model of a run (its architecture recorded in `arch.txt`, its input size in
    `input.txt`), in eval mode."""
    arch_file = RUNS / run / "arch.txt"
    model = make_model(arch_file.read_text().strip() if arch_file.exists() else "crnn")
    size_file = RUNS / run / "input.txt"
    if size_file.exists():
        model.input_size = parse_size(size_file.read_text().strip())
    state = torch.load(RUNS / run / weights, weights_only=False)
    model.load_state_dict(state["model"] if "model" in state and "opt" in state else state)
    return model.eval()


def load_shards(pattern: str) -> tuple[np.ndarray, list[str]]:
    xs, ys = [], []
    for f in sorted(SHARDS.glob(pattern)):
        d = np.load(f, allow_pickle=True)
        xs.append(d["x"])
        ys.extend(d["y"].tolist())
    if not xs:
        return np.zeros((0, 1, 1), np.uint8), []
    return np.concatenate(xs), ys


def parse_size(text: str) -> tuple[int, int]:
    """`40x160` -> (40, 160): a reader's input height and width."""
    h, w = text.lower().split("x")
    return int(h), int(w)


def input_size(model: nn.Module) -> tuple[int, int]:
    """The input a model takes: the shards' H x W unless its run says otherwise
    (`train --input`)."""
    return getattr(model, "input_size", (H, W))


def _resized(x: torch.Tensor, size: tuple[int, int] | None) -> torch.Tensor:
    """[N, 1, H, W] -> [N, 1, h, w] (bilinear, antialiased; the whole canvas, so the
    writing keeps its place); unchanged when `size` is None or already its size."""
    if size is None or tuple(size) == tuple(x.shape[-2:]):
        return x
    return F.interpolate(x, size=tuple(size), mode="bilinear", align_corners=False, antialias=True)


def to_input(u8: np.ndarray, size: tuple[int, int] | None = None) -> torch.Tensor:
    """uint8 canvases [N, H, W] -> normalised model input [N, 1, h, w], resized when the
    reader takes another size than the shards hold."""
    from .common import MEAN, STD
    return _resized(((torch.from_numpy(u8).float() / 255.0 - MEAN) / STD).unsqueeze(1), size)


def canvas_at(u8: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """One uint8 canvas at a reader's input size (as `to_input` resizes it, rounded back
    to uint8): what a fixture PNG holds."""
    x = _resized(torch.from_numpy(u8).float()[None, None], size)
    return x[0, 0].round().clamp(0, 255).to(torch.uint8).numpy()


@torch.no_grad()
def probs(model: nn.Module, x: np.ndarray, batch: int = 256) -> np.ndarray:
    """uint8 cells [N, H, W] -> CTC probabilities [N, T, C]."""
    model.eval()
    size = input_size(model)
    return np.concatenate([model(to_input(x[i:i + batch], size)).exp().numpy()
                           for i in range(0, len(x), batch)]) if len(x) else np.zeros((0, 0, 0))


def shifted(x: np.ndarray, dy: int) -> np.ndarray:
    """Cells moved `dy` rows down (up when negative), PAD filling, as the Rust side does."""
    from .common import PAD
    out = np.full_like(x, PAD)
    h = x.shape[1]
    if dy >= 0:
        out[:, dy:] = x[:, :h - dy]
    else:
        out[:, :h + dy] = x[:, -dy:]
    return out


def read(model: nn.Module, x: np.ndarray, batch: int = 256, second_look: dict | None = None) -> list[str]:
    """Greedy readings; with `second_look` (see `common.SECOND_LOOK`), unsure cells are
    read again shifted and their probabilities averaged, as `scoresheet` reads them."""
    p = probs(model, x, batch)
    if second_look and len(x):
        unsure = np.flatnonzero(p.max(-1).prod(-1) < second_look["below"])
        if len(unsure):
            views = [probs(model, shifted(x[unsure], dy), batch) for dy in second_look["shifts"]]
            p[unsure] = (p[unsure] + sum(views)) / (1 + len(views))
    return [greedy(np.log(np.maximum(m, 1e-30))) for m in p]


def exact(pred: list[str], gold: list[str]) -> float:
    norm = lambda s: s.replace("0", "O")
    return float(np.mean([norm(p) == norm(g) for p, g in zip(pred, gold)])) if gold else 0.0


def jitter(x: torch.Tensor, gen: torch.Generator) -> torch.Tensor:
    """Random small affine changes of normalised cells (slant, rotation, scale, shift),
    white filling what comes into view: fresh variants of the few real cells."""
    n = x.shape[0]
    u = lambda lo, hi: lo + (hi - lo) * torch.rand(n, generator=gen)
    angle = u(-0.05, 0.05)                 # about +-3 degrees
    shear = u(-0.2, 0.2)                   # slant, in pixels across per pixel down
    sx, sy = u(0.9, 1.1), u(0.88, 1.12)
    tx, ty = u(-0.04, 0.04), u(-0.10, 0.10)
    cos, sin = torch.cos(angle), torch.sin(angle)
    aspect = x.shape[3] / x.shape[2]       # the grid is in [-1, 1] both ways
    theta = torch.stack([
        torch.stack([sx * cos, (-sin + shear) / aspect, tx], 1),
        torch.stack([sin * aspect, sy * cos, ty], 1)], 1)
    grid = torch.nn.functional.affine_grid(theta, list(x.shape), align_corners=False)
    white = 1.0  # (255/255 - MEAN) / STD
    out = torch.nn.functional.grid_sample(x - white, grid, padding_mode="zeros", align_corners=False)
    return out + white


def squeeze(x: torch.Tensor, gen: torch.Generator, lo: float, hi: float) -> torch.Tensor:
    """Narrows (or widens) normalised cells horizontally by a random factor in [lo, hi],
    the left edge fixed, white filling what comes into view: narrow handwriting from
    the train fonts."""
    n = x.shape[0]
    s = lo + (hi - lo) * torch.rand(n, generator=gen)
    a = 1.0 / s                            # input x = a * output x + (a - 1): x = -1 stays
    zero, one = torch.zeros(n), torch.ones(n)
    theta = torch.stack([torch.stack([a, zero, a - 1], 1), torch.stack([zero, one, zero], 1)], 1)
    grid = torch.nn.functional.affine_grid(theta, list(x.shape), align_corners=False)
    white = 1.0
    return torch.nn.functional.grid_sample(x - white, grid, padding_mode="zeros", align_corners=False) + white


def ctc_step(model: nn.Module, ctc: nn.CTCLoss, opt: torch.optim.Optimizer,
             sched: torch.optim.lr_scheduler.LRScheduler, xin: torch.Tensor, tgt: torch.Tensor,
             tlen: torch.Tensor) -> torch.Tensor:
    """One optimiser step on a batch (`xin` [N, 1, H, W], the targets concatenated in
    `tgt` with lengths `tlen`), gradients clipped at norm 5; returns the CTC loss."""
    lp = model(xin)                           # [N, T, C]
    ilen = torch.full((lp.shape[0],), lp.shape[1], dtype=torch.long)
    loss = ctc(lp.transpose(0, 1), tgt, ilen, tlen)
    opt.zero_grad()
    loss.backward()
    nn.utils.clip_grad_norm_(model.parameters(), 5.0)
    opt.step()
    sched.step()
    return loss


def train(steps: int, batch: int, lr: float, real_frac: float, run: str, seed: int, threads: int,
          init: str | None = None, augment_real: bool = False, ema: float = 0.0,
          squeeze_synthetic: float = 0.0, augment_synthetic: bool = False, arch: str = "crnn",
          warmup: float = 0.08, size: tuple[int, int] = (H, W)) -> None:
    seed_all(seed)
    torch.manual_seed(seed)
    torch.set_num_threads(threads)
    out = RUNS / run
    out.mkdir(parents=True, exist_ok=True)
    (out / "arch.txt").write_text(arch + "\n")
    (out / "input.txt").write_text(f"{size[0]}x{size[1]}\n")
    sx, sy = load_shards("syn_*.npz")
    rx, ry = load_shards("hcs_train.npz")
    # progress is watched on the selection cells (HCS selection games), never on validation
    vx, vy = load_shards("hcs_select.npz")
    print(f"train: {len(sy)} synthetic, {len(ry)} real train cells, {len(vy)} real selection cells")
    senc = [encode(s) for s in sy]
    renc = [encode(s) for s in ry]
    model = make_model(arch)
    model.input_size = tuple(size)
    if init:  # continue from earlier weights (a second, lower-LR stage)
        model.load_state_dict(torch.load(init))
        print(f"train: starting from {init}")
    print(f"train: {sum(p.numel() for p in model.parameters())} parameters")
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=steps, pct_start=warmup)
    ctc = nn.CTCLoss(blank=BLANK, zero_infinity=True)
    rng = np.random.default_rng(seed)
    nreal = int(round(batch * real_frac)) if len(ry) else 0
    t0 = time.time()
    run_loss = 0.0
    vsub: np.ndarray | list[int] = rng.choice(len(vy), size=min(800, len(vy)), replace=False) if len(vy) else []
    gen = torch.Generator().manual_seed(seed)
    # Exponential moving average of the weights (buffers copied at the end).
    averaged = [p.detach().clone() for p in model.parameters()] if ema else None
    first = 1
    state_path = out / "state.pt"
    if state_path.exists():  # a stopped run continues where it was
        st = torch.load(state_path, weights_only=False)
        model.load_state_dict(st["model"])
        opt.load_state_dict(st["opt"])
        sched.load_state_dict(st["sched"])
        rng.bit_generator.state = st["rng"]
        gen.set_state(st["gen"])
        if averaged is not None and st.get("averaged") is not None:
            averaged = st["averaged"]
        run_loss, first, t0 = st["run_loss"], st["step"] + 1, time.time() - st["sec"]
        print(f"train: resuming {run} at step {first}")
        log = open(out / "log.tsv", "a")
    else:
        log = open(out / "log.tsv", "w")
        log.write("step\tloss\tlr\tsec\thcs_select_exact\n")
    for step in range(first, steps + 1):
        model.train()
        si = rng.integers(0, len(sy), batch - nreal)
        ri = rng.integers(0, len(ry), nreal) if nreal else np.zeros(0, int)
        x = np.concatenate([sx[si], rx[ri]]) if nreal else sx[si]
        labels = [senc[i] for i in si] + [renc[i] for i in ri]
        tgt = torch.tensor([c for l in labels for c in l], dtype=torch.long)
        tlen = torch.tensor([len(l) for l in labels], dtype=torch.long)
        xin = to_input(x, size)
        if augment_real and nreal:
            xin[-nreal:] = jitter(xin[-nreal:], gen)
        k = int(round((batch - nreal) * squeeze_synthetic))
        if k:
            xin[:k] = squeeze(xin[:k], gen, 0.65, 1.05)
        if augment_synthetic and batch - nreal > k:
            xin[k:batch - nreal] = jitter(xin[k:batch - nreal], gen)
        loss = ctc_step(model, ctc, opt, sched, xin, tgt, tlen)
        if averaged is not None:
            with torch.no_grad():
                for a_, p in zip(averaged, model.parameters()):
                    a_.mul_(ema).add_(p.detach(), alpha=1.0 - ema)
        run_loss = 0.98 * run_loss + 0.02 * loss.item() if step > 1 else loss.item()
        if step % 250 == 0 or step == steps:
            acc = ""
            if step % 1000 == 0 or step == steps:
                acc = f"{exact(read(model, vx[vsub]), [vy[i] for i in vsub]):.4f}" if len(vy) else ""
            el = time.time() - t0
            log.write(f"{step}\t{run_loss:.4f}\t{sched.get_last_lr()[0]:.2e}\t{el:.0f}\t{acc}\n")
            log.flush()
            print(f"train: step {step}/{steps} loss {run_loss:.3f} {step * batch / el:.0f} samples/s"
                  + (f" hcs-select(sub) exact {acc}" if acc else ""), flush=True)
            if step % 500 == 0:  # checkpoint everything, so a stopped run resumes exactly
                torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "sched": sched.state_dict(),
                            "rng": rng.bit_generator.state, "gen": gen.get_state(), "averaged": averaged,
                            "run_loss": run_loss, "step": step, "sec": el}, out / "state.pt.tmp")
                (out / "state.pt.tmp").replace(state_path)
    if averaged is not None:
        torch.save(model.state_dict(), out / "model_last.pt")
        with torch.no_grad():
            for a_, p in zip(averaged, model.parameters()):
                p.copy_(a_)
        if len(vy):
            print(f"train: averaged weights, hcs-select(sub) exact "
                  f"{exact(read(model, vx[vsub]), [vy[i] for i in vsub]):.4f}")
    torch.save(model.state_dict(), out / "model.pt")
    print(f"train: done in {time.time() - t0:.0f}s -> {out / 'model.pt'}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=6000)
    ap.add_argument("--arch", default="crnn",
                    help="crnn | pretrained | onnx:PATH (go on from an exported reader, e.g. a copy of "
                         "models/cellreader.onnx with its .json beside it)")
    ap.add_argument("--warmup", type=float, default=0.08, help="share of the steps the LR rises")
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--real-frac", type=float, default=0.35)
    ap.add_argument("--run", default="main")
    ap.add_argument("--seed", type=int, default=4)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--init", help="weights to start from (model.pt of an earlier run)")
    ap.add_argument("--augment-real", action="store_true",
                    help="random small affine changes of the real cells of every batch")
    ap.add_argument("--ema", type=float, default=0.0,
                    help="keep an exponential moving average of the weights (decay, e.g. 0.999) "
                         "and save it as model.pt (the last weights as model_last.pt)")
    ap.add_argument("--squeeze-synthetic", type=float, default=0.0,
                    help="share of each batch's synthetic cells narrowed (or widened) by a random "
                         "factor in [0.65, 1.05], the left edge fixed")
    ap.add_argument("--augment-synthetic", action="store_true",
                    help="the same affine changes as --augment-real for the synthetic cells "
                         "not narrowed")
    ap.add_argument("--input", default=f"{H}x{W}",
                    help="the reader's input HEIGHTxWIDTH; the shards' canvases are resized to it "
                         "(40x160: the faster student tried for issue 27, not shipped)")
    a = ap.parse_args()
    train(a.steps, a.batch, a.lr, a.real_frac, a.run, a.seed, a.threads, a.init,
          a.augment_real, a.ema, a.squeeze_synthetic, a.augment_synthetic, a.arch, a.warmup,
          parse_size(a.input))


if __name__ == "__main__":
    main()
