//! A 2000 x 2800 scan (synthetic FIDE-style sheet, tilted 1.3 degrees, noised, JPEG)
//! -> milliseconds per page for decode + deskew + grid, on one core.
//!
//! `cargo run --release --example grid_bench`

use std::io::Cursor;
use std::path::Path;
use std::time::Instant;

use image::codecs::jpeg::JpegEncoder;
use scoresheet::grid::synth::{Distortion, Form, render};
use scoresheet::grid::{GridParams, find_grid};
use scoresheet::page::{Page, PageParams, decode_pages};

/// CPU time of this thread in ms (Linux `schedstat`), when available: on a busy
/// machine it measures the work better than the wall clock.
fn cpu_ms() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    Some(s.split_whitespace().next()?.parse::<f64>().ok()? / 1e6)
}

fn main() {
    let d = Distortion {
        rotate_deg: 1.3,
        noise: 6.0,
        paper: 225,
        ..Distortion::default()
    };
    let synth = render(&Form::fide(1960, 2760), &d);
    let mut jpeg = Vec::new();
    JpegEncoder::new_with_quality(Cursor::new(&mut jpeg), 90)
        .encode_image(&synth.image)
        .expect("encode");
    let (w, h) = synth.image.dimensions();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("pool");
    let (pp, gp) = (PageParams::default(), GridParams::default());
    let path = Path::new("bench.jpg");
    let runs = 10;
    let one = || {
        let t0 = Instant::now();
        let img = decode_pages(&jpeg, path, &pp).expect("decode").remove(0);
        let t1 = Instant::now();
        let page = Page::from_image(img, path, 0, &pp);
        let t2 = Instant::now();
        let grid = find_grid(&page, &gp).expect("grid");
        let t3 = Instant::now();
        let ms = |a: Instant, b: Instant| (b - a).as_secs_f64() * 1000.0;
        (ms(t0, t1), ms(t1, t2), ms(t2, t3), grid.cells.len())
    };
    let (times, cpu) = pool.install(|| {
        one(); // warm-up
        let c0 = cpu_ms();
        let times: Vec<_> = (0..runs).map(|_| one()).collect();
        (times, c0.zip(cpu_ms()).map(|(a, b)| (b - a) / runs as f64))
    });
    let n = runs as f64;
    let sum = |f: fn(&(f64, f64, f64, usize)) -> f64| times.iter().map(f).sum::<f64>() / n;
    let (dec, page, grid) = (sum(|t| t.0), sum(|t| t.1), sum(|t| t.2));
    println!(
        "{w}x{h} jpeg, {} cells, one core: {:.1} ms/page wall (decode {dec:.1}, deskew+orientation {page:.1}, grid {grid:.1})",
        times[0].3,
        dec + page + grid
    );
    if let Some(c) = cpu {
        println!("cpu time: {c:.1} ms/page");
    }
}
