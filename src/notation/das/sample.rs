//! Random numbers -> valid Das move strings, in rough proportions of a game's moves
//! (piece moves, pawn moves, captures, landings, promotions, castling, marks), for
//! synthetic sheets and tests.

use super::{CASTLE_LETTERS, PIECE_LETTERS, STATE_LETTERS};
use crate::notation::Rng;

fn pick_char(s: &str, rng: &mut Rng) -> char {
    let chars: Vec<char> = s.chars().collect();
    *rng.pick(&chars)
}

fn file(rng: &mut Rng) -> char {
    pick_char("abcdefghij", rng)
}

fn square(rng: &mut Rng) -> String {
    format!("{}{}", file(rng), 1 + rng.below(10))
}

/// A random valid Das move (canonical glyphs, no spaces; `e.p.` attached).
pub fn sample_das_move(rng: &mut Rng) -> String {
    let pieces_not_k: String = PIECE_LETTERS.replace('K', "");
    let letters = format!("{PIECE_LETTERS}{STATE_LETTERS}");
    let roll = rng.unit();
    let mut s = if roll < 0.03 {
        format!("K{}", pick_char(CASTLE_LETTERS, rng))
    } else if roll < 0.25 {
        square(rng)
    } else if roll < 0.33 {
        let mut s = format!("{}x{}", file(rng), square(rng));
        if rng.chance(0.1) {
            s.push_str("e.p.");
        }
        s
    } else if roll < 0.37 {
        let rank = if rng.chance(0.5) { 1 } else { 10 };
        let mut s = format!("{}{rank}{}", file(rng), pick_char(&pieces_not_k, rng));
        if rng.chance(0.2) {
            s.push(pick_char(&pieces_not_k, rng));
        }
        s
    } else {
        let mut s = if rng.chance(0.04) {
            format!(
                "{}{}",
                pick_char(STATE_LETTERS, rng),
                pick_char(PIECE_LETTERS, rng)
            )
        } else {
            pick_char(&letters, rng).to_string()
        };
        match rng.below(25) {
            0 => s.push(file(rng)),
            1 => s.push_str(&(1 + rng.below(10)).to_string()),
            2 => s.push_str(&square(rng)),
            _ => {}
        }
        if rng.chance(0.25) {
            s.push('x');
        }
        let to = if rng.chance(0.02) {
            pick_char("lr", rng).to_string() + if rng.chance(0.5) { "1" } else { "10" }
        } else {
            square(rng)
        };
        s.push_str(&to);
        if rng.chance(0.12) {
            s.push(pick_char(&letters.replace('K', ""), rng));
        }
        s
    };
    let check = rng.weighted(&[0.85, 0.1, 0.03, 0.02]);
    s.push_str(["", "+", "++", "#"][check]);
    if rng.chance(0.04) {
        let mark = *rng.pick(&super::EVAL_MARKS);
        s.push_str(mark);
    }
    if rng.chance(0.01) {
        s.push('=');
    }
    s
}

#[cfg(test)]
mod tests {
    use super::super::parse_das_move;
    use super::*;

    #[test]
    fn samples_are_valid_and_varied() {
        let mut rng = Rng::new(1);
        let samples: Vec<String> = (0..2000).map(|_| sample_das_move(&mut rng)).collect();
        for s in &samples {
            assert!(parse_das_move(s).is_ok(), "{s}");
        }
        let distinct: std::collections::HashSet<&String> = samples.iter().collect();
        assert!(distinct.len() > 1500, "{} distinct", distinct.len());
        assert!(samples.iter().any(|s| s.contains("10")));
        assert!(samples.iter().any(|s| s.starts_with('K') && s.len() == 2));
    }
}
