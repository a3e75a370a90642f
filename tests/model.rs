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

fn check(model: &mut OrtModel) {
    let want = expected();
    let cells = want["cells"].as_array().unwrap();
    assert!(cells.len() >= 5, "fixtures hold at least 5 cells");
    let images: Vec<image::GrayImage> = cells
        .iter()
        .map(|c| {
            let p = root()
                .join("tests/fixtures/cells")
                .join(c["file"].as_str().unwrap());
            image::open(&p).unwrap().to_luma8()
        })
        .collect();
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

#[test]
fn embedded_model_reads_saved_cells_as_pytorch_did() {
    let mut model = OrtModel::embedded(&RuntimeParams::default()).unwrap();
    check(&mut model);
}

#[test]
fn manifest_file_loads_the_same_model() {
    let manifest = root().join("models/cellreader.json");
    let mut model = OrtModel::from_manifest_file(&manifest, &RuntimeParams::default()).unwrap();
    assert_eq!(model.manifest().input.height, 32);
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
