//! Drawing primitives for synthetic forms: a seeded generator, a float canvas with
//! soft lines, digits and scribbles, bilinear sampling and 4-point homographies.

use crate::grid::overlay::DIGITS;

/// Small deterministic generator (xorshift64*); not the SplitMix64 `notation::Rng`
/// of the simulators, which draws other numbers.
pub struct XorShiftRng(u64);

impl XorShiftRng {
    pub fn new(seed: u64) -> XorShiftRng {
        XorShiftRng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    pub fn next(&mut self) -> f32 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 40) as f32 / (1u64 << 24) as f32
    }
    pub fn range(&mut self, a: f32, b: f32) -> f32 {
        a + (b - a) * self.next()
    }
}

/// A float canvas: 1 = paper, 0 = black; drawing takes the darker value.
pub struct Canvas {
    pub w: usize,
    pub h: usize,
    pub px: Vec<f32>,
}

impl Canvas {
    pub fn darken(&mut self, x: i64, y: i64, v: f32) {
        if x >= 0 && y >= 0 && (x as usize) < self.w && (y as usize) < self.h {
            let p = &mut self.px[y as usize * self.w + x as usize];
            *p = p.min(v);
        }
    }

    /// A segment `thick` pixels wide in tone `v` (0 black .. 1 paper), soft edges.
    pub fn line(&mut self, a: (f32, f32), b: (f32, f32), thick: f32, v: f32) {
        let r = thick / 2.0 + 1.0;
        let (x0, x1) = (
            (a.0.min(b.0) - r).floor() as i64,
            (a.0.max(b.0) + r).ceil() as i64,
        );
        let (y0, y1) = (
            (a.1.min(b.1) - r).floor() as i64,
            (a.1.max(b.1) + r).ceil() as i64,
        );
        let (dx, dy) = (b.0 - a.0, b.1 - a.1);
        let len2 = (dx * dx + dy * dy).max(1e-6);
        for y in y0..=y1 {
            for x in x0..=x1 {
                let (px, py) = (x as f32 - a.0, y as f32 - a.1);
                let t = ((px * dx + py * dy) / len2).clamp(0.0, 1.0);
                let d = ((px - t * dx).powi(2) + (py - t * dy).powi(2)).sqrt();
                let cover = (thick / 2.0 + 0.5 - d).clamp(0.0, 1.0);
                if cover > 0.0 {
                    self.darken(x, y, 1.0 - cover * (1.0 - v));
                }
            }
        }
    }

    pub fn fill(&mut self, x0: f32, y0: f32, x1: f32, y1: f32, v: f32) {
        for y in y0.round() as i64..y1.round() as i64 {
            for x in x0.round() as i64..x1.round() as i64 {
                self.darken(x, y, v);
            }
        }
    }

    /// A number in the 3 x 5 digit font, `size` pixels tall, top-left at `(x, y)`.
    pub fn number(&mut self, n: u32, x: f32, y: f32, size: f32, v: f32) {
        let s = size / 5.0;
        for (i, ch) in n.to_string().bytes().enumerate() {
            for (row, bits) in DIGITS[(ch - b'0') as usize].iter().enumerate() {
                for col in 0..3 {
                    if bits >> (2 - col) & 1 == 1 {
                        let gx = x + (i as f32 * 4.0 + col as f32) * s;
                        self.fill(
                            gx,
                            y + row as f32 * s,
                            gx + s * 0.9,
                            y + (row as f32 + 0.9) * s,
                            v,
                        );
                    }
                }
            }
        }
    }

    /// Pseudo handwriting or print: a zigzag of `n` strokes across the box.
    pub fn scribble(&mut self, rng: &mut XorShiftRng, b: [f32; 4], thick: f32, v: f32, n: usize) {
        let [x0, y0, x1, y1] = b;
        let mut p = (x0, rng.range(y0, y1));
        for i in 1..=n {
            let x =
                x0 + (x1 - x0) * i as f32 / n as f32 + rng.range(-0.3, 0.3) * (x1 - x0) / n as f32;
            let q = (x, rng.range(y0, y1));
            self.line(p, q, thick, v);
            p = q;
        }
    }
}

pub fn bilinear(c: &Canvas, x: f32, y: f32) -> f32 {
    let (x0, y0) = (x.floor(), y.floor());
    let (ax, ay) = (x - x0, y - y0);
    let get = |x: f32, y: f32| {
        if x < 0.0 || y < 0.0 || x >= c.w as f32 || y >= c.h as f32 {
            1.0
        } else {
            c.px[y as usize * c.w + x as usize]
        }
    };
    let top = get(x0, y0) * (1.0 - ax) + get(x0 + 1.0, y0) * ax;
    let bot = get(x0, y0 + 1.0) * (1.0 - ax) + get(x0 + 1.0, y0 + 1.0) * ax;
    top * (1.0 - ay) + bot * ay
}

pub fn apply(m: &[f32; 9], x: f32, y: f32) -> (f32, f32) {
    let w = m[6] * x + m[7] * y + m[8];
    (
        (m[0] * x + m[1] * y + m[2]) / w,
        (m[3] * x + m[4] * y + m[5]) / w,
    )
}

/// The homography taking the 4 points `src` to `dst` (row-major 3 x 3, h33 = 1).
pub fn homography(src: &[(f32, f32); 4], dst: &[(f32, f32); 4]) -> [f32; 9] {
    let mut a = [[0f64; 9]; 8];
    for i in 0..4 {
        let ((x, y), (u, v)) = (
            (f64::from(src[i].0), f64::from(src[i].1)),
            (f64::from(dst[i].0), f64::from(dst[i].1)),
        );
        a[2 * i] = [x, y, 1.0, 0.0, 0.0, 0.0, -u * x, -u * y, u];
        a[2 * i + 1] = [0.0, 0.0, 0.0, x, y, 1.0, -v * x, -v * y, v];
    }
    // Gaussian elimination with partial pivoting on the 8 x 8 system.
    for col in 0..8 {
        let piv = (col..8)
            .max_by(|&i, &j| a[i][col].abs().total_cmp(&a[j][col].abs()))
            .expect("rows");
        a.swap(col, piv);
        let pivot = a[col];
        for (r, row) in a.iter_mut().enumerate() {
            if r != col {
                let f = row[col] / pivot[col];
                for (x, p) in row.iter_mut().zip(pivot.iter()).skip(col) {
                    *x -= f * p;
                }
            }
        }
    }
    let mut m = [0f32; 9];
    for i in 0..8 {
        m[i] = (a[i][8] / a[i][i]) as f32;
    }
    m[8] = 1.0;
    m
}
