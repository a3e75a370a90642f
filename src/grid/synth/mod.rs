//! Form description + distortions -> synthetic scoresheet image with the true corners
//! of every move cell, for tests and benchmarks of the grid stage.
//!
//! Forms are drawn flat (rules, move numbers, header and footer boxes, pseudo
//! handwriting crossing cell borders), then warped by a rotation plus a perspective
//! (corner jitter), optionally turned upside down, and given grey paper, a margin
//! shadow, faint or partly missing rules and noise. Everything is seeded.

use image::GrayImage;
use shakmaty::Color;

mod draw;

use draw::{Canvas, XorShiftRng, apply, bilinear, homography};

/// Where the move numbers are printed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Numbers {
    /// A ruled column of this width (fraction of a move column) left of White.
    Ruled(f32),
    /// A shaded, unruled strip of this width (fraction of the White column) inside it.
    Strip(f32),
}

/// A printed form.
#[derive(Clone, Debug, PartialEq)]
pub struct Form {
    pub name: &'static str,
    pub width: u32,
    pub height: u32,
    pub blocks: usize,
    pub rows: usize,
    pub numbers: Numbers,
    /// Table box as fractions of the page: left, top, right, bottom.
    pub table: [f32; 4],
    /// Gap between blocks as a fraction of a move column (0: blocks share a rule).
    pub block_gap: f32,
    /// Column header row height in row pitches (0: none); `dark_black_header` fills
    /// the Black header cell dark as on the US club form.
    pub header_row: f32,
    pub dark_black_header: bool,
    /// Header fields (Event, names...) above the table and a footer box below.
    pub fields: bool,
    pub footer: bool,
}

impl Form {
    /// US club form as photographed in HCS: 2 x 30, numbers in a shaded strip,
    /// tightly cropped.
    pub fn us_club(width: u32, height: u32) -> Form {
        Form {
            name: "us-club",
            width,
            height,
            blocks: 2,
            rows: 30,
            numbers: Numbers::Strip(0.18),
            table: [0.02, 0.035, 0.98, 0.955],
            block_gap: 0.0,
            header_row: 1.0,
            dark_black_header: true,
            fields: false,
            footer: true,
        }
    }

    /// Chess.com-style sheet: 2 x 25 with header fields and a footer.
    pub fn chess_com(width: u32, height: u32) -> Form {
        Form {
            name: "chess-com",
            rows: 25,
            numbers: Numbers::Ruled(0.22),
            table: [0.07, 0.25, 0.93, 0.82],
            block_gap: 0.12,
            header_row: 1.5,
            dark_black_header: false,
            fields: true,
            ..Form::us_club(width, height)
        }
    }

    /// FIDE-style sheet: 2 x 30 with header fields and a footer.
    pub fn fide(width: u32, height: u32) -> Form {
        Form {
            name: "fide",
            rows: 30,
            numbers: Numbers::Ruled(0.25),
            table: [0.08, 0.22, 0.92, 0.88],
            block_gap: 0.0,
            ..Form::chess_com(width, height)
        }
    }

    /// Russian federation form «Бланк записи шахматной партии»: № / Белые / Чёрные.
    pub fn russian(width: u32, height: u32, rows: usize) -> Form {
        Form {
            name: if rows == 40 {
                "russian-40"
            } else {
                "russian-30"
            },
            rows,
            numbers: Numbers::Ruled(0.2),
            table: [0.06, if rows == 40 { 0.16 } else { 0.2 }, 0.94, 0.9],
            block_gap: 0.08,
            header_row: 1.3,
            ..Form::chess_com(width, height)
        }
    }

    /// Polish form: Nr / Biały / Czarny.
    pub fn polish(width: u32, height: u32) -> Form {
        Form {
            name: "polish",
            rows: 30,
            numbers: Numbers::Ruled(0.3),
            table: [0.1, 0.24, 0.9, 0.86],
            block_gap: 0.2,
            header_row: 1.6,
            ..Form::chess_com(width, height)
        }
    }
}

/// How the printed form is spoilt on its way to the image.
#[derive(Clone, Debug, PartialEq)]
pub struct Distortion {
    pub rotate_deg: f32,
    pub upside_down: bool,
    /// Each page corner moves by up to this fraction of the page size (perspective).
    pub perspective: f32,
    pub paper: u8,
    pub rule: u8,
    /// Fraction of rule segments (between crossings) left out.
    pub missing_rules: f32,
    /// Darkening at the left margin, 0..1.
    pub shadow: f32,
    pub noise: f32,
    /// Fraction of the moves written in (the rest of the cells stay blank).
    pub filled: f32,
    pub seed: u64,
}

impl Default for Distortion {
    fn default() -> Self {
        Distortion {
            rotate_deg: 0.0,
            upside_down: false,
            perspective: 0.0,
            paper: 235,
            rule: 40,
            missing_rules: 0.0,
            shadow: 0.0,
            noise: 0.0,
            filled: 0.6,
            seed: 1,
        }
    }
}

/// A move cell's true corners in image pixels: top-left, top-right, bottom-right,
/// bottom-left of the ruled cell (for White with a number strip: right of the strip).
#[derive(Clone, Debug, PartialEq)]
pub struct TrueCell {
    pub move_number: u32,
    pub side: Color,
    pub corners: [(f32, f32); 4],
}

/// A synthetic page and the truth about it.
#[derive(Clone, Debug)]
pub struct SynthPage {
    pub image: GrayImage,
    pub cells: Vec<TrueCell>,
}

/// Draws `form` flat, distorts it and returns the image with the true cell corners.
pub fn render(form: &Form, d: &Distortion) -> SynthPage {
    let mut rng = XorShiftRng::new(d.seed);
    let (w, h) = (form.width as usize, form.height as usize);
    let mut c = Canvas {
        w,
        h,
        px: vec![1.0; w * h],
    };
    let at = Layout::new(form, d, w, h);
    let mut cells = Vec::new();
    for b in 0..form.blocks {
        let x = block_rules(&mut c, &mut rng, form, d, &at, b);
        block_rows(&mut c, &mut rng, form, d, &at, b, &x, &mut cells);
    }
    if form.fields {
        fields(&mut c, &mut rng, &at);
    }
    if form.footer {
        footer(&mut c, &mut rng, form, &at);
    }
    cells.sort_by_key(|c| (c.move_number, c.side == Color::Black));
    warp(c, d, &mut rng, cells)
}

/// Where the table lies on the flat page and how its rules are drawn (page pixels).
struct Layout {
    left: f32,
    top: f32,
    right: f32,
    bottom: f32,
    /// The page's width and height.
    fw: f32,
    fh: f32,
    /// A rule's thickness and tone (paper 1).
    thick: f32,
    rule_v: f32,
    /// A move column's width, and the ruled number column's as a share of it (0: none).
    unit: f32,
    num_frac: f32,
    /// Row pitch, and the top of the first move row (below the header row).
    pitch: f32,
    rows_top: f32,
}

impl Layout {
    fn new(form: &Form, d: &Distortion, w: usize, h: usize) -> Layout {
        let (fw, fh) = (w as f32, h as f32);
        let [tl, tt, tr, tb] = form.table;
        let (left, top, right, bottom) = (tl * fw, tt * fh, tr * fw, tb * fh);
        let rule_v = f32::from(d.rule) / f32::from(d.paper.max(1));
        let thick = (fw / 700.0).max(1.5);
        // Column widths: per block number (ruled), white, black; gaps between blocks.
        let nb = form.blocks as f32;
        let num_frac = if let Numbers::Ruled(f) = form.numbers {
            f
        } else {
            0.0
        };
        let units = nb * (2.0 + num_frac) + (nb - 1.0) * form.block_gap;
        let unit = (right - left) / units;
        let pitch = (bottom - top) / (form.rows as f32 + form.header_row);
        let rows_top = top + form.header_row * pitch;
        Layout {
            left,
            top,
            right,
            bottom,
            fw,
            fh,
            thick,
            rule_v,
            unit,
            num_frac,
            pitch,
            rows_top,
        }
    }
}

/// The columns of one block on the flat page: the number column's left edge, White's
/// left edge, Black's left and right edges, and where White's writing starts (past a
/// number strip).
struct BlockX {
    nx0: f32,
    wx0: f32,
    bx0: f32,
    bx1: f32,
    strip_x: f32,
}

/// Draws block `b`'s rules and its header row (a heading over White and Black, or a
/// dark band over Black); returns where its columns lie.
fn block_rules(
    c: &mut Canvas,
    rng: &mut XorShiftRng,
    form: &Form,
    d: &Distortion,
    at: &Layout,
    b: usize,
) -> BlockX {
    let Layout {
        top,
        bottom,
        left,
        thick,
        rule_v,
        unit,
        num_frac,
        pitch,
        rows_top,
        ..
    } = *at;
    let bx = left + b as f32 * unit * (2.0 + num_frac + form.block_gap);
    let (nx0, wx0) = (bx, bx + num_frac * unit);
    let (bx0, bx1) = (wx0 + unit, wx0 + 2.0 * unit);
    let strip_x = if let Numbers::Strip(f) = form.numbers {
        wx0 + f * unit
    } else {
        wx0
    };
    // Vertical rules from the header row top to the table bottom.
    let mut xs = vec![wx0, bx0, bx1];
    if num_frac > 0.0 {
        xs.insert(0, nx0);
    }
    for &x in &xs {
        rules(
            c,
            rng,
            d,
            (x, top),
            (x, bottom),
            form.rows + 1,
            thick,
            rule_v,
        );
    }
    // Horizontal rules: header top, then every row line.
    let x_from = xs[0];
    for r in 0..=form.rows {
        let y = rows_top + r as f32 * pitch;
        rules(
            c,
            rng,
            d,
            (x_from, y),
            (bx1, y),
            xs.len() - 1,
            thick,
            rule_v,
        );
    }
    if form.header_row > 0.0 {
        rules(
            c,
            rng,
            d,
            (x_from, top),
            (bx1, top),
            xs.len() - 1,
            thick,
            rule_v,
        );
        c.scribble(
            rng,
            [
                wx0 + 0.3 * unit,
                top + 0.3 * pitch,
                wx0 + 0.7 * unit,
                rows_top - 0.3 * pitch,
            ],
            thick,
            0.2,
            5,
        );
        if form.dark_black_header {
            c.fill(bx0, top, bx1, rows_top, 0.3);
        } else {
            c.scribble(
                rng,
                [
                    bx0 + 0.3 * unit,
                    top + 0.3 * pitch,
                    bx0 + 0.7 * unit,
                    rows_top - 0.3 * pitch,
                ],
                thick,
                0.2,
                5,
            );
        }
    }
    BlockX {
        nx0,
        wx0,
        bx0,
        bx1,
        strip_x,
    }
}

/// Draws block `b`'s move numbers and the writing of the moves `d` fills, and adds its
/// cells (White's, then Black's, row by row) to `cells`.
#[allow(clippy::too_many_arguments)]
fn block_rows(
    c: &mut Canvas,
    rng: &mut XorShiftRng,
    form: &Form,
    d: &Distortion,
    at: &Layout,
    b: usize,
    x: &BlockX,
    cells: &mut Vec<TrueCell>,
) {
    let (pitch, rows_top, thick) = (at.pitch, at.rows_top, at.thick);
    let BlockX {
        nx0,
        wx0,
        bx0,
        bx1,
        strip_x,
    } = *x;
    let filled_moves = (form.blocks * form.rows) as f32 * d.filled;
    for r in 0..form.rows {
        let (y0, y1) = (
            rows_top + r as f32 * pitch,
            rows_top + (r + 1) as f32 * pitch,
        );
        let n = (b * form.rows + r + 1) as u32;
        let size = pitch * 0.4;
        if let Numbers::Strip(_) = form.numbers {
            c.fill(wx0, y0, strip_x, y1, 0.82);
            c.number(
                n,
                wx0 + 0.15 * (strip_x - wx0),
                y0 + 0.3 * pitch,
                size,
                0.25,
            );
        } else {
            c.number(n, nx0 + 0.2 * (wx0 - nx0), y0 + 0.3 * pitch, size, 0.25);
        }
        for (side, x0, x1) in [(Color::White, strip_x, bx0), (Color::Black, bx0, bx1)] {
            let ply = (n as f32 - 1.0) + if side == Color::Black { 0.5 } else { 0.0 };
            if ply < filled_moves {
                // Writing sits in the cell but may poke over its rules.
                let (cw, over) = (x1 - x0, rng.range(-0.1, 0.25) * pitch);
                let (sx0, sx1) = (
                    x0 + rng.range(0.05, 0.2) * cw,
                    x0 + rng.range(0.45, 0.9) * cw,
                );
                c.scribble(
                    rng,
                    [sx0, y0 + 0.2 * pitch - over, sx1, y1 - 0.2 * pitch + over],
                    thick * 1.3,
                    0.15,
                    7,
                );
            }
            let corners = [(x0, y0), (x1, y0), (x1, y1), (x0, y1)];
            cells.push(TrueCell {
                move_number: n,
                side,
                corners,
            });
        }
    }
}

/// Draws labelled lines above the table (event, date, names), and a rule under them.
fn fields(c: &mut Canvas, rng: &mut XorShiftRng, at: &Layout) {
    let Layout {
        left,
        top,
        right,
        fw,
        fh,
        thick,
        rule_v,
        ..
    } = *at;
    let y_end = top - 0.04 * fh;
    for i in 0..3 {
        let y = 0.04 * fh + (y_end - 0.04 * fh) * (i as f32 + 1.0) / 4.0;
        c.scribble(
            rng,
            [left, y - 0.02 * fh, left + 0.12 * fw, y - 0.005 * fh],
            thick,
            0.2,
            6,
        );
        c.line((left + 0.14 * fw, y), (right, y), thick, rule_v);
    }
    c.fill(left, y_end, right, y_end + thick * 2.0, rule_v);
}

/// Draws print below the table (signature lines), and with the form's fields a box
/// round it.
fn footer(c: &mut Canvas, rng: &mut XorShiftRng, form: &Form, at: &Layout) {
    let Layout {
        left,
        right,
        bottom,
        fw,
        thick,
        rule_v,
        pitch,
        ..
    } = *at;
    let y = bottom + 0.25 * pitch;
    c.scribble(
        rng,
        [left + 0.02 * fw, y, left + 0.3 * fw, y + 0.5 * pitch],
        thick,
        0.2,
        12,
    );
    c.scribble(
        rng,
        [left + 0.5 * fw, y, left + 0.8 * fw, y + 0.5 * pitch],
        thick,
        0.2,
        12,
    );
    if form.fields {
        for x in [left, right] {
            c.line(
                (x, bottom + 1.5 * pitch),
                (x, bottom + 4.0 * pitch),
                thick,
                rule_v,
            );
        }
        c.line(
            (left, bottom + 4.0 * pitch),
            (right, bottom + 4.0 * pitch),
            thick,
            rule_v,
        );
    }
}

/// Draws the rule from `a` to `b` as `segments` pieces, some left out.
#[allow(clippy::too_many_arguments)]
fn rules(
    c: &mut Canvas,
    rng: &mut XorShiftRng,
    d: &Distortion,
    a: (f32, f32),
    b: (f32, f32),
    segments: usize,
    thick: f32,
    v: f32,
) {
    let n = segments.max(1);
    for i in 0..n {
        if rng.next() < d.missing_rules {
            continue;
        }
        let (t0, t1) = (i as f32 / n as f32, (i + 1) as f32 / n as f32);
        let p = (a.0 + (b.0 - a.0) * t0, a.1 + (b.1 - a.1) * t0);
        let q = (a.0 + (b.0 - a.0) * t1, a.1 + (b.1 - a.1) * t1);
        c.line(p, q, thick, v);
    }
}

/// Maps the flat canvas through rotation + perspective (+ 180 degrees) onto a canvas
/// holding all of it, then applies paper tone, shadow and noise.
fn warp(c: Canvas, d: &Distortion, rng: &mut XorShiftRng, mut cells: Vec<TrueCell>) -> SynthPage {
    let (fw, fh) = (c.w as f32, c.h as f32);
    let (cx, cy) = (fw / 2.0, fh / 2.0);
    let (sin, cos) = d.rotate_deg.to_radians().sin_cos();
    let src = [(0.0, 0.0), (fw, 0.0), (fw, fh), (0.0, fh)];
    let mut dst = src.map(|(x, y)| {
        let (dx, dy) = (x - cx, y - cy);
        (cx + cos * dx - sin * dy, cy + sin * dx + cos * dy)
    });
    for p in &mut dst {
        p.0 += rng.range(-1.0, 1.0) * d.perspective * fw;
        p.1 += rng.range(-1.0, 1.0) * d.perspective * fh;
    }
    // Shift so that everything lands on the canvas, with a small border.
    let border = 0.01 * fw;
    let (minx, miny) = dst
        .iter()
        .fold((f32::MAX, f32::MAX), |a, p| (a.0.min(p.0), a.1.min(p.1)));
    let (maxx, maxy) = dst
        .iter()
        .fold((f32::MIN, f32::MIN), |a, p| (a.0.max(p.0), a.1.max(p.1)));
    let (ox, oy) = (border - minx, border - miny);
    let (ow, oh) = (maxx - minx + 2.0 * border, maxy - miny + 2.0 * border);
    let dst = dst.map(|p| (p.0 + ox, p.1 + oy));
    let fwd = homography(&src, &dst);
    let inv = homography(&dst, &src);
    let (ow, oh) = (ow.ceil() as usize, oh.ceil() as usize);
    let paper = f32::from(d.paper);
    let mut out = vec![0u8; ow * oh];
    for y in 0..oh {
        for x in 0..ow {
            let (sx, sy) = apply(&inv, x as f32, y as f32);
            let v = bilinear(&c, sx, sy);
            let shade = 1.0 - d.shadow * (1.0 - (x as f32 / (0.12 * ow as f32)).min(1.0)).powi(2);
            let noise = if d.noise > 0.0 {
                (rng.next() + rng.next() + rng.next() - 1.5) * 2.0 * d.noise
            } else {
                0.0
            };
            out[y * ow + x] = (v * paper * shade + noise).clamp(0.0, 255.0) as u8;
        }
    }
    let mut image = GrayImage::from_raw(ow as u32, oh as u32, out).expect("buffer size matches");
    for cell in &mut cells {
        cell.corners = cell.corners.map(|(x, y)| apply(&fwd, x, y));
    }
    if d.upside_down {
        image::imageops::rotate180_in_place(&mut image);
        let (w1, h1) = (ow as f32 - 1.0, oh as f32 - 1.0);
        for cell in &mut cells {
            let k = cell.corners.map(|(x, y)| (w1 - x, h1 - y));
            cell.corners = [k[2], k[3], k[0], k[1]];
        }
    }
    SynthPage { image, cells }
}

#[cfg(test)]
mod tests {
    use super::*;
    use draw::{apply, homography};

    #[test]
    fn homography_maps_the_four_points() {
        let src = [(0.0, 0.0), (10.0, 0.0), (10.0, 10.0), (0.0, 10.0)];
        let dst = [(1.0, 2.0), (12.0, 1.0), (11.0, 13.0), (0.0, 11.0)];
        let m = homography(&src, &dst);
        for (s, t) in src.iter().zip(&dst) {
            let (x, y) = apply(&m, s.0, s.1);
            assert!((x - t.0).abs() < 1e-3 && (y - t.1).abs() < 1e-3);
        }
    }

    #[test]
    fn renders_every_cell_of_a_form() {
        let page = render(&Form::russian(300, 420, 40), &Distortion::default());
        assert_eq!(page.cells.len(), 160);
        assert_eq!(
            (page.cells[1].move_number, page.cells[1].side),
            (1, Color::Black)
        );
        let dark = page.image.as_raw().iter().filter(|&&v| v < 120).count();
        assert!(dark > 1000, "{dark}");
    }
}
