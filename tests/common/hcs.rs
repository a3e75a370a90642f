//! HCS pages + labels.tsv -> per-page grid checks: 120 cells (2 blocks x 30 rows x
//! White/Black) in move order, aligned with the labels (filled cells where labelled).
//! Shared by `tests/grid_hcs.rs` and `examples/grid_hcs.rs`; uses `../shared`.

#![allow(dead_code)]

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use scoresheet::grid::{Grid, GridParams, find_grid};
use scoresheet::page::{PageParams, load_pages};
use shakmaty::Color;

/// Cells with more ink than this count as written in.
pub const INK_FILLED: f32 = 0.015;

/// The HCS folder next to the repository (`../shared/data/hcs`), if present.
pub fn hcs_dir() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data/hcs");
    dir.join("pages").is_dir().then_some(dir)
}

/// Outcome for one page.
#[derive(Debug, Clone)]
pub struct PageCheck {
    pub page: String,
    pub ok: bool,
    /// Why the page failed, or a note.
    pub note: String,
    pub cells: usize,
    /// Fraction of cells whose ink (filled or blank) agrees with the labels.
    pub agreement: Option<f32>,
    pub millis: f64,
}

/// Labelled cells per page: (move, is_white).
pub fn read_labels(dir: &Path) -> HashMap<String, HashSet<(u32, bool)>> {
    let text = std::fs::read_to_string(dir.join("labels.tsv")).unwrap_or_default();
    let mut out: HashMap<String, HashSet<(u32, bool)>> = HashMap::new();
    for line in text.lines().skip(1) {
        let f: Vec<&str> = line.split('\t').collect();
        if f.len() >= 3
            && let Ok(m) = f[1].parse()
        {
            out.entry(f[0].to_string())
                .or_default()
                .insert((m, f[2] == "white"));
        }
    }
    out
}

/// Checks every page of `dir/pages`.
pub fn check_all(dir: &Path) -> Vec<PageCheck> {
    let labels = read_labels(dir);
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir.join("pages"))
        .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    files.retain(|p| p.extension().is_some_and(|e| e == "jpg"));
    files.sort();
    files.par_iter().map(|f| check_page(f, &labels)).collect()
}

pub fn check_page(file: &Path, labels: &HashMap<String, HashSet<(u32, bool)>>) -> PageCheck {
    let page_name = file.file_stem().unwrap().to_string_lossy().into_owned();
    let start = std::time::Instant::now();
    let result = load_pages(file, &PageParams::default())
        .map_err(|e| e.to_string())
        .and_then(|mut pages| {
            find_grid(&pages.remove(0), &GridParams::default()).map_err(|e| e.to_string())
        });
    let millis = start.elapsed().as_secs_f64() * 1000.0;
    let mut check = PageCheck {
        page: page_name.clone(),
        ok: false,
        note: String::new(),
        cells: 0,
        agreement: None,
        millis,
    };
    let grid = match result {
        Ok(g) => g,
        Err(e) => {
            check.note = e;
            return check;
        }
    };
    check.cells = grid.cells.len();
    if let Err(e) = check_shape(&grid) {
        check.note = e;
        return check;
    }
    match labels.get(&page_name) {
        None => {
            check.ok = true;
            check.note = "unlabelled".into();
        }
        Some(l) => {
            let (agreement, best_shift) = alignment(&grid, l);
            check.agreement = Some(agreement);
            if best_shift != 0 {
                check.note = format!("ink fits the labels better shifted by {best_shift} rows");
            } else if agreement < 0.75 {
                check.note = format!(
                    "ink agrees with labels on only {:.0}% of cells",
                    agreement * 100.0
                );
            } else {
                check.ok = true;
            }
        }
    }
    check
}

/// 2 blocks x 30 rows, cells in move order, rows descending, White left of Black,
/// block 2 right of block 1.
pub fn check_shape(g: &Grid) -> Result<(), String> {
    if g.blocks != 2 || g.rows_per_block != 30 || g.cells.len() != 120 {
        return Err(format!(
            "{} blocks x {} rows, {} cells",
            g.blocks,
            g.rows_per_block,
            g.cells.len()
        ));
    }
    for (i, c) in g.cells.iter().enumerate() {
        let want_side = if i % 2 == 0 {
            Color::White
        } else {
            Color::Black
        };
        if c.move_number != (i / 2 + 1) as u32 || c.side != want_side {
            return Err(format!("cell {i} is move {} {:?}", c.move_number, c.side));
        }
    }
    for pair in g.cells.chunks(2) {
        let (w, b) = (&pair[0].ruled, &pair[1].ruled);
        if w.x + w.w / 2 >= b.x || (w.y as i64 - b.y as i64).abs() > w.h as i64 / 2 {
            return Err(format!(
                "move {}: black cell not right of white",
                pair[0].move_number
            ));
        }
    }
    for i in 2..g.cells.len() {
        let (a, b) = (&g.cells[i - 2].ruled, &g.cells[i].ruled);
        let same_block = g.cells[i - 2].block == g.cells[i].block;
        if same_block && b.y <= a.y {
            return Err(format!(
                "move {}: row not below the previous",
                g.cells[i].move_number
            ));
        }
        if !same_block && b.x <= a.x {
            return Err(format!(
                "move {}: block not right of the previous",
                g.cells[i].move_number
            ));
        }
    }
    Ok(())
}

/// Agreement of "has ink" with "is labelled" over all cells, and the row shift (-2..=2)
/// of the labels that agrees best (0 when the grid is right; ties go to 0).
pub fn alignment(g: &Grid, labelled: &HashSet<(u32, bool)>) -> (f32, i32) {
    let rows = g.rows_per_block as i32;
    let score = |shift: i32| -> usize {
        g.cells
            .iter()
            .filter(|c| {
                let row = c.row as i32 + shift;
                let filled_label = (0..rows).contains(&row)
                    && labelled.contains(&(
                        (c.block as i32 * rows + row + 1) as u32,
                        c.side == Color::White,
                    ));
                (c.ink > INK_FILLED) == filled_label
            })
            .count()
    };
    let base = score(0);
    let best = (-2..=2)
        .filter(|&s| score(s) > base)
        .max_by_key(|&s| score(s))
        .unwrap_or(0);
    (base as f32 / g.cells.len() as f32, best)
}
