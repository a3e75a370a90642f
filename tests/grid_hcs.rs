//! HCS pages (`../shared/data/hcs`, skipped when absent) -> grids: at least 95% of the
//! pages give 2 blocks x 30 rows x White/Black in move order, aligned with the labels.

mod common;

use common::hcs;

#[test]
fn hcs_pages_give_120_cells_in_move_order() {
    let Some(dir) = hcs::hcs_dir() else {
        eprintln!("skipped: ../shared/data/hcs is absent (uses ../shared)");
        return;
    };
    let checks = hcs::check_all(&dir);
    let failures: Vec<String> = checks
        .iter()
        .filter(|c| !c.ok)
        .map(|c| format!("{}: {}", c.page, c.note))
        .collect();
    let ok = checks.len() - failures.len();
    eprintln!(
        "HCS: {ok}/{} pages right; failures: {failures:#?}",
        checks.len()
    );
    assert!(
        checks.len() >= 170,
        "expected the 177 HCS pages, found {}",
        checks.len()
    );
    assert!(
        ok * 100 >= checks.len() * 95,
        "only {ok}/{} pages right: {failures:#?}",
        checks.len()
    );
}
