"""The header-field scoring of `fields_eval.py` and the written forms of `fieldtext.py`.

    python -m unittest training.test_fields     # from the repository root; no torch
"""
from __future__ import annotations

import json
import random
import tempfile
import unittest
from pathlib import Path

from . import fieldtext
from .common import FONTS, GAMES
from .fields_eval import box_hits, cer, evaluate, report_values, score_page, straightened_to_picture


def _field(k: str, value: str | None, written: str | None = None) -> dict:
    return {"field": k, "label": k, "label_box": [0, 0, 1, 1], "area": [0, 0, 1, 1], "value": value,
            "written": written if written is not None else value, "value_box": [0, 0, 1, 1] if value else None,
            "blank": value is None}


TRUTH = {"family": "f", "held_out": True, "result": "1/2-1/2", "result_how": "circle",
         "fields": [_field("event", "Riverside Open"), _field("round", "5", "5."), _field("board", None),
                    _field("date", "2022.02.02", "2 февраля 2022"), _field("white", "Müller, Jörg", "Jörg Müller"),
                    _field("black", "Иванов, Сергей")]}


class WrittenForms(unittest.TestCase):
    def test_dates(self) -> None:
        for text, pgn in [("27/7/2020", "2020.07.27"), ("02.02.2022", "2022.02.02"), ("2 февраля 2022", "2022.02.02"),
                          ("2022-02-02", "2022.02.02"), ("2. Februar 2022", "2022.02.02"), ("02.02.22", "2022.02.02"),
                          ("07.2020", "2020.07.??"), ("2022.??.??", "2022.??.??"), ("2 lutego 2022", "2022.02.02")]:
            self.assertEqual(fieldtext.pgn_date(text), pgn, text)
        self.assertIsNone(fieldtext.pgn_date("Riverside"))

    def test_every_drawn_date_reads_back(self) -> None:
        rng = random.Random(3)
        for lang in ("en", "de", "pl", "ru"):
            for _ in range(200):
                written, pgn, _year = fieldtext.date(lang, rng)
                self.assertEqual(fieldtext.pgn_date(written), pgn, written)

    def test_results(self) -> None:
        for text, pgn in [("remis", "1/2-1/2"), ("Ничья", "1/2-1/2"), ("draw", "1/2-1/2"), ("0,5-0,5", "1/2-1/2"),
                          ("1/2-1/2", "1/2-1/2"), ("0:1", "0-1"), ("½", "1/2-1/2"), ("1 - 0", "1-0")]:
            self.assertEqual(fieldtext.pgn_result(text), pgn, text)
        self.assertIsNone(fieldtext.pgn_result("*"))
        rng = random.Random(4)
        for res in ("1-0", "0-1", "1/2-1/2"):
            for lang in ("en", "de", "pl", "ru"):
                self.assertEqual(fieldtext.pgn_result(fieldtext.result_written(res, lang, rng)), res)

    def test_names(self) -> None:
        rng = random.Random(5)
        ru = [fieldtext.name("ru", rng) for _ in range(50)]
        self.assertTrue(all(any("\u0400" <= c <= "\u04ff" for c in w) for w, _ in ru))
        self.assertGreater(len({p for _, p in ru}), 30)
        for w, p in ru + [fieldtext.name("pl", rng) for _ in range(50)]:
            self.assertEqual(set(fieldtext.fold(w).split()), set(fieldtext.fold(p).split()), (w, p))


class Scoring(unittest.TestCase):
    def test_cer(self) -> None:
        self.assertEqual(cer(None, ["Müller"]), 1.0)
        self.assertEqual(cer("müller", ["Müller"]), 0.0)
        self.assertAlmostEqual(cer("Muller", ["Müller"]), 1 / 6)
        # the lower of the name as written and as `Surname, Given`
        self.assertEqual(cer("Müller, Jörg", ["Jörg Müller", "Müller, Jörg"]), 0.0)

    def test_no_fields_read_is_all_missed_none_invented(self) -> None:
        s = score_page(TRUTH, {"result": "*", "moves": []})
        self.assertEqual(s["missed"], 6)  # five written fields and the circled result
        self.assertEqual(s["invented"], 0)
        self.assertEqual(s["right"], {"round": 0, "date": 0, "result": 0})
        self.assertEqual(s["cer"], {"event": 1.0, "white": 1.0, "black": 1.0})
        self.assertEqual(score_page(TRUTH, None)["missed"], 6)

    def test_fields_read(self) -> None:
        report = {"result": "1/2-1/2", "result_from": "sheet",
                  "fields": [{"field": "round", "value": "5", "confidence": 0.9},
                             {"field": "round", "value": "6", "confidence": 0.2},
                             {"field": "board", "value": "12", "confidence": 0.5},
                             {"field": "date", "value": "2022.02.02", "confidence": 0.9},
                             {"field": "white", "value": "Muller, Jorg", "confidence": 0.9},
                             {"field": "black", "confidence": 0.1, "note": "unreadable"}],
                  "game": {"event": "Riverside Opem", "black": "Иванов С.", "from": {"event": "sheet",
                                                                                   "black": "pairings"}}}
        self.assertEqual(report_values(report)["round"], "5")
        s = score_page(TRUTH, report)
        self.assertEqual(s["right"], {"round": 1, "date": 1, "result": 1})
        self.assertEqual(s["invented"], 1)  # the board, where nothing is written
        self.assertEqual(s["missed"], 1)  # black: found, nothing read; the pairings' value is not the sheet's
        self.assertAlmostEqual(s["cer"]["event"], 1 / 14)
        self.assertAlmostEqual(s["cer"]["white"], 2 / 11)  # "müller jörg", folded

    def test_boxes_on_the_ink(self) -> None:
        truth = {"fields": [{**_field("round", "5"), "value_box": [100, 200, 40, 30]},
                            {**_field("board", "7"), "value_box": [300, 200, 40, 30]}]}
        page = {"width": 1000, "height": 1000, "skew_deg": 0.0}
        report = {"page": page, "fields": [{"field": "round", "value": "5", "box": [105, 205, 30, 20]},
                                           {"field": "board", "value": "7", "box": [600, 200, 40, 30]},
                                           {"field": "date", "value": "2022.02.02", "box": [0, 0, 5, 5]}]}
        self.assertEqual(box_hits(truth, report, (1000, 1000)), [1, 0])
        self.assertEqual(box_hits(truth, {**report, "page": {**page, "rotated_180": True}}, (1000, 1000)), [])
        # a turned page: its centre stays, its corners move
        turned = {"width": 1100, "height": 1100, "skew_deg": 5.0}
        self.assertEqual(straightened_to_picture(turned, (1001, 1001), 549.5, 549.5), (500.0, 500.0))
        from . import forms
        self.assertEqual(straightened_to_picture(turned, (1000, 900), 10, 20),
                         forms.straightened_to_picture(turned, (1000, 900), 10, 20))

    def test_result_invented_only_from_the_sheet(self) -> None:
        truth = {**TRUTH, "result": None, "result_how": None}
        self.assertEqual(score_page(truth, {"result": "1-0", "result_from": "mate"})["invented"], 0)
        self.assertEqual(score_page(truth, {"result": "1-0", "result_from": "sheet"})["invented"], 1)

    def test_evaluate_folders(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            pages, reports = Path(tmp) / "p", Path(tmp) / "r"
            pages.mkdir()
            reports.mkdir()
            (pages / "a.json").write_text(json.dumps(TRUTH), encoding="utf-8")
            (pages / "b.json").write_text(json.dumps({**TRUTH, "family": "g", "held_out": False}), encoding="utf-8")
            (reports / "a.json").write_text(json.dumps({"result": "1/2-1/2", "result_from": "sheet"}),
                                            encoding="utf-8")
            r = evaluate(pages, reports)
            self.assertEqual(r["all"]["pages"], 2)
            self.assertEqual(r["all"]["reports"], 1)
            self.assertEqual(r["held_out"]["result"], {"right": 1, "written": 1, "share": 1.0})
            self.assertEqual(r["tune"]["result"]["right"], 0)
            self.assertEqual(r["all"]["names"]["median_cer"], 1.0)
            self.assertEqual(r["all"]["missed"], 11)


@unittest.skipUnless(FONTS.is_dir() and GAMES.is_dir(), f"needs the shared fonts and games ({FONTS.parent})")
class GeneratedPages(unittest.TestCase):
    """One page of each newer family, every field written and then every field blank:
    the truth says what the page shows."""

    def test_truth_of_the_newer_families(self) -> None:
        import chess.pgn

        from . import forms
        hands = [h for h in forms.hand_fonts("train") if h["cyr"]][:2]
        with open(sorted(GAMES.glob("*.pgn"))[0], encoding="utf-8") as fh:
            game = chess.pgn.read_game(fh)
        assert game is not None
        game.headers["Result"] = "1/2-1/2"
        with tempfile.TemporaryDirectory() as tmp:
            for blank in (0.0, 1.0):
                for k, name in enumerate(forms.FIELD_FAMILIES):
                    rng = random.Random(k)
                    stem = f"p{k}_{int(blank)}"
                    forms.make_page(name, forms.FAMILIES[name], rng, [game], hands, Path(tmp), stem,
                                    blank_fields=blank)
                    t = json.loads((Path(tmp) / f"{stem}.json").read_text(encoding="utf-8"))
                    got = {f["field"]: f for f in t["fields"]}
                    self.assertEqual(set(got), set(forms.FIELD_KEYS) | {"result"}, name)
                    for f in t["fields"]:
                        self.assertEqual(f["blank"], f["value"] is None, (name, f))
                        self.assertEqual(f["blank"], f["value_box"] is None, (name, f))
                        self.assertTrue(f["label"] and f["label_box"], (name, f))
                    if blank == 0.0:
                        self.assertFalse(any(f["blank"] for f in t["fields"]), name)
                        self.assertEqual(t["result"], "1/2-1/2", name)
                        self.assertEqual(fieldtext.pgn_date(got["date"]["written"]), got["date"]["value"])
                        for f in t["fields"]:  # the ink lies in its field's area (both on the picture)
                            x, y, w, h = f["value_box"]
                            ax, ay, aw, ah = f["area"]
                            inside = ax - 30 <= x + w / 2 <= ax + aw + 30 and ay - 30 <= y + h / 2 <= ay + ah + 30
                            self.assertTrue(inside, (name, f))
                    marked = [o["result"] for o in t["result_options"] if o["marked"]]
                    if t["result"] and got["result"].get("how") != "written":
                        self.assertEqual(marked, [t["result"]], name)
                    else:
                        self.assertEqual(marked, [], name)
                    if t["result"] is None:
                        self.assertTrue(got["result"]["blank"], name)


if __name__ == "__main__":
    unittest.main()
