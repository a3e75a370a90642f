//! `scoresheet cells` end to end on temp folders: crops, index.tsv, overlays, one
//! diagnostic line per bad file, exit codes 0 / 1 / 2.

use std::path::Path;
use std::process::{Command, Output};

use image::{GrayImage, ImageFormat, Luma};
use scoresheet::grid::synth::{Distortion, Form, render};

fn cells(args: &[&Path]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_scoresheet"));
    cmd.arg("cells");
    cmd.args(args);
    cmd.output().expect("run scoresheet")
}

fn sheet() -> GrayImage {
    render(
        &Form::us_club(900, 1150),
        &Distortion {
            rotate_deg: 1.0,
            ..Distortion::default()
        },
    )
    .image
}

fn png_bytes(img: &GrayImage) -> Vec<u8> {
    let mut out = Vec::new();
    img.write_to(&mut std::io::Cursor::new(&mut out), ImageFormat::Png)
        .unwrap();
    out
}

#[test]
fn a_mixed_batch_writes_good_pages_and_names_each_bad_file() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    std::fs::create_dir_all(input.join("round2")).unwrap();
    let sheet = sheet();
    sheet.save(input.join("r1b1.png")).unwrap();
    sheet.save(input.join("round2/r2b1.jpg")).unwrap();
    std::fs::write(input.join("notes.png"), b"1. e4 e5 2. Nf3").unwrap();
    std::fs::write(input.join("empty.jpg"), b"").unwrap();
    let png = png_bytes(&sheet);
    std::fs::write(input.join("cut.png"), &png[..png.len() / 3]).unwrap();
    GrayImage::from_pixel(400, 500, Luma([230]))
        .save(input.join("blank.png"))
        .unwrap();
    std::fs::write(input.join("readme.txt"), b"not an image, not picked up").unwrap();
    let out = dir.path().join("out");

    let run = cells(&[&input, Path::new("-o"), &out, Path::new("--overlay")]);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(1), "{stderr}");
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 4, "{stderr}");
    for (file, reason) in [
        ("notes.png", "not an image"),
        ("empty.jpg", "empty"),
        ("cut.png", "truncated"),
        ("blank.png", "no ruling"),
    ] {
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with("scoresheet: ") && l.contains(file) && l.contains(reason)),
            "{file}: {stderr}"
        );
    }

    let index = std::fs::read_to_string(out.join("index.tsv")).unwrap();
    let rows: Vec<&str> = index.lines().collect();
    assert_eq!(rows[0], "page\tmove\tside\tx\ty\tw\th");
    assert_eq!(rows.len(), 1 + 2 * 120, "{index}");
    assert!(rows[1].starts_with("r1b1\t1\twhite\t"), "{}", rows[1]);
    assert!(rows[2].starts_with("r1b1\t1\tblack\t"), "{}", rows[2]);
    assert!(rows.iter().any(|r| r.starts_with("r2b1\t60\tblack\t")));
    // The straightened pages the boxes lie on: one row per page cut, none for the
    // files that failed; the canvas holds the whole picture.
    let pages = std::fs::read_to_string(out.join("pages.tsv")).unwrap();
    let rows: Vec<Vec<&str>> = pages.lines().map(|l| l.split('\t').collect()).collect();
    assert_eq!(rows[0], ["page", "width", "height", "skew_deg"]);
    assert_eq!(rows.len(), 3, "{pages}");
    for (row, name) in rows[1..].iter().zip(["r1b1", "r2b1"]) {
        assert_eq!(row[0], name, "{pages}");
        let (w, h): (u32, u32) = (row[1].parse().unwrap(), row[2].parse().unwrap());
        assert!(w >= sheet.width() && h >= sheet.height(), "{pages}");
        let skew: f32 = row[3].parse().unwrap();
        assert!(skew.abs() < 5.0, "{pages}");
    }
    for name in [
        "r1b1/1_w.png",
        "r1b1/60_b.png",
        "r2b1/31_w.png",
        "r1b1.overlay.png",
    ] {
        let img = image::open(out.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(img.width() > 10 && img.height() > 10, "{name}");
    }
    // Nothing half-written is left behind.
    let leftovers: Vec<_> = walk(&out)
        .into_iter()
        .filter(|p| p.contains(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

fn walk(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p.file_name().unwrap().to_string_lossy().into_owned());
        }
    }
    out
}

#[test]
fn a_huge_image_is_refused_from_its_header() {
    let dir = tempfile::tempdir().unwrap();
    // A 100000 x 100000 PNG header with a valid CRC and no pixel data.
    let mut png = png_bytes(&GrayImage::new(1, 1));
    png[16..20].copy_from_slice(&100_000u32.to_be_bytes());
    png[20..24].copy_from_slice(&100_000u32.to_be_bytes());
    let crc = crc32(&png[12..29]);
    png[29..33].copy_from_slice(&crc.to_be_bytes());
    let file = dir.path().join("huge.png");
    std::fs::write(&file, &png).unwrap();
    let run = cells(&[&file, Path::new("-o"), &dir.path().join("out")]);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("huge.png") && stderr.contains("too large"),
        "{stderr}"
    );
}

fn crc32(data: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in data {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

#[test]
fn each_page_of_a_multipage_tiff_is_cut() {
    // The pages' cells hold marks no hand wrote: reading the printed numbers finds
    // nothing, and the decode's heading check must not drop rows the marks below them
    // cannot tell from moves either (before: six rows of the FIDE form dropped).
    let dir = tempfile::tempdir().unwrap();
    let a = sheet();
    let b = render(
        &Form::fide(800, 1130),
        &Distortion {
            upside_down: true,
            ..Distortion::default()
        },
    )
    .image;
    let mut bytes = Vec::new();
    {
        let mut enc = tiff::encoder::TiffEncoder::new(std::io::Cursor::new(&mut bytes)).unwrap();
        for img in [&a, &b] {
            enc.write_image::<tiff::encoder::colortype::Gray8>(
                img.width(),
                img.height(),
                img.as_raw(),
            )
            .unwrap();
        }
    }
    let file = dir.path().join("round3.tif");
    std::fs::write(&file, bytes).unwrap();
    let out = dir.path().join("out");
    let index = cut_ok(&file, &out);
    assert_eq!(
        index
            .lines()
            .filter(|l| l.starts_with("round3_p1\t"))
            .count(),
        120,
        "{index}"
    );
    assert_eq!(
        index
            .lines()
            .filter(|l| l.starts_with("round3_p2\t"))
            .count(),
        120,
        "{index}"
    );
    assert!(out.join("round3_p2/60_b.png").is_file());
}

#[test]
fn all_good_exits_0_and_usage_errors_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("sheet.png");
    sheet().save(&file).unwrap();
    let run = cells(&[&file, Path::new("-o"), &dir.path().join("out")]);
    assert_eq!(
        run.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(run.stdout.is_empty());

    let no_out = cells(&[&file]);
    assert_eq!(no_out.status.code(), Some(2));
    let empty = dir.path().join("nothing");
    std::fs::create_dir_all(&empty).unwrap();
    let run = cells(&[&empty, Path::new("-o"), &dir.path().join("out2")]);
    assert_eq!(run.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&run.stderr).starts_with("scoresheet: "));
}

#[test]
fn the_table_starts_under_the_form_header_on_a_blurred_page() {
    // The top of a blurred Russian sheet (tests/fixtures/pages/README.md): the form's
    // underlined name fields lie above the table at about its row pitch, the table's
    // top border is at y = 326 and its heading row (`№ | Белые | Чёрные`) under it. The
    // first cell cut, move 1, must be the row under the heading (y = 350), neither a
    // name field (before: the rows ran four up, the first at y = 190) nor the heading.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let sheet =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/pages/blurred_ru_top.jpg");
    let index = cut_ok(&sheet, &out);
    let first: Vec<&str> = index.lines().nth(1).unwrap().split('\t').collect();
    assert_eq!(&first[..3], ["blurred_ru_top", "1", "white"], "{index}");
    let y: u32 = first[4].parse().unwrap();
    assert!((340..=362).contains(&y), "move 1 at y = {y}\n{index}");
}

/// Cuts `file` into `out` with `scoresheet cells`, which must succeed, and returns
/// its `index.tsv`.
fn cut_ok(file: &Path, out: &Path) -> String {
    let run = cells(&[file, Path::new("-o"), out]);
    assert_eq!(
        run.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    std::fs::read_to_string(out.join("index.tsv")).unwrap()
}
