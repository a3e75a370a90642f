//! Synthetic forms x distortions -> how many true cells the grid stage finds with a
//! box within 15% of the cell size. Shared by `tests/grid_synth.rs` and
//! `examples/grid_synth.rs`.

#![allow(dead_code)]

use rayon::prelude::*;
use scoresheet::grid::synth::{Distortion, Form, render};
use scoresheet::grid::{GridParams, find_grid};
use scoresheet::page::{Page, PageParams};

/// One rendered case and its outcome.
#[derive(Debug, Clone)]
pub struct Case {
    pub form: &'static str,
    pub distortion: &'static str,
    pub cells: usize,
    pub good: usize,
    pub note: String,
}

/// The forms, at a modest resolution so the tests stay quick.
pub fn forms() -> Vec<Form> {
    let (w, h) = (1000, 1414);
    vec![
        Form::us_club(1000, 1250),
        Form::chess_com(w, h),
        Form::fide(w, h),
        Form::russian(w, h, 30),
        Form::russian(w, h, 40),
        Form::polish(w, h),
    ]
}

/// The distortions each form is put through.
pub fn distortions() -> Vec<(&'static str, Distortion)> {
    let d = Distortion::default;
    vec![
        ("clean", d()),
        (
            "rot+3.7",
            Distortion {
                rotate_deg: 3.7,
                seed: 2,
                ..d()
            },
        ),
        (
            "rot-5",
            Distortion {
                rotate_deg: -5.0,
                seed: 3,
                ..d()
            },
        ),
        (
            "rot180",
            Distortion {
                upside_down: true,
                rotate_deg: 0.8,
                seed: 4,
                ..d()
            },
        ),
        (
            "perspective",
            Distortion {
                perspective: 0.025,
                rotate_deg: 1.0,
                seed: 5,
                ..d()
            },
        ),
        (
            "noise+grey+shadow",
            Distortion {
                noise: 14.0,
                paper: 190,
                shadow: 0.45,
                seed: 6,
                ..d()
            },
        ),
        (
            "faint+missing",
            Distortion {
                rule: 170,
                paper: 225,
                missing_rules: 0.12,
                noise: 4.0,
                seed: 7,
                ..d()
            },
        ),
        (
            "all",
            Distortion {
                rotate_deg: -2.4,
                upside_down: true,
                perspective: 0.015,
                noise: 10.0,
                paper: 205,
                shadow: 0.3,
                rule: 120,
                missing_rules: 0.05,
                filled: 0.9,
                seed: 8,
            },
        ),
    ]
}

/// Renders and checks every form under every distortion.
pub fn run_all() -> Vec<Case> {
    let jobs: Vec<(Form, &'static str, Distortion)> = forms()
        .into_iter()
        .flat_map(|f| {
            distortions()
                .into_iter()
                .map(move |(n, d)| (f.clone(), n, d))
        })
        .collect();
    jobs.par_iter().map(|(f, n, d)| check(f, n, d)).collect()
}

pub fn check(form: &Form, name: &'static str, d: &Distortion) -> Case {
    let page = render(form, d);
    let pg = Page::from_image(
        page.image,
        "synthetic.png".as_ref(),
        0,
        &PageParams::default(),
    );
    let mut case = Case {
        form: form.name,
        distortion: name,
        cells: page.cells.len(),
        good: 0,
        note: String::new(),
    };
    if pg.rotated_180 != d.upside_down {
        case.note = format!(
            "orientation: turned {} but upside down {}",
            pg.rotated_180, d.upside_down
        );
    }
    let grid = match find_grid(&pg, &GridParams::default()) {
        Ok(g) => g,
        Err(e) => {
            case.note = e.to_string();
            return case;
        }
    };
    for truth in &page.cells {
        let pts = truth.corners.map(|(x, y)| pg.from_source(x, y));
        let (x0, x1) = pts
            .iter()
            .fold((f32::MAX, f32::MIN), |a, p| (a.0.min(p.0), a.1.max(p.0)));
        let (y0, y1) = pts
            .iter()
            .fold((f32::MAX, f32::MIN), |a, p| (a.0.min(p.1), a.1.max(p.1)));
        let Some(cell) = grid
            .cells
            .iter()
            .find(|c| c.move_number == truth.move_number && c.side == truth.side)
        else {
            continue;
        };
        let b = cell.ruled;
        let (tw, th) = ((x1 - x0) * 0.15, (y1 - y0) * 0.15);
        let ok = (b.x as f32 - x0).abs() <= tw
            && ((b.x + b.w) as f32 - x1).abs() <= tw
            && (b.y as f32 - y0).abs() <= th
            && ((b.y + b.h) as f32 - y1).abs() <= th;
        if ok {
            case.good += 1;
        } else if case.note.is_empty() {
            case.note = format!(
                "move {} {:?}: found {:?}, truth x {x0:.0}..{x1:.0} y {y0:.0}..{y1:.0}",
                truth.move_number, truth.side, b
            );
        }
    }
    if case.note.is_empty() && grid.cells.len() != page.cells.len() {
        case.note = format!(
            "{} cells found, {} true",
            grid.cells.len(),
            page.cells.len()
        );
    }
    case
}
