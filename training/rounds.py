"""A tournament round as a scanner leaves it, to check `read DIR --pairs --pairings`.

`--games N` games, each written twice (White's copy and Black's, in two different
hands of `--fonts`: `val` for the held-out check, `select` for tuning), on forms of
`--families` (`held-out` or `tune`; only families with a header box and a first
sheet). The header box of every sheet holds the event, round, board, date and both
names; the result is written (after the last move, or marked on the form). A copy
sometimes slips: its player stopped writing one to four moves before the end (a time
scramble). The sheets get scanner names in random order (`scan_0001.jpg` ...) in
`OUT/jpg/`, and the same sheets as one multi-page PDF, `OUT/pdf/round.pdf`. Beside
them: `OUT/pairings.csv` (Round, Board, White, Black; no results: the pairings as
printed before the round) and `OUT/truth.json` (per game: board, names, result, the
files and PDF pages of its copies, the moves of each copy).

    python -m training.rounds --out DIR [--games 12] [--round 3] [--seed 1] [--fonts val]
                              [--families held-out]
    python -m training.rounds --score TRUTH.json --reports OUT  # after read -o OUT

`--shared-opening DIR --games 100` writes instead 100 different games from the shared
corpus that share their first 10 moves with many others (the largest groups of one
20-ply opening), one copy each under scanner names, for the false-merge check: read
with `--pairs`, no two may be joined.
"""
from __future__ import annotations

import argparse
import collections
import csv
import json
import random
import tempfile
from pathlib import Path
from typing import Any

import chess
import chess.pgn
from PIL import Image

from . import forms
from .common import GAMES
from .sheets import val_games

FIRST = ["Anna", "Jan", "Ewa", "Piotr", "Maria", "Luca", "Sofia", "Oskar", "Lena", "Igor", "Nina", "Tomás",
         "Olga", "Karl", "Marta", "Pavel", "Eva", "Hugo", "Ida", "Felix"]
LAST = ["Kowalski", "Nowak", "Müller", "Schmidt", "Ivanova", "Petrov", "Dubois", "Rossi", "García", "Novák",
        "Horvath", "Jensen", "Larsen", "Smith", "Brown", "Fischer", "Weber", "Lindqvist", "Moreau", "Bauer",
        "Kovacs", "Zielinski", "Hansen", "Costa", "Wagner", "Romano", "Berg", "Keller", "Dvořák", "Novak"]
EVENT, DATE = "Club Open 2026", "2026.11.14"


def families(which: str) -> list[str]:
    """Families with a header box whose first sheet starts at move 1."""
    held = which == "held-out"
    return [n for n, f in forms.FAMILIES.items()
            if (n in forms.HELD_OUT) == held and f["header_box"] and f["start"] == 1]


def names(rng: random.Random, n: int) -> list[str]:
    pool = [f"{last}, {first}" for last in LAST for first in FIRST]
    return rng.sample(pool, n)


def game_of(source: chess.pgn.Game, plies: int, headers: dict[str, str]) -> chess.pgn.Game:
    """`source`'s first `plies` moves under `headers`."""
    g = chess.pgn.Game()
    for k, v in headers.items():
        g.headers[k] = v
    node: chess.pgn.GameNode = g
    for mv in list(source.mainline_moves())[:plies]:
        node = node.add_variation(mv)
    return g


def sans(game: chess.pgn.Game) -> list[str]:
    board, out = game.board(), []
    for mv in game.mainline_moves():
        out.append(board.san(mv))
        board.push(mv)
    return out


def with_board(board: int):
    """`forms.make_page` writes the header box from the game's tags, which hold no
    board: the form drawn while this is in effect gets `board` too."""
    draw = forms.draw_form

    def draw_form(fam: dict, rng: random.Random, tags: dict, hand: dict | None):
        return draw({**fam}, rng, {**tags, "board": str(board)}, hand)

    class Patch:
        def __enter__(self) -> None:
            forms.draw_form = draw_form

        def __exit__(self, *exc: object) -> None:
            forms.draw_form = draw

    return Patch()


def scanner_output(pages: list[Path], out: Path, rng: random.Random) -> dict[str, dict[str, Any]]:
    """The pages as a scanner names them (JPEG, random order) in `out/jpg`, and as one
    PDF in `out/pdf/round.pdf`; returns each page's file and PDF page by its stem."""
    order = pages[:]
    rng.shuffle(order)
    (out / "jpg").mkdir(parents=True, exist_ok=True)
    (out / "pdf").mkdir(parents=True, exist_ok=True)
    where: dict[str, dict[str, Any]] = {}
    images = []
    for k, page in enumerate(order):
        img = Image.open(page).convert("L")
        name = f"scan_{k + 1:04d}.jpg"
        img.save(out / "jpg" / name, quality=90)
        images.append(img)
        where[page.stem] = {"file": name, "pdf_page": k + 1}
    images[0].save(out / "pdf" / "round.pdf", save_all=True, append_images=images[1:], resolution=150)
    return where


def make_round(out: Path, n: int, round_no: int, seed: int, fonts: str, which: str) -> None:
    rng = random.Random(seed)
    fams = families(which)
    hands = forms.hand_fonts(fonts)
    games = val_games()
    # One game appears in several players' files: each board gets a different one.
    distinct = list({" ".join(sans(g)): g for g in games}.values())
    players = names(rng, 2 * n)
    truth: list[dict[str, Any]] = []
    pages: list[Path] = []
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for board in range(1, n + 1):
            fam_name = rng.choice(fams)
            fam = forms.FAMILIES[fam_name]
            room = 2 * fam["blocks"] * fam["rows"] - 1  # one cell left for the result
            fits = [g for g in distinct if 30 <= len(list(g.mainline_moves())) <= room]
            source = rng.choice(fits)
            distinct.remove(source)
            plies = len(list(source.mainline_moves()))
            result = source.headers.get("Result", "*")
            white, black = players[2 * board - 2], players[2 * board - 1]
            headers = {"Event": EVENT, "Date": DATE, "Round": str(round_no), "White": white, "Black": black,
                       "Result": result}
            notation = forms.NOTATION_OF[fam["lang"]]
            pool = [h for h in hands if notation != "ru" or h["cyr"]] or hands
            hand_w, hand_b = rng.sample(pool, 2)
            copies = []
            for side, hand in (("w", hand_w), ("b", hand_b)):
                # A slip: this player stopped writing a few moves before the end.
                slip = rng.randint(2, 8) if rng.random() < 0.25 else 0
                g = game_of(source, plies - slip, {**headers, "Result": result if not slip else "*"})
                stem = f"r{round_no}b{board}_{side}"
                with with_board(board):
                    forms.make_page(fam_name, fam, rng, games, hands, work, stem, game=g, hand=hand,
                                    write_result=0.0 if slip else 1.0)
                pages.append(work / f"{stem}.png")
                copies.append({"stem": stem, "hand": hand["name"], "slip": slip, "moves": sans(g)})
            truth.append({"round": round_no, "board": board, "white": white, "black": black, "result": result,
                          "family": fam_name, "moves": sans(source), "copies": copies})
        where = scanner_output(pages, out, rng)
    for t in truth:
        for c in t["copies"]:
            c.update(where[c["stem"]])
    with open(out / "pairings.csv", "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["Round", "Board", "White", "Black"])
        for t in truth:
            w.writerow([round_no, t["board"], t["white"], t["black"]])
    (out / "truth.json").write_text(json.dumps({"games": truth, "fonts": fonts, "families": which,
                                                "seed": seed}, ensure_ascii=False, indent=1) + "\n",
                                    encoding="utf-8")
    print(f"rounds: {n} games, {2 * n} sheets ({which} families, {fonts} hands) -> {out}")


def shared_opening(out: Path, n: int, seed: int, fonts: str) -> None:
    """`n` different corpus games from the largest groups sharing one 20-ply opening,
    one copy each, under scanner names; `truth.json` names each file's game."""
    groups: dict[str, list[chess.pgn.Game]] = collections.defaultdict(list)
    seen: set[str] = set()
    for f in sorted(GAMES.glob("*.pgn")):
        with open(f, encoding="utf-8") as fh:
            while (g := chess.pgn.read_game(fh)) is not None:
                s = sans(g)
                key = " ".join(s)
                if len(s) < 40 or key in seen:
                    continue
                seen.add(key)
                groups[" ".join(s[:20])].append(g)
    chosen: list[chess.pgn.Game] = []
    for _, gs in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        chosen.extend(gs[: n - len(chosen)])
        if len(chosen) >= n:
            break
    rng = random.Random(seed)
    hands = forms.hand_fonts(fonts)
    fam_name = "pzszach-2x40-light" if fonts != "val" else "dsb-3x20"
    fam = forms.FAMILIES[fam_name]
    room = 2 * fam["blocks"] * fam["rows"]
    pages: list[Path] = []
    truth: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for k, g in enumerate(chosen):
            stem = f"g{k:03d}"
            plies = min(room, len(list(g.mainline_moves())))
            one = game_of(g, plies, {"Event": EVENT, "Round": "1", "White": "?", "Black": "?", "Result": "*"})
            forms.make_page(fam_name, fam, rng, [one], hands, work, stem, game=one)
            pages.append(work / f"{stem}.png")
            truth.append({"stem": stem, "moves": sans(one)})
        where = scanner_output(pages, out, rng)
    for t in truth:
        t.update(where[t["stem"]])
    (out / "truth.json").write_text(json.dumps({"games": truth, "fonts": fonts}, indent=1) + "\n", encoding="utf-8")
    print(f"rounds: {len(truth)} games sharing 20-ply openings -> {out}")


def plies_right(read: list[str], truth: list[str]) -> int:
    """Plies of `read` equal to the truth's at the same place."""
    return sum(1 for a, b in zip(read, truth, strict=False) if a == b)


def score(truth_file: Path, reports: Path) -> dict[str, Any]:
    """Scores `read -o REPORTS` against a round's truth: each game formed from its two
    sheets (and nothing else), on its board with its names, plies right, result."""
    truth = json.loads(truth_file.read_text(encoding="utf-8"))
    by_file: dict[str, dict[str, Any]] = {}
    for t in truth["games"]:
        for c in t["copies"]:
            by_file[c["file"]] = t
            # (The product names a PDF's first page by the file alone.)
            by_file["round.pdf" if c["pdf_page"] == 1 else f"round.pdf#page{c['pdf_page']}"] = t
    formed = placed = named = results = 0
    plies = right = 0
    lines = []
    games = sorted(reports.glob("*.json"))
    for f in games:
        r = json.loads(f.read_text(encoding="utf-8"))
        files = [Path(c["source"]).name for c in r.get("copies", [])] or [Path(r["source"]).name]
        ts = {id(by_file.get(x)): by_file.get(x) for x in files}
        t = next(iter(ts.values())) if len(ts) == 1 else None
        game = r.get("game") or {}
        ok_formed = t is not None and len(files) == 2
        ok_board = t is not None and game.get("board") == t["board"]
        ok_names = t is not None and game.get("white") == t["white"] and game.get("black") == t["black"]
        ok_result = t is not None and r.get("result") == t["result"]
        formed += ok_formed
        placed += ok_board
        named += ok_names
        results += ok_result
        if t is not None:
            moves = [m["san"] for m in sorted(r.get("moves", []), key=lambda m: m.get("ply") or 0)
                     if m.get("ply") is not None and m.get("san")]
            plies += len(t["moves"])
            right += plies_right(moves, t["moves"])
        lines.append(f"{f.stem}: files {files} formed={ok_formed} board={game.get('board')} "
                     f"names={ok_names} result={r.get('result')} want={t and t['result']}")
    n = len(truth["games"])
    out = {"games": n, "reports": len(games), "formed": formed, "on_board": placed, "names": named,
           "results": results, "plies": plies, "plies_right": right,
           "ply_accuracy": round(right / plies, 4) if plies else None}
    print("\n".join(lines))
    print(json.dumps(out))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path)
    ap.add_argument("--games", type=int, default=12)
    ap.add_argument("--round", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--fonts", default="val", choices=["val", "select"])
    ap.add_argument("--families", default="held-out", choices=["held-out", "tune"])
    ap.add_argument("--shared-opening", action="store_true",
                    help="the false-merge batch: --games corpus games sharing their first 10 moves, one copy each")
    ap.add_argument("--score", type=Path, metavar="TRUTH.json")
    ap.add_argument("--reports", type=Path)
    a = ap.parse_args()
    if a.score:
        if a.reports is None:
            ap.error("--score needs --reports")
        score(a.score, a.reports)
        return
    if a.out is None:
        ap.error("--out or --score")
    a.out.mkdir(parents=True, exist_ok=True)
    if a.shared_opening:
        shared_opening(a.out, a.games, a.seed, a.fonts)
    else:
        make_round(a.out, a.games, a.round, a.seed, a.fonts, a.families)


if __name__ == "__main__":
    main()
