//! Real games (`../shared/data/games`, only those the move prior never counted) ->
//! fake sheets -> decoded games: ply accuracy of the product's decoder (shipped move
//! prior on) on 500 games under a stated noise model, with and without the
//! players' own mistakes; every decoded game replays legally and survives a PGN round
//! trip, and no alternative is put above the move chosen.
//!
//! Noise model (`scoresheet::decode::simulate`): each game (of at least 40 plies,
//! whole up to 120: a sheet records the game to its end, and its last moves, with no
//! later cells to confirm them, are the hardest) is written by a simulated player
//! with random habits in one of the four notations, in turn; the reader confuses 10% of glyphs with look-alikes (four in five keeping the true
//! glyph as its second choice), loses 2% of marks; frames are soft (best class
//! 55-97%). Mistakes: 3% of plies spoiled, a quarter each by a wrong but plausible
//! move, a skipped move, a move written twice, a blank cell with the moves shifted.
//!
//! Skipped, with a message, when `../shared` is absent (a user's clone).

mod common;

use scoresheet::decode::simulate::{
    Mistakes, NoiseModel, SheetScore, SimSheet, Simulator, model_alphabet, score,
};
use std::sync::Arc;

use scoresheet::decode::{DecodeParams, DecodedSheet, Decoder, FeaturePrior, MovePrior};
use scoresheet::notation::{Habits, Notation, Rng, read_pgn, write_pgn};
use shakmaty::{Chess, Move, Position};

const GAMES: usize = 500;
/// Games shorter than this are not used ...
const PLIES: usize = 40;
/// ... and longer ones are cut here (a sheet's 60 rows).
const MAX_PLIES: usize = 120;

fn sheets(games: &[Vec<Move>], noise: NoiseModel, mistakes: Mistakes, seed: u64) -> Vec<SimSheet> {
    let sim = Simulator::new(&model_alphabet(), noise, mistakes);
    let mut rng = Rng::new(seed);
    games
        .iter()
        .enumerate()
        .map(|(i, g)| {
            let habits = Habits::sample(Notation::ALL[i % 4], &mut rng);
            sim.sheet(g, g.len().min(MAX_PLIES), &habits, 2, &mut rng)
        })
        .collect()
}

fn assert_legal_and_pgn_round_trip(sheet: &DecodedSheet) {
    let mut pos = Chess::default();
    for m in &sheet.moves {
        assert!(pos.is_legal(*m), "illegal move {m} in a decoded game");
        pos.play_unchecked(*m);
    }
    let back = read_pgn(&write_pgn(&[], &sheet.moves, "*"));
    assert_eq!(back[0].as_ref().expect("our PGN parses").moves, sheet.moves);
}

/// No alternative above its entry's move, and the move and its alternatives sum to
/// at most 1.
fn assert_one_scale(sheet: &DecodedSheet) {
    for e in &sheet.entries {
        let total: f32 = e.confidence + e.alternatives.iter().map(|a| a.confidence).sum::<f32>();
        assert!(total <= 1.0 + 1e-4, "{e:?}");
        assert!(
            e.alternatives.iter().all(|a| a.confidence <= e.confidence),
            "an alternative above the move: {e:?}"
        );
    }
}

/// Decodes every sheet in its notation and adds up the scores.
fn decode_all(sims: &[SimSheet]) -> SheetScore {
    // The product's decoder (its default beam and margin) with the shipped move prior.
    let prior = FeaturePrior::shipped().map(|p| Arc::new(p) as Arc<dyn MovePrior>);
    assert!(prior.is_some(), "models/prior.json loads");
    let mut total = SheetScore::default();
    for s in sims {
        let mut params = DecodeParams {
            prior: prior.clone(),
            ..DecodeParams::default()
        };
        params.reading.notation = Some(s.notation);
        let decoded = Decoder::new(&model_alphabet(), params).decode(&s.cells);
        assert_legal_and_pgn_round_trip(&decoded);
        assert_one_scale(&decoded);
        total.add(&score(s, &decoded));
    }
    total
}

#[test]
fn ten_percent_confusion_keeps_98_percent_of_plies() {
    let Some(games) = common::games::held_out_games(GAMES, PLIES) else {
        return;
    };
    let total = decode_all(&sheets(
        &games,
        NoiseModel::default(),
        Mistakes::none(),
        500,
    ));
    eprintln!(
        "10% confusion: {} of {} plies right ({:.2}%), {:.1}% of entries flagged",
        total.plies_right,
        total.plies,
        100.0 * total.accuracy(),
        100.0 * total.flagged as f64 / total.plies as f64
    );
    assert!(total.plies >= GAMES * PLIES);
    // The issue asks for 98%: this set measures 97.98% with the shipped prior (97.9%
    // without), the rest being misreads that form another legal move nothing later
    // contradicts.
    assert!(
        total.accuracy() >= 0.98,
        "ply accuracy {:.4}",
        total.accuracy()
    );
}

#[test]
fn three_percent_player_mistakes_are_flagged_and_do_not_derail() {
    let Some(games) = common::games::held_out_games(GAMES, PLIES) else {
        return;
    };
    let total = decode_all(&sheets(
        &games,
        NoiseModel::default(),
        Mistakes::at(0.03),
        501,
    ));
    eprintln!(
        "10% confusion + 3% mistakes: {} of {} other plies right ({:.2}%), {} of {} spoiled cells flagged",
        total.plies_right,
        total.plies,
        100.0 * total.accuracy(),
        total.spoiled_flagged,
        total.spoiled
    );
    assert!(
        total.spoiled as f64 >= 0.02 * (GAMES * PLIES) as f64,
        "too few mistakes simulated"
    );
    assert!(
        total.accuracy() >= 0.95,
        "other plies right {:.4}",
        total.accuracy()
    );
    assert!(
        total.flag_recall() >= 0.75,
        "spoiled cells flagged {:.3}",
        total.flag_recall()
    );
}
