//! The values reader that ships with the cell model: handwritten header numbers the
//! cell reader, made for moves, misreads (`g4` for a board `94`, `h0` for a round `10`,
//! `a5072O6` for a date), read as written. The crops are the product's own value crops
//! of `training.forms` tune pages in a `select` hand (`tests/fixtures/fields/values/`,
//! named by what is written). Two dates are wider than the reader's canvas: squashed
//! into it they lost signs (`27.1.2014`, `20509.28`); they are read on its wide one, in
//! the same call as the narrow crops, each reading in its crop's place.

use std::path::PathBuf;

use scoresheet::model::{CellModel, OrtModel, RuntimeParams};

#[test]
fn the_values_reader_reads_handwritten_header_numbers() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fields/values");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".png"))
        .collect();
    names.sort();
    assert!(names.len() >= 3, "fixtures: {names:?}");
    let crops: Vec<image::GrayImage> = names
        .iter()
        .map(|n| image::open(dir.join(n)).unwrap().to_luma8())
        .collect();
    let mut model = OrtModel::embedded(&RuntimeParams {
        threads: 2,
        ..Default::default()
    })
    .expect("the embedded cell model loads");
    let classes = model.alphabet().len();
    let values = model
        .value_reader()
        .expect("the values reader comes with the embedded model");
    assert_eq!(
        values.alphabet().len(),
        classes,
        "the cell reader's classes"
    );
    let read = values.read_once(&crops).unwrap();
    for (name, scores) in names.iter().zip(&read) {
        let written = name
            .trim_end_matches(".png")
            .split_once('_')
            .map(|(_, w)| w)
            .unwrap();
        assert_eq!(values.alphabet().greedy(scores), written, "{name}");
    }
}

#[test]
fn without_header_fields_no_values_reader_is_loaded() {
    let mut model = OrtModel::embedded(&RuntimeParams {
        header_fields: false,
        ..Default::default()
    })
    .expect("the embedded cell model loads");
    assert!(model.value_reader().is_none());
}
