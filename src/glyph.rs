//! Text -> glyph strings: maps every character a player or a typist may use to the
//! glyph class the cell reader sees, so that look-alike letters from different
//! scripts (Latin `K` and Cyrillic `К`, Latin `p` and Cyrillic `р`, ...) are one class.
//!
//! The reader cannot tell a Cyrillic `С` from a Latin `C` on paper, so the model's
//! alphabet holds one class per *glyph*, and every string that is scored against a
//! cell (written forms of moves, user corrections, labels) goes through [`canonical`]
//! first. Cyrillic letters without a Latin look-alike (`Ф`, `Л`) stay Cyrillic; so do
//! `д` and `я`, which only the resign word `сдался` needs (cellreader 2.2.0 on).

/// The glyph class of one character: Cyrillic look-alikes become their Latin twin,
/// the letter `O` in castling stays `O` (the zero `0` is a separate glyph).
///
/// Characters that are not look-alikes are returned unchanged.
pub fn canonical(c: char) -> char {
    match c {
        'К' | 'к' => 'K',
        'р' => 'p',
        'Р' => 'P',
        'С' => 'C',
        'с' => 'c',
        'е' => 'e',
        'Е' => 'E',
        'а' => 'a',
        'А' => 'A',
        'х' | 'Х' => 'x',
        'В' => 'B',
        'Н' => 'H',
        'О' => 'O',
        // a lowercase o or s (in the resign words) is its capital's glyph class
        'о' | 'o' => 'O',
        's' => 'S',
        // `ł` (Polish `poddał`) is read as the `l` it is drawn from
        'ł' => 'l',
        'Т' => 'T',
        'М' => 'M',
        'л' => 'Л',
        'ф' => 'Ф',
        _ => c,
    }
}

/// [`canonical`] applied to a whole string, with spaces removed (the reader does not
/// see spaces: `exd6 e.p.` and `exd6e.p.` are the same ink).
pub fn canonical_str(s: &str) -> String {
    s.chars()
        .filter(|c| !c.is_whitespace())
        .map(canonical)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cyrillic_look_alikes_become_latin() {
        let cases = [
            ("Крb1", "Kpb1"),
            ("Kрс1b1", "Kpc1b1"),
            ("Фd4", "Фd4"),
            ("Лe8", "Лe8"),
            ("Сg5", "Cg5"),
            ("ехd5", "exd5"),
            ("exd6 e.p.", "exd6e.p."),
            ("Нf3", "Hf3"),
            ("resigns", "reSignS"),
            ("poddał", "pOddal"),
            ("сдался", "cдaЛcя"),
        ];
        for (input, want) in cases {
            assert_eq!(canonical_str(input), want, "input {input}");
        }
    }
}
