"""Deterministic train/validation split: whole HCS games and whole fonts.

Writes `training/split.json`. Rules: all pages of a game in one split (`NNN_0`,
`NNN_1`, and `041`'s three pages); 24 labelled HCS games and 2 fonts of each script
(Latin-only, Latin+Cyrillic) held out. Lobster and Yomogi are never held out: they
are odd display-like fonts that training samples rarely, so they would make a poor
yardstick; nor is a font whose family has another file (Caveat Regular/Bold), so
that a held-out font's family is unseen in training.

    python -m training.split [--seed 4] [--games 24]
"""
from __future__ import annotations

import argparse
import json
import random
from typing import Any

from .common import HCS, SPLIT_FILE, fonts

NEVER_VAL_FONTS = {"Lobster-Regular.ttf", "Yomogi-Regular.ttf"}


def labelled_games() -> list[str]:
    games = set()
    for line in (HCS / "labels.tsv").read_text().splitlines()[1:]:
        games.add(line.split("\t")[0].split("_")[0])
    return sorted(games)


def make_split(seed: int = 4, n_games: int = 24) -> dict:
    rng = random.Random(seed)
    games = labelled_games()
    val_games = sorted(rng.sample(games, n_games))
    split: dict[str, Any] = {"seed": seed, "hcs_val_games": val_games,
             "hcs_train_games": [g for g in games if g not in val_games]}
    for script, key in (("latin", "latin"), ("latin+cyrillic", "cyrillic")):
        rows = fonts(script)
        fam = [r["family"] for r in fonts()]
        cands = sorted(r["file"] for r in rows
                       if r["file"] not in NEVER_VAL_FONTS and fam.count(r["family"]) == 1)
        split[f"val_fonts_{key}"] = sorted(rng.sample(cands, 2))
    split["val_fonts"] = split["val_fonts_latin"] + split["val_fonts_cyrillic"]
    split["train_fonts"] = sorted(r["file"] for r in fonts() if r["file"] not in split["val_fonts"])
    return split


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=4)
    ap.add_argument("--games", type=int, default=24)
    a = ap.parse_args()
    split = make_split(a.seed, a.games)
    SPLIT_FILE.write_text(json.dumps(split, indent=1, ensure_ascii=False) + "\n")
    print(f"split: {len(split['hcs_val_games'])} val games, val fonts {split['val_fonts']}")


if __name__ == "__main__":
    main()
