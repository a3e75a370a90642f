//! The printed-text reader and the field finder on crops of generated forms
//! (`tests/fixtures/form/`: header and footer bands of `training.forms` tune pages,
//! quantised to a few grays): labels found with their value places, a circled result
//! option picked, an unmarked row of options left unmarked, a label in a box's corner
//! that the detector read as part of the writing below it.

use std::path::PathBuf;

use scoresheet::RuntimeParams;
use scoresheet::form::fields::{FieldKind, find_fields};
use scoresheet::model::ocr::PrintedReader;

fn fixture(name: &str) -> image::GrayImage {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/form")
        .join(name);
    image::open(&p)
        .unwrap_or_else(|e| panic!("{}: {e}", p.display()))
        .to_luma8()
}

fn reader() -> PrintedReader {
    PrintedReader::embedded(&RuntimeParams {
        threads: 2,
        ..Default::default()
    })
    .expect("the printed-text reader loads (ONNX Runtime and the embedded models)")
}

#[test]
fn header_labels_and_their_value_places() {
    let page = fixture("fide_header.png");
    let mut ocr = reader();
    let form = find_fields(&page, None, &mut ocr);
    let kinds: Vec<FieldKind> = form.fields.iter().map(|f| f.kind).collect();
    for k in [
        FieldKind::Event,
        FieldKind::Round,
        FieldKind::Board,
        FieldKind::Date,
        FieldKind::White,
        FieldKind::Black,
    ] {
        assert!(kinds.contains(&k), "{k:?} not found in {:?}", form.lines);
    }
    let get = |k| form.fields.iter().find(|f| f.kind == k).unwrap();
    let (event, round) = (get(FieldKind::Event), get(FieldKind::Round));
    // Right of the label, up to the next label on the row.
    assert!(event.value_box[0] >= event.label_box[0] + event.label_box[2]);
    assert!(event.value_box[0] + event.value_box[2] <= round.label_box[0]);
    // Each value place holds a line the reader saw there (the handwriting).
    let white = get(FieldKind::White);
    let [x, y, w, h] = white.value_box;
    assert!(
        form.lines.iter().any(|(t, b, _)| {
            let (cx, cy) = (b[0] + b[2] / 2, b[1] + b[3] / 2);
            t.len() > 3 && cx > x && cx < x + w && cy > y && cy < y + h
        }),
        "white's value place {:?} holds no line of {:?}",
        white.value_box,
        form.lines
    );
    // Scoring: the printed label reads as itself far better than as another word.
    let [lx, ly, lw, lh] = event.label_box;
    let crop = image::imageops::crop_imm(&page, lx, ly, lw, lh).to_image();
    assert!(ocr.score(&crop, "Event") > ocr.score(&crop, "Board") + 5.0);
    assert!(ocr.spells("Białe ½") && !ocr.spells("Ф"));
}

#[test]
fn a_circled_option_is_picked() {
    let mut ocr = reader();
    for (name, want) in [
        ("fide_footer_draw_circled.png", "1/2-1/2"),
        ("ecf_footer_black_circled.png", "0-1"),
    ] {
        let form = find_fields(&fixture(name), None, &mut ocr);
        let opts = form
            .result_options
            .unwrap_or_else(|| panic!("{name}: no options in {:?}", form.lines));
        let names: Vec<&str> = opts.options.iter().map(|o| o.0.as_str()).collect();
        assert_eq!(names, ["1-0", "1/2-1/2", "0-1"], "{name}");
        let (i, sure) = opts
            .marked
            .unwrap_or_else(|| panic!("{name}: nothing marked: {:?}", opts.note));
        assert_eq!(opts.options[i].0, want, "{name}");
        assert!(sure > 0.5, "{name}");
        assert!(form.fields.iter().any(|f| f.kind == FieldKind::Result));
        // Signature lines name no field.
        assert!(
            !form
                .fields
                .iter()
                .any(|f| matches!(f.kind, FieldKind::White | FieldKind::Black)),
            "{name}: {:?}",
            form.fields
        );
    }
}

#[test]
fn unmarked_options_give_no_result() {
    let mut ocr = reader();
    let form = find_fields(&fixture("fide_footer_unmarked.png"), None, &mut ocr);
    let opts = form.result_options.expect("the options are found");
    assert_eq!(opts.options.len(), 3);
    assert_eq!(opts.marked, None);
    assert!(opts.note.is_some());
}

#[test]
fn a_corner_label_merged_into_the_writing_is_found() {
    // `Date` is printed in its box's corner and the date is written up to it: the
    // detector finds one line, read `3 Jan 2018`, with the label inside it.
    let page = fixture("fide_corner_header.png");
    let mut ocr = reader();
    let form = find_fields(&page, None, &mut ocr);
    let date = form
        .fields
        .iter()
        .find(|f| f.kind == FieldKind::Date)
        .unwrap_or_else(|| panic!("no date label in {:?}", form.lines));
    // The label's print is in the box's top-left corner (x 655..680, y 113..123).
    let [lx, ly, _, _] = date.label_box;
    assert!(
        (640..670).contains(&lx) && (100..120).contains(&ly),
        "{:?}",
        date.label_box
    );
    // The place read is the date's box, which the writing fills (x 660..870).
    let [x, _, w, _] = date.value_box;
    assert!(
        x < 680 && x + w > 850 && x + w < 920,
        "{:?}",
        date.value_box
    );
}
