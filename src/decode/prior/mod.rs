//! Game records -> a small learned move prior: how much likelier a legal move is to
//! be the one played than a legal move picked at random, from a few dozen binary
//! features of the move (piece, capture and what it takes, check, castling,
//! promotion, development, retreat, game phase).
//!
//! Each feature's weight is the log-ratio of how often it was played to how often a
//! uniformly random legal move would have had it in the same positions (counted over
//! real games, one pseudo-count each). In the opening an opening book adds the
//! log-ratio of how often the move was played in that very position (positions of
//! the first 16 plies that at least 8 counted games reached) to a random move's
//! share. A move's prior is `scale` times (the sum of its features' weights plus
//! `book_scale` times its book log-ratio). The weights and the book (2348 positions,
//! 88 KB) are shipped as `models/prior.json`, made by
//! `cargo run --release --example train_prior` (book scale 1.0, chosen on the HCS
//! training pages: 86.1 / 86.2 / 86.1% of cells right at 0.5 / 1.0 / 2.0).

use serde::{Deserialize, Serialize};
#[cfg(any(test, feature = "internals"))]
use shakmaty::Position;
use shakmaty::{Chess, Move};

use super::MovePrior;

mod book;
mod features;

#[cfg(any(test, feature = "internals"))]
pub use book::BOOK_PLIES;
pub use book::Book;
pub use features::{FEATURES, MoveContext, gives_check};
#[cfg(any(test, feature = "internals"))]
pub use features::{feature_mask, features};

/// The learned prior: one weight per feature and a global scale.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct FeaturePrior {
    /// Feature names, to check the weights belong to this code's features.
    pub features: Vec<String>,
    pub weights: Vec<f32>,
    /// Multiplies the summed weights (features overlap, so less than 1 is typical).
    pub scale: f32,
    /// What the weights were counted on.
    #[serde(default)]
    pub trained_on: String,
    /// Opening book: how often each move was played in the positions of the first
    /// plies that the counted games reached often enough.
    #[serde(default)]
    pub book: Book,
    /// Weight of the book's log-ratio (0 turns it off).
    #[serde(default)]
    pub book_scale: f32,
}

/// Failures loading a prior.
#[derive(Debug, thiserror::Error)]
pub enum PriorError {
    #[error("move prior: {0}")]
    Format(String),
}

impl FeaturePrior {
    /// Counts feature rates over games: `games` are move lists from the initial
    /// position. One pseudo-count keeps rare features finite and unseen ones at 0.
    #[cfg(any(test, feature = "internals"))]
    pub fn train<'a>(
        games: impl IntoIterator<Item = &'a [Move]>,
        trained_on: &str,
    ) -> FeaturePrior {
        let n = FEATURES.len();
        let (mut played, mut legal) = (vec![0f64; n], vec![0f64; n]);
        let (mut positions, mut legal_total) = (0f64, 0f64);
        for game in games {
            let mut pos = Chess::default();
            for m in game {
                let moves = pos.legal_moves();
                positions += 1.0;
                legal_total += moves.len() as f64;
                let ctx = MoveContext::new(&pos);
                let count = |counts: &mut Vec<f64>, mv: &Move| {
                    let mut mask = ctx.feature_mask(&pos, mv);
                    while mask != 0 {
                        counts[mask.trailing_zeros() as usize] += 1.0;
                        mask &= mask - 1;
                    }
                };
                for lm in &moves {
                    count(&mut legal, lm);
                }
                count(&mut played, m);
                pos.play_unchecked(*m);
            }
        }
        let weights = (0..n)
            .map(|i| {
                // Played count against the count a uniformly random legal move
                // would have given, each with one pseudo-count: a feature never seen
                // weighs nothing.
                let expected = legal[i] * positions / legal_total.max(1.0);
                ((played[i] + 1.0) / (expected + 1.0)).ln() as f32
            })
            .collect();
        FeaturePrior {
            features: FEATURES.iter().map(|s| s.to_string()).collect(),
            weights,
            scale: 0.5,
            trained_on: trained_on.to_string(),
            book: Book::default(),
            book_scale: 0.0,
        }
    }

    /// Adds an opening book counted over the first [`BOOK_PLIES`] plies of `games`,
    /// weighed `book_scale` against the features.
    #[cfg(any(test, feature = "internals"))]
    pub fn with_book<'a>(
        mut self,
        games: impl IntoIterator<Item = &'a [Move]>,
        book_scale: f32,
    ) -> FeaturePrior {
        self.book = Book::count(games);
        self.book_scale = book_scale;
        self
    }

    /// Reads a prior from its JSON.
    ///
    /// # Errors
    /// Malformed JSON, or weights for other features than this code's.
    pub fn from_json(text: &str) -> Result<FeaturePrior, PriorError> {
        let p: FeaturePrior =
            serde_json::from_str(text).map_err(|e| PriorError::Format(e.to_string()))?;
        if p.features
            .iter()
            .map(String::as_str)
            .ne(FEATURES.iter().copied())
            || p.weights.len() != FEATURES.len()
        {
            return Err(PriorError::Format(
                "weights are for another feature set".into(),
            ));
        }
        Ok(p)
    }

    /// Pretty JSON of the prior.
    #[cfg(any(test, feature = "internals"))]
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("prior serialises") + "\n"
    }

    /// The prior compiled into the binary (`models/prior.json`).
    pub fn shipped() -> Option<FeaturePrior> {
        FeaturePrior::from_json(include_str!("../../../models/prior.json")).ok()
    }
}

impl FeaturePrior {
    /// Summed weights of the features of `m` in `pos`.
    fn feature_sum(&self, ctx: &MoveContext, pos: &Chess, m: &Move) -> f32 {
        let mut mask = ctx.feature_mask(pos, m);
        let mut sum = 0.0f32;
        while mask != 0 {
            sum += self.weights[mask.trailing_zeros() as usize];
            mask &= mask - 1;
        }
        sum
    }

    /// The prior from the feature sum and the position's book entry.
    fn weigh(&self, features: f32, entry: Option<&(Vec<(u16, u32)>, u32)>, m: &Move) -> f32 {
        let book = entry.map_or(0.0, |e| Book::ratio(e, m));
        self.scale * (features + self.book_scale * book)
    }
}

impl MovePrior for FeaturePrior {
    fn log_prior(&self, pos: &Chess, m: &Move) -> f32 {
        let sum = self.feature_sum(&MoveContext::new(pos), pos, m);
        let entry = (self.book_scale != 0.0)
            .then(|| self.book.entry(pos))
            .flatten();
        self.weigh(sum, entry, m)
    }

    fn log_priors(&self, pos: &Chess, moves: &[Move], out: &mut Vec<f32>) {
        if moves.is_empty() {
            return;
        }
        // The position's book entry is looked up once for all its moves.
        let entry = (self.book_scale != 0.0)
            .then(|| self.book.entry(pos))
            .flatten();
        let ctx = MoveContext::new(pos);
        out.extend(
            moves
                .iter()
                .map(|m| self.weigh(self.feature_sum(&ctx, pos, m), entry, m)),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::Role;
    use shakmaty::san::San;

    fn play(sans: &[&str]) -> (Chess, Vec<Move>) {
        let mut pos = Chess::default();
        let mut moves = Vec::new();
        for s in sans {
            let m = s.parse::<San>().unwrap().to_move(&pos).unwrap();
            moves.push(m);
            pos.play_unchecked(m);
        }
        (pos, moves)
    }

    #[test]
    fn gives_check_agrees_with_playing_the_move() {
        // Random games, biased towards captures, checks and pawn pushes so that
        // discovered checks, en passant and promotions all occur.
        let mut rng = crate::notation::Rng::new(7);
        let (mut checks, mut moves_seen, mut ep, mut promos) = (0, 0, 0, 0);
        let mut discovered = 0;
        for _ in 0..300 {
            let mut pos = Chess::default();
            for _ in 0..160 {
                let moves = pos.legal_moves();
                if moves.is_empty() {
                    break;
                }
                for m in &moves {
                    let mut after = pos.clone();
                    after.play_unchecked(*m);
                    assert_eq!(
                        MoveContext::new(&pos).gives_check(&pos, m),
                        after.is_check(),
                        "context: {m} in {}",
                        shakmaty::fen::Fen::from_position(&pos, shakmaty::EnPassantMode::Legal)
                    );
                    assert_eq!(
                        gives_check(&pos, m),
                        after.is_check(),
                        "{m} in {}",
                        shakmaty::fen::Fen::from_position(&pos, shakmaty::EnPassantMode::Legal)
                    );
                    checks += usize::from(after.is_check());
                    if after.is_check() && !m.is_castle() && !m.is_en_passant() {
                        // Discovered: the moved piece itself does not attack the king.
                        use shakmaty::{Bitboard, Piece, attacks};
                        let king = pos.board().king_of(!pos.turn()).unwrap();
                        let occupied = (pos.board().occupied()
                            ^ Bitboard::from_square(m.from().unwrap()))
                            | Bitboard::from_square(m.to());
                        let piece = Piece {
                            color: pos.turn(),
                            role: m.promotion().unwrap_or(m.role()),
                        };
                        discovered +=
                            usize::from(!attacks::attacks(m.to(), piece, occupied).contains(king));
                    }
                    ep += usize::from(m.is_en_passant());
                    promos += usize::from(m.is_promotion());
                    moves_seen += 1;
                }
                let pawnish: Vec<&Move> = moves
                    .iter()
                    .filter(|m| m.role() == Role::Pawn || m.is_capture())
                    .collect();
                let m = if !pawnish.is_empty() && rng.unit() < 0.6 {
                    *pawnish[rng.below(pawnish.len())]
                } else {
                    moves[rng.below(moves.len())]
                };
                pos.play_unchecked(m);
            }
        }
        assert!(moves_seen > 100_000 && checks > 1000 && ep > 10 && promos > 100);
        assert!(discovered > 100, "{discovered} discovered checks");
    }

    #[test]
    fn features_describe_the_move() {
        let (pos, _) = play(&["e4", "d5"]);
        let exd5 = "exd5".parse::<San>().unwrap().to_move(&pos).unwrap();
        let f = features(&pos, &exd5);
        for want in [
            "pawn",
            "capture",
            "takes-pawn",
            "pawn-takes",
            "opening-pawn",
        ] {
            let i = FEATURES.iter().position(|n| *n == want).unwrap();
            assert!(f.contains(&i), "{want} missing in {f:?}");
        }
        let (pos, _) = play(&["e4", "e5", "Qh5", "Nc6", "Bc4", "Nf6"]);
        let mate = "Qxf7".parse::<San>().unwrap().to_move(&pos).unwrap();
        assert!(features(&pos, &mate).contains(&13), "Qxf7 gives check");
    }

    #[test]
    fn shipped_prior_loads_and_favours_castling_over_king_walks() {
        let prior = FeaturePrior::shipped().expect("models/prior.json matches FEATURES");
        let k = |name: &str| prior.weights[FEATURES.iter().position(|n| *n == name).unwrap()];
        assert!(prior.scale > 0.0);
        assert!(k("castle") > 0.0 && k("king-in-opening") < 0.0);
    }

    #[test]
    fn the_book_weighs_opening_moves_by_how_often_they_were_played() {
        // 10 games 1.e4 e5, 5 games 1.d4 d5: the book holds the start (15 games) and
        // the positions after 1.e4 (10); 1.d4 reaches only 5, below the threshold.
        let mut games: Vec<Vec<Move>> = (0..10).map(|_| play(&["e4", "e5"]).1).collect();
        games.extend((0..5).map(|_| play(&["d4", "d5"]).1));
        let prior = FeaturePrior::train(games.iter().map(Vec::as_slice), "test")
            .with_book(games.iter().map(Vec::as_slice), 1.0);
        assert_eq!(prior.book.len(), 2);
        let start = Chess::default();
        let m = |pos: &Chess, san: &str| san.parse::<San>().unwrap().to_move(pos).unwrap();
        let ratio = |pos: &Chess, san: &str| prior.book.log_ratio(pos, &m(pos, san)).unwrap();
        // (10 + 1) / (15 + 30) * 30 and (0 + 1) / (15 + 30) * 30.
        assert!((ratio(&start, "e4") - (11.0f32 / 45.0 * 30.0).ln()).abs() < 1e-5);
        assert!(ratio(&start, "e4") > ratio(&start, "d4"));
        assert!(ratio(&start, "d4") > ratio(&start, "a3"));
        let (after_d4, _) = play(&["d4"]);
        assert!(
            prior
                .book
                .log_ratio(&after_d4, &m(&after_d4, "d5"))
                .is_none()
        );
        // The book survives its JSON form.
        let back = FeaturePrior::from_json(&prior.to_json()).unwrap();
        assert_eq!(back, prior);
        // Off by default: a prior without book weight ignores it.
        let plain = FeaturePrior {
            book_scale: 0.0,
            ..prior.clone()
        };
        let (pos, _) = play(&[]);
        assert!(prior.log_prior(&pos, &m(&pos, "e4")) > plain.log_prior(&pos, &m(&pos, "e4")));
    }

    #[test]
    fn shipped_prior_holds_an_opening_book() {
        let prior = FeaturePrior::shipped().expect("models/prior.json loads");
        assert!(prior.book.len() > 1000 && prior.book_scale > 0.0);
        let start = Chess::default();
        let m = |san: &str| san.parse::<San>().unwrap().to_move(&start).unwrap();
        let r = |san: &str| {
            prior
                .book
                .log_ratio(&start, &m(san))
                .expect("the start is in the book")
        };
        assert!(r("e4") > 1.0 && r("d4") > 1.0 && r("a3") < 0.0);
    }

    #[test]
    fn learned_weights_prefer_what_players_play() {
        // Games where players always develop knights first and never move the king.
        let games: Vec<Vec<Move>> = (0..20)
            .map(|_| play(&["Nf3", "Nf6", "Nc3", "Nc6", "e4", "e5"]).1)
            .collect();
        let prior = FeaturePrior::train(games.iter().map(Vec::as_slice), "test");
        let k = |name: &str| prior.weights[FEATURES.iter().position(|n| *n == name).unwrap()];
        assert!(k("knight") > 0.0 && k("develops") > 0.0);
        assert!(k("rook") < 0.0, "rook moves were legal but never played");
        assert!(
            k("king").abs() < 1e-6,
            "never legal, never played: no weight"
        );
        let back = FeaturePrior::from_json(&prior.to_json()).unwrap();
        assert_eq!(back, prior);
        let (pos, _) = play(&[]);
        let nf3 = "Nf3".parse::<San>().unwrap().to_move(&pos).unwrap();
        let a3 = "a3".parse::<San>().unwrap().to_move(&pos).unwrap();
        assert!(prior.log_prior(&pos, &nf3) > prior.log_prior(&pos, &a3));
    }
}
