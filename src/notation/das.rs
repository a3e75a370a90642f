//! Das (10×10 variant) move text -> the written move it says, checked against the
//! variant's notation only: squares a–j × 1–10 plus l1 r1 l10 r10, piece and state
//! letters, captures, promotions, landing moves, castling and marks. Its rules of
//! movement are unknown to us, so "valid" means "says a move in this notation", never
//! "is a legal move".
//!
//! - [`parse_das_move`]: one move's text -> [`DasMove`], or a [`DasMoveError`] naming
//!   what is wrong (`k5` is not a square, ...).
//! - [`DasAutomaton`]: the same grammar as a DFA over glyphs, for the cell reader.
//! - [`parse_das_game`] / [`write_das_record`]: game texts (move numbers, `1...`,
//!   variations, position records) -> a PGN-like record with `[Variant "Das"]`.
//! - [`sample_das_move`]: random valid move strings for synthetic sheets.

mod automaton;
mod game;
#[cfg(any(test, feature = "internals"))]
mod sample;

use std::fmt;
use std::str::FromStr;

use crate::glyph::canonical_str;

pub use automaton::DasAutomaton;
#[cfg(any(test, feature = "internals"))]
pub use game::{DasGame, DasGameError, DasPlacement, DasPly, DasPosition, parse_placement};
pub use game::{parse_das_game, write_das_record};
#[cfg(any(test, feature = "internals"))]
pub use sample::sample_das_move;

/// Piece letters (English initials): Bishop, Rook, Ship, Queen, Hoplite, King,
/// Knight, Amazon, Centurion, Valkyrie, Elva. Pawns have no letter.
pub const PIECE_LETTERS: &str = "BRSQHKNACVE";
/// Letters of compound states: Minor, Descent, Trooper, Pirate, Frigate.
pub const STATE_LETTERS: &str = "MDTPF";
/// Second letters of castling (`KR`, `KS`, `KT`, `KF`).
pub const CASTLE_LETTERS: &str = "RSTF";
/// Check and mate marks, longest first.
pub const CHECK_MARKS: [&str; 3] = ["++", "+", "#"];
/// Evaluation marks, longest first.
pub const EVAL_MARKS: [&str; 6] = ["!!", "!?", "?!", "??", "!", "?"];

/// Which game a sheet or text records.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Variant {
    /// Orthodox chess: decoded as legal games.
    #[default]
    Chess,
    /// Das (10×10): read by its notation only, without its rules.
    Das,
}

impl Variant {
    /// The name used on the command line (`chess`, `das`).
    pub fn code(self) -> &'static str {
        match self {
            Variant::Chess => "chess",
            Variant::Das => "das",
        }
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

/// A variant name that is not `chess` or `das`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown variant `{0}` (expected chess or das)")]
pub struct UnknownVariant(pub String);

impl FromStr for Variant {
    type Err = UnknownVariant;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "chess" => Ok(Variant::Chess),
            "das" => Ok(Variant::Das),
            _ => Err(UnknownVariant(s.to_string())),
        }
    }
}

/// A Das square: files `a`–`j` with ranks 1–10, or one of the extra squares `l1`,
/// `r1` (White's) and `l10`, `r10` (Black's).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DasSquare {
    pub file: char,
    pub rank: u8,
}

impl DasSquare {
    /// Parses `e5`, `j10`, `l1`, ...; `None` for anything else (`k5`, `l5`, `j11`).
    pub fn parse(s: &str) -> Option<DasSquare> {
        let mut chars = s.chars();
        let file = chars.next()?;
        let rank = parse_rank(chars.as_str())?;
        let square = DasSquare { file, rank };
        (is_file(file) || (square.is_extra())).then_some(square)
    }

    /// One of `l1`, `r1`, `l10`, `r10`.
    pub fn is_extra(self) -> bool {
        matches!(self.file, 'l' | 'r') && matches!(self.rank, 1 | 10)
    }
}

impl fmt::Display for DasSquare {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.file, self.rank)
    }
}

/// A board file, `a`–`j`.
fn is_file(c: char) -> bool {
    ('a'..='j').contains(&c)
}

/// A rank, `1`–`10`, written without leading zeros.
fn parse_rank(s: &str) -> Option<u8> {
    match s {
        "10" => Some(10),
        _ if s.len() == 1 => s
            .chars()
            .next()?
            .to_digit(10)
            .filter(|&d| d >= 1)
            .map(|d| d as u8),
        _ => None,
    }
}

/// Who moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Mover {
    /// A pawn (no letter).
    Pawn,
    /// A piece or a compound state named by one letter (`N`, `A`, `T`, `D`, ...).
    Letter(char),
    /// A state carrying a piece (`TA`, `FN`): a state letter, then a piece letter.
    Compound { state: char, piece: char },
}

/// The part of the origin a move names (`Nbd2`, `R1e1`, `Nb1d2`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Origin {
    File(char),
    Rank(u8),
    Square(DasSquare),
}

/// What a move does, marks aside.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum DasBody {
    /// `KR`, `KS`, `KT`, `KF`: the letter after the `K`.
    Castle(char),
    Move {
        mover: Mover,
        from: Option<Origin>,
        capture: bool,
        to: DasSquare,
        /// After the square: a pawn's promotion (`b1A`, `f10EH`) or the state a
        /// landing or boarding move results in (`Nd3D`, `Df8N`).
        letters: String,
        /// `e.p.` after a pawn capture.
        en_passant: bool,
    },
}

/// One written Das move: body and marks. Its [`Display`](fmt::Display) is the
/// canonical text (`Rg10+!`, `dxe6 e.p.`, `f10EH`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct DasMove {
    pub body: DasBody,
    /// `""`, `+`, `++` or `#`.
    pub check: &'static str,
    /// `""`, `!`, `!!`, `!?`, `?!`, `?` or `??`.
    pub eval: &'static str,
    /// `=`: a draw offer.
    pub draw: bool,
}

impl fmt::Display for DasMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.body {
            DasBody::Castle(c) => write!(f, "K{c}")?,
            DasBody::Move {
                mover,
                from,
                capture,
                to,
                letters,
                en_passant,
            } => {
                match mover {
                    Mover::Pawn => {}
                    Mover::Letter(c) => write!(f, "{c}")?,
                    Mover::Compound { state, piece } => write!(f, "{state}{piece}")?,
                }
                match from {
                    None => {}
                    Some(Origin::File(c)) => write!(f, "{c}")?,
                    Some(Origin::Rank(r)) => write!(f, "{r}")?,
                    Some(Origin::Square(s)) => write!(f, "{s}")?,
                }
                if *capture {
                    f.write_str("x")?;
                }
                write!(f, "{to}{letters}")?;
                if *en_passant {
                    f.write_str(" e.p.")?;
                }
            }
        }
        write!(
            f,
            "{}{}{}",
            self.check,
            self.eval,
            if self.draw { "=" } else { "" }
        )
    }
}

/// Why a text is not a Das move.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DasMoveError {
    #[error("empty move")]
    Empty,
    /// Squares are `a1`–`j10` plus `l1`, `r1`, `l10`, `r10`.
    #[error("`{0}` is not a square")]
    NotASquare(String),
    #[error("`{0}` is not a das piece or state letter")]
    UnknownLetter(char),
    #[error("no destination square")]
    NoSquare,
    #[error("`{0}` is not a compound (a state letter M D T P F, then a piece letter)")]
    BadCompound(String),
    /// Letters after the square: at most two piece letters (not `K`) after a pawn
    /// move, at most one piece or state letter (not `K`) after a piece move.
    #[error("`{0}` cannot follow the square")]
    BadLetters(String),
    #[error("a pawn cannot move to `{0}`")]
    PawnOffBoard(String),
    #[error("`e.p.` follows only a pawn capture")]
    EnPassant,
    #[error("unexpected `{0}`")]
    Unexpected(String),
}

/// Splits trailing marks off a canonical glyph string: (body, check, eval, draw).
fn split_marks(g: &str) -> (&str, &'static str, &'static str, bool) {
    let (g, draw) = match g.strip_suffix('=') {
        Some(rest) => (rest, true),
        None => (g, false),
    };
    let strip = |g: &str, table: &[&'static str]| -> (usize, &'static str) {
        table
            .iter()
            .find(|m| g.ends_with(**m))
            .map_or((g.len(), ""), |m| (g.len() - m.len(), *m))
    };
    let (end, eval) = strip(g, &EVAL_MARKS);
    let g = &g[..end];
    let (end, check) = strip(g, &CHECK_MARKS);
    (&g[..end], check, eval, draw)
}

fn is_letter(c: char) -> bool {
    PIECE_LETTERS.contains(c) || STATE_LETTERS.contains(c)
}

/// Splits the squares part (`bd2`, `1e1`, `b1d2`, `e10`) into chunks: a lowercase
/// letter with the digits after it, or leading digits.
fn chunks(s: &[char]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for &c in s {
        match out.last_mut() {
            Some(last) if c.is_ascii_digit() => last.push(c),
            _ => out.push(c.to_string()),
        }
    }
    out
}

fn origin(chunk: &str) -> Result<Origin, DasMoveError> {
    let mut chars = chunk.chars();
    let first = chars.next().unwrap_or(' ');
    if chars.as_str().is_empty() && is_file(first) {
        Ok(Origin::File(first))
    } else if let Some(r) = parse_rank(chunk) {
        Ok(Origin::Rank(r))
    } else {
        DasSquare::parse(chunk)
            .map(Origin::Square)
            .ok_or_else(|| DasMoveError::NotASquare(chunk.to_string()))
    }
}

/// Parses one written Das move (look-alike letters canonicalised, spaces ignored).
///
/// # Errors
/// What makes the text not a move in Das notation, naming the offending part.
pub fn parse_das_move(text: &str) -> Result<DasMove, DasMoveError> {
    use DasMoveError as E;
    let g = canonical_str(text);
    if g.is_empty() {
        return Err(E::Empty);
    }
    let (body, check, eval, draw) = split_marks(&g);
    let marked = |body: DasBody| DasMove {
        body,
        check,
        eval,
        draw,
    };
    let (body, en_passant) = match body.strip_suffix("e.p.") {
        Some(b) => (b, true),
        None => (body, false),
    };
    if let Some(c) = body.strip_prefix('K').filter(|r| r.len() == 1)
        && let Some(c) = c.chars().next().filter(|c| CASTLE_LETTERS.contains(*c))
    {
        return if en_passant {
            Err(E::EnPassant)
        } else {
            Ok(marked(DasBody::Castle(c)))
        };
    }
    let chars: Vec<char> = body.chars().collect();
    let lead = chars.iter().take_while(|c| c.is_uppercase()).count();
    if let Some(&c) = chars[..lead].iter().find(|c| !is_letter(**c)) {
        return Err(E::UnknownLetter(c));
    }
    if lead == chars.len() {
        return Err(E::NoSquare);
    }
    let mover = match chars[..lead] {
        [] => Mover::Pawn,
        [c] => Mover::Letter(c),
        [state, piece] if STATE_LETTERS.contains(state) && PIECE_LETTERS.contains(piece) => {
            Mover::Compound { state, piece }
        }
        _ => return Err(E::BadCompound(chars[..lead].iter().collect())),
    };
    let trail = chars[lead..]
        .iter()
        .rev()
        .take_while(|c| c.is_uppercase())
        .count();
    let middle = &chars[lead..chars.len() - trail];
    let letters: String = chars[chars.len() - trail..].iter().collect();
    if let Some(&c) = middle
        .iter()
        .find(|c| !(c.is_ascii_lowercase() || c.is_ascii_digit()))
    {
        return Err(E::Unexpected(c.to_string()));
    }
    if let Some(c) = letters.chars().find(|c| !is_letter(*c)) {
        return Err(E::UnknownLetter(c));
    }
    let captures = middle.iter().filter(|c| **c == 'x').count();
    let capture = captures == 1;
    let mut parts: Vec<String> = match middle.iter().position(|c| *c == 'x') {
        _ if captures > 1 => return Err(E::Unexpected("x".into())),
        Some(i) => {
            let before = chunks(&middle[..i]);
            let after = chunks(&middle[i + 1..]);
            if before.len() > 1 {
                return Err(E::Unexpected(before[1..].concat()));
            }
            if after.len() > 1 {
                return Err(E::Unexpected(after[1..].concat()));
            }
            if after.is_empty() {
                return Err(E::NoSquare);
            }
            before.into_iter().chain(after).collect()
        }
        None => chunks(middle),
    };
    if parts.is_empty() {
        return Err(E::NoSquare);
    }
    if parts.len() > 2 {
        return Err(E::Unexpected(parts[..parts.len() - 2].concat()));
    }
    let dest = parts.pop().unwrap_or_default();
    let to = DasSquare::parse(&dest).ok_or_else(|| E::NotASquare(dest.clone()))?;
    let from = parts.first().map(|c| origin(c)).transpose()?;
    match mover {
        Mover::Pawn => {
            match (capture, from) {
                (false, None) | (true, Some(Origin::File(_))) => {}
                (true, None) => return Err(E::Unexpected("x".into())),
                (_, Some(_)) => return Err(E::Unexpected(parts[0].clone())),
            }
            if to.is_extra() {
                return Err(E::PawnOffBoard(dest));
            }
            if letters.len() > 2 || letters.contains(|c| !PIECE_LETTERS.contains(c) || c == 'K') {
                return Err(E::BadLetters(letters));
            }
            if en_passant && (!capture || !letters.is_empty()) {
                return Err(E::EnPassant);
            }
        }
        _ => {
            if letters.len() > 1 || letters.contains('K') {
                return Err(E::BadLetters(letters));
            }
            if en_passant {
                return Err(E::EnPassant);
            }
        }
    }
    Ok(marked(DasBody::Move {
        mover,
        from,
        capture,
        to,
        letters,
        en_passant,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The description's own move examples, and the squares and marks of the issue.
    const VALID: &[&str] = &[
        "Bd4",
        "Ng3",
        "Rg10",
        "Bxe5",
        "dxe5",
        "dxe6 e.p.",
        "dxe6e.p.",
        "b1A",
        "c1V",
        "e10Q",
        "f10EH",
        "Nd3D",
        "Aa3D",
        "Nb7P",
        "Nxe5P",
        "Axf6D",
        "Df8N",
        "Dxf7A",
        "Pc1N",
        "Sc3T",
        "Sg10F",
        "Dd4D",
        "Df3P",
        "Sd4",
        "Txj8",
        "Fxc10",
        "KR",
        "KS",
        "KT",
        "KF",
        "TAe5",
        "FNe5",
        "e5",
        "Vf4",
        "Ve2",
        "Vd5++",
        "i5",
        "f8",
        "Qj5+",
        "Hi4",
        "Qxi4+",
        "Qxh3++",
        "Vxj1",
        "Bxg9++",
        "Da10A+",
        "Kc10",
        "Ba8++",
        "Rg10+!",
        "Kh9",
        "Nxg10",
        "Txg10++",
        "Dg7A++",
        "Nbd2",
        "R1e1",
        "R10e1",
        "Nb1d2",
        "Hl1e2",
        "Ql10",
        "Er1",
        "Md4",
        "Ka1#",
        "Ka1!!",
        "Ka1!?",
        "Ka1?!",
        "Ka1?",
        "Ka1??",
        "Ka1=",
        "Ka1+?!=",
        "KR+",
        "j10",
        "a1",
        "Cc3",
        "Кe8",
        "ТAa1",
    ];

    /// Texts that are not Das moves, with the reason.
    const INVALID: &[(&str, DasMoveError)] = &[
        ("", DasMoveError::Empty),
        ("k5", DasMoveError::NotASquare(String::new())),
        ("l5", DasMoveError::NotASquare(String::new())),
        ("j11", DasMoveError::NotASquare(String::new())),
        ("Nk5", DasMoveError::NotASquare(String::new())),
        ("Ne0", DasMoveError::NotASquare(String::new())),
        ("Ne01", DasMoveError::NotASquare(String::new())),
        ("Hle2", DasMoveError::NotASquare(String::new())),
        ("Ge4", DasMoveError::UnknownLetter('G')),
        ("Oe4", DasMoveError::UnknownLetter('O')),
        ("N", DasMoveError::NoSquare),
        ("Nx", DasMoveError::NoSquare),
        ("+", DasMoveError::NoSquare),
        ("NAe5", DasMoveError::BadCompound(String::new())),
        ("TDe5", DasMoveError::BadCompound(String::new())),
        ("Nd3DA", DasMoveError::BadLetters(String::new())),
        ("e10K", DasMoveError::BadLetters(String::new())),
        ("e10QAB", DasMoveError::BadLetters(String::new())),
        ("e10M", DasMoveError::BadLetters(String::new())),
        ("l1", DasMoveError::PawnOffBoard(String::new())),
        ("Ne5 e.p.", DasMoveError::EnPassant),
        ("e5 e.p.", DasMoveError::EnPassant),
        ("e2-e4", DasMoveError::Unexpected(String::new())),
        ("e2e4", DasMoveError::Unexpected(String::new())),
        ("xe5", DasMoveError::Unexpected(String::new())),
        ("Nxxe5", DasMoveError::Unexpected(String::new())),
        ("Ka1+++", DasMoveError::Unexpected(String::new())),
        ("Ka1=+", DasMoveError::Unexpected(String::new())),
        ("Ka1!!!", DasMoveError::Unexpected(String::new())),
        ("O-O", DasMoveError::UnknownLetter('O')),
        ("e8=Q", DasMoveError::Unexpected(String::new())),
    ];

    #[test]
    fn valid_moves_parse_and_display_as_written() {
        for text in VALID {
            let m = parse_das_move(text).unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(
                canonical_str(&m.to_string()),
                canonical_str(text),
                "{text} displays as {m}"
            );
            assert!(
                DasAutomaton::get().accepts(text),
                "automaton rejects {text}"
            );
        }
    }

    #[test]
    fn invalid_moves_say_why() {
        for (text, want) in INVALID {
            let got = parse_das_move(text).expect_err(text);
            assert_eq!(
                std::mem::discriminant(&got),
                std::mem::discriminant(want),
                "{text}: {got}"
            );
            assert!(
                !DasAutomaton::get().accepts(text),
                "automaton accepts {text}"
            );
        }
        assert_eq!(
            parse_das_move("k5").unwrap_err().to_string(),
            "`k5` is not a square"
        );
        assert_eq!(
            parse_das_move("Qxj11+").unwrap_err().to_string(),
            "`j11` is not a square"
        );
    }

    #[test]
    fn structure_of_landing_promotion_and_compound_moves() {
        let m = parse_das_move("Nxe5P+").unwrap();
        assert_eq!(
            m.body,
            DasBody::Move {
                mover: Mover::Letter('N'),
                from: None,
                capture: true,
                to: DasSquare { file: 'e', rank: 5 },
                letters: "P".into(),
                en_passant: false,
            }
        );
        assert_eq!(m.check, "+");
        let m = parse_das_move("f10EH").unwrap();
        assert!(
            matches!(m.body, DasBody::Move { mover: Mover::Pawn, ref letters, .. } if letters == "EH")
        );
        let m = parse_das_move("TAe5").unwrap();
        assert!(matches!(
            m.body,
            DasBody::Move {
                mover: Mover::Compound {
                    state: 'T',
                    piece: 'A'
                },
                ..
            }
        ));
        let m = parse_das_move("Nb1d2").unwrap();
        assert!(matches!(
            m.body,
            DasBody::Move {
                from: Some(Origin::Square(DasSquare { file: 'b', rank: 1 })),
                ..
            }
        ));
        assert_eq!(parse_das_move("KT").unwrap().body, DasBody::Castle('T'));
        assert_eq!(
            parse_das_move("dxe6e.p.+").unwrap().to_string(),
            "dxe6 e.p.+"
        );
    }

    #[test]
    fn squares_are_a_to_j_by_1_to_10_plus_four_extras() {
        let mut count = 0;
        for file in "abcdefghijklmnopqrstuvwxyz".chars() {
            for rank in 0..=12 {
                let s = format!("{file}{rank}");
                if let Some(sq) = DasSquare::parse(&s) {
                    assert_eq!(sq.to_string(), s);
                    count += 1;
                }
            }
        }
        assert_eq!(count, 104);
        for s in ["l1", "r1", "l10", "r10"] {
            assert!(DasSquare::parse(s).is_some_and(DasSquare::is_extra), "{s}");
        }
    }

    #[test]
    fn variant_names() {
        assert_eq!("DAS".parse::<Variant>(), Ok(Variant::Das));
        assert_eq!("chess".parse::<Variant>(), Ok(Variant::Chess));
        assert!("xiangqi".parse::<Variant>().is_err());
    }
}
