"""Blurred copies of synthetic sheets, the README's "blurred" evaluation sets.

    python -m training.degrade SRC_DIR OUT_DIR [--seed S]

Each `<stem>.png` of SRC_DIR is scaled to 0.55 of its size and back (bilinear), blurred
with a 1 px Gaussian and given Gaussian noise of sigma 14 (seeded per sheet); its
`<stem>.pgn` and `<stem>.tsv` are copied beside it, so `scoresheet eval OUT_DIR`
measures the same games on worse scans.
"""
from __future__ import annotations

import argparse
import shutil
import zlib
from pathlib import Path

import numpy as np
from PIL import Image, ImageFilter

SCALE, BLUR, NOISE = 0.55, 1.0, 14.0


def degrade(img: Image.Image, rng: np.random.Generator) -> Image.Image:
    """Grayscale page -> the same page as a poor scan (same size)."""
    g = img.convert("L")
    w, h = g.size
    small = g.resize((round(w * SCALE), round(h * SCALE)), Image.Resampling.BILINEAR)
    g = small.resize((w, h), Image.Resampling.BILINEAR).filter(ImageFilter.GaussianBlur(BLUR))
    a = np.asarray(g, dtype=np.float32) + rng.normal(0.0, NOISE, (h, w))
    return Image.fromarray(np.clip(a, 0, 255).astype(np.uint8))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("src", type=Path)
    ap.add_argument("out", type=Path)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    a.out.mkdir(parents=True, exist_ok=True)
    for png in sorted(a.src.glob("*.png")):
        rng = np.random.default_rng([a.seed, zlib.crc32(png.stem.encode())])
        degrade(Image.open(png), rng).save(a.out / png.name)
        for ext in (".pgn", ".tsv"):
            side = png.with_suffix(ext)
            if side.exists():
                shutil.copy(side, a.out / side.name)
        print(f"degrade: {png.stem}")


if __name__ == "__main__":
    main()
