//! Synthetic forms (US club, Chess.com, FIDE, Russian 30/40, Polish) under rotation,
//! 180 degrees, perspective, noise, grey paper, shadow, faint and missing rules ->
//! the share of cells found with their box within 15% of the cell size.
//!
//! `cargo run --release --example grid_synth`

#[path = "../tests/common/synth.rs"]
mod synth;

fn main() {
    let cases = synth::run_all();
    let (mut good, mut total) = (0, 0);
    for c in &cases {
        good += c.good;
        total += c.cells;
        println!(
            "{:<11} {:<18} {:>3}/{:<3} {}",
            c.form, c.distortion, c.good, c.cells, c.note
        );
    }
    println!(
        "synthetic: {good}/{total} cells ({:.2}%)",
        100.0 * good as f64 / total.max(1) as f64
    );
}
