"""Real cells: HCS pages cut into move cells and paired with `labels.tsv`.

Two sources of crops:
* `--cells rust` (preferred): the product's own cutter, `scoresheet cells PAGES -o DIR`
  (run from the repo root, or with `--manifest-path`), whose `DIR/index.tsv` lists
  `page move side x y w h`; the model then trains on exactly what it sees at inference.
* `--cells python` (fallback): a simple cutter here: ruling lines from projection
  profiles, 2 blocks x 30 rows, a number column and White/Black columns per block;
  a column whose rows came out one off is moved to where its ink matches which cells
  are labelled (the labels' presence only, not their text).

Writes `training/data/hcs_cells/<page>/<move>_<w|b>.png` (the cell with some context
around it) and `index.tsv` (`page move side x y w h label split cx cy`: the cell box
in the page and its offset in the PNG); unlabelled cells of labelled pages that hold
almost no ink become blank examples (empty label).

    python -m training.hcs [--cells auto|rust|python]
"""
from __future__ import annotations

import argparse
import subprocess
from pathlib import Path

import numpy as np
from PIL import Image, ImageFilter

from .common import HCS, ROOT, WORK, load_split

OUT = WORK / "hcs_cells"


def read_labels() -> dict[tuple[str, int, str], str]:
    labels = {}
    for line in (HCS / "labels.tsv").read_text(encoding="utf-8").splitlines()[1:]:
        page, move, side, label = line.split("\t")
        labels[(page, int(move), side)] = label
    return labels


def _dark(gray: np.ndarray) -> np.ndarray:
    """Ink/ruling mask, robust to uneven lighting (divide by a local paper estimate)."""
    img = Image.fromarray(gray)
    small = img.resize((max(1, img.width // 16), max(1, img.height // 16)), Image.Resampling.BILINEAR)
    bg = small.filter(ImageFilter.MaxFilter(5)).resize(img.size, Image.Resampling.BILINEAR)
    norm = gray.astype(np.float32) / np.maximum(np.asarray(bg, np.float32), 1)
    return norm < 0.72


def _peak(prof: np.ndarray, lo: float, hi: float) -> int:
    lo, hi = int(max(0, lo)), int(min(len(prof), hi))
    return lo + int(np.argmax(prof[lo:hi]))


def _candidates(dark: np.ndarray, x0: int, x1: int, pitch0: float) -> tuple[np.ndarray, np.ndarray]:
    """Horizontal ruling candidates (y positions) in a strip, and the strip's row profile."""
    strip = dark[:, x0:x1]
    thick = strip.copy()
    thick[1:] |= strip[:-1]
    thick[:-1] |= strip[1:]
    prof = thick.mean(1)
    h = len(prof)
    cands = [y for y in range(1, h - 1) if prof[y] > 0.35 and prof[y] >= prof[y - 1] and prof[y] >= prof[y + 1]]
    merged: list[int] = []
    for y in cands:
        if merged and y - merged[-1] < pitch0 * 0.3:
            if prof[y] > prof[merged[-1]]:
                merged[-1] = y
        else:
            merged.append(y)
    return np.array(merged or [0]), prof


def _rows(dark: np.ndarray, strips: list[tuple[int, int]], h: int) -> list[list[int]]:
    """31 horizontal ruling positions (top of row 1 .. bottom of row 30) for each strip
    of one block, from one lattice (pitch, offset) fitted to all strips together."""
    pitch0 = h / 31.0
    cs = [_candidates(dark, x0, x1, pitch0)[0] for x0, x1 in strips]
    best: tuple[float, float, float] | None = None
    for pitch in np.arange(pitch0 * 0.88, pitch0 * 1.12, pitch0 * 0.005):
        for off in np.arange(-pitch, h - 29 * pitch, 1.0):
            if off + 30 * pitch > h - pitch * 0.25:  # the result band is always below row 30
                break
            grid = off + pitch * np.arange(31)
            score = 0.0
            for c in cs:
                d = np.abs(c[None, :] - grid[:, None]).min(1)
                score += float(np.sum(np.clip(1 - d / (pitch * 0.15), 0, 1)))
            if best is None or score > best[0]:
                best = (score, pitch, off)
    assert best is not None, "no lattice fits the strips"
    _, pitch, off = best
    out = []
    for c in cs:
        lines = []
        for k in range(31):
            g = off + pitch * k
            near = c[np.abs(c - g) < pitch * 0.2]
            lines.append(int(near[np.argmin(np.abs(near - g))]) if len(near) else int(round(g)))
        out.append(lines)
    return out


def cut_strips(gray: np.ndarray) -> dict[tuple[int, str], tuple[int, int, list[int]]]:
    """(block, side) -> (x0, x1, 31 row lines) for the 4 cell columns of an HCS page."""
    h, w = gray.shape
    dark = _dark(gray)
    thick = dark.copy()
    thick[:, 1:] |= dark[:, :-1]
    thick[:, :-1] |= dark[:, 1:]
    vprof = thick.mean(0)
    mid = _peak(vprof, 0.44 * w, 0.56 * w)
    wb_l = _peak(vprof, 0.17 * w, 0.33 * w)
    wb_r = _peak(vprof, mid + 0.17 * w, mid + 0.33 * w)
    left = _peak(vprof, 0, 0.03 * w) if vprof[: int(0.03 * w)].max() > 0.3 else 0
    right = _peak(vprof, 0.97 * w, w) if vprof[int(0.97 * w):].max() > 0.3 else w - 1
    strips = {}
    for block, (b0, wb, b1) in enumerate(((left, wb_l, mid), (mid, wb_r, right))):
        num = _peak(vprof, b0 + 0.12 * (wb - b0), b0 + 0.32 * (wb - b0))
        if vprof[num] < 0.25:
            num = int(b0 + 0.2 * (wb - b0))
        cols = (("white", (num, wb)), ("black", (wb, b1)))
        rows = _rows(dark, [(x0 + 5, x1 - 5) for _, (x0, x1) in cols], h)
        for (side, (x0, x1)), lines in zip(cols, rows):
            strips[(block, side)] = (x0, x1, lines)
    return strips


def strip_boxes(x0: int, x1: int, lines: list[int], shift: int, height: int) -> list[tuple[int, int, int, int]]:
    """30 cell boxes of a strip, rows moved by `shift` (lines extrapolated past the ends)."""
    pitch = (lines[-1] - lines[0]) / 30.0
    def line(k: int) -> int:
        y = lines[k] if 0 <= k <= 30 else (lines[0] + k * pitch if k < 0 else lines[30] + (k - 30) * pitch)
        return int(min(max(y, 0), height - 1))
    out = []
    for r in range(30):
        y0, y1 = line(r + shift), line(r + shift + 1)
        out.append((x0, y0, x1 - x0, max(y1 - y0, 4)))
    return out


def cut_page(gray: np.ndarray, filled: dict[tuple[int, str], bool] | None = None
             ) -> dict[tuple[int, str], tuple[int, int, int, int]]:
    """(move, side) -> (x, y, w, h) box of each of the 120 cells of an HCS page.

    With `filled` ((move, side) -> labelled?), each column's rows may move by one
    row up or down to where ink matches the labelled cells best: the projection fit
    sometimes takes the header for row 1 or misses a row cut by the page edge. This
    uses which cells are filled, never what they say.
    """
    h = gray.shape[0]
    strips = cut_strips(gray)
    boxes = {}
    for block in (0, 1):
        best = (0, -1.0)
        for shift in ((0, -1, 1) if filled is not None else ()):
            score = 0.0
            for side in ("white", "black"):
                x0, x1, lines = strips[(block, side)]
                for r, (x, y, bw, bh) in enumerate(strip_boxes(x0, x1, lines, shift, h)):
                    v = ink(gray[y:y + bh, x:x + bw])
                    assert filled is not None  # shifts are tried only on labelled pages
                    lab = filled.get((block * 30 + r + 1, side), False)
                    score += (v > 0.009) if lab else (v < 0.009)
            if score > best[1] + (0.5 if shift else 0):
                best = (shift, score)
        for side in ("white", "black"):
            x0, x1, lines = strips[(block, side)]
            for r, box in enumerate(strip_boxes(x0, x1, lines, best[0], h)):
                boxes[(block * 30 + r + 1, side)] = box
    return boxes


def ink(crop: np.ndarray) -> float:
    """Ink fraction in the middle of a cell (ruling excluded): pixels 14% darker than
    the cell's median. Labelled HCS cells: 99% above 0.009; empty cells: 90% below 0.012."""
    h, w = crop.shape
    inner = crop[int(h * 0.22): int(h * 0.78), int(w * 0.06): int(w * 0.94)].astype(np.float32)
    return float((inner < np.median(inner) * 0.86).mean()) if inner.size else 0.0


def rust_cells(pages: list[Path], out: Path, manifest: Path | None) -> Path | None:
    cmd = ["cargo", "run", "--release", "--bin", "scoresheet"]
    if manifest:
        cmd += ["--manifest-path", str(manifest)]
    cmd += ["--", "cells", *map(str, pages), "-o", str(out)]
    try:
        r = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    except FileNotFoundError:
        return None
    if r.returncode != 0 or not (out / "index.tsv").exists():
        print("hcs: rust cutter unavailable:", (r.stderr or "").strip().splitlines()[-1:])
        return None
    return out / "index.tsv"


def build(cells: str = "auto", manifest: Path | None = None) -> Path:
    """Cuts every labelled page; returns the index path."""
    labels = read_labels()
    split = load_split()
    val = set(split["hcs_val_games"])
    pages = sorted({k[0] for k in labels})
    OUT.mkdir(parents=True, exist_ok=True)
    boxes_by_page: dict[str, dict] = {}
    src = "python"
    if cells in ("auto", "rust"):
        idx = rust_cells([HCS / "pages" / f"{p}.jpg" for p in pages], WORK / "hcs_rust", manifest)
        if idx:
            src = "rust"
            for line in idx.read_text().splitlines()[1:]:
                p, m, s, x, y, w, h = line.split("\t")[:7]
                boxes_by_page.setdefault(p, {})[(int(m), s)] = tuple(map(int, (x, y, w, h)))
        elif cells == "rust":
            raise SystemExit("hcs: rust cutter not available")
    rows = []
    for page in pages:
        gray = np.asarray(Image.open(HCS / "pages" / f"{page}.jpg").convert("L"))
        filled = {(m, sd): True for (p, m, sd) in labels if p == page}
        boxes = boxes_by_page.get(page) or cut_page(gray, filled)
        split_name = "val" if page.split("_")[0] in val else "train"
        (OUT / page).mkdir(exist_ok=True)
        for (move, side), (x, y, w, h) in sorted(boxes.items()):
            label = labels.get((page, move, side))
            # saved with context around the cell, so that training can cut it as
            # tightly or as loosely as any cutter might; (cx, cy) = cell box in the file
            mx, my = int(w * 0.12), int(h * 0.35)
            x0, y0 = max(0, x - mx), max(0, y - my)
            x1, y1 = min(gray.shape[1], x + w + mx), min(gray.shape[0], y + h + my)
            if label is None:
                if ink(gray[y:y + h, x:x + w]) > 0.008:
                    continue  # unlabelled but inked: unknown content, skip
                label = ""
            name = f"{page}/{move}_{side[0]}.png"
            Image.fromarray(gray[y0:y1, x0:x1]).save(OUT / name)
            rows.append(f"{page}\t{move}\t{side}\t{x}\t{y}\t{w}\t{h}\t{label}\t{split_name}\t{x - x0}\t{y - y0}")
    index = OUT / "index.tsv"
    index.write_text("page\tmove\tside\tx\ty\tw\th\tlabel\tsplit\tcx\tcy\n" + "\n".join(rows) + "\n", encoding="utf-8")
    n_lab = sum(1 for r in rows if r.split("\t")[7])
    print(f"hcs: {src} cutter, {len(pages)} pages, {n_lab} labelled + {len(rows)-n_lab} blank cells -> {index}")
    return index


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cells", default="auto", choices=["auto", "rust", "python"])
    ap.add_argument("--manifest-path", type=Path)
    a = ap.parse_args()
    build(a.cells, a.manifest_path)


if __name__ == "__main__":
    main()
