//! Tiny drawn tables -> grids: cells and boxes, number strip with header band and
//! footer box, ink, orientation votes, odd pages, no-table errors.

use super::*;
use crate::ruling::upside_down_votes;
use image::Luma;
use std::path::PathBuf;

/// A tiny ruled table: `blocks` x `rows`, columns [number 12 px | white 40 | black
/// 40] per block, rows 14 px, rules 1 px dark on light paper, from (10, 20).
fn ruled(blocks: u32, rows: u32) -> GrayImage {
    let (w, h) = (20 + blocks * 92, 40 + rows * 14);
    let mut img = GrayImage::from_pixel(w, h, Luma([225]));
    let (x0, y0) = (10, 20);
    for b in 0..blocks {
        let bx = x0 + b * 92;
        for x in [bx, bx + 12, bx + 52, bx + 92] {
            for y in y0..=y0 + rows * 14 {
                img.put_pixel(x.min(w - 1), y, Luma([30]));
            }
        }
        for r in 0..=rows {
            for x in bx..=bx + 92 {
                img.put_pixel(x.min(w - 1), y0 + r * 14, Luma([30]));
            }
        }
    }
    img
}

fn page(image: GrayImage) -> Page {
    Page {
        image,
        source: PathBuf::from("t.png"),
        index: 0,
        skew_deg: 0.0,
        rotated_180: false,
        source_size: (0, 0),
    }
}

#[test]
fn cells_of_a_tiny_ruled_table_in_move_order() {
    let grid = find_grid(&page(ruled(2, 10)), &GridParams::default()).unwrap();
    assert_eq!(
        (grid.blocks, grid.rows_per_block, grid.cells.len()),
        (2, 10, 40)
    );
    assert!(grid.ruled_numbers);
    let c = &grid.cells;
    assert_eq!((c[0].move_number, c[0].side), (1, Color::White));
    assert_eq!((c[1].move_number, c[1].side), (1, Color::Black));
    assert_eq!((c[20].move_number, c[20].block, c[20].row), (11, 1, 0));
    // Move 1 White: x 22..62, y 20..34; move 11 Black: x 154..194.
    let near = |a: u32, b: u32| a.abs_diff(b) <= 2;
    let r = c[0].ruled;
    assert!(
        near(r.x, 22) && near(r.x + r.w, 62) && near(r.y, 20) && near(r.y + r.h, 34),
        "{r:?}"
    );
    let r = c[21].ruled;
    assert!(
        near(r.x, 154) && near(r.x + r.w, 194) && near(r.y, 20),
        "{r:?}"
    );
    // The crop box adds a margin but stays on the page.
    let b = c[0].bbox;
    assert!(b.y < r.y && b.h > r.h);
    assert_eq!(crop(&page(ruled(2, 10)), &c[0]).dimensions(), (b.w, b.h));
    assert!(c.iter().all(|c| c.ink < 0.01), "blank cells carry no ink");
}

/// A tiny US club style table: per block White 80 px (numbers on a shaded strip
/// 16 px wide) and Black 80 px, rows 16 px; a dark header band over Black and a
/// ruled footer box under the table.
fn us_club(rows: u32) -> GrayImage {
    let (w, h) = (350, 60 + rows * 16 + 40);
    let mut img = GrayImage::from_pixel(w, h, Luma([220]));
    let y0 = 30;
    let y1 = y0 + rows * 16;
    for b in 0..2 {
        let bx = 10 + b * 160;
        for y in y0..y1 {
            for x in bx..bx + 16 {
                img.put_pixel(x, y, Luma([170]));
            }
        }
        for y in y0 - 16..y0 {
            for x in bx + 80..bx + 160 {
                img.put_pixel(x, y, Luma([60]));
            }
        }
        for x in [bx, bx + 80, bx + 160] {
            for y in y0 - 16..=y1 {
                img.put_pixel(x, y, Luma([30]));
            }
        }
    }
    for y in (y0..=y1).step_by(16).chain([y0 - 16, y1 + 16]) {
        for x in 10..=330 {
            img.put_pixel(x, y, Luma([30]));
        }
    }
    for y in y1..y1 + 16 {
        img.put_pixel(10, y, Luma([30]));
        img.put_pixel(330, y, Luma([30]));
    }
    img
}

#[test]
fn a_strip_numbered_table_between_header_band_and_footer_box() {
    let grid = find_grid(&page(us_club(12)), &GridParams::default()).unwrap();
    assert_eq!((grid.blocks, grid.rows_per_block), (2, 12));
    // (A crisp strip edge may read as a ruled number column: the cells agree.)
    let (w1, b1) = (grid.cells[0].ruled, grid.cells[1].ruled);
    assert!(w1.y.abs_diff(30) <= 2 && w1.h.abs_diff(16) <= 3, "{w1:?}");
    // White starts right of the strip, Black at its rule.
    assert!(
        w1.x.abs_diff(26) <= 4 && b1.x.abs_diff(90) <= 2,
        "{w1:?} {b1:?}"
    );
    let last = grid.cells.last().unwrap();
    assert_eq!((last.move_number, last.side), (24, Color::Black));
    assert!(
        (last.ruled.y + last.ruled.h).abs_diff(30 + 12 * 16) <= 2,
        "{:?}",
        last.ruled
    );
}

#[test]
fn number_columns_on_the_right_mean_upside_down() {
    let mut img = ruled(2, 10);
    assert!(upside_down_votes(&img).unwrap() <= -1.0);
    image::imageops::rotate180_in_place(&mut img);
    assert!(upside_down_votes(&img).unwrap() >= 1.0);
    let mut img = us_club(12);
    assert!(upside_down_votes(&img).unwrap() <= -1.0);
    image::imageops::rotate180_in_place(&mut img);
    assert!(upside_down_votes(&img).unwrap() >= 1.0);
    assert_eq!(
        upside_down_votes(&GrayImage::from_pixel(50, 50, Luma([200]))),
        None
    );
}

#[test]
fn ink_tells_a_written_cell_from_a_blank_one() {
    let mut img = ruled(1, 10);
    // A stroke inside move 3 White (x 22..62, y 48..62).
    for x in 28..50 {
        for y in 54..56 {
            img.put_pixel(x, y, Luma([40]));
        }
    }
    let grid = find_grid(&page(img), &GridParams::default()).unwrap();
    let ink = |m: u32, side: Color| {
        grid.cells
            .iter()
            .find(|c| c.move_number == m && c.side == side)
            .unwrap()
            .ink
    };
    assert!(ink(3, Color::White) > 0.05, "{}", ink(3, Color::White));
    assert!(ink(3, Color::Black) < 0.01 && ink(2, Color::White) < 0.01);
}

#[test]
fn odd_pages_never_panic() {
    let mut seed = 7u32;
    let mut noise = move || {
        seed ^= seed << 13;
        seed ^= seed >> 17;
        seed ^= seed << 5;
        (seed >> 24) as u8
    };
    let noisy = GrayImage::from_fn(300, 300, |_, _| Luma([noise()]));
    let cases = [
        GrayImage::new(1, 1),
        GrayImage::from_pixel(1, 500, Luma([200])),
        GrayImage::from_pixel(500, 1, Luma([200])),
        GrayImage::from_pixel(17, 17, Luma([0])),
        GrayImage::from_pixel(200, 200, Luma([0])),
        GrayImage::from_fn(240, 240, |x, y| {
            Luma([if (x / 3 + y / 3) % 2 == 0 { 0 } else { 255 }])
        }),
        GrayImage::from_fn(240, 240, |_, y| Luma([if y % 4 == 0 { 0 } else { 255 }])),
        GrayImage::from_fn(240, 240, |x, _| Luma([if x % 4 == 0 { 0 } else { 255 }])),
        noisy,
    ];
    for img in cases {
        let p = Page::from_image(
            img,
            "odd.png".as_ref(),
            0,
            &crate::page::PageParams::default(),
        );
        if let Ok(g) = find_grid(&p, &GridParams::default()) {
            for c in &g.cells {
                let _ = crop(&p, c);
            }
        }
    }
}

#[test]
fn no_table_is_an_error_never_a_grid() {
    let blank = GrayImage::from_pixel(300, 400, Luma([230]));
    let err = find_grid(&page(blank), &GridParams::default()).unwrap_err();
    assert!(matches!(err, GridError::NoRuling { .. }), "{err}");
    assert!(err.to_string().starts_with("t.png: "));
    // Rules too faint to tell from the paper.
    let faint = GrayImage::from_fn(204, 180, |x, y| {
        let p = ruled(2, 10).get_pixel(x, y)[0];
        Luma([if p < 100 { 222 } else { 225 }])
    });
    assert!(find_grid(&page(faint), &GridParams::default()).is_err());
    // Too few rows for a move table.
    assert!(find_grid(&page(ruled(2, 4)), &GridParams::default()).is_err());
}

#[test]
fn dropping_a_header_row_renumbers_every_block() {
    let pg = page(ruled(2, 12));
    let mut grid = find_grid(&pg, &GridParams::default()).unwrap();
    assert_eq!(
        (grid.blocks, grid.rows_per_block, grid.cells.len()),
        (2, 12, 48)
    );
    let second_row_box = grid.cells[2].bbox;
    grid.drop_leading_rows(1);
    assert_eq!((grid.rows_per_block, grid.cells.len()), (11, 44));
    // Old row 1 of block 0 is now move 1; block 1 starts at move 12.
    assert_eq!(
        (grid.cells[0].move_number, grid.cells[0].bbox),
        (1, second_row_box)
    );
    let firsts: Vec<u32> = grid
        .cells
        .iter()
        .filter(|c| c.row == 0)
        .map(|c| c.move_number)
        .collect();
    assert_eq!(firsts, [1, 1, 12, 12]);
    assert!(
        grid.cells
            .windows(2)
            .all(|w| w[0].move_number <= w[1].move_number)
    );
}

#[test]
fn one_ruled_number_column_is_enough() {
    // The rule between the second block's number and White columns is missing (on a
    // blurred page it can fade): that block has no number column of its own, yet the
    // table has one.
    let mut img = ruled(2, 10);
    let x = 10 + 92 + 12;
    for y in 20..=20 + 10 * 14 {
        img.put_pixel(x, y, Luma([225]));
    }
    let grid = find_grid(&page(img), &GridParams::default()).unwrap();
    assert_eq!((grid.blocks, grid.rows_per_block), (2, 10));
    assert!(grid.ruled_numbers);
}

/// Two blocks of 30 rows as `ruled` draws them, `gap` px apart, the first block's
/// rules leaning a pixel to the right every `step` rows (the far side of a phone photo).
fn leaning_table(step: u32, gap: u32) -> GrayImage {
    let rows = 30;
    let (w, h) = (20 + 2 * 92 + gap + 20, 40 + rows * 14);
    let mut img = GrayImage::from_pixel(w, h, Luma([225]));
    let (x0, y0) = (10, 20);
    for b in 0..2 {
        let lean = |y: u32| if b == 0 { (y - y0) / step } else { 0 };
        let bx = x0 + b * (92 + gap);
        for x in [bx, bx + 12, bx + 52, bx + 92] {
            for y in y0..=y0 + rows * 14 {
                img.put_pixel(x + lean(y), y, Luma([30]));
            }
        }
        for r in 0..=rows {
            let y = y0 + r * 14;
            for x in bx..=bx + 92 {
                img.put_pixel(x + lean(y), y, Luma([30]));
            }
        }
    }
    img
}

/// How many blocks one look at `img` finds with rules allowed `sideways` px of stray.
fn blocks_found(img: &GrayImage, sideways: usize) -> usize {
    crate::ruling::table::analyse(
        img,
        &crate::ruling::shapes::AnalysisParams {
            min_contrast: GridParams::default().min_contrast,
            min_rows: GridParams::default().min_rows,
            sideways,
        },
    )
    .map_or(0, |t| t.blocks.len())
}

#[test]
fn a_table_whose_rules_perspective_tilts_is_found_on_a_later_look() {
    // Leaning a pixel every 20 rows (about 3 degrees), pixel-column runs of a rule are
    // 20 rows long, short of the 23 a rule needs on this page: the first look finds no
    // table, the second, with rules allowed to stray a pixel sideways, finds both
    // blocks. Leaning a pixel every 6 rows, runs are 6 rows alone and 18 with a pixel
    // of stray: only the third look, with two, finds the table.
    for (step, gap, misses) in [(20, 25, 1), (6, 100, 2)] {
        let img = leaning_table(step, gap);
        for sideways in 0..misses {
            assert!(
                blocks_found(&img, sideways) < 2,
                "step {step}, stray {sideways}"
            );
        }
        let grid = find_grid(&page(img), &GridParams::default()).unwrap();
        assert_eq!((grid.blocks, grid.rows_per_block), (2, 30), "step {step}");
        let c = &grid.cells;
        assert_eq!((c[60].move_number, c[60].block, c[60].row), (31, 1, 0));
    }
}

/// Two blocks of 30 rows side by side, sharing the rule between them, all rules
/// leaning a pixel to the right every `step` rows (a phone photo's perspective): the
/// outer rules bold, the rules inside each block thin.
fn leaning_inner_rules(step: u32) -> GrayImage {
    let rows = 30;
    let (w, h) = (20 + 2 * 92 + 40, 40 + rows * 14);
    let mut img = GrayImage::from_pixel(w, h, Luma([225]));
    let (x0, y0) = (10, 20);
    for y in y0..=y0 + rows * 14 {
        let lean = (y - y0) / step;
        for x in [x0, x0 + 92, x0 + 184] {
            for t in 0..3 {
                img.put_pixel(x + t + lean, y, Luma([30]));
            }
        }
        for b in 0..2 {
            for x in [x0 + b * 92 + 14, x0 + b * 92 + 54] {
                img.put_pixel(x + lean, y, Luma([30]));
            }
        }
    }
    for r in 0..=rows {
        let y = y0 + r * 14;
        for x in x0..=x0 + 186 {
            img.put_pixel(x + (y - y0) / step, y, Luma([30]));
        }
    }
    img
}

#[test]
fn blocks_whose_thin_rules_perspective_breaks_are_not_read_as_one() {
    // The first look finds the bold rules alone: two wide columns, which pair as one
    // block's White and Black, with no number column. A later look, the thin rules
    // allowed to stray a pixel, finds both blocks and their number columns.
    let img = leaning_inner_rules(20);
    assert_eq!(blocks_found(&img, 0), 1);
    let grid = find_grid(&page(img.clone()), &GridParams::default()).unwrap();
    assert_eq!((grid.blocks, grid.rows_per_block), (2, 30));
    assert!(grid.ruled_numbers);
    // The page is known to be upright, and turned, to be upside down: one block
    // without its numbers says neither.
    assert!(upside_down_votes(&img).unwrap() <= -1.0);
    let mut turned = img;
    image::imageops::rotate180_in_place(&mut turned);
    assert!(upside_down_votes(&turned).unwrap() >= 1.0);
}

#[test]
fn a_column_crossed_by_large_writing_takes_the_table_pitch() {
    // `ruled(2, 20)`, and in the second block's White column a pen stroke across
    // every cell 5 px under its top rule (writing twice the usual size): the lines
    // crossing that column alone are 5 and 9 px apart, no rhythm of the table's 14.
    // It is tried again at the pitch of the other columns, and both blocks are found.
    let mut img = ruled(2, 20);
    let bx = 10 + 92;
    for r in 0..20 {
        for x in bx + 14..bx + 44 {
            img.put_pixel(x, 20 + r * 14 + 5, Luma([40]));
        }
    }
    let grid = find_grid(&page(img), &GridParams::default()).unwrap();
    assert_eq!(
        (grid.blocks, grid.rows_per_block, grid.cells.len()),
        (2, 20, 80)
    );
    let c = &grid.cells[40];
    assert_eq!(
        (c.move_number, c.side, c.block, c.row),
        (21, Color::White, 1, 0)
    );
    assert!(c.ruled.y.abs_diff(20) <= 2, "{:?}", c.ruled);
}

/// Two blocks of 30 rows 40 px high, columns [number 60 | White 200 | Black 200],
/// every rule drawn only where `ink(t)` holds at position `t` along it.
fn broken_rules(ink: impl Fn(u32) -> bool) -> (GrayImage, u32, u32) {
    let (rows, pitch, width) = (30u32, 40u32, 460u32);
    let (w, h) = (40 + 2 * (width + 20), 80 + rows * pitch);
    let mut img = GrayImage::from_pixel(w, h, Luma([225]));
    let (x0, y0) = (20, 40);
    for b in 0..2 {
        let bx = x0 + b * (width + 20);
        for x in [bx, bx + 60, bx + 260, bx + width] {
            for y in (y0..=y0 + rows * pitch).filter(|&y| ink(y)) {
                img.put_pixel(x, y, Luma([30]));
            }
        }
        for r in 0..=rows {
            for x in (bx..=bx + width).filter(|&x| ink(x)) {
                img.put_pixel(x, y0 + r * pitch, Luma([30]));
            }
        }
    }
    (img, rows, y0)
}

#[test]
fn a_table_with_dashed_rules_keeps_every_row() {
    // Dashes of 4 px with 2 px gaps (a dotted form at full size); dots of 7 px with
    // 1 px breaks (seen on 88% of the rule, broken every 8 px); a rule broken by one
    // pixel every 14 px (a blurred dotted rule, seen on 93%): the rule between the
    // columns must still tell each row a move row, not a header or footer box the
    // ruling ran into.
    let dashes: [fn(u32) -> bool; 3] = [|t| t % 6 < 4, |t| t % 8 < 7, |t| t % 14 < 13];
    for (k, ink) in dashes.into_iter().enumerate() {
        let (img, rows, y0) = broken_rules(ink);
        let grid = find_grid(&page(img), &GridParams::default()).unwrap();
        assert_eq!(
            (grid.blocks, grid.rows_per_block),
            (2, rows as usize),
            "rules {k}"
        );
        let c = &grid.cells;
        assert_eq!((c[0].move_number, c[0].block, c[0].row), (1, 0, 0));
        let r = c[0].ruled;
        assert!(r.y.abs_diff(y0) <= 2, "rules {k}: {r:?}");
        assert_eq!((c[60].move_number, c[60].block, c[60].row), (31, 1, 0));
    }
}

#[test]
fn result_boxes_below_a_table_without_numbers_add_no_rows() {
    // One block [White 200 | Black 200] of 20 rows 40 px high, no number column;
    // below it, in the rows' rhythm, a "Result" line of three boxes whose top and
    // bottom edges cross most of the White column and whose last box starts on the
    // rule between White and Black, and a word over the left rule's course: its
    // lines must not become move rows 21 and 22.
    let (rows, pitch) = (20u32, 40u32);
    let (x0, y0) = (40u32, 40u32);
    let (w, h) = (x0 + 440, y0 + (rows + 4) * pitch);
    let mut img = GrayImage::from_pixel(w, h, Luma([225]));
    let bottom = y0 + rows * pitch;
    for x in [x0, x0 + 200, x0 + 400] {
        for y in y0..=bottom {
            img.put_pixel(x, y, Luma([30]));
        }
    }
    for r in 0..=rows {
        for x in x0..=x0 + 400 {
            img.put_pixel(x, y0 + r * pitch, Luma([30]));
        }
    }
    let (top, low) = (bottom + pitch, bottom + 2 * pitch - 4);
    for bx in [x0 + 40, x0 + 120, x0 + 200] {
        for x in bx..=bx + 70 {
            img.put_pixel(x, top, Luma([30]));
            img.put_pixel(x, low, Luma([30]));
        }
        for y in top..=low {
            img.put_pixel(bx, y, Luma([30]));
            img.put_pixel(bx + 70, y, Luma([30]));
        }
    }
    for y in top + 8..low - 8 {
        img.put_pixel(x0 + 1, y, Luma([30]));
    }
    let grid = find_grid(&page(img), &GridParams::default()).unwrap();
    assert_eq!((grid.blocks, grid.rows_per_block), (1, rows as usize));
    let last = grid.cells.last().unwrap();
    assert_eq!((last.move_number, last.side), (rows, Color::Black));
    assert!(
        (last.ruled.y + last.ruled.h).abs_diff(bottom) <= 2,
        "{:?}",
        last.ruled
    );
}

#[test]
fn ruled_number_columns_outvote_a_shadow_across_the_columns() {
    // Number columns at the left of their blocks (upright), and every White and
    // Black column darkened towards its right end, as a photo's shadow or a hand
    // writing close to the right rule does: the page is still read upright.
    let mut img = ruled(2, 12);
    for b in 0..2u32 {
        for col in [12u32, 52] {
            let x0 = 10 + b * 92 + col;
            for x in x0 + 26..x0 + 38 {
                for y in 21..20 + 12 * 14 {
                    if img.get_pixel(x, y)[0] > 100 {
                        img.put_pixel(x, y, Luma([185]));
                    }
                }
            }
        }
    }
    let v = upside_down_votes(&img).unwrap();
    assert!(v <= -1.0, "{v}");
}
