//! Dark-pixel mask -> skew angle of the page's horizontal ruling, by maximising the
//! sharpness of the horizontal projection profile over candidate angles.

use crate::raster::Mask;

/// Angle in degrees (positive: lines descend to the right, y pointing down) that makes
/// the row-projection profile of `mask` sharpest, searched over `[-max_deg, max_deg]`
/// with a precision of about 0.02 degrees. Returns 0 when the mask holds no usable
/// structure.
///
/// Only pixels with a dark left and right neighbour count, so isolated speckle noise
/// does not vote; printed ruling dominates the score because its pixels pile up in a
/// few profile bins at the right angle.
pub fn estimate_skew(mask: &Mask, max_deg: f32) -> f32 {
    let (w, h) = (mask.width, mask.height);
    if w < 3 || h < 3 {
        return 0.0;
    }
    let cx = w as f32 / 2.0;
    let mut points: Vec<(f32, f32)> = Vec::new();
    for y in 0..h {
        let row = &mask.data[y * w..(y + 1) * w];
        for x in 1..w - 1 {
            if row[x] != 0 && row[x - 1] != 0 && row[x + 1] != 0 {
                points.push((x as f32 - cx, y as f32));
            }
        }
    }
    if points.len() < 50 {
        return 0.0;
    }
    // Offsets range over y +- half the width times tan(max).
    let pad = (cx * max_deg.to_radians().tan()).ceil() as usize + 2;
    let bins = h + 2 * pad;
    let mut hist = vec![0f32; bins + 1];
    // Each point is split between its two nearest bins, so the score varies smoothly
    // with the angle and peaks where the lines line up exactly.
    // The coarse search only has to land within its step of the peak: every
    // `stride`-th point does (at least a few thousand of them).
    let stride = std::cell::Cell::new(1);
    let mut score = |deg: f32| -> f64 {
        let t = deg.to_radians().tan();
        hist.iter_mut().for_each(|v| *v = 0.0);
        for &(dx, y) in points.iter().step_by(stride.get()) {
            let b = y - t * dx + pad as f32;
            if b >= 0.0 && (b as usize) < bins {
                // (b >= 0: truncation is the integer part, without a libm call.)
                let i = b as usize;
                let f = b - i as f32;
                hist[i] += 1.0 - f;
                hist[i + 1] += f;
            }
        }
        hist.iter().map(|&c| f64::from(c) * f64::from(c)).sum()
    };
    let search = |score: &mut dyn FnMut(f32) -> f64, lo: f32, hi: f32, step: f32| -> f32 {
        let n = ((hi - lo) / step).round() as i32;
        let values: Vec<(f32, f64)> = (0..=n)
            .map(|i| lo + i as f32 * step)
            .map(|a| (a, score(a)))
            .collect();
        let (best_i, _) = values
            .iter()
            .enumerate()
            .max_by(|a, b| a.1.1.total_cmp(&b.1.1))
            .expect("at least one angle");
        // Parabolic refinement between the neighbours of the best angle.
        if best_i > 0 && best_i + 1 < values.len() {
            let (s0, s1, s2) = (values[best_i - 1].1, values[best_i].1, values[best_i + 1].1);
            let denom = s0 - 2.0 * s1 + s2;
            if denom < 0.0 {
                let shift = (0.5 * (s0 - s2) / denom) as f32;
                return values[best_i].0 + shift.clamp(-0.5, 0.5) * step;
            }
        }
        values[best_i].0
    };
    let coarse_stride = (points.len() / 4000).clamp(1, 4);
    stride.set(coarse_stride);
    let coarse = search(&mut score, -max_deg, max_deg, 0.25);
    stride.set(1);
    search(&mut score, coarse - 0.3, coarse + 0.3, 0.03)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A mask with horizontal lines every 8 px, tilted by `deg`.
    fn lines(w: usize, h: usize, deg: f32) -> Mask {
        let t = deg.to_radians().tan();
        let mut data = vec![0u8; w * h];
        for y0 in (10..h - 10).step_by(8) {
            for x in 0..w {
                let y = (y0 as f32 + t * (x as f32 - w as f32 / 2.0)).round() as usize;
                if y < h {
                    data[y * w + x] = 1;
                }
            }
        }
        Mask {
            width: w,
            height: h,
            data,
        }
    }

    #[test]
    fn finds_the_tilt_of_ruled_lines() {
        for deg in [-4.5f32, -1.3, 0.0, 0.7, 3.2] {
            let got = estimate_skew(&lines(300, 200, deg), 6.0);
            assert!((got - deg).abs() < 0.1, "want {deg}, got {got}");
        }
    }

    #[test]
    fn empty_mask_means_no_skew() {
        let mask = Mask {
            width: 10,
            height: 10,
            data: vec![0; 100],
        };
        assert_eq!(estimate_skew(&mask, 5.0), 0.0);
    }
}
