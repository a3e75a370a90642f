//! What the printed-text reader reads on a picture, line by line: to see how a form's
//! print comes out (the Russian labels' Latin look-alikes in `form::fields` were
//! measured this way).
//!
//! `cargo run --release --example ocr_lines -- PICTURE...`

use scoresheet::model::RuntimeParams;
use scoresheet::model::ocr::PrintedReader;

fn main() {
    let mut reader = PrintedReader::embedded(&RuntimeParams::default()).expect("the text reader");
    for path in std::env::args().skip(1) {
        let page = match image::open(&path) {
            Ok(p) => p.to_luma8(),
            Err(e) => {
                eprintln!("{path}: {e}");
                continue;
            }
        };
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
