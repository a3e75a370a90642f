//! Tables the Python side (`training/`) keeps beside the Rust code's, checked against
//! the Rust ones, so that a change on one side fails here until the other follows.
//! The resign words are one file both sides read (`src/resign_words.tsv`); the reader's
//! alphabet and input geometry reach Rust only through the model manifest, and
//! `training/test_tables.py` checks Python's copy of those against it.

use std::path::Path;

use scoresheet::Notation;
use scoresheet::glyph::canonical;
use scoresheet::notation::{HELD_OUT_EVERY, Script, piece_letter};
use shakmaty::Role;

fn repo_file(path: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The text of the Python literal that starts at `start` (`NAME = {` or `NAME = [`) up to
/// its closing bracket (the tables hold no brackets inside their strings).
fn python_literal<'a>(source: &'a str, start: &str) -> &'a str {
    let at = source
        .find(start)
        .unwrap_or_else(|| panic!("`{start}` not found"));
    let mut depth = 0;
    for (i, c) in source[at..].char_indices() {
        match c {
            '{' | '[' | '(' => depth += 1,
            '}' | ']' | ')' => {
                depth -= 1;
                if depth == 0 {
                    return &source[at + start.len()..at + i];
                }
            }
            _ => {}
        }
    }
    panic!("`{start}` is not closed");
}

/// The double-quoted strings of `text`, in order (the tables use no escapes).
fn strings(text: &str) -> Vec<&str> {
    text.split('"').skip(1).step_by(2).collect()
}

/// `NAME = <integer>` in a Python source.
fn python_int(source: &str, name: &str) -> usize {
    let line = source
        .lines()
        .find(|l| l.starts_with(&format!("{name} = ")))
        .unwrap_or_else(|| panic!("`{name} = ` not found"));
    line[name.len() + 3..]
        .split('#')
        .next()
        .unwrap()
        .trim()
        .parse()
        .unwrap_or_else(|e| panic!("{line}: {e}"))
}

#[test]
fn python_glyph_classes_are_glyph_canonical() {
    // training/common.py `_CANON`: character -> glyph class, as `glyph::canonical`.
    let common = repo_file("training/common.py");
    let pairs = strings(python_literal(&common, "_CANON = {"));
    assert!(
        pairs.len() >= 2 && pairs.len().is_multiple_of(2),
        "_CANON: {pairs:?}"
    );
    let mut python = std::collections::BTreeMap::new();
    for pair in pairs.chunks(2) {
        let (from, to) = (pair[0], pair[1]);
        let mut chars = from.chars();
        let from = chars.next().expect("a character");
        assert!(
            chars.next().is_none(),
            "_CANON key {from:?} is one character"
        );
        let to: char = to.parse().expect("one character");
        python.insert(from, to);
    }
    let mut differ = Vec::new();
    for code in 0..0x3000u32 {
        let Some(c) = char::from_u32(code) else {
            continue;
        };
        let rust = canonical(c);
        let py = python.get(&c).copied().unwrap_or(c);
        if rust != py {
            differ.push(format!("{c:?}: Rust {rust:?}, Python {py:?}"));
        }
    }
    for (&c, &to) in python.range('\u{3000}'..) {
        if canonical(c) != to {
            differ.push(format!("{c:?}: Rust {:?}, Python {to:?}", canonical(c)));
        }
    }
    assert!(differ.is_empty(), "glyph classes differ: {differ:?}");
}

#[test]
fn python_holds_out_the_same_games() {
    let common = repo_file("training/common.py");
    assert_eq!(python_int(&common, "HELD_OUT_EVERY"), HELD_OUT_EVERY);
}

fn role(english: &str) -> Role {
    match english {
        "K" => Role::King,
        "Q" => Role::Queen,
        "R" => Role::Rook,
        "B" => Role::Bishop,
        "N" => Role::Knight,
        other => panic!("not an English piece letter: {other:?}"),
    }
}

fn notation(code: &str) -> Notation {
    match code {
        "en" => Notation::En,
        "ru" => Notation::Ru,
        "pl" => Notation::Pl,
        "de" => Notation::De,
        other => panic!("unknown notation {other:?}"),
    }
}

#[test]
fn python_piece_letters_are_the_notations() {
    // training/corpus.py `PIECES`: notation -> English letter -> the notation's letters
    // (what the synthetic cells write), as `piece_letter(.., Script::Display)`.
    let corpus = repo_file("training/corpus.py");
    let table = python_literal(&corpus, "PIECES = {");
    let mut seen = 0;
    for line in table.lines().filter(|l| l.contains('{')) {
        let s = strings(line);
        let n = notation(s[0]);
        for pair in s[1..].chunks(2) {
            let want = piece_letter(n, role(pair[0]), Script::Display);
            assert_eq!(pair[1], want, "corpus.PIECES[{:?}][{:?}]", s[0], pair[0]);
            seen += 1;
        }
    }
    assert_eq!(seen, 4 * 5, "four notations, five lettered pieces each");

    // training/calibrate.py `LETTERS`: notation -> (its letters, English letter), the
    // letters a written form is turned back into English with.
    let calibrate = repo_file("training/calibrate.py");
    let table = python_literal(&calibrate, "LETTERS = {");
    for part in table.split("],") {
        let s = strings(part);
        if s.is_empty() {
            continue;
        }
        let n = notation(s[0]);
        for pair in s[1..].chunks(2) {
            let want = piece_letter(n, role(pair[1]), Script::Display);
            assert_eq!(pair[0], want, "calibrate.LETTERS[{:?}] {:?}", s[0], pair);
        }
    }
}

#[test]
fn resign_words_file_is_well_formed_and_spelt_by_the_shipped_reader() {
    let text = repo_file("src/resign_words.tsv");
    let mut lines = text.lines().filter(|l| !l.starts_with('#'));
    assert_eq!(lines.next(), Some("language\tword\tdrawn"));
    let manifest: serde_json::Value =
        serde_json::from_str(&repo_file("models/cellreader.json")).expect("manifest json");
    let alphabet: Vec<String> = manifest["alphabet"]
        .as_array()
        .expect("alphabet")
        .iter()
        .map(|s| s.as_str().expect("a string").to_string())
        .collect();
    let mut words = Vec::new();
    let mut drawn_by_language = std::collections::BTreeMap::new();
    for line in lines {
        let cols: Vec<&str> = line.split('\t').collect();
        assert_eq!(cols.len(), 3, "three tab-separated columns: {line:?}");
        let drawn: usize = cols[2].parse().unwrap_or_else(|e| panic!("{line:?}: {e}"));
        *drawn_by_language.entry(cols[0]).or_insert(0) += drawn;
        assert!(!words.contains(&cols[1]), "{:?} twice", cols[1]);
        words.push(cols[1]);
        for c in cols[1].chars() {
            let glyph = canonical(c).to_string();
            assert!(
                alphabet.contains(&glyph),
                "{:?}: the shipped reader has no glyph {glyph:?}",
                cols[1]
            );
        }
    }
    assert!(words.len() >= 10, "{words:?}");
    // forms.py draws a word in the form's language: every language needs one drawn.
    for (language, drawn) in drawn_by_language {
        assert!(drawn > 0, "no word of {language} is drawn");
    }
}
