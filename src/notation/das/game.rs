//! Das game text -> checked moves -> PGN-like record: move numbers (`1.`, `1...`,
//! `1. ...`), marks written as separate words, a sentence's closing period, variations
//! in parentheses (kept, checked and written back as PGN variations), position records
//! (`Белые: Ke8, TAa1, Be4; Черные: Kd10, Ae10, Bb10`) and a result.

use shakmaty::Color;

use super::{DasBody, DasMove, DasMoveError, DasSquare, Mover, parse_das_move};
use crate::notation::{escape_tag, wrap_movetext, write_other_tags, write_roster};

/// One written ply of a Das game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DasPly {
    /// Move number, as written (or counted on from the last number written).
    pub number: u32,
    pub side: Color,
    /// The move as written, canonical (marks attached, a closing period dropped).
    pub text: String,
    pub mv: DasMove,
    /// Variations that replace this ply, in text order.
    pub variations: Vec<Vec<DasPly>>,
}

/// One piece of a position record: `Ke8`, `TAa1`, or a bare square for a pawn.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DasPlacement {
    pub text: String,
    pub mover: Mover,
    pub square: DasSquare,
}

/// A position record: each side's pieces, as listed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DasPosition {
    pub white: Vec<DasPlacement>,
    pub black: Vec<DasPlacement>,
}

impl DasPosition {
    /// `White: Ke8, TAa1, Be4; Black: Kd10, Ae10, Bb10`.
    pub fn describe(&self) -> String {
        let list = |p: &[DasPlacement]| {
            p.iter()
                .map(|x| x.text.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        };
        format!("White: {}; Black: {}", list(&self.white), list(&self.black))
    }
}

/// A Das game text, checked move by move.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DasGame {
    /// The position record the text starts from, if it gives one.
    pub position: Option<DasPosition>,
    /// The main line.
    pub plies: Vec<DasPly>,
    /// The result written at the end (`1-0`, `0-1`, `1/2-1/2`, `*`), if any.
    pub result: Option<String>,
}

/// Where a Das game text stops being Das notation.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DasGameError {
    #[error("move {number}{} `{text}`: {error}", if *side == Color::White { "." } else { "..." })]
    Move {
        number: u32,
        side: Color,
        text: String,
        error: DasMoveError,
    },
    #[error("position record, {} `{text}`: {error}", if *side == Color::White { "white" } else { "black" })]
    Placement {
        side: Color,
        text: String,
        error: DasMoveError,
    },
    #[error("`{0}` without its partner in the game text")]
    Parenthesis(char),
    #[error("a variation opens before any move")]
    EarlyVariation,
}

/// Parses one entry of a position record (`Ke8`, `TAa1`, `e4`).
///
/// # Errors
/// When it is not a piece letter (or compound) and a square, with nothing else.
pub fn parse_placement(text: &str) -> Result<DasPlacement, DasMoveError> {
    let m = parse_das_move(text)?;
    match m.body {
        DasBody::Move {
            mover,
            from: None,
            capture: false,
            to,
            ref letters,
            en_passant: false,
        } if letters.is_empty() && m.check.is_empty() && m.eval.is_empty() && !m.draw => {
            Ok(DasPlacement {
                text: m.to_string(),
                mover,
                square: to,
            })
        }
        _ => Err(DasMoveError::Unexpected(text.to_string())),
    }
}

const RESULTS: [&str; 6] = ["1-0", "0-1", "1/2-1/2", "½-½", "*", "0.5-0.5"];

/// Game-text tokens.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Tok {
    Open,
    Close,
    Word(String),
}

/// Splits a text into words and parentheses; PGN tag lines, `{comments}`, commas and
/// semicolons go; a draw offer `(=)` becomes the mark word `=`.
fn tokens(text: &str) -> Vec<Tok> {
    let mut out = Vec::new();
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut Vec<Tok>| {
        if !word.is_empty() {
            out.push(Tok::Word(std::mem::take(word)));
        }
    };
    let mut in_comment = false;
    for line in text.lines() {
        if !in_comment && line.trim_start().starts_with('[') {
            continue;
        }
        let mut rest = line;
        while let Some(c) = rest.chars().next() {
            if in_comment {
                in_comment = c != '}';
            } else if let Some(after) = rest.strip_prefix("(=)") {
                flush(&mut word, &mut out);
                out.push(Tok::Word("=".into()));
                rest = after;
                continue;
            } else {
                match c {
                    '{' => {
                        flush(&mut word, &mut out);
                        in_comment = true;
                    }
                    '(' | ')' => {
                        flush(&mut word, &mut out);
                        out.push(if c == '(' { Tok::Open } else { Tok::Close });
                    }
                    ',' | ';' => flush(&mut word, &mut out),
                    c if c.is_whitespace() => flush(&mut word, &mut out),
                    c => word.push(c),
                }
            }
            rest = &rest[c.len_utf8()..];
        }
        flush(&mut word, &mut out);
    }
    out
}

/// The side named by a position record's heading word (`Белые:`, `Black`), if it is one.
fn side_word(word: &str) -> Option<Color> {
    match word.trim_end_matches(':').to_lowercase().as_str() {
        "белые" | "white" => Some(Color::White),
        "черные" | "чёрные" | "black" => Some(Color::Black),
        _ => None,
    }
}

/// A move number word: `1.` (White), `1...`, `1…` (Black), `12` (White); the text after
/// the dots (`1.Da10A+`) is the move.
fn move_number(word: &str) -> Option<(u32, Color, &str)> {
    let digits = word
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(word.len());
    let number: u32 = word[..digits].parse().ok()?;
    let after = &word[digits..];
    let rest = after.trim_start_matches(['.', '…']);
    let dots = &after[..after.len() - rest.len()];
    if dots.is_empty() && !rest.is_empty() {
        return None;
    }
    let side = if dots.len() > 1 {
        Color::Black
    } else {
        Color::White
    };
    Some((number, side, rest))
}

/// Words that only add marks to the move before them.
fn is_mark_word(word: &str) -> bool {
    matches!(word, "e.p." | "e.p")
        || (!word.is_empty() && word.chars().all(|c| "+#!?=".contains(c)))
}

/// Parses a move, allowing a closing period (`Vd5++.`).
fn parse_written(word: &str) -> Result<DasMove, DasMoveError> {
    parse_das_move(word).or_else(|e| match word.strip_suffix('.') {
        Some(w) => parse_das_move(w).map_err(|_| e),
        None => Err(e),
    })
}

/// One line of play being read: the main line or a variation.
struct Line {
    plies: Vec<DasPly>,
    number: u32,
    side: Color,
}

impl Line {
    fn advance(&mut self) {
        if self.side == Color::White {
            self.side = Color::Black;
        } else {
            self.side = Color::White;
            self.number += 1;
        }
    }
}

/// Parses a Das game text: every move, in the main line and in variations, and every
/// piece of a position record is checked against the notation.
///
/// A position record runs from its heading (`Белые:`, `Черные:`, `White:`, `Black:`)
/// to the next move number; its pieces are separated by commas, the sides by `;`.
///
/// # Errors
/// The first move (or piece) that is not Das notation, with its move number and text;
/// unbalanced parentheses.
pub fn parse_das_game(text: &str) -> Result<DasGame, DasGameError> {
    let mut game = DasGame::default();
    let mut stack = vec![Line {
        plies: Vec::new(),
        number: 1,
        side: Color::White,
    }];
    let mut placing: Option<Color> = None;
    for tok in tokens(text) {
        let word = match tok {
            Tok::Open => {
                let parent = stack.last().expect("main line");
                let last = parent.plies.last().ok_or(DasGameError::EarlyVariation)?;
                let (number, side) = (last.number, last.side);
                stack.push(Line {
                    plies: Vec::new(),
                    number,
                    side,
                });
                placing = None;
                continue;
            }
            Tok::Close => {
                if stack.len() == 1 {
                    return Err(DasGameError::Parenthesis(')'));
                }
                let line = stack.pop().expect("variation");
                let parent = stack.last_mut().expect("main line");
                if let Some(last) = parent.plies.last_mut()
                    && !line.plies.is_empty()
                {
                    last.variations.push(line.plies);
                }
                continue;
            }
            Tok::Word(w) => w,
        };
        let line = stack.last_mut().expect("main line");
        if word == ":" {
            continue;
        }
        if let Some(side) = side_word(&word) {
            placing = Some(side);
            game.position.get_or_insert_with(DasPosition::default);
            continue;
        }
        if RESULTS.contains(&word.as_str()) {
            game.result = Some(match word.as_str() {
                "½-½" | "0.5-0.5" => "1/2-1/2".to_string(),
                _ => word,
            });
            continue;
        }
        if matches!(word.as_str(), "..." | "…") {
            line.side = Color::Black;
            continue;
        }
        let mut word = word.as_str();
        if let Some((number, side, rest)) = move_number(word) {
            placing = None;
            line.number = number;
            line.side = side;
            if rest.is_empty() {
                continue;
            }
            word = rest;
        }
        if let Some(side) = placing {
            let placed = parse_placement(word).or_else(|e| match word.strip_suffix('.') {
                Some(w) => parse_placement(w).map_err(|_| e),
                None => Err(e),
            });
            let placed = placed.map_err(|error| DasGameError::Placement {
                side,
                text: word.to_string(),
                error,
            })?;
            let position = game.position.get_or_insert_with(DasPosition::default);
            match side {
                Color::White => position.white.push(placed),
                Color::Black => position.black.push(placed),
            }
            continue;
        }
        let mark = word
            .strip_suffix('.')
            .filter(|w| is_mark_word(w) && *w != "e.p");
        if let (true, Some(last)) = (is_mark_word(word) || mark.is_some(), line.plies.last_mut()) {
            let mark = match mark.unwrap_or(word) {
                "e.p" => "e.p.",
                m => m,
            };
            let joined = format!("{} {mark}", last.text);
            last.mv = parse_das_move(&joined).map_err(|error| DasGameError::Move {
                number: last.number,
                side: last.side,
                text: joined.clone(),
                error,
            })?;
            last.text = last.mv.to_string();
            continue;
        }
        let mv = parse_written(word).map_err(|error| DasGameError::Move {
            number: line.number,
            side: line.side,
            text: word.to_string(),
            error,
        })?;
        line.plies.push(DasPly {
            number: line.number,
            side: line.side,
            text: mv.to_string(),
            mv,
            variations: Vec::new(),
        });
        line.advance();
    }
    if stack.len() > 1 {
        return Err(DasGameError::Parenthesis('('));
    }
    game.plies = stack.pop().expect("main line").plies;
    Ok(game)
}

/// Movetext tokens of a line: numbers where PGN wants them, variations in parentheses.
fn line_tokens(plies: &[DasPly], out: &mut Vec<String>) {
    let mut need_number = true;
    for ply in plies {
        if ply.side == Color::White {
            out.push(format!("{}.", ply.number));
        } else if need_number {
            out.push(format!("{}...", ply.number));
        }
        out.push(ply.text.clone());
        need_number = false;
        for v in &ply.variations {
            let start = out.len();
            line_tokens(v, out);
            out[start].insert(0, '(');
            if let Some(last) = out.last_mut() {
                last.push(')');
            }
            need_number = true;
        }
    }
}

/// Writes a Das game as a PGN-like record: the Seven Tag Roster (values from `tags`,
/// `?` where absent), `[Variant "Das"]`, `[Position "..."]` when the text gave one,
/// then the moves as written (variations in parentheses), wrapped at 79 columns, and
/// the result.
pub fn write_das_record(game: &DasGame, tags: &[(&str, &str)]) -> String {
    let result = game.result.as_deref().unwrap_or("*");
    let mut out = String::new();
    write_roster(&mut out, tags, result);
    out.push_str("[Variant \"Das\"]\n");
    if let Some(p) = &game.position {
        out.push_str(&format!("[Position \"{}\"]\n", escape_tag(&p.describe())));
    }
    write_other_tags(&mut out, tags, &["Variant", "Position"]);
    out.push('\n');
    let mut words = Vec::new();
    line_tokens(&game.plies, &mut words);
    words.push(result.to_string());
    wrap_movetext(&words, &mut out);
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(plies: &[DasPly]) -> Vec<&str> {
        plies.iter().map(|p| p.text.as_str()).collect()
    }

    /// The description's example games, as the issue quotes them.
    #[test]
    fn description_examples_parse() {
        let cases: &[(&str, &[&str])] = &[
            ("1. e5 Vf4 2. Ve2 Vd5++.", &["e5", "Vf4", "Ve2", "Vd5++"]),
            (
                "1. i5 f8 2. g3 Qj5+ 3. Hi4 Qxi4+ 4. h3 Qxh3++.",
                &["i5", "f8", "g3", "Qj5+", "Hi4", "Qxi4+", "h3", "Qxh3++"],
            ),
            (
                "1. f5 Vf4 2. Bc5 Vh5+ 3. Ng3 Vxj1 4. Bxg9++",
                &["f5", "Vf4", "Bc5", "Vh5+", "Ng3", "Vxj1", "Bxg9++"],
            ),
            ("1.Da10A+ Kc10 2.Ba8++", &["Da10A+", "Kc10", "Ba8++"]),
        ];
        for (text, want) in cases {
            let g = parse_das_game(text).unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(texts(&g.plies), *want, "{text}");
            assert!(g.position.is_none());
        }
    }

    #[test]
    fn variations_are_kept_and_numbered() {
        let g = parse_das_game("1. Rg10+! Kh9 (1. ... Nxg10 2. Txg10++) 2. Dg7A++.").unwrap();
        assert_eq!(texts(&g.plies), ["Rg10+!", "Kh9", "Dg7A++"]);
        let v = &g.plies[1].variations;
        assert_eq!(v.len(), 1);
        assert_eq!(texts(&v[0]), ["Nxg10", "Txg10++"]);
        assert_eq!((v[0][0].number, v[0][0].side), (1, Color::Black));
        assert_eq!((v[0][1].number, v[0][1].side), (2, Color::White));
        let record = write_das_record(&g, &[]);
        assert!(record.contains("[Variant \"Das\"]\n"), "{record}");
        assert!(
            record.ends_with("\n1. Rg10+! Kh9 (1... Nxg10 2. Txg10++) 2. Dg7A++ *\n"),
            "{record}"
        );
    }

    #[test]
    fn position_record_then_solution() {
        let text = "Белые: Ke8, TAa1, Be4; Черные: Kd10, Ae10, Bb10\n1.Da10A+ Kc10 2.Ba8++";
        let g = parse_das_game(text).unwrap();
        let p = g.position.as_ref().unwrap();
        let names = |v: &[DasPlacement]| v.iter().map(|x| x.text.clone()).collect::<Vec<_>>();
        assert_eq!(names(&p.white), ["Ke8", "TAa1", "Be4"]);
        assert_eq!(names(&p.black), ["Kd10", "Ae10", "Bb10"]);
        assert_eq!(
            p.white[1].mover,
            Mover::Compound {
                state: 'T',
                piece: 'A'
            }
        );
        assert_eq!(texts(&g.plies), ["Da10A+", "Kc10", "Ba8++"]);
        let record = write_das_record(&g, &[("Event", "Study")]);
        assert!(
            record.contains(
                "[Position \"White: Ke8, TAa1, Be4; Black: Kd10, Ae10, Bb10\"]\n\n1. Da10A+"
            ),
            "{record}"
        );
        assert!(record.starts_with("[Event \"Study\"]\n"), "{record}");
        // The record alone parses too.
        let g = parse_das_game("Белые: Ke8, TAa1, Be4; Черные: Kd10, Ae10, Bb10").unwrap();
        assert_eq!(g.position.unwrap().black.len(), 3);
        assert!(g.plies.is_empty());
    }

    #[test]
    fn black_to_move_marks_and_result() {
        let g = parse_das_game("12... Kc10 13. dxe6 e.p. Nd3D + 14. Sg10F (=) 1-0").unwrap();
        assert_eq!(texts(&g.plies), ["Kc10", "dxe6 e.p.", "Nd3D+", "Sg10F="]);
        assert_eq!((g.plies[0].number, g.plies[0].side), (12, Color::Black));
        assert_eq!((g.plies[3].number, g.plies[3].side), (14, Color::White));
        assert_eq!(g.result.as_deref(), Some("1-0"));
        let record = write_das_record(&g, &[]);
        assert!(
            record.ends_with("\n12... Kc10 13. dxe6 e.p. Nd3D+ 14. Sg10F= 1-0\n"),
            "{record}"
        );
    }

    #[test]
    fn errors_name_the_move_number_and_text() {
        let cases = [
            ("1. e5 Vf4 2. k5", "move 2. `k5`: `k5` is not a square"),
            ("1. e5 l5", "move 1... `l5`: `l5` is not a square"),
            ("1. Qj11+", "move 1. `Qj11+`: `j11` is not a square"),
            (
                "1. e5 (1. Zf4) e6",
                "move 1. `Zf4`: `Z` is not a das piece or state letter",
            ),
            ("1. e5 Vf4 +++", "move 1... `Vf4 +++`: unexpected `+`"),
            (
                "Белые: Ke8, Xa1",
                "position record, white `Xa1`: `X` is not a das piece or state letter",
            ),
            ("1. e5 (Vf4", "`(` without its partner in the game text"),
            ("1. e5 ) Vf4", "`)` without its partner in the game text"),
            ("(1. e5)", "a variation opens before any move"),
        ];
        for (text, want) in cases {
            let got = parse_das_game(text).expect_err(text).to_string();
            assert_eq!(got, want, "{text}");
        }
    }
}
