//! Header fields read from a form (the generator's `dsb-above-line` tune family, a
//! `select` hand): the board and round written in their boxes reach `fields[]`, the
//! game and the PGN; fields left blank give no value; a name is picked among the
//! pairings' names; a result written in words is read, in Latin and, on a Russian form
//! (`rcf-cells-line`), in Cyrillic.

use std::path::PathBuf;

use scoresheet::{
    FieldVocab, OrtModel, PgnTags, Pipeline, PipelineParams, RuntimeParams, SheetOptions,
    SheetReport, Source, to_pgn,
};

fn read(name: &str, options: &SheetOptions) -> SheetReport {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/fields")
        .join(name);
    let mut model = OrtModel::embedded(&RuntimeParams {
        threads: 2,
        ..RuntimeParams::default()
    })
    .expect("the model loads");
    let pipeline = Pipeline::new(PipelineParams::default());
    let mut games = pipeline.read_file(&path, &mut model, options);
    games.remove(0).expect("the sheet reads").report
}

fn value<'a>(r: &'a SheetReport, field: &str) -> Option<&'a str> {
    r.fields
        .iter()
        .filter(|f| f.field == field)
        .find_map(|f| f.value.as_deref())
}

#[test]
fn board_and_round_reach_the_fields_the_game_and_the_pgn() {
    let r = read("dsb_r2_b38.jpg", &SheetOptions::default());
    assert_eq!(value(&r, "round"), Some("2"), "{:#?}", r.fields);
    assert_eq!(value(&r, "board"), Some("38"), "{:#?}", r.fields);
    let board = r.fields.iter().find(|f| f.field == "board").unwrap();
    assert!(board.bbox.is_some() && board.confidence > 0.5);
    let game = r.game.as_ref().expect("a game from the sheet");
    assert_eq!(game.board, Some(38));
    assert_eq!(game.from.get("round"), Some(&Source::Sheet));
    let pgn = to_pgn(&r, &PgnTags::default(), "test");
    assert!(pgn.contains("[Round \"2.38\"]"), "{pgn}");
    assert!(pgn.contains("[Board \"38\"]"), "{pgn}");
}

#[test]
fn blank_fields_invent_nothing() {
    // Round, White and Black are left blank on this sheet; Board (33) is written.
    let r = read("dsb_blank_names.jpg", &SheetOptions::default());
    for field in ["round", "white", "black"] {
        assert_eq!(value(&r, field), None, "{field}: {:#?}", r.fields);
    }
    let game = r.game.clone().unwrap_or_default();
    assert!(game.round.is_none() && game.white.is_none() && game.black.is_none());
    let pgn = to_pgn(&r, &PgnTags::default(), "test");
    assert!(
        pgn.contains("[White \"?\"]") && pgn.contains("[Black \"?\"]"),
        "{pgn}"
    );
}

#[test]
fn a_name_is_picked_among_the_pairings_names() {
    let names = [
        "Pfänder",
        "Zöllner, Dörte",
        "Blümel, Kai",
        "Schröder",
        "Müller, Jörg",
        "Kowalski, Jan",
    ];
    let options = SheetOptions {
        vocab: FieldVocab {
            names: names.iter().map(|s| s.to_string()).collect(),
            rounds: (1..=11).map(|n| n.to_string()).collect(),
        },
        ..SheetOptions::default()
    };
    let r = read("dsb_r2_b38.jpg", &options);
    let white = r.fields.iter().find(|f| f.field == "white").expect("white");
    assert_eq!(white.value.as_deref(), Some("Blümel, Kai"), "{white:#?}");
    assert!(white.candidates.len() > 1 && white.candidates[0].value == "Blümel, Kai");
    assert_eq!(value(&r, "black"), Some("Pfänder"), "{:#?}", r.fields);
    assert_eq!(
        r.game.as_ref().and_then(|g| g.white.as_deref()),
        Some("Blümel, Kai")
    );
}

#[test]
fn a_result_written_in_words_is_read() {
    // `Remis` on the result line: the cell reader cannot spell it and reads some move
    // there instead; the text reader's `Remis` explains the writing.
    let r = read("dsb_result_remis.jpg", &SheetOptions::default());
    assert_eq!(value(&r, "result"), Some("1/2-1/2"), "{:#?}", r.fields);
    assert_eq!(r.result, "1/2-1/2");
}

#[test]
fn a_cross_on_a_printed_option_is_read_in_a_column_and_beside_a_spoilt_win() {
    // A draw crossed among options printed in a column under `Ergebnis:`: the cross
    // lies within the print and adds less ink past it than a draw's print may hold;
    // its long slanted bars mark it.
    let r = read("dsb_column_crossed_draw.jpg", &SheetOptions::default());
    assert_eq!(value(&r, "result"), Some("1/2-1/2"), "{:#?}", r.fields);
    assert_eq!(r.result, "1/2-1/2");
    // `1:0` crossed in a boxed row below the fields: only `0:1` reads as an option
    // (the draw reads as anything); the boxes beside it are the other two.
    let r = read("pzszach_row_crossed_win.jpg", &SheetOptions::default());
    assert_eq!(value(&r, "result"), Some("1-0"), "{:#?}", r.fields);
    assert_eq!(r.result, "1-0");
}

#[test]
fn a_result_written_in_russian_words_is_read() {
    // `ничья` on a Russian form's result line: no reader has Cyrillic letters; the
    // text reader's Latin look-alikes of its strokes spell it.
    let r = read("rcf_result_nichya.jpg", &SheetOptions::default());
    assert_eq!(value(&r, "result"), Some("1/2-1/2"), "{:#?}", r.fields);
    assert_eq!(r.result, "1/2-1/2");
}
