//! Grayscale raster helpers shared by page and grid: box downscaling, adaptive
//! thresholding to a dark-pixel mask, bilinear rotation, percentiles.

use image::GrayImage;

/// A binary image: `data[y * width + x]` is 1 for a dark (ink or ruling) pixel, else 0.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mask {
    pub width: usize,
    pub height: usize,
    pub data: Vec<u8>,
}

impl Mask {
    #[cfg(test)]
    pub fn get(&self, x: usize, y: usize) -> bool {
        self.data[y * self.width + x] != 0
    }
}

/// Shrinks `img` by the integer factor `k`, each output pixel the mean of a `k x k` block
/// (partial blocks at the right and bottom edges are averaged over what they hold).
pub fn downscale(img: &GrayImage, k: u32) -> GrayImage {
    if k <= 1 {
        return img.clone();
    }
    let (w, h) = img.dimensions();
    let (ow, oh) = (w.div_ceil(k), h.div_ceil(k));
    let src = img.as_raw();
    let mut out = Vec::with_capacity((ow * oh) as usize);
    let ku = k as usize;
    let mut acc = vec![0u32; w as usize];
    for oy in 0..oh {
        acc.iter_mut().for_each(|s| *s = 0);
        let ys = oy * k..((oy + 1) * k).min(h);
        let rows = ys.len() as u32;
        for y in ys {
            let row = &src[(y * w) as usize..((y + 1) * w) as usize];
            for (a, &v) in acc.iter_mut().zip(row) {
                *a += u32::from(v);
            }
        }
        for (ox, chunk) in acc.chunks(ku).enumerate() {
            let c = rows * chunk.len() as u32;
            let s: u32 = chunk.iter().sum();
            debug_assert!(ox < ow as usize);
            out.push(((s + c / 2) / c.max(1)) as u8);
        }
    }
    GrayImage::from_raw(ow, oh, out).expect("buffer size matches")
}

/// Marks pixels darker than their local mean: a pixel is dark when
/// `v < mean - max(min_contrast, rel_contrast * mean)`, the mean taken over the
/// `(2r+1)^2` window around it (clipped at the borders). Robust to grey paper and
/// shadows; faint ruling survives as long as it is `min_contrast` below its surround.
pub fn adaptive_dark(img: &GrayImage, r: usize, min_contrast: f32, rel_contrast: f32) -> Mask {
    let (w, h) = (img.width() as usize, img.height() as usize);
    let src = img.as_raw();
    // Integral image with wrapping u32 sums: box differences stay exact while a box
    // holds less than 2^32 / 255 pixels.
    let iw = w + 1;
    let mut integral = vec![0u32; iw * (h + 1)];
    for y in 0..h {
        let mut row_sum = 0u32;
        for x in 0..w {
            row_sum = row_sum.wrapping_add(u32::from(src[y * w + x]));
            integral[(y + 1) * iw + x + 1] = integral[y * iw + x + 1].wrapping_add(row_sum);
        }
    }
    let mut data = vec![0u8; w * h];
    // Per row: column sums of the window's rows (`col[x]` = sum of columns `< x`),
    // then each pixel's window sum is a difference of two of them.
    let mut col = vec![0u32; iw];
    for y in 0..h {
        let (y0, y1) = (y.saturating_sub(r), (y + r + 1).min(h));
        let (top, bottom) = (
            &integral[y0 * iw..(y0 + 1) * iw],
            &integral[y1 * iw..(y1 + 1) * iw],
        );
        for ((c, &b), &t) in col.iter_mut().zip(bottom).zip(top) {
            *c = b.wrapping_sub(t);
        }
        let rows = (y1 - y0) as f32;
        let row = &src[y * w..(y + 1) * w];
        let out = &mut data[y * w..(y + 1) * w];
        let dark = |v: u8, sum: u32, n: f32| -> u8 {
            // v < mean - max(c, rel * mean), multiplied through by the window size.
            let s = sum as f32;
            u8::from(f32::from(v) * n < s - (min_contrast * n).max(rel_contrast * s))
        };
        let edge = |x: usize| -> u8 {
            let (x0, x1) = (x.saturating_sub(r), (x + r + 1).min(w));
            dark(
                row[x],
                col[x1].wrapping_sub(col[x0]),
                rows * (x1 - x0) as f32,
            )
        };
        if w <= 2 * r + 1 {
            for (x, o) in out.iter_mut().enumerate() {
                *o = edge(x);
            }
            continue;
        }
        for x in (0..r).chain(w - r - 1..w) {
            out[x] = edge(x);
        }
        // Interior: full-width windows.
        let n = rows * (2 * r + 1) as f32;
        let interior = w - 2 * r - 1;
        for (((o, &v), &hi), &lo) in out[r..r + interior]
            .iter_mut()
            .zip(&row[r..r + interior])
            .zip(&col[2 * r + 1..2 * r + 1 + interior])
            .zip(&col[..interior])
        {
            *o = dark(v, hi.wrapping_sub(lo), n);
        }
    }
    Mask {
        width: w,
        height: h,
        data,
    }
}

/// The `q`-quantile (0..=1) of the pixel values of `img`.
pub fn percentile(img: &GrayImage, q: f32) -> u8 {
    let mut hist = [0u64; 256];
    for &v in img.as_raw() {
        hist[v as usize] += 1;
    }
    let total: u64 = hist.iter().sum();
    let target =
        ((total as f64 * f64::from(q.clamp(0.0, 1.0))) as u64).min(total.saturating_sub(1));
    let mut acc = 0;
    for (v, &c) in hist.iter().enumerate() {
        acc += c;
        if acc > target {
            return v as u8;
        }
    }
    255
}

/// Rotates `img` about its centre by `deg` degrees (positive turns the content
/// clockwise on screen, y pointing down), bilinear, onto an `out_w x out_h` canvas
/// centred on the same point; pixels coming from outside the source take `fill`.
///
/// Output pixel `p` samples the source at `c + R(-deg) (p - c')`, `c` and `c'` the
/// centres of source and output.
pub fn rotate(img: &GrayImage, deg: f32, fill: u8, out_w: u32, out_h: u32) -> GrayImage {
    let (w, h) = img.dimensions();
    let (sin, cos) = (-deg).to_radians().sin_cos();
    let (cx, cy) = ((w as f32 - 1.0) / 2.0, (h as f32 - 1.0) / 2.0);
    let (ocx, ocy) = ((out_w as f32 - 1.0) / 2.0, (out_h as f32 - 1.0) / 2.0);
    let src = img.as_raw();
    let (wi, hi) = (w as i32, h as i32);
    let sample = |x: i32, y: i32| -> i32 {
        if x < 0 || y < 0 || x >= wi || y >= hi {
            i32::from(fill)
        } else {
            i32::from(src[(y * wi + x) as usize])
        }
    };
    // Source positions in 16.16 fixed point, stepping by (cos, sin) per output pixel.
    const ONE: f32 = 65536.0;
    let (dfx, dfy) = ((cos * ONE).round() as i64, (sin * ONE).round() as i64);
    let stride = w as usize;
    let mut out = vec![fill; (out_w * out_h) as usize];
    let lerp = |a: i32, b: i32, c: i32, d: i32, ax: i32, ay: i32| -> u8 {
        let top = (a << 8) + (b - a) * ax;
        let bottom = (c << 8) + (d - c) * ax;
        (((top << 8) + (bottom - top) * ay + (1 << 15)) >> 16) as u8
    };
    // Output x range (as f64 bounds) where `f0 + x * df` stays in [lo, hi).
    let span = |f0: i64, df: i64, lo: i64, hi: i64, n: i64| -> (i64, i64) {
        if df == 0 {
            return if (lo..hi).contains(&f0) {
                (0, n)
            } else {
                (0, 0)
            };
        }
        let (a, b) = ((lo - f0) as f64 / df as f64, (hi - f0) as f64 / df as f64);
        let (a, b) = if df > 0 { (a, b) } else { (b, a) };
        ((a.ceil() as i64).clamp(0, n), (b.ceil() as i64).clamp(0, n))
    };
    for (y, row) in out.chunks_exact_mut(out_w as usize).enumerate() {
        let dy = y as f32 - ocy;
        let fx0 = ((cx + cos * (-ocx) - sin * dy) * ONE).round() as i64;
        let fy0 = ((cy + sin * (-ocx) + cos * dy) * ONE).round() as i64;
        let n = row.len() as i64;
        // Pixels whose 2 x 2 source neighbourhood lies inside: a tight loop.
        let (xa, xb) = span(fx0, dfx, 0, i64::from(wi - 1) << 16, n);
        let (ya, yb) = span(fy0, dfy, 0, i64::from(hi - 1) << 16, n);
        let (mut a0, mut b0) = (xa.max(ya), xb.min(yb).max(xa.max(ya)));
        // Guard the float bounds: both ends must really be inside (the rest is linear).
        let inside = |x: i64| {
            let (fx, fy) = (fx0 + x * dfx, fy0 + x * dfy);
            fx >= 0 && fy >= 0 && (fx >> 16) + 1 < i64::from(wi) && (fy >> 16) + 1 < i64::from(hi)
        };
        while a0 < b0 && !inside(a0) {
            a0 += 1;
        }
        while a0 < b0 && !inside(b0 - 1) {
            b0 -= 1;
        }
        for (x, px) in row
            .iter_mut()
            .enumerate()
            .take(b0 as usize)
            .skip(a0 as usize)
        {
            let (fx, fy) = (fx0 + x as i64 * dfx, fy0 + x as i64 * dfy);
            let i = (fy >> 16) as usize * stride + (fx >> 16) as usize;
            let (ax, ay) = (((fx >> 8) & 255) as i32, ((fy >> 8) & 255) as i32);
            let (r0, r1) = (&src[i..i + 2], &src[i + stride..i + stride + 2]);
            *px = lerp(
                r0[0].into(),
                r0[1].into(),
                r1[0].into(),
                r1[1].into(),
                ax,
                ay,
            );
        }
        // The rest: border pixels blend with `fill`, pixels beyond stay `fill`.
        for x in (0..a0).chain(b0..n) {
            let (fx, fy) = (fx0 + x * dfx, fy0 + x * dfy);
            let (x0, y0) = ((fx >> 16) as i32, (fy >> 16) as i32);
            if x0 >= -1 && y0 >= -1 && x0 < wi && y0 < hi {
                let (ax, ay) = (((fx >> 8) & 255) as i32, ((fy >> 8) & 255) as i32);
                let (a, b) = (sample(x0, y0), sample(x0 + 1, y0));
                let (c, d) = (sample(x0, y0 + 1), sample(x0 + 1, y0 + 1));
                row[x as usize] = lerp(a, b, c, d, ax, ay);
            }
        }
    }
    GrayImage::from_raw(out_w, out_h, out).expect("buffer size matches")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The definition, pixel by pixel.
    fn adaptive_dark_naive(img: &GrayImage, r: usize, c: f32, rel: f32) -> Vec<u8> {
        let (w, h) = (img.width() as usize, img.height() as usize);
        let mut out = vec![0u8; w * h];
        for y in 0..h {
            for x in 0..w {
                let (x0, x1) = (x.saturating_sub(r), (x + r + 1).min(w));
                let (y0, y1) = (y.saturating_sub(r), (y + r + 1).min(h));
                let mut s = 0u32;
                for yy in y0..y1 {
                    for xx in x0..x1 {
                        s += u32::from(img.get_pixel(xx as u32, yy as u32)[0]);
                    }
                }
                let n = ((y1 - y0) * (x1 - x0)) as f32;
                let v = f32::from(img.get_pixel(x as u32, y as u32)[0]) * n;
                out[y * w + x] = u8::from(v < s as f32 - (c * n).max(rel * s as f32));
            }
        }
        out
    }

    #[test]
    fn adaptive_dark_matches_its_definition() {
        let mut rng = crate::notation::Rng::new(3);
        for (w, h, r) in [(40, 30, 3), (7, 9, 3), (5, 5, 7), (64, 20, 12), (1, 1, 2)] {
            let img = GrayImage::from_fn(w, h, |_, _| image::Luma([(rng.unit() * 255.0) as u8]));
            let got = adaptive_dark(&img, r, 10.0, 0.08);
            assert_eq!(
                got.data,
                adaptive_dark_naive(&img, r, 10.0, 0.08),
                "{w}x{h} r={r}"
            );
            if w * h >= 100 {
                assert!(
                    got.data.contains(&1) && got.data.contains(&0),
                    "{w}x{h}: both kinds"
                );
            }
        }
    }
    use image::Luma;

    #[test]
    fn downscale_averages_blocks() {
        let img = GrayImage::from_raw(3, 2, vec![0, 100, 50, 200, 100, 50]).unwrap();
        let small = downscale(&img, 2);
        assert_eq!(small.dimensions(), (2, 1));
        assert_eq!(small.as_raw(), &vec![100, 50]);
    }

    #[test]
    fn adaptive_dark_finds_a_faint_line_on_grey_paper() {
        // Grey paper (150) with a darker shadow half (90) and a faint line 20 below it.
        let img = GrayImage::from_fn(20, 9, |x, y| {
            let paper = if x < 10 { 150 } else { 90 };
            Luma([if y == 4 { paper - 20 } else { paper }])
        });
        let mask = adaptive_dark(&img, 3, 8.0, 0.05);
        for x in (0..20).filter(|x| !(6..14).contains(x)) {
            assert!(mask.get(x, 4), "line pixel {x}");
            assert!(!mask.get(x, 1), "paper pixel {x}");
        }
        // Away from the abrupt shadow edge only the line is dark.
        let stray = (0..9).flat_map(|y| (0..20).map(move |x| (x, y)));
        assert!(
            stray
                .filter(|&(x, y)| y != 4 && !(8..13).contains(&x))
                .all(|(x, y)| !mask.get(x, y))
        );
    }

    #[test]
    fn percentile_of_a_ramp() {
        let img = GrayImage::from_fn(10, 1, |x, _| Luma([x as u8 * 10]));
        assert_eq!(percentile(&img, 0.0), 0);
        assert_eq!(percentile(&img, 0.5), 50);
        assert_eq!(percentile(&img, 1.0), 90);
    }

    #[test]
    fn rotate_matches_plain_bilinear_sampling() {
        let img = GrayImage::from_fn(37, 23, |x, y| Luma([((x * 37 + y * 91) % 256) as u8]));
        for deg in [-5.0f32, 0.7, 4.0] {
            let (ow, oh) = (40, 27);
            let r = rotate(&img, deg, 200, ow, oh);
            let (sin, cos) = (-deg).to_radians().sin_cos();
            for y in 0..oh {
                for x in 0..ow {
                    let (dx, dy) = (x as f32 - 19.5, y as f32 - 13.0);
                    let (sx, sy) = (18.0 + cos * dx - sin * dy, 11.0 + sin * dx + cos * dy);
                    let get = |x: f32, y: f32| {
                        if x < 0.0 || y < 0.0 || x >= 37.0 || y >= 23.0 {
                            200.0
                        } else {
                            f32::from(img.get_pixel(x as u32, y as u32)[0])
                        }
                    };
                    if sx < -1.0 || sy < -1.0 || sx >= 37.0 || sy >= 23.0 {
                        continue;
                    }
                    let (x0, y0) = (sx.floor(), sy.floor());
                    let (ax, ay) = (sx - x0, sy - y0);
                    let top = get(x0, y0) * (1.0 - ax) + get(x0 + 1.0, y0) * ax;
                    let bottom = get(x0, y0 + 1.0) * (1.0 - ax) + get(x0 + 1.0, y0 + 1.0) * ax;
                    let want = top * (1.0 - ay) + bottom * ay;
                    let got = f32::from(r.get_pixel(x, y)[0]);
                    assert!(
                        (got - want).abs() <= 2.0,
                        "deg {deg} at {x},{y}: {got} vs {want}"
                    );
                }
            }
        }
    }

    #[test]
    fn rotate_by_zero_is_identity_and_by_90_moves_a_pixel() {
        let mut img = GrayImage::from_pixel(5, 5, Luma([255]));
        img.put_pixel(4, 2, Luma([0]));
        assert_eq!(rotate(&img, 0.0, 255, 5, 5), img);
        // Clockwise by 90 degrees: the pixel right of the centre goes below it.
        let r = rotate(&img, 90.0, 255, 5, 5);
        assert_eq!(r.get_pixel(2, 4)[0], 0);
        assert_eq!(r.get_pixel(4, 2)[0], 255);
    }
}
