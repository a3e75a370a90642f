//! (position, legal move) -> how likely a player is to have made it, with nothing read
//! from the sheet: a small hand-made weighting that orders the candidates of a move
//! the sheet does not show (castling, captures, development and central pawn moves
//! before rook-pawn shuffles and aimless king moves).
//!
//! The decoder keeps every legal candidate of such a move until later cells rule them
//! out; this order only decides which candidate stands for the others when the line
//! must settle early, and weighs them gently (nats, no more than a few).

use shakmaty::{Chess, Color, File, Move, Position, Rank, Role};

/// Log-weight (unnormalised, nats) of legal move `m` in `pos` as an unwritten move.
pub(crate) fn plausibility(pos: &Chess, m: &Move) -> f32 {
    let turn = pos.turn();
    let back = if turn == Color::White {
        Rank::First
    } else {
        Rank::Eighth
    };
    let mut w = 0.0;
    if m.is_castle() {
        return 2.0;
    }
    if m.is_capture() {
        w += 1.5;
    }
    if m.promotion().is_some() {
        w += 2.0;
    }
    let from = m.from().expect("chess move");
    match m.role() {
        Role::Knight | Role::Bishop if from.rank() == back => w += 1.0,
        Role::Pawn => {
            let double = from.rank().distance(m.to().rank()) == 2;
            let central = matches!(from.file(), File::C | File::D | File::E | File::F);
            if double && central {
                w += 1.0;
            } else if matches!(from.file(), File::A | File::H) {
                w -= 0.5;
            }
        }
        Role::King if !pos.is_check() => w -= 1.0,
        _ => {}
    }
    if m.to().rank() == back && m.role() != Role::King {
        w -= 0.5;
    }
    w
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::san::San;

    #[test]
    fn development_before_shuffles() {
        let pos = Chess::default();
        let w = |san: &str| plausibility(&pos, &san.parse::<San>().unwrap().to_move(&pos).unwrap());
        assert!(w("e4") > w("a3"));
        assert!(w("Nf3") > w("h3"));
        assert!(w("d4") > w("d3"));
    }
}
