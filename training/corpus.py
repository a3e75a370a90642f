"""Move text corpus: every move of real games written the ways players write it,
in English, Russian, Polish and German notation, plus a few 10x10 "Das"-like strings.

Output lines: `split<TAB>notation<TAB>text` (real Cyrillic letters; spaces possible).
`--source rust` runs the product's own generator (`cargo run --release --example
corpus -- GAMES OUT`, from the repo root or `--manifest-path`); `--source python`
(the fallback, and the default when the Rust example is missing) writes forms with
python-chess here. The game split (every 20th game -> val) keeps validation games
out of training text.

    python -m training.corpus [--source auto|rust|python] [--games 2000] [--out F]
"""
from __future__ import annotations

import argparse
import random
import subprocess
from pathlib import Path

import chess
import chess.pgn

from .common import GAMES, HELD_OUT_EVERY, ROOT, WORK

PIECES = {
    "en": {"K": "K", "Q": "Q", "R": "R", "B": "B", "N": "N"},
    "ru": {"K": "Кр", "Q": "Ф", "R": "Л", "B": "С", "N": "К"},
    "pl": {"K": "K", "Q": "H", "R": "W", "B": "G", "N": "S"},
    "de": {"K": "K", "Q": "D", "R": "T", "B": "L", "N": "S"},
}
NOTATIONS = ("en", "ru", "pl", "de")


def written(board: chess.Board, move: chess.Move, notation: str, rng: random.Random,
            long_p: float | None = None) -> str:
    """One handwritten form of `move` (legal in `board`) in `notation`, drawn from
    the habits players have: long form, optional x/+, `:` captures, zeros in
    castling, `e.p.`, promotion with or without `=`, `++` mate."""
    P = PIECES[notation]
    san = board.san(move)
    board.push(move)
    mate, check = board.is_checkmate(), board.is_check()
    board.pop()
    capture = board.is_capture(move)
    ep = board.is_en_passant(move)
    # capture mark
    cap_mark = {"en": "x", "de": "x", "ru": "x", "pl": ":"}[notation]
    r = rng.random()
    if notation == "ru" and r < 0.25:
        cap_mark = ":"
    elif notation == "ru" and r < 0.45:
        cap_mark = "х"  # Cyrillic ha, same glyph
    elif notation == "pl" and r < 0.3:
        cap_mark = "x"
    elif notation == "de" and r < 0.15:
        cap_mark = ":"
    if rng.random() < 0.12:
        cap_mark = ""
    # suffix
    suffix = ""
    if mate:
        suffix = rng.choice({"en": ["#", "#", "++", "+", ""], "ru": ["#", "++", "++", "+", ""],
                             "pl": ["#", "X", "++", "+", ""], "de": ["#", "#", "++", "+", ""]}[notation])
    elif check:
        suffix = "+" if rng.random() < 0.75 else ("" if rng.random() < 0.8 else "++")
    if rng.random() < 0.015:
        suffix += rng.choice(["!", "?", "!?", "?!", "!!", "??"])
    if notation == "ru" and rng.random() < 0.008:
        suffix += "(=)"
    if board.is_castling(move):
        long_side = chess.square_file(move.to_square) < chess.square_file(move.from_square)
        zero = rng.random() < {"en": 0.35, "ru": 0.85, "pl": 0.5, "de": 0.6}[notation]
        c = "0" if zero else "O"
        return (f"{c}-{c}-{c}" if long_side else f"{c}-{c}") + suffix
    frm = chess.square_name(move.from_square)
    to = chess.square_name(move.to_square)
    moved = board.piece_at(move.from_square)
    assert moved is not None  # a legal move starts on a piece
    piece = moved.piece_type
    letter = "" if piece == chess.PAWN else P[chess.piece_symbol(piece).upper()]
    promo = ""
    if move.promotion:
        pl = P[chess.piece_symbol(move.promotion).upper()]
        promo = pl if rng.random() < {"en": 0.35, "ru": 0.7, "pl": 0.6, "de": 0.5}[notation] else "=" + pl
        if notation == "en" and rng.random() < 0.1:
            promo = "(" + pl + ")"
    if long_p is None:
        long_p = {"en": 0.06, "ru": 0.3, "pl": 0.2, "de": 0.12}[notation]
    if rng.random() < long_p:
        sep = cap_mark if capture else rng.choice(["-", "-", "-", ""])
        text = f"{letter}{frm}{sep}{to}{promo}"
    else:
        if piece == chess.PAWN:
            if capture:
                if rng.random() < 0.07:  # "ed" / "ed5" file-only capture
                    text = frm[0] + to[0] if rng.random() < 0.3 else frm[0] + to
                else:
                    text = frm[0] + cap_mark + to
            else:
                text = to
            text += promo
        else:
            # disambiguation from SAN
            core = san.rstrip("+#")
            body = core[1:].replace("x", "")
            dis = body[:-2] if len(body) > 2 else ""
            text = letter + dis + (cap_mark if capture else "") + to
    if ep and rng.random() < 0.5:
        text += rng.choice([" e.p.", "e.p.", " e.p"])
    return text + suffix


def das_string(rng: random.Random) -> str:
    """A 10x10 "Das"-like string (files a-j, l, r; ranks 1-10; extra piece letters)."""
    files = "abcdefghij" + "lr"
    pieces = "KQRBNVHDACEFMPT"
    s = ""
    if rng.random() < 0.6:
        s += rng.choice(pieces)
    if rng.random() < 0.25:
        s += "x"
    s += rng.choice(files) + str(rng.randint(1, 10))
    if rng.random() < 0.25:
        s += rng.choice(pieces) + (rng.choice(pieces) if rng.random() < 0.3 else "")
    if rng.random() < 0.2:
        s += rng.choice("+#")
    return s


def odd_english(rng: random.Random) -> str:
    """HCS-like non-SAN English leftovers: descriptive captures, pieces without a file."""
    p = rng.choice("PNBRQK")
    q = rng.choice("PNBRQ")
    r = rng.random()
    if r < 0.4:
        return f"{p}x{q}" + ("+" if rng.random() < 0.2 else "")
    if r < 0.7:
        return rng.choice("NBRQK") + str(rng.randint(1, 8))
    return rng.choice("abcdefgh") + "x" + rng.choice("abcdefgh")


def iter_games(limit: int, seed: int):
    """Yields (split, game) from the shared PGN files, every `HELD_OUT_EVERY`th game -> val."""
    files = sorted(GAMES.glob("*.pgn"))
    per_file = max(1, limit // len(files))
    for f in files:
        with open(f, encoding="utf-8") as fh:
            for i in range(per_file):
                game = chess.pgn.read_game(fh)
                if game is None:
                    break
                yield ("val" if i % HELD_OUT_EVERY == 0 else "train"), game


def python_corpus(out: Path, games: int, seed: int) -> int:
    rng = random.Random(seed)
    n = 0
    with open(out, "w", encoding="utf-8") as fo:
        for split, game in iter_games(games, seed):
            board = game.board()
            for move in game.mainline_moves():
                for nt in NOTATIONS:
                    fo.write(f"{split}\t{nt}\t{written(board, move, nt, rng)}\n")
                    n += 1
                board.push(move)
        for i in range(n // 200):
            fo.write(f"{'val' if i % HELD_OUT_EVERY == 0 else 'train'}\tdas\t{das_string(rng)}\n")
        for i in range(n // 400):
            fo.write(f"{'val' if i % HELD_OUT_EVERY == 0 else 'train'}\ten\t{odd_english(rng)}\n")
    return n


def rust_corpus(out: Path, manifest: Path | None) -> bool:
    cmd = ["cargo", "run", "--release", "--example", "corpus"]
    if manifest:
        cmd += ["--manifest-path", str(manifest)]
    cmd += ["--", str(GAMES), str(out)]
    try:
        r = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    except FileNotFoundError:
        return False
    if r.returncode != 0:
        print("corpus: rust example failed:", r.stderr.strip().splitlines()[-1:] if r.stderr else "")
        return False
    return out.exists() and out.stat().st_size > 0


def build(source: str = "auto", games: int = 2000, seed: int = 4, out: Path | None = None,
          manifest: Path | None = None) -> Path:
    out = out or WORK / "corpus.tsv"
    out.parent.mkdir(parents=True, exist_ok=True)
    if source in ("auto", "rust") and rust_corpus(out, manifest):
        print(f"corpus: rust example wrote {out}")
    elif source == "rust":
        raise SystemExit("corpus: the rust example is not available")
    else:
        n = python_corpus(out, games, seed)
        print(f"corpus: python stand-in wrote {n} move forms to {out}")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--source", default="auto", choices=["auto", "rust", "python"])
    ap.add_argument("--games", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=4)
    ap.add_argument("--out", type=Path)
    ap.add_argument("--manifest-path", type=Path, help="Cargo.toml of the corpus example")
    a = ap.parse_args()
    build(a.source, a.games, a.seed, a.out, a.manifest_path)


if __name__ == "__main__":
    main()
