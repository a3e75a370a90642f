//! The shipped model through its manifest and ONNX Runtime -> the same readings and
//! log-probabilities as PyTorch gave for a few saved cells (`tests/fixtures/cells`,
//! written by `python -m training.fixtures`).

use std::path::PathBuf;

use scoresheet::model::{CellModel, OrtModel, RuntimeParams};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn expected() -> serde_json::Value {
    let path = root().join("tests/fixtures/cells/expected.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The saved cell crops, in the order of `expected.json`.
fn fixture_images(want: &serde_json::Value) -> Vec<image::GrayImage> {
    want["cells"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let p = root()
                .join("tests/fixtures/cells")
                .join(c["file"].as_str().unwrap());
            image::open(&p).unwrap().to_luma8()
        })
        .collect()
}

fn check(model: &mut OrtModel) {
    let want = expected();
    let cells = want["cells"].as_array().unwrap();
    assert!(cells.len() >= 5, "fixtures hold at least 5 cells");
    let images = fixture_images(&want);
    let got = model.read(&images).unwrap();
    assert_eq!(got.len(), cells.len());
    for (c, scores) in cells.iter().zip(&got) {
        let name = c["file"].as_str().unwrap();
        let rows = c["logp"].as_array().unwrap();
        assert_eq!(
            (scores.steps, scores.classes),
            (rows.len(), rows[0].as_array().unwrap().len()),
            "{name}"
        );
        let mut worst = 0f32;
        for (t, row) in rows.iter().enumerate() {
            for (k, v) in row.as_array().unwrap().iter().enumerate() {
                let want = v.as_f64().unwrap() as f32;
                // Classes PyTorch puts below e^-30 may differ more in absolute terms.
                if want > -30.0 {
                    worst = worst.max((scores.row(t)[k] - want).abs());
                }
            }
        }
        // PyTorch vs ONNX Runtime, and log-probs rounded to 1e-5 in the file.
        assert!(
            worst < 1e-3,
            "{name}: log-probs differ from PyTorch by {worst}"
        );
        assert_eq!(
            model.alphabet().greedy(scores),
            c["text"].as_str().unwrap(),
            "{name}"
        );
        // The fixtures are cells the model reads right.
        let label = c["label"].as_str().unwrap();
        assert_eq!(
            scoresheet::eval::normalise(&model.alphabet().greedy(scores)),
            scoresheet::eval::normalise(label),
            "{name}"
        );
    }
}

/// One reading per cell: PyTorch's outputs are of the model alone.
fn one_look() -> RuntimeParams {
    RuntimeParams {
        second_look: false,
        ..RuntimeParams::default()
    }
}

#[test]
fn embedded_model_reads_saved_cells_as_pytorch_did() {
    let mut model = OrtModel::embedded(&one_look()).unwrap();
    check(&mut model);
}

#[test]
fn manifest_file_loads_the_same_model() {
    let manifest = root().join("models/cellreader.json");
    let mut model = OrtModel::from_manifest_file(&manifest, &one_look()).unwrap();
    assert_eq!(model.manifest().input.height, 48);
    assert!(
        model.manifest().validation["hcs_games"]
            .as_array()
            .is_some_and(|g| g.len() >= 20)
    );
    check(&mut model);
}

#[test]
fn a_batch_larger_than_the_runtime_batch_is_split() {
    let params = RuntimeParams {
        max_batch: 3,
        ..RuntimeParams::default()
    };
    let mut model = OrtModel::embedded(&params).unwrap();
    let blank = image::GrayImage::from_pixel(120, 30, image::Luma([235]));
    let got = model.read(&vec![blank; 7]).unwrap();
    assert_eq!(got.len(), 7);
    // A blank cell reads as nothing.
    assert!(got.iter().all(|s| model.alphabet().greedy(s).is_empty()));
}

#[test]
fn unsure_cells_get_a_second_look_and_sure_ones_keep_their_reading() {
    let mut look = OrtModel::embedded(&RuntimeParams::default()).unwrap();
    let below = look
        .manifest()
        .second_look
        .as_ref()
        .expect("the shipped manifest asks for a second look")
        .below;
    let mut once = OrtModel::embedded(&one_look()).unwrap();
    let mut images = fixture_images(&expected());
    // Unsure cells: the fixtures' left halves and faded copies.
    let halves: Vec<image::GrayImage> = images
        .iter()
        .map(|c| image::imageops::crop_imm(c, 0, 0, c.width() / 2, c.height()).to_image())
        .collect();
    let faded: Vec<image::GrayImage> = images
        .iter()
        .map(|c| {
            image::GrayImage::from_fn(c.width(), c.height(), |x, y| {
                image::Luma([200 + c.get_pixel(x, y).0[0] / 5])
            })
        })
        .collect();
    images.extend(halves);
    images.extend(faded);
    let first = once.read(&images).unwrap();
    let second = look.read(&images).unwrap();
    // `read_once` skips the second look whatever the manifest asks.
    assert_eq!(look.read_once(&images).unwrap(), first);
    let (mut sure, mut unsure) = (0, 0);
    for (a, b) in first.iter().zip(&second) {
        if a.best_path_logp() >= below.ln() {
            sure += 1;
            assert_eq!(a, b, "a sure cell is read once");
        } else {
            unsure += 1;
            assert_ne!(a, b, "an unsure cell is read again");
            for t in 0..b.steps {
                let total: f32 = b.row(t).iter().map(|l| l.exp()).sum();
                assert!((total - 1.0).abs() < 1e-4, "step {t} sums to {total}");
            }
        }
    }
    assert!(
        sure >= 3 && unsure >= 3,
        "{sure} sure, {unsure} unsure cells"
    );
}

/// The decoder's share of a move, nearly unchanged: sigmoid(ln(c + e) - ln(1 - c + e))
/// = (c + e) / (1 + 2e).
fn plain_shares() -> scoresheet::decode::Calibration {
    scoresheet::decode::Calibration {
        log_confidence: 1.0,
        log_doubt: -1.0,
        written: 0.0,
        written_is_read: 0.0,
        sheet_log_doubt: 0.0,
        cell_log_p: 0.0,
        cell_log_doubt: 0.0,
        bias: 0.0,
        review_below: 0.8,
    }
}

#[test]
fn the_shipped_calibration_changes_confidences_and_flags_but_not_the_game() {
    use scoresheet::pipeline::{Pipeline, PipelineParams, SheetOptions};
    let mut model = OrtModel::embedded(&RuntimeParams::default()).unwrap();
    let cal = model
        .calibration()
        .cloned()
        .expect("the shipped manifest carries a calibration");
    assert!(cal.check().is_ok() && cal.review_below > 0.5, "{cal:?}");
    let page = root().join("samples/hcs_142_0.jpg");
    let read = |model: &mut OrtModel, params: PipelineParams| {
        let mut sheets = Pipeline::new(params).read_file(&page, model, &SheetOptions::default());
        sheets.remove(0).expect("the sample reads").report
    };
    let calibrated = read(&mut model, PipelineParams::default());
    let mut params = PipelineParams::default();
    params.decode.review.calibration = Some(plain_shares());
    let shares = read(&mut model, params);
    assert_eq!(calibrated.moves.len(), shares.moves.len());
    let mut changed = 0;
    for (c, s) in calibrated.moves.iter().zip(&shares.moves) {
        assert_eq!((&c.san, &c.written, &c.read), (&s.san, &s.written, &s.read));
        changed += usize::from((c.confidence - s.confidence).abs() > 0.01);
        // Flags follow the calibrated threshold: a move read as written is flagged
        // exactly when its confidence is below it.
        if c.state != scoresheet::report::MoveState::Locked
            && c.written.is_some()
            && c.san.is_some()
        {
            assert_eq!(c.review, c.confidence < cal.review_below, "{c:?}");
        }
    }
    // (On a clean sheet a sure move keeps about its share; the unsure ones move.)
    assert!(changed > 0, "no confidence changed");
}
