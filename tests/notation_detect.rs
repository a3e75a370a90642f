//! Notation detection: when the opening cells leave notations in doubt, the one kept
//! is the one whose full decode explains the whole sheet best.
//!
//! Hard hands (a third of the glyphs confused) are simulated in each notation, from
//! real games (`../shared/data/games`, those the move prior never counted); with every
//! notation left in doubt (a huge `auto_margin`), the automatic decode must score as
//! well as the best decode with the notation given, and keep that notation. A narrow
//! comparison pass (as the decoder had before) keeps a worse notation on some of them.
//!
//! Skipped, with a message, when `../shared` is absent (a user's clone).

mod common;

use scoresheet::decode::simulate::{Mistakes, NoiseModel, Simulator, model_alphabet};
use scoresheet::decode::{DecodeParams, Decoder, ReadingParams};
use scoresheet::notation::{Habits, Notation, Rng};

const SHEETS: usize = 24;
const PLIES: usize = 60;

#[test]
fn the_notation_kept_explains_the_sheet_best() {
    let Some(games) = common::games::held_out_games(SHEETS, PLIES) else {
        return;
    };
    let noise = NoiseModel {
        confusion: 0.33,
        ..NoiseModel::default()
    };
    let sim = Simulator::new(&model_alphabet(), noise, Mistakes::none());
    let mut rng = Rng::new(2026);
    let mut base = DecodeParams {
        adapt: None,
        ..DecodeParams::default()
    };
    base.search.beam_width = 128;
    base.reading.auto_margin = 1e6;
    let mut worse = Vec::new();
    for (i, g) in games.iter().enumerate() {
        let habits = Habits::sample(Notation::ALL[i % Notation::ALL.len()], &mut rng);
        let sheet = sim.sheet(g, PLIES, &habits, 2, &mut rng);
        let auto = Decoder::new(&model_alphabet(), base.clone()).decode(&sheet.cells);
        let (best, best_ll) = Notation::ALL
            .iter()
            .map(|&n| {
                let params = DecodeParams {
                    reading: ReadingParams {
                        notation: Some(n),
                        ..base.reading.clone()
                    },
                    ..base.clone()
                };
                let given = Decoder::new(&model_alphabet(), params).decode(&sheet.cells);
                (n, given.log_likelihood)
            })
            .max_by(|a, b| a.1.total_cmp(&b.1))
            .expect("four notations");
        if auto.log_likelihood < best_ll - 1e-6 {
            worse.push(format!(
                "sheet {i} ({:?}): kept {:?} at {:.2} nats, {:?} gives {:.2}",
                sheet.notation, auto.notation, auto.log_likelihood, best, best_ll
            ));
        } else {
            assert_eq!(auto.notation, best, "sheet {i}: the best notation is kept");
        }
    }
    assert!(worse.is_empty(), "{}", worse.join("\n"));
}
