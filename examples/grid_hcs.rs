//! HCS pages -> the share of pages where the grid comes out right (120 cells in move
//! order, ink agreeing with the labels), with every failure listed.
//!
//! `cargo run --release --example grid_hcs [-- --verbose]` (needs `../shared/data/hcs`).

#[path = "../tests/common/hcs.rs"]
mod hcs;

fn main() {
    let verbose = std::env::args().any(|a| a == "--verbose");
    let Some(dir) = hcs::hcs_dir() else {
        eprintln!("grid_hcs: ../shared/data/hcs not found; nothing to check");
        std::process::exit(2);
    };
    let checks = hcs::check_all(&dir);
    let ok = checks.iter().filter(|c| c.ok).count();
    for c in &checks {
        if !c.ok || verbose {
            let agree = c.agreement.map_or("-".into(), |a| format!("{:.3}", a));
            println!(
                "{} {} cells={} agree={} {:.0}ms {}",
                c.page,
                if c.ok { "ok" } else { "FAIL" },
                c.cells,
                agree,
                c.millis,
                c.note
            );
        }
    }
    println!(
        "HCS: {ok}/{} pages with 120 cells in the right order ({:.1}%)",
        checks.len(),
        100.0 * ok as f64 / checks.len().max(1) as f64
    );
}
