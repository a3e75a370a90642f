//! Game text -> legal moves: splits a written game into plies (move numbers with or
//! without dots, `1...`, marks and `e.p.` written as separate words, a result), replays
//! it in one notation, or detects the notation by replaying it in each.

use shakmaty::{Chess, Color, Move, Position};

use super::Notation;
use super::parse::{MoveTextError, parse_move};

/// One written ply of a game text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WrittenPly {
    /// Move number (1 = the first move of each side).
    pub number: u32,
    pub side: Color,
    /// The move as written, with any marks that followed it (`exd6 e.p.`, `Kрb1 (=)`).
    pub text: String,
}

/// A game text split into plies.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct GameText {
    pub plies: Vec<WrittenPly>,
    /// The result written at the end (`1-0`, `0-1`, `1/2-1/2`, `*`), if any.
    pub result: Option<String>,
}

/// A ply of a game text that is not a legal move, with where it is.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("move {number}{} `{text}` ({notation} notation): {error}", if *side == Color::White { "." } else { "..." })]
pub struct GameTextError {
    /// Index of the ply (0 = White's first move).
    pub ply: usize,
    pub number: u32,
    pub side: Color,
    pub text: String,
    pub notation: Notation,
    pub error: MoveTextError,
}

const RESULTS: [&str; 6] = ["1-0", "0-1", "1/2-1/2", "½-½", "*", "0.5-0.5"];

/// Words that only add marks to the move before them.
fn is_mark_word(word: &str) -> bool {
    matches!(word, "e.p." | "e.p" | "ep" | "ep." | "X" | "Х")
        || word.chars().all(|c| "+#!?()=".contains(c))
}

/// Splits a game text into plies. PGN tag lines (`[...]`) and `{comments}` are
/// ignored; move numbers are dropped and recomputed from the ply order.
pub fn split_game(text: &str) -> GameText {
    let mut words: Vec<&str> = Vec::new();
    let mut in_comment = false;
    for line in text.lines().filter(|l| !l.trim_start().starts_with('[')) {
        for word in line.split_whitespace() {
            if in_comment || word.starts_with('{') {
                in_comment = !word.ends_with('}');
                continue;
            }
            words.push(word);
        }
    }
    let mut game = GameText::default();
    for word in words {
        if RESULTS.contains(&word) {
            game.result = Some(word.to_string());
            continue;
        }
        let mut w = word;
        if w.starts_with(|c: char| ('1'..='9').contains(&c)) {
            let digits = w.find(|c: char| !c.is_ascii_digit()).unwrap_or(w.len());
            let after = &w[digits..];
            let rest = after.trim_start_matches(['.', '…']);
            if rest.len() < after.len() || after.is_empty() {
                w = rest;
            }
        }
        if w.is_empty() {
            continue;
        }
        match game.plies.last_mut() {
            Some(last) if is_mark_word(w) => {
                last.text.push(' ');
                last.text.push_str(w);
            }
            _ => {
                let ply = game.plies.len();
                game.plies.push(WrittenPly {
                    number: (ply / 2 + 1) as u32,
                    side: if ply % 2 == 0 {
                        Color::White
                    } else {
                        Color::Black
                    },
                    text: w.to_string(),
                });
            }
        }
    }
    game
}

/// Replays a game text from the initial position in notation `n`.
///
/// # Errors
/// The first ply that does not parse to a legal move, with its move number and text.
pub fn replay(game: &GameText, n: Notation) -> Result<Vec<Move>, GameTextError> {
    let mut pos = Chess::default();
    let mut moves = Vec::with_capacity(game.plies.len());
    for (i, ply) in game.plies.iter().enumerate() {
        let m = parse_move(&pos, &ply.text, n).map_err(|error| GameTextError {
            ply: i,
            number: ply.number,
            side: ply.side,
            text: ply.text.clone(),
            notation: n,
            error,
        })?;
        pos.play_unchecked(m);
        moves.push(m);
    }
    Ok(moves)
}

/// How strongly the letters of a text point at notation `n`: Cyrillic letters for
/// Russian, piece letters only one notation uses for the others.
fn letter_evidence(game: &GameText, n: Notation) -> i32 {
    let own = match n {
        Notation::En => "QRBN",
        Notation::Ru => "ФЛСКфлск",
        Notation::Pl => "HWGS",
        Notation::De => "DTLS",
    };
    game.plies
        .iter()
        .filter_map(|p| p.text.chars().next())
        .filter(|c| own.contains(*c))
        .count() as i32
}

/// Replays a game text in the notation that reads it: the one notation that replays
/// the whole game, or, when several do, the one whose piece letters the text uses most.
///
/// # Errors
/// When no notation replays the game: the error of the notation that got furthest.
pub fn replay_auto(game: &GameText) -> Result<(Notation, Vec<Move>), GameTextError> {
    let mut best_ok: Option<(i32, Notation, Vec<Move>)> = None;
    let mut best_err: Option<GameTextError> = None;
    for n in Notation::ALL {
        match replay(game, n) {
            Ok(moves) => {
                let evidence = letter_evidence(game, n);
                if best_ok.as_ref().is_none_or(|(e, _, _)| evidence > *e) {
                    best_ok = Some((evidence, n, moves));
                }
            }
            Err(e) => {
                let further = best_err.as_ref().is_none_or(|b| {
                    (e.ply, letter_evidence(game, n)) > (b.ply, letter_evidence(game, b.notation))
                });
                if further {
                    best_err = Some(e);
                }
            }
        }
    }
    match (best_ok, best_err) {
        (Some((_, n, moves)), _) => Ok((n, moves)),
        (None, Some(e)) => Err(e),
        (None, None) => Ok((Notation::En, Vec::new())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_numbers_marks_and_result() {
        let g = split_game("1.e4 e5 2. Кf3 Кf6 9 Кbd2 6. exd6 e.p. Кxd6 11. Kрb1 (=) 1/2-1/2");
        let texts: Vec<&str> = g.plies.iter().map(|p| p.text.as_str()).collect();
        assert_eq!(
            texts,
            [
                "e4",
                "e5",
                "Кf3",
                "Кf6",
                "Кbd2",
                "exd6 e.p.",
                "Кxd6",
                "Kрb1 (=)"
            ]
        );
        assert_eq!(g.result.as_deref(), Some("1/2-1/2"));
        assert_eq!(g.plies[7].number, 4);
        assert_eq!(g.plies[7].side, Color::Black);
    }

    #[test]
    fn castling_zeros_are_not_move_numbers() {
        let g = split_game("1. 0-0 0-0-0 2.0-0");
        let texts: Vec<&str> = g.plies.iter().map(|p| p.text.as_str()).collect();
        assert_eq!(texts, ["0-0", "0-0-0", "0-0"]);
    }

    #[test]
    fn error_names_the_move() {
        let g = split_game("1. e4 e5 2. Nf3 Nf3");
        let e = replay_auto(&g).unwrap_err();
        assert_eq!(
            (e.number, e.side, e.text.as_str()),
            (2, Color::Black, "Nf3")
        );
        assert!(e.to_string().starts_with("move 2... `Nf3`"), "{e}");
    }
}
