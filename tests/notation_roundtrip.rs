//! Positions of real games (`../shared/data/games`) -> property checks of the notation
//! layer: render then parse is the identity for every legal move in every notation,
//! and every written form parses back to its move (or, for a form that leaves out a
//! needed disambiguation, to an ambiguity that names the move).
//!
//! Skipped, with a message, when `../shared` is absent (a user's clone).

use std::path::PathBuf;

use scoresheet::notation::{
    MoveShape, MoveTextError, Notation, Style, forms, parse_move, read_pgn_dir, render,
};
use shakmaty::{Chess, Position, san::San};

fn games_dir() -> Option<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/data/games");
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!(
            "skipped: {} is absent (it ships with the project's shared data)",
            dir.display()
        );
        None
    }
}

/// Positions from every `every`-th game, all plies, at most `limit` positions.
fn positions(every: usize, limit: usize) -> Option<Vec<Chess>> {
    let games = read_pgn_dir(&games_dir()?).expect("readable games");
    assert!(
        games.len() > 10_000,
        "expected the full game collection, got {}",
        games.len()
    );
    let mut out = Vec::new();
    for game in games.iter().step_by(every) {
        let mut pos = Chess::default();
        for &m in &game.moves {
            out.push(pos.clone());
            pos.play_unchecked(m);
        }
        if out.len() >= limit {
            break;
        }
    }
    out.truncate(limit);
    Some(out)
}

#[test]
fn render_then_parse_is_the_identity() {
    let Some(positions) = positions(7, 4000) else {
        return;
    };
    let mut checked = 0usize;
    for pos in &positions {
        for m in pos.legal_moves() {
            for n in Notation::ALL {
                let text = render(pos, &m, n);
                match parse_move(pos, &text, n) {
                    Ok(back) => assert_eq!(back, m, "{n}: `{text}` in {}", fen(pos)),
                    Err(e) => panic!(
                        "{n}: `{text}` ({}) in {}: {e}",
                        San::from_move(pos, m),
                        fen(pos)
                    ),
                }
                checked += 1;
            }
        }
    }
    eprintln!(
        "render -> parse identity: {checked} moves over {} positions",
        positions.len()
    );
    assert!(positions.len() >= 4000);
}

#[test]
fn every_written_form_parses_back() {
    let Some(positions) = positions(97, 600) else {
        return;
    };
    let mut checked = 0usize;
    for pos in &positions {
        for m in pos.legal_moves() {
            for n in Notation::ALL {
                for form in forms(pos, m, n) {
                    // Both spellings: as written (Cyrillic) and as the reader's glyphs.
                    for text in [&form.display, &form.glyph] {
                        match (parse_move(pos, text, n), form.style) {
                            (Ok(back), _) => assert_eq!(back, m, "{n}: `{text}` in {}", fen(pos)),
                            (
                                Err(MoveTextError::Ambiguous { candidates, .. }),
                                Style::Under | Style::Terse,
                            ) => {
                                assert!(candidates.contains(&San::from_move(pos, m).to_string()))
                            }
                            (Err(e), _) => panic!("{n}: `{text}` in {}: {e}", fen(pos)),
                        }
                        checked += 1;
                    }
                }
            }
        }
    }
    eprintln!("written forms parsed back: {checked}");
}

#[test]
fn shapes_of_a_whole_move_list_match_one_by_one() {
    let Some(positions) = positions(13, 3000) else {
        return;
    };
    let mut keys = std::collections::HashMap::new();
    for pos in &positions {
        let moves = pos.legal_moves();
        for (m, shape) in moves.iter().zip(MoveShape::all(pos, &moves)) {
            assert_eq!(shape, MoveShape::new(pos, *m), "{m} in {}", fen(pos));
            // The packed key tells shapes apart.
            assert_eq!(*keys.entry(shape.key()).or_insert(shape), shape);
        }
    }
}

fn fen(pos: &Chess) -> String {
    shakmaty::fen::Fen::from_position(pos, shakmaty::EnPassantMode::Legal).to_string()
}
