//! (notation, piece) <-> letters: the piece letters of each notation, in display form
//! (real Cyrillic for Russian) and as glyph strings, and transliteration of read text
//! to English letters.

use shakmaty::Role;

use super::Notation;

/// How a form is spelled: `Display` uses the letters a person writes (`Кр`, `Ф`,
/// `С`), `Glyph` the reader's glyph classes ([`crate::glyph::canonical_str`]: `Kp`,
/// `Ф`, `C`). Both spell the same ink.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Script {
    Display,
    Glyph,
}

/// The English letters of the pieces a capture may name as taken (`BxN`, `PxP`).
pub(crate) const TAKEN: [(char, Role); 5] = [
    ('P', Role::Pawn),
    ('N', Role::Knight),
    ('B', Role::Bishop),
    ('R', Role::Rook),
    ('Q', Role::Queen),
];

/// Roles that have a letter, in the order letters are tried when parsing (king first
/// so that Russian `Кр` wins over the knight's `К`).
pub(crate) const LETTERED: [Role; 5] = [
    Role::King,
    Role::Queen,
    Role::Rook,
    Role::Bishop,
    Role::Knight,
];

/// The letter(s) of `role` in notation `n` (`""` for a pawn).
pub fn piece_letter(n: Notation, role: Role, script: Script) -> &'static str {
    use Role::*;
    match (script, n, role) {
        (_, _, Pawn) => "",
        (_, _, King) if n != Notation::Ru => "K",
        (_, Notation::En, Queen) => "Q",
        (_, Notation::En, Rook) => "R",
        (_, Notation::En, Bishop) => "B",
        (_, Notation::En, Knight) => "N",
        (Script::Display, Notation::Ru, King) => "Кр",
        (Script::Glyph, Notation::Ru, King) => "Kp",
        (_, Notation::Ru, Queen) => "Ф",
        (_, Notation::Ru, Rook) => "Л",
        (Script::Display, Notation::Ru, Bishop) => "С",
        (Script::Glyph, Notation::Ru, Bishop) => "C",
        (Script::Display, Notation::Ru, Knight) => "К",
        (Script::Glyph, Notation::Ru, Knight) => "K",
        (_, Notation::Pl, Queen) => "H",
        (_, Notation::Pl, Rook) => "W",
        (_, Notation::Pl, Bishop) => "G",
        (_, Notation::Pl, Knight) => "S",
        (_, Notation::De, Queen) => "D",
        (_, Notation::De, Rook) => "T",
        (_, Notation::De, Bishop) => "L",
        (_, Notation::De, Knight) => "S",
        (_, _, King) => "K",
    }
}

/// Extra glyph spellings accepted when parsing (typed text with a capital `Р`).
fn extra_glyph_letters(n: Notation) -> &'static [(&'static str, Role)] {
    match n {
        Notation::Ru => &[("KP", Role::King)],
        _ => &[],
    }
}

/// Reads a piece letter at the start of glyph text `s`: the role and the number of
/// bytes it takes. The longest letter wins (`Kp` before `K` in Russian).
pub(crate) fn read_piece(n: Notation, s: &str) -> Option<(Role, usize)> {
    let mut best: Option<(Role, usize)> = None;
    let candidates = LETTERED
        .iter()
        .map(|&r| (piece_letter(n, r, Script::Glyph), r))
        .chain(extra_glyph_letters(n).iter().copied());
    for (letter, role) in candidates {
        if s.starts_with(letter) && best.is_none_or(|(_, len)| letter.len() > len) {
            best = Some((role, letter.len()));
        }
    }
    best
}

/// Rewrites glyph text read in notation `n` with English piece letters (`Kf3` in
/// Russian -> `Nf3`, `Kpb1` -> `Kb1`, `Hd4` in Polish -> `Qd4`); squares, marks and
/// anything that is not a piece letter are kept as they are.
pub fn transliterate(glyphs: &str, n: Notation) -> String {
    let mut out = String::with_capacity(glyphs.len());
    let mut rest = glyphs;
    while let Some(c) = rest.chars().next() {
        // A piece letter is an upper-case letter or a Cyrillic one; files are lower-case.
        let letter_like = c.is_uppercase() && c != 'O' && c != 'X';
        if letter_like && let Some((role, len)) = read_piece(n, rest) {
            out.push_str(piece_letter(Notation::En, role, Script::Glyph));
            rest = &rest[len..];
            continue;
        }
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn glyph_letters_are_canonical_display_letters() {
        for n in Notation::ALL {
            for role in LETTERED {
                let display = piece_letter(n, role, Script::Display);
                let glyph = piece_letter(n, role, Script::Glyph);
                assert_eq!(crate::glyph::canonical_str(display), glyph, "{n} {role:?}");
            }
        }
    }

    #[test]
    fn letters_are_distinct_within_a_notation() {
        for n in Notation::ALL {
            for a in LETTERED {
                for b in LETTERED {
                    if a != b {
                        assert_ne!(
                            piece_letter(n, a, Script::Glyph),
                            piece_letter(n, b, Script::Glyph)
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn transliteration_cases() {
        let cases = [
            ("Kf3", Notation::Ru, "Nf3"),
            ("Kpb1", Notation::Ru, "Kb1"),
            ("Фxd4", Notation::Ru, "Qxd4"),
            ("Лe8", Notation::Ru, "Re8"),
            ("Cg5", Notation::Ru, "Bg5"),
            ("0-0", Notation::Ru, "0-0"),
            ("H:d4", Notation::Pl, "Q:d4"),
            ("Gb5X", Notation::Pl, "Bb5X"),
            ("Tae1", Notation::De, "Rae1"),
            ("Lc4", Notation::De, "Bc4"),
            ("exd6e.p.", Notation::En, "exd6e.p."),
            ("O-O", Notation::En, "O-O"),
        ];
        for (text, n, want) in cases {
            assert_eq!(transliterate(text, n), want, "{text} in {n}");
        }
    }
}
