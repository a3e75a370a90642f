//! What the printed-text reader reads on a picture, line by line: to see how a form's
//! print comes out (the Russian labels' Latin look-alikes in `form::fields` were
//! measured this way). With `--ru`, each picture is one line written in Russian, read
//! as the header's Cyrillic fields are (`model::cyrillic`); `--ru W B` sets the letter
//! model's weight and the bonus per letter.
//!
//! `cargo run --release --example ocr_lines -- [--ru [W B]] PICTURE...`

use scoresheet::model::RuntimeParams;
use scoresheet::model::cyrillic::Search;
use scoresheet::model::ocr::PrintedReader;

fn main() {
    let mut reader = PrintedReader::embedded(&RuntimeParams::default()).expect("the text reader");
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut ru = None;
    if args.first().is_some_and(|a| a == "--ru") {
        args.remove(0);
        let mut search = Search::default();
        if let (Some(w), Some(b)) = (
            args.first().and_then(|a| a.parse().ok()),
            args.get(1).and_then(|a| a.parse().ok()),
        ) {
            search.lm_weight = w;
            search.bonus = b;
            args.drain(..2);
        }
        ru = Some(search);
    }
    for path in args {
        let page = match image::open(&path) {
            Ok(p) => p.to_luma8(),
            Err(e) => {
                eprintln!("{path}: {e}");
                continue;
            }
        };
        if let Some(search) = ru {
            if let Some(((latin, _), r)) = reader.read_cyrillic(&page, search) {
                let ls = scoresheet::model::cyrillic::LetterModel::latin().spelling(&latin);
                println!("{path}\t{latin}\t{}\t{:.2}\t{ls:.2}", r.text, r.spelling);
            }
            continue;
        }
        let (w, h) = page.dimensions();
        match reader.read_region(&page, [0, 0, w, h]) {
            Ok(lines) => {
                for l in lines {
                    println!("{path}\t{:?}\t{}\t{:.2}", l.bbox, l.text, l.confidence);
                }
            }
            Err(e) => eprintln!("{path}: {e}"),
        }
    }
}
