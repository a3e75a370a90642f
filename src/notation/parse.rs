//! Written move text -> legal move: parses every form [`super::forms`] produces, typed
//! variants with look-alike letters mixed across scripts, and trailing check,
//! evaluation and draw-offer marks. Errors tell unreadable text from an illegal or
//! ambiguous move.

use shakmaty::{CastlingSide, Chess, File, Move, Position, Rank, Role, san::San};

use super::Notation;
use super::forms::Mark;
use super::letters::{LETTERED, Script, TAKEN, piece_letter, read_piece};

/// Why a written move could not be turned into a legal move.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MoveTextError {
    /// The text is not a move in this notation.
    #[error("unreadable move `{0}`")]
    Unreadable(String),
    /// The text is a move, but no legal move in the position matches it.
    #[error("illegal move `{0}`")]
    Illegal(String),
    /// The text matches several legal moves (e.g. `Nd2` when both knights reach d2).
    #[error("ambiguous move `{text}` (could be {})", candidates.join(", "))]
    Ambiguous {
        text: String,
        candidates: Vec<String>,
    },
}

/// A written move read without a position: what the text says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Written {
    Castle(CastlingSide),
    Move {
        role: Role,
        from_file: Option<File>,
        from_rank: Option<Rank>,
        mark: Mark,
        /// `None` when only the piece taken is written (`BxN`).
        to_file: Option<File>,
        /// `None` for a capture written with the destination file only (`ed`, `Bxe`).
        to_rank: Option<Rank>,
        /// The piece taken, when written (`BxN`, `QxNd5`).
        captured: Option<Role>,
        promotion: Option<Role>,
        en_passant: bool,
    },
}

/// Trailing marks that never change the move: evaluation, draw offer, check, mate.
const TRAILING: [&str; 11] = ["(=)", "!!", "??", "!?", "?!", "!", "?", "++", "+", "#", "X"];
const EP: [&str; 4] = ["e.p.", "e.p", "ep.", "ep"];

/// Reads glyph text (see [`crate::glyph::canonical_str`]) as a move in notation `n`;
/// `None` when it is not move syntax.
pub fn read_written(glyphs: &str, n: Notation) -> Option<Written> {
    let mut s = glyphs;
    loop {
        let trimmed = TRAILING
            .iter()
            .find_map(|t| s.strip_suffix(t).filter(|r| !r.is_empty()));
        match trimmed {
            Some(r) => s = r,
            None => break,
        }
    }
    let mut en_passant = false;
    if let Some(r) = EP.iter().find_map(|t| {
        s.strip_suffix(t)
            .filter(|r| r.ends_with(|c: char| c.is_ascii_digit()))
    }) {
        s = r;
        en_passant = true;
    }
    let castle: String = s.chars().map(|c| if c == '0' { 'O' } else { c }).collect();
    match castle.as_str() {
        "O-O" | "OO" if !en_passant => return Some(Written::Castle(CastlingSide::KingSide)),
        "O-O-O" | "OOO" if !en_passant => return Some(Written::Castle(CastlingSide::QueenSide)),
        _ => {}
    }

    let (role, start) = if s.starts_with(|c: char| c.is_ascii_lowercase()) {
        (Role::Pawn, 0)
    } else if n == Notation::En && s.starts_with('P') {
        // `PxP`: the pawn named by its English letter.
        (Role::Pawn, 1)
    } else {
        read_piece(n, s)?
    };
    let mut rest = &s[start..];

    let mut promotion = None;
    for role in LETTERED.iter().copied().filter(|&r| r != Role::King) {
        // (After the rank or `=`: `xN` is the piece taken.)
        if let Some(r) = rest.strip_suffix(piece_letter(n, role, Script::Glyph))
            && r.ends_with(|c: char| c == '=' || c.is_ascii_digit())
        {
            promotion = Some(role);
            rest = r.strip_suffix('=').unwrap_or(r);
            break;
        }
    }

    let chars: Vec<char> = rest.chars().collect();
    let file = |c: char| File::from_char(c);
    let rank = |c: char| Rank::from_char(c);
    // The piece taken, in English (`xN`, `xP`).
    let taken = |x: char, c: char| {
        (n == Notation::En && x == 'x')
            .then(|| taken_role(c))
            .flatten()
    };
    // The destination: a square, a file alone (`ed`, `dxe`, `Bxe`), or nothing but
    // the piece taken (`BxN`).
    let (to_file, to_rank, mut head) = match chars.as_slice() {
        [head @ .., f, r] if file(*f).is_some() && rank(*r).is_some() => (file(*f), rank(*r), head),
        [head @ .., f] if file(*f).is_some() => (file(*f), None, head),
        [head @ .., _, _] => (None, None, head),
        _ => return None,
    };
    let mut captured = None;
    if to_file.is_none() {
        let [.., x, c] = chars.as_slice() else {
            return None;
        };
        captured = Some(taken(*x, *c)?);
    } else if let [o @ .., x, c] = head
        && let Some(role) = taken(*x, *c)
    {
        // `QxNd5`
        captured = Some(role);
        head = o;
    }
    let (origin, mark) = if captured.is_some() {
        (head, Mark::Cross)
    } else {
        match head {
            [o @ .., 'x'] => (o, Mark::Cross),
            [o @ .., ':'] => (o, Mark::Colon),
            [o @ .., '-'] if !o.is_empty() => (o, Mark::Dash),
            o => (o, Mark::Plain),
        }
    };
    let (from_file, from_rank) = match origin {
        [] => (None, None),
        [f, r] => (Some(file(*f)?), Some(rank(*r)?)),
        [c] => match (file(*c), rank(*c)) {
            (Some(f), _) => (Some(f), None),
            (_, Some(r)) => (None, Some(r)),
            _ => return None,
        },
        _ => return None,
    };
    // Without its rank the destination is only written for captures: a pawn's by
    // files only (`ed`, `exd`), a piece's with a capture mark (`Bxe`).
    if to_file.is_some() && to_rank.is_none() {
        let pawn = role == Role::Pawn && from_file.is_some() && from_rank.is_none();
        let piece = role != Role::Pawn && matches!(mark, Mark::Cross | Mark::Colon);
        if !(pawn || piece) || promotion.is_some() {
            return None;
        }
    }
    Some(Written::Move {
        role,
        from_file,
        from_rank,
        mark,
        to_file,
        to_rank,
        captured,
        promotion,
        en_passant,
    })
}

/// The piece named by English letter `c` as taken (`P` for a pawn).
fn taken_role(c: char) -> Option<Role> {
    TAKEN.iter().find(|&&(l, _)| l == c).map(|&(_, r)| r)
}

impl Written {
    /// Whether legal move `m` is one this text may stand for.
    pub fn matches(&self, m: &Move) -> bool {
        match *self {
            Written::Castle(side) => m.castling_side() == Some(side),
            Written::Move {
                role,
                from_file,
                from_rank,
                mark,
                to_file,
                to_rank,
                captured,
                promotion,
                en_passant,
            } => {
                if m.is_castle() || m.role() != role {
                    return false;
                }
                let (from, to) = (m.from().expect("chess move"), m.to());
                let capture_ok = match mark {
                    Mark::Cross | Mark::Colon => m.is_capture(),
                    Mark::Plain | Mark::Dash => true,
                };
                // A pawn capture always names the pawn's file (or the pawn, `PxN`).
                let pawn_ok = role != Role::Pawn
                    || !m.is_capture()
                    || from_file.is_some()
                    || captured.is_some();
                let files_only_ok = to_rank.is_some() || m.is_capture();
                to_file.is_none_or(|f| f == to.file())
                    && captured.is_none_or(|c| m.capture() == Some(c))
                    && to_rank.is_none_or(|r| r == to.rank())
                    && from_file.is_none_or(|f| f == from.file())
                    && from_rank.is_none_or(|r| r == from.rank())
                    && capture_ok
                    && pawn_ok
                    && files_only_ok
                    && promotion == m.promotion()
                    && (!en_passant || m.is_en_passant())
            }
        }
    }
}

/// Parses move text in notation `n` (any written form: `Кg1-f3`, `e:d5`, `exd6 e.p.`,
/// `0-0`, `e8Ф`, `Kрb1`, with optional `+`, `#`, `!?`, `(=)` ...) to the legal move of
/// `pos` it names.
///
/// # Errors
/// [`MoveTextError::Unreadable`] when the text is not a move in this notation,
/// [`MoveTextError::Illegal`] when no legal move matches, and
/// [`MoveTextError::Ambiguous`] when several do.
pub fn parse_move(pos: &Chess, text: &str, n: Notation) -> Result<Move, MoveTextError> {
    let glyphs = crate::glyph::canonical_str(text);
    let written =
        read_written(&glyphs, n).ok_or_else(|| MoveTextError::Unreadable(text.to_string()))?;
    let mut found = pos.legal_moves();
    found.retain(|m| written.matches(m));
    match found.as_slice() {
        [] => Err(MoveTextError::Illegal(text.to_string())),
        [m] => Ok(*m),
        many => Err(MoveTextError::Ambiguous {
            text: text.to_string(),
            candidates: many
                .iter()
                .map(|m| San::from_move(pos, *m).to_string())
                .collect(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn san(pos: &Chess, m: Move) -> String {
        San::from_move(pos, m).to_string()
    }

    fn pos(fen: &str) -> Chess {
        fen.parse::<shakmaty::fen::Fen>()
            .unwrap()
            .into_position(shakmaty::CastlingMode::Standard)
            .unwrap()
    }

    /// Each text, in its notation, parses in `pos` to the move whose SAN is given.
    fn assert_parses(pos: &Chess, cases: &[(&str, Notation, &str)]) {
        for &(text, n, want) in cases {
            let m = parse_move(pos, text, n).unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(san(pos, m), want, "{text}");
        }
    }

    #[test]
    fn parses_forms_from_the_start_position() {
        let start = Chess::default();
        let cases = [
            ("e4", Notation::En, "e4"),
            ("e2-e4", Notation::Ru, "e4"),
            ("e2e4", Notation::Pl, "e4"),
            ("Кf3", Notation::Ru, "Nf3"),
            ("Кg1-f3", Notation::Ru, "Nf3"),
            ("Kg1f3", Notation::Ru, "Nf3"),
            ("Sf3!?", Notation::Pl, "Nf3"),
            ("Nf3 (=)", Notation::En, "Nf3"),
            ("Sgf3", Notation::De, "Nf3"),
        ];
        assert_parses(&start, &cases);
    }

    #[test]
    fn captures_by_file_or_by_the_piece_taken() {
        // Black to move: d5 takes e4 (a pawn), the g4 bishop takes f3 (a knight); the
        // queen can take nothing.
        let p = pos("rn1qkbnr/ppp1pppp/8/3p4/4P1b1/2N2N2/PPPP1PPP/R1BQKB1R b KQkq - 0 3");
        let cases = [
            ("dxe", Notation::En, "dxe4"),
            ("de", Notation::En, "dxe4"),
            ("d:e", Notation::Pl, "dxe4"),
            ("PxP", Notation::En, "dxe4"),
            ("dxP", Notation::En, "dxe4"),
            ("PxPe4", Notation::En, "dxe4"),
            ("Bxf", Notation::En, "Bxf3"),
            ("BxN", Notation::En, "Bxf3"),
            ("BxN+", Notation::En, "Bxf3"),
            ("BxNf3", Notation::En, "Bxf3"),
            ("С:f", Notation::Ru, "Bxf3"),
        ];
        assert_parses(&p, &cases);
        for text in ["BxP", "QxN", "BxNe4", "dxN"] {
            assert!(
                matches!(
                    parse_move(&p, text, Notation::En),
                    Err(MoveTextError::Illegal(_))
                ),
                "{text}"
            );
        }
        // `Bf`: a piece's file-only destination needs a capture mark; `xN` is English.
        for (text, n) in [
            ("Bf", Notation::En),
            ("e", Notation::En),
            ("C:K", Notation::Ru),
        ] {
            assert!(
                matches!(parse_move(&p, text, n), Err(MoveTextError::Unreadable(_))),
                "{text}"
            );
        }
        // A promotion letter follows the rank or `=`.
        let q = pos("1n2k3/P7/8/8/8/8/8/4K3 w - - 0 1");
        let m = parse_move(&q, "axb8=Q", Notation::En).unwrap();
        assert_eq!(san(&q, m), "axb8=Q");
        // (A promotion names its piece.)
        let m = parse_move(&q, "PxN", Notation::En);
        assert!(matches!(m, Err(MoveTextError::Illegal(_))), "{m:?}");
    }

    #[test]
    fn errors_tell_unreadable_from_illegal_and_ambiguous() {
        let start = Chess::default();
        assert!(matches!(
            parse_move(&start, "hello", Notation::En),
            Err(MoveTextError::Unreadable(_))
        ));
        assert!(matches!(
            parse_move(&start, "e5", Notation::En),
            Err(MoveTextError::Illegal(_))
        ));
        assert!(matches!(
            parse_move(&start, "Кf3", Notation::En),
            Err(MoveTextError::Illegal(_))
        ));
        assert!(matches!(
            parse_move(&start, "Nxf3", Notation::En),
            Err(MoveTextError::Illegal(_))
        ));
        let two_knights = pos("4k3/8/8/8/8/8/8/1N2KN2 w - - 0 1");
        match parse_move(&two_knights, "Nd2", Notation::En) {
            Err(MoveTextError::Ambiguous { candidates, .. }) => {
                assert_eq!(candidates, ["Nbd2", "Nfd2"])
            }
            other => panic!("expected ambiguity, got {other:?}"),
        }
    }

    #[test]
    fn mixed_scripts_read_as_one_glyph() {
        // Cyrillic К + Latin р, Latin K + Cyrillic р, Cyrillic с as the file.
        let p = pos("4k3/8/8/8/8/8/8/2K5 w - - 0 1");
        for text in ["Крb1", "Kрb1", "Кpb1", "Kрс1b1", "KPb1"] {
            let m = parse_move(&p, text, Notation::Ru).unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(san(&p, m), "Kb1", "{text}");
        }
    }
}
