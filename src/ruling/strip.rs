//! Column of a grayscale page -> the unruled, shaded move-number strip at one of its
//! ends (the US club form prints numbers on a grey band inside the White column).

use image::GrayImage;

/// Contrast in grey levels below which a darker band does not count as a strip.
const MIN_CONTRAST: f32 = 7.0;

/// Looks for a shaded strip at the left (`left`) or right end of the column spanning
/// `[x0, x1] x [y0, y1]`: the per-x median of the column's pixels (its paper tone,
/// insensitive to digits, rules and handwriting) must stay darker than the column's
/// middle over 4-40% of its width and then step up to paper. Where handwriting
/// covers most rows the median is too dark, so the upper quartile is tried next.
///
/// Returns the x where the strip meets the paper and a strength (contrast in tens of
/// grey levels, at most 3), or `None` when there is no such strip.
pub fn strip_edge(
    gray: &GrayImage,
    x0: f32,
    x1: f32,
    y0: f32,
    y1: f32,
    left: bool,
) -> Option<(f32, f32)> {
    let (w, h) = (gray.width() as i64, gray.height() as i64);
    let xa = (x0.round() as i64 + 2).clamp(0, w);
    let xb = (x1.round() as i64 - 2).clamp(0, w);
    let ya = (y0.round() as i64).clamp(0, h);
    let yb = (y1.round() as i64).clamp(0, h);
    let width = (xb - xa) as usize;
    if width < 20 || yb - ya < 20 {
        return None;
    }
    let step = ((yb - ya) / 400).max(1) as usize;
    let hists: Vec<([u32; 256], u32)> = (xa..xb)
        .map(|x| {
            let mut hist = [0u32; 256];
            let mut n = 0;
            for y in (ya..yb).step_by(step) {
                hist[gray.get_pixel(x as u32, y as u32)[0] as usize] += 1;
                n += 1;
            }
            (hist, n)
        })
        .collect();
    [0.5, 0.75].into_iter().find_map(|q| {
        let profile = hists
            .iter()
            .map(|(hist, n)| quantile(hist, *n, q))
            .collect();
        edge_in_profile(profile, left).map(|(e, s)| {
            let x = if left {
                xa as f32 + e as f32
            } else {
                xb as f32 - e as f32
            };
            (x, s)
        })
    })
}

/// The strip edge in a per-x paper-tone profile across a column (reversed first for
/// the right end): distance from the column's end and strength.
fn edge_in_profile(mut profile: Vec<f32>, left: bool) -> Option<(usize, f32)> {
    let width = profile.len();
    if !left {
        profile.reverse();
    }
    // Smooth over 5 px so single dark columns (a rule's remains) do not count.
    let smooth: Vec<f32> = (0..width)
        .map(|i| {
            let (a, b) = (i.saturating_sub(2), (i + 3).min(width));
            profile[a..b].iter().sum::<f32>() / (b - a) as f32
        })
        .collect();
    let quantile = |a: usize, b: usize, q: f32| {
        let mut v = smooth[a..b].to_vec();
        v.sort_by(f32::total_cmp);
        v[((v.len() - 1) as f32 * q) as usize]
    };
    let (lo, hi) = (width / 25, width * 2 / 5);
    let band = quantile(lo, hi, 0.25);
    let paper = quantile(hi, width * 4 / 5, 0.5);
    let contrast = paper - band;
    if contrast < MIN_CONTRAST {
        return None;
    }
    // The band ends after its last dark position; the edge is where the profile then
    // climbs three quarters of the way to paper (shading often fades out slowly).
    let last_dark = (lo..hi)
        .rev()
        .find(|&i| smooth[i] <= band + 0.25 * contrast)?;
    let edge = (last_dark..hi + width / 10).find(|&i| smooth[i] >= band + 0.75 * contrast)?;
    // Most of the band must be dark: a slow gradient across the column is no strip.
    let dark = (lo..edge)
        .filter(|&i| smooth[i] <= band + 0.35 * contrast)
        .count();
    if edge <= lo || dark * 2 < edge - lo {
        return None;
    }
    // And it starts at the column's end: a hand that writes close to one rule darkens
    // the paper tone a little way in, with clean paper between it and the rule.
    let start = lo + (edge - lo).div_ceil(4);
    let dark_start = (lo..start)
        .filter(|&i| smooth[i] <= band + 0.35 * contrast)
        .count();
    if dark_start * 2 < start - lo {
        return None;
    }
    Some((edge, (contrast / 10.0).min(3.0)))
}

fn quantile(hist: &[u32; 256], n: u32, q: f32) -> f32 {
    let target = (n as f32 * q) as u32;
    let mut acc = 0;
    for (v, &c) in hist.iter().enumerate() {
        acc += c;
        if acc > target {
            return v as f32;
        }
    }
    255.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::Luma;

    /// A 100 x 60 column: paper 220, a band of 180 over x < 20, a few digits in it
    /// and handwriting strokes across.
    fn column(band_to: u32) -> GrayImage {
        GrayImage::from_fn(100, 60, |x, y| {
            let mut v = if x < band_to { 180 } else { 220 };
            if (4..8).contains(&x) && y % 10 < 6 {
                v = 40; // digits
            }
            if y % 10 == 3 && (30..70).contains(&x) {
                v = 30; // writing
            }
            Luma([v])
        })
    }

    #[test]
    fn finds_a_shaded_strip_on_the_left() {
        let (x, strength) = strip_edge(&column(20), 0.0, 99.0, 0.0, 59.0, true).unwrap();
        assert!((x - 20.0).abs() <= 2.0, "{x}");
        assert!(strength >= 3.0);
        assert!(strip_edge(&column(20), 0.0, 99.0, 0.0, 59.0, false).is_none());
    }

    #[test]
    fn no_strip_on_plain_paper() {
        assert!(strip_edge(&column(0), 0.0, 99.0, 0.0, 59.0, true).is_none());
    }

    /// A hand that starts every move a little way in from the left rule (a bold pen,
    /// strokes on most rows between x = 15 and 35) darkens the column's median there,
    /// with clean paper between it and the rule: no strip. (Such a strip once split a
    /// generated form's White column into "numbers" and a narrower White.)
    #[test]
    fn no_strip_where_a_hand_writes_a_little_way_in() {
        let page = GrayImage::from_fn(100, 60, |x, y| {
            if (15..35).contains(&x) && y % 10 < 7 {
                Luma([40])
            } else {
                Luma([220])
            }
        });
        assert!(strip_edge(&page, 0.0, 99.0, 0.0, 59.0, true).is_none());
    }
}
