"""Python's tables against their one source: the shipped model manifest
(`models/cellreader.json`, which the Rust side reads the alphabet, geometry and second
look from) and `src/resign_words.tsv`. The tables Rust keeps in code (glyph classes,
piece letters, the held-out games) are checked from the Rust side, `tests/tables.rs`.

    python -m unittest training.test_tables     # from the repository root; no torch
"""
from __future__ import annotations

import json
import unittest

from . import common


class ManifestTables(unittest.TestCase):
    """`common.py` describes the reader that is shipped: a new alphabet, size or version
    goes in with the model exported from it (`python -m training.export`)."""

    manifest: dict

    @classmethod
    def setUpClass(cls) -> None:
        cls.manifest = json.loads((common.MODELS / f"{common.MODEL_NAME}.json").read_text(encoding="utf-8"))

    def test_name_and_version(self) -> None:
        self.assertEqual(self.manifest["name"], common.MODEL_NAME)
        self.assertEqual(self.manifest["version"], common.MODEL_VERSION)

    def test_alphabet(self) -> None:
        self.assertEqual(self.manifest["alphabet"], common.ALPHABET)
        self.assertEqual(self.manifest["blank"], common.BLANK)

    def test_input_and_second_look(self) -> None:
        i = self.manifest["input"]
        self.assertEqual((i["height"], i["width"], i["pad_value"]), (common.H, common.W, common.PAD))
        self.assertEqual((i["mean"], i["std"]), (common.MEAN, common.STD))
        self.assertEqual(self.manifest["second_look"], common.SECOND_LOOK)

    def test_held_out_split(self) -> None:
        split = common.load_split()
        self.assertEqual(self.manifest["validation"]["hcs_games"], split["hcs_val_games"])
        self.assertEqual(self.manifest["validation"]["fonts"],
                         split["val_fonts_latin"] + split["val_fonts_cyrillic"])


class ResignWords(unittest.TestCase):
    def test_every_word_is_spelt_by_the_alphabet(self) -> None:
        for words in common.RESIGN_WORDS.values():
            for word in words:
                self.assertIsNotNone(common.encode(word), word)

    def test_drawn_words_are_read_words(self) -> None:
        # Every language draws at least one word (forms.py draws in the form's language),
        # and the words read are the file's word column (drawn or not).
        self.assertTrue(all(common.RESIGN_WORDS.values()))
        lines = [line for line in common.RESIGN_WORDS_FILE.read_text(encoding="utf-8").splitlines()
                 if line and not line.startswith("#")]
        self.assertEqual(lines[0].split("\t"), ["language", "word", "drawn"])
        drawn = {w for ws in common.RESIGN_WORDS.values() for w in ws}
        read = [line.split("\t")[1] for line in lines[1:]]
        self.assertLessEqual(drawn, set(read))


if __name__ == "__main__":
    unittest.main()
