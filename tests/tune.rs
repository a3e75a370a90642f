//! The fine-tuning engine: its network gives what ONNX Runtime gives, a few steps on
//! a few cells lower their loss, and the file it writes loads and reads the same way
//! twice.

use std::path::PathBuf;

use scoresheet::learn::tune::{self, Example, TuneParams};
use scoresheet::model::{CellModel, Manifest, OrtModel, RuntimeParams};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn manifest() -> Manifest {
    Manifest::load(&root().join("models/cellreader.json")).unwrap()
}

fn base_onnx() -> Vec<u8> {
    std::fs::read(root().join("models/cellreader.onnx")).unwrap()
}

/// The saved cells (`tests/fixtures/cells`) with their labels.
fn cells() -> Vec<(image::GrayImage, String)> {
    let dir = root().join("tests/fixtures/cells");
    let want: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("expected.json")).unwrap()).unwrap();
    want["cells"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let img = image::open(dir.join(c["file"].as_str().unwrap()))
                .unwrap()
                .to_luma8();
            (img, c["label"].as_str().unwrap().to_string())
        })
        .collect()
}

fn one_look() -> RuntimeParams {
    RuntimeParams {
        second_look: false,
        ..RuntimeParams::default()
    }
}

fn ort_logp(model: &mut OrtModel, crops: &[image::GrayImage]) -> Vec<Vec<f32>> {
    model
        .read_once(crops)
        .unwrap()
        .into_iter()
        .map(|s| s.logp)
        .collect()
}

fn max_diff(a: &[Vec<f32>], b: &[Vec<f32>]) -> f32 {
    assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .flat_map(|(x, y)| {
            assert_eq!(x.len(), y.len());
            x.iter().zip(y).map(|(p, q)| (p - q).abs())
        })
        .fold(0.0, f32::max)
}

#[test]
fn the_engines_network_reads_as_onnx_runtime_does() {
    let crops: Vec<_> = cells().into_iter().map(|(c, _)| c).collect();
    assert!(crops.len() >= 5);
    let mut ort =
        OrtModel::from_manifest_file(&root().join("models/cellreader.json"), &one_look()).unwrap();
    let want = ort_logp(&mut ort, &crops);
    let got = tune::read_logp(&base_onnx(), &manifest(), &crops, 2).unwrap();
    let diff = max_diff(&got, &want);
    assert!(diff < 1e-3, "log-probabilities differ by up to {diff}");
}

#[test]
fn a_few_steps_lower_the_loss_and_write_a_file_the_runtime_loads() {
    let m = manifest();
    let alphabet = m.alphabet();
    // Each cell labelled with the next cell's move: a loss the steps can lower.
    let cells = cells();
    let examples: Vec<Example> = (0..cells.len())
        .map(|i| Example {
            crop: cells[i].0.clone(),
            target: alphabet
                .encode(&cells[(i + 1) % cells.len()].1)
                .unwrap()
                .into_iter()
                .map(|c| c as u32)
                .collect(),
        })
        .collect();
    let params = TuneParams {
        steps: 3,
        batch: 8,
        lr: 1e-3,
        threads: 2,
        shift: 2,
        ..TuneParams::default()
    };
    let base = base_onnx();
    let mut seen = Vec::new();
    let tuned = tune::fine_tune(&base, &m, &examples, &params, &mut |s, n, l| {
        seen.push((s, n, l))
    })
    .unwrap();
    assert_eq!(seen.len(), 3);
    assert!(
        seen.iter()
            .all(|&(_, n, l)| n == 3 && l.is_finite() && l >= 0.0)
    );
    assert_eq!(tuned.len(), base.len(), "the same graph, new weights");
    assert_ne!(tuned, base);
    let again = tune::fine_tune(&base, &m, &examples, &params, &mut |_, _, _| {}).unwrap();
    assert!(again == tuned, "the same inputs give the same bytes");

    let before = tune::mean_loss(&base, &m, &examples, 2).unwrap();
    let after = tune::mean_loss(&tuned, &m, &examples, 2).unwrap();
    assert!(after < before, "loss {before} -> {after}");
    // Without shifts the frozen layers' outputs are computed once per cell: another
    // path through the same network.
    let unshifted = TuneParams {
        shift: 0,
        ..params.clone()
    };
    let cached = tune::fine_tune(&base, &m, &examples, &unshifted, &mut |_, _, _| {}).unwrap();
    let after_cached = tune::mean_loss(&cached, &m, &examples, 2).unwrap();
    assert!(
        after_cached < before,
        "loss {before} -> {after_cached} without shifts"
    );

    // The new file loads in ONNX Runtime with the same manifest, and reads as the
    // engine computes it.
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(
        root().join("models/cellreader.json"),
        dir.path().join("cellreader.json"),
    )
    .unwrap();
    std::fs::write(dir.path().join("cellreader.onnx"), &tuned).unwrap();
    let mut ort =
        OrtModel::from_manifest_file(&dir.path().join("cellreader.json"), &one_look()).unwrap();
    let crops: Vec<_> = examples.iter().map(|e| e.crop.clone()).collect();
    let want = ort_logp(&mut ort, &crops);
    let got = tune::read_logp(&tuned, &m, &crops, 2).unwrap();
    let diff = max_diff(&got, &want);
    assert!(
        diff < 1e-3,
        "tuned log-probabilities differ by up to {diff}"
    );
}

#[test]
fn bad_labels_and_no_cells_are_refused() {
    let m = manifest();
    let crop = image::GrayImage::from_pixel(120, 30, image::Luma([235]));
    let params = TuneParams::default();
    let mut quiet = |_: usize, _: usize, _: f32| {};
    let err = tune::fine_tune(&base_onnx(), &m, &[], &params, &mut quiet).unwrap_err();
    assert!(matches!(err, tune::TuneError::NoExamples), "{err}");
    let bad = Example {
        crop,
        target: vec![m.alphabet.len() as u32],
    };
    let err = tune::fine_tune(&base_onnx(), &m, &[bad], &params, &mut quiet).unwrap_err();
    assert!(
        matches!(err, tune::TuneError::BadLabel { example: 0, .. }),
        "{err}"
    );
    let err = tune::fine_tune(b"not an onnx file", &m, &[], &params, &mut quiet).unwrap_err();
    assert!(matches!(err, tune::TuneError::NoExamples), "{err}");
}

#[test]
fn replayed_cells_hold_the_reader_to_what_it_read() {
    let m = manifest();
    let alphabet = m.alphabet();
    let cells = cells();
    let labelled = |shift: usize| -> Vec<Example> {
        (0..cells.len())
            .map(|i| Example {
                crop: cells[i].0.clone(),
                target: alphabet
                    .encode(&cells[(i + shift) % cells.len()].1)
                    .unwrap()
                    .into_iter()
                    .map(|c| c as u32)
                    .collect(),
            })
            .collect()
    };
    // Learning cells with wrong labels pull the reader away from the right ones; the
    // same cells replayed with their right labels hold it back.
    let (wrong, right) = (labelled(1), labelled(0));
    let plain = TuneParams {
        steps: 3,
        batch: 8,
        lr: 1e-3,
        threads: 2,
        ..TuneParams::default()
    };
    let replaying = TuneParams {
        replay: right.clone(),
        replay_share: 0.5,
        ..plain.clone()
    };
    let base = base_onnx();
    let without = tune::fine_tune(&base, &m, &wrong, &plain, &mut |_, _, _| {}).unwrap();
    let with = tune::fine_tune(&base, &m, &wrong, &replaying, &mut |_, _, _| {}).unwrap();
    let again = tune::fine_tune(&base, &m, &wrong, &replaying, &mut |_, _, _| {}).unwrap();
    assert!(again == with, "the same inputs give the same bytes");
    assert_eq!(with.len(), base.len());
    let loss_without = tune::mean_loss(&without, &m, &right, 2).unwrap();
    let loss_with = tune::mean_loss(&with, &m, &right, 2).unwrap();
    assert!(
        loss_with < loss_without,
        "loss on the right labels: {loss_with} with replay, {loss_without} without"
    );
}
