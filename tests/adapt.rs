//! Writer adaptation: a hand whose `4` the reader takes for a `1` on every cell of the
//! sheet. The decoder learns that confusion from the sheet itself and reads the game
//! better with it than without.

use scoresheet::decode::adapt::Confusions;
use scoresheet::decode::simulate::{Mistakes, NoiseModel, Simulator, model_alphabet};
use scoresheet::decode::{Adaptation, DecodeParams, DecodedSheet, Decoder, ReadingParams};
use scoresheet::model::CellScores;
use scoresheet::notation::{Notation, Rng, replay_auto, split_game};

/// A game (random play) with many fourth-rank moves, several of them with a first-rank
/// twin that is legal too (`Rh4` / `Rh1`, `Bd4` / `Bd1`).
const GAME: &str = "1. f4 a5 2. c4 a4 3. a3 h6 4. b4 d5 5. h4 Bg4 6. g3 dxc4 7. Qxa4+ Rxa4 \
    8. e4 Bf5 9. d4 Rxa3 10. g4 Ra4 11. Ne2 Qd5 12. Rxa4 Qxd4 13. Nxd4 Bxe4 14. Bxc4 b5 \
    15. Nc6 g6 16. Nd4 bxa4 17. g5 c6 18. h5 Kd8 19. Rh4 Bg7 20. Rg4 Bxd4 21. Rh4 Ke8 \
    22. Rg4 Bf6 23. Rh4 Bd4 24. Rg4 Ba1 25. Rh4 Bd4 26. Bb3 Bd5 27. Kf1 Bc4+ 28. Bxc4 f5";

fn texts() -> Vec<String> {
    split_game(GAME).plies.into_iter().map(|p| p.text).collect()
}

/// The reader's view of `text` written by a hand whose `4` looks like a `1`: at the
/// frames of each `4`, the reader gives `1` four fifths of what it would give the `4`.
fn habit_cell(sim: &Simulator, text: &str, seed: u64) -> CellScores {
    let clean = sim.cell(text, &mut Rng::new(seed));
    if !text.contains('4') {
        return clean;
    }
    // The same draws lay out the same frames for a text of the same length.
    let seen = sim.cell(&text.replace('4', "1"), &mut Rng::new(seed));
    let logp = clean
        .logp
        .iter()
        .zip(&seen.logp)
        .map(|(a, b)| (0.2 * a.exp() + 0.8 * b.exp()).ln())
        .collect();
    CellScores::new(clean.steps, clean.classes, logp)
}

fn sheet_cells() -> Vec<CellScores> {
    let noise = NoiseModel {
        confusion: 0.0,
        drop_mark: 0.0,
        ..NoiseModel::default()
    };
    let sim = Simulator::new(&model_alphabet(), noise, Mistakes::none());
    let mut cells: Vec<CellScores> = texts()
        .iter()
        .enumerate()
        .map(|(i, t)| habit_cell(&sim, t, 100 + i as u64))
        .collect();
    let mut rng = Rng::new(7);
    cells.push(sim.cell("", &mut rng));
    cells.push(sim.cell("", &mut rng));
    cells
}

fn decode(adapt: Option<Adaptation>) -> DecodedSheet {
    Decoder::new(
        &model_alphabet(),
        DecodeParams {
            adapt,
            reading: ReadingParams {
                notation: Some(Notation::En),
                ..Default::default()
            },
            ..Default::default()
        },
    )
    .decode(&sheet_cells())
}

fn plies_right(sheet: &DecodedSheet) -> usize {
    let (_, want) = replay_auto(&split_game(GAME)).expect("the test game is legal");
    want.iter()
        .zip(&sheet.moves)
        .take_while(|(a, b)| a == b)
        .count()
}

#[test]
fn the_sheet_teaches_the_decoder_its_writers_four() {
    let alphabet = model_alphabet();
    let plain = decode(None);
    let (one, four) = (
        alphabet.class_of('1').unwrap(),
        alphabet.class_of('4').unwrap(),
    );
    // What the first decode teaches: what is read as `1` is often a `4`.
    let cells = sheet_cells();
    let refs: Vec<&CellScores> = cells.iter().collect();
    let learnt = Confusions::learn(&plain, &refs, &alphabet, &Adaptation::default());
    let to_four = learnt
        .moves
        .iter()
        .find(|(r, _)| *r == one)
        .and_then(|(_, to)| to.iter().find(|(m, _)| *m == four))
        .map(|&(_, share)| share);
    assert!(to_four.is_some_and(|s| s > 0.3), "{learnt:?}");

    let adapted = decode(Some(Adaptation::default()));
    let (before, after) = (plies_right(&plain), plies_right(&adapted));
    let total = texts().len();
    assert!(
        before < total,
        "the unadapted decoder already reads every ply"
    );
    assert_eq!(
        after, total,
        "adapted: {after} of {total} plies (plain {before})"
    );
}
