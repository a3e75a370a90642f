"""The letter models the text reader's Cyrillic reading uses (`models/ru-letters.txt`,
`models/latin-letters.txt`).

The text reader has no Cyrillic: it reads handwritten Russian as Latin look-alikes
(`Воронцов` -> `Bopouyob`). `src/model/cyrillic.rs` turns such a reading back into
Cyrillic with a beam search that weighs each letter's look-alikes against how Russian
words are spelt. A name on a Russian form may
also be written in Latin letters: the Latin letter model tells which of the two readings
is spelt more like its language. This script makes both: character n-gram models (Russian 5-gram, Latin 4-gram) of the
words of Hunspell dictionaries from npm: Russian from `dictionary-ru` 3.0.0 (Alexander
I. Lebedev, BSD-3-Clause; the notice ships as `models/LICENSE-ru-dictionary.txt`), every
stem with its suffixes; Latin from the stems of `dictionary-en` 4.0.0 (MIT AND BSD),
`dictionary-de` 3.0.0 (GPL-2.0 OR GPL-3.0) and `dictionary-pl` 2.0.0 (GPL-3.0 OR
LGPL-3.0 OR MPL-2.0), diacritics folded. No name list and nothing of the forms generator
is used: only the languages' spelling.

    for d in ru@3.0.0 en@4.0.0 de@3.0.0 pl@2.0.0; do npm pack dictionary-$d; done
    # unpack each into dictionary-LANG/, then
    python3 -m training.letters ru models/ru-letters.txt dictionary-ru/package
    python3 -m training.letters latin models/latin-letters.txt dictionary-{en,de,pl}/package

Russian symbols: the 32 letters (`ё` as `е`), `ы` written as `ь` + `ı` and `ю` as `ı` + `о` (the
reader sees those two letters as two strokes, `bl` and `io`), and `^` for a word's edges.
The probabilities are interpolated (Witten-Bell) down to the letter frequencies, and
stored for every context of up to ORDER-1 symbols seen `MIN_CONTEXT` times or more; the
reader backs off to the longest stored context. A line is a context, a tab, and for each
symbol in `SYMBOLS` order one character: minus the log-probability in quarter nats
(`QUANT`), capped at 63, coded as `CODE[q]`. Latin symbols: `a`-`z` and `^`. The first
line names the symbols.
"""
from __future__ import annotations

import math
import re
import sys
import unicodedata
from collections import Counter, defaultdict

SYMBOLS = {"ru": "абвгдежзийклмнопрстуфхцчшщъьэяı^",  # 'ы' and 'ю' are spelt with 'ı'
           "latin": "abcdefghijklmnopqrstuvwxyz^"}
ORDER = {"ru": 5, "latin": 4}  # Russian at 5, from 80 sightings: docs/measurements.md
MIN_CONTEXT = {"ru": 80, "latin": 40}
QUANT = 4.0
CODE = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz+/"


def spell(word: str, lang: str) -> str | None:
    """A word in the model's symbols, or None when it has other characters."""
    w = word.lower()
    if lang == "ru":
        w = w.replace("ё", "е").replace("ы", "ьı").replace("ю", "ıо")
    else:
        w = w.replace("ł", "l").replace("ß", "ss")
        w = "".join(c for c in unicodedata.normalize("NFD", w) if not unicodedata.combining(c))
    return w if w and all(c in SYMBOLS[lang][:-1] for c in w) else None


def expand(aff_path: str, dic_path: str, suffixes: bool = True) -> list[str]:
    """Every word of the dictionary: each stem and the stem with each suffix its flags
    allow (Hunspell `SFX` rules; the Russian dictionary has no prefixes)."""
    rules: dict[str, list[tuple[str, str, re.Pattern]]] = defaultdict(list)
    for line in open(aff_path, encoding="utf-8"):
        p = line.split()
        if len(p) >= 5 and p[0] == "SFX":
            strip = "" if p[2] == "0" else p[2]
            add = "" if p[3] == "0" else p[3].split("/")[0]
            rules[p[1]].append((strip, add, re.compile("(" + p[4] + ")$")))
    words = []
    lines = open(dic_path, encoding="utf-8", errors="replace").read().splitlines()[1:]
    for line in lines:
        stem, _, flags = line.partition("/")
        words.append(stem)
        for f in flags.strip() if suffixes else "":
            for strip, add, cond in rules.get(f, []):
                if cond.search(stem) and stem.endswith(strip):
                    words.append(stem[: len(stem) - len(strip)] + add)
    return words


def build(words: list[str], lang: str) -> dict[str, list[float]]:
    """Witten-Bell interpolated distributions over SYMBOLS for each context (the last
    up to ORDER-1 symbols; `^` pads the start) seen MIN_CONTEXT times or more."""
    counts: dict[str, Counter] = defaultdict(Counter)
    for w in set(words):
        s = spell(w, lang)
        if s is None:
            continue
        order = ORDER[lang]
        padded = "^" * (order - 1) + s + "^"
        for i in range(order - 1, len(padded)):
            for k in range(order):
                counts[padded[i - k : i]][padded[i]] += 1
    symbols = SYMBOLS[lang]
    n = len(symbols)
    dist: dict[str, list[float]] = {}

    def prob(ctx: str) -> list[float]:
        if ctx in dist:
            return dist[ctx]
        lower = prob(ctx[1:]) if ctx else [1.0 / n] * n
        c = counts.get(ctx)
        if not c:
            return lower
        total, types = sum(c.values()), len(c)
        lam = total / (total + types)
        out = [lam * c[s] / total + (1 - lam) * lower[i] for i, s in enumerate(symbols)]
        dist[ctx] = out
        return out

    kept = {}
    for ctx, c in counts.items():
        if sum(c.values()) >= MIN_CONTEXT[lang]:
            kept[ctx] = prob(ctx)
    return kept


def main() -> None:
    lang, out, *dirs = sys.argv[1:]
    words = []
    for d in dirs:
        words += expand(f"{d}/index.aff", f"{d}/index.dic", suffixes=lang == "ru")
    model = build(words, lang)
    with open(out, "w", encoding="utf-8") as f:
        f.write(f"# symbols {SYMBOLS[lang]}\n")
        for ctx in sorted(model, key=lambda c: (len(c), c)):
            q = "".join(CODE[min(63, round(-math.log(max(p, 1e-30)) * QUANT))] for p in model[ctx])
            f.write(f"{ctx}\t{q}\n")
    print(f"{len(words)} words, {len(model)} contexts -> {out}")


if __name__ == "__main__":
    main()
