//! Synthetic forms (US club, Chess.com, FIDE, Russian 2x30 and 2x40, Polish) under
//! rotation, 180 degrees, perspective, noise, grey paper, shadow, faint and missing
//! rules -> at least 99% of cells found with their box within 15% of the cell size.

mod common;

use common::synth;

#[test]
fn synthetic_forms_give_their_cells() {
    let cases = synth::run_all();
    let good: usize = cases.iter().map(|c| c.good).sum();
    let total: usize = cases.iter().map(|c| c.cells).sum();
    let misses: Vec<String> = cases
        .iter()
        .filter(|c| c.good < c.cells)
        .map(|c| {
            format!(
                "{} {}: {}/{} {}",
                c.form, c.distortion, c.good, c.cells, c.note
            )
        })
        .collect();
    eprintln!("synthetic: {good}/{total} cells; misses: {misses:#?}");
    assert!(
        good * 100 >= total * 99,
        "only {good}/{total} cells: {misses:#?}"
    );
    // Every page must come out upright.
    for c in &cases {
        assert!(
            !c.note.starts_with("orientation"),
            "{} {}: {}",
            c.form,
            c.distortion,
            c.note
        );
    }
}
