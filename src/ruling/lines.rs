//! Dark-pixel mask -> ruling lines: long horizontal and vertical runs, their profiles
//! in narrow strips, profile peaks chained across strips into slightly bent lines.

use crate::raster::Mask;

/// Direction of a ruling line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Axis {
    /// A line running left to right; its position is a y that varies slowly with x.
    Horizontal,
    /// A line running top to bottom; its position is an x that varies slowly with y.
    Vertical,
}

impl Axis {
    /// A `w` x `h` raster (row by row) walked along this axis: how many lines run this
    /// way, how long each is, and the index of position `pos` on line `line`.
    pub fn walk(self, w: usize, h: usize) -> (usize, usize, impl Fn(usize, usize) -> usize) {
        let (lines, len) = match self {
            Axis::Horizontal => (h, w),
            Axis::Vertical => (w, h),
        };
        let index = move |line: usize, pos: usize| match self {
            Axis::Horizontal => line * w + pos,
            Axis::Vertical => pos * w + line,
        };
        (lines, len, index)
    }
}

/// Keeps the dark pixels lying on runs of at least `min_len` pixels along `axis`,
/// a run bridging gaps of up to `max_gap` light pixels (broken or faint ruling).
pub fn long_runs(mask: &Mask, axis: Axis, min_len: usize, max_gap: usize) -> Mask {
    if axis == Axis::Vertical {
        return long_vertical_runs(mask, min_len, max_gap, 0);
    }
    let (w, h) = (mask.width, mask.height);
    let mut out = vec![0u8; w * h];
    let (lines, len, index) = axis.walk(w, h);
    for line in 0..lines {
        let mut pos = 0;
        while pos < len {
            if mask.data[index(line, pos)] == 0 {
                pos += 1;
                continue;
            }
            // A run starts at `pos`; extend it over gaps of at most `max_gap`.
            let start = pos;
            let mut end = pos + 1; // one past the last dark pixel
            let mut probe = end;
            while probe < len && probe - end <= max_gap {
                if mask.data[index(line, probe)] != 0 {
                    end = probe + 1;
                }
                probe += 1;
            }
            if end - start >= min_len {
                for p in start..end {
                    let i = index(line, p);
                    out[i] = mask.data[i];
                }
            }
            pos = end.max(start + 1);
        }
    }
    Mask {
        width: w,
        height: h,
        data: out,
    }
}

/// [`long_runs`] along columns, scanning the mask row by row (memory order): each
/// column keeps its open run, closed when a gap grows past `max_gap`. A pixel counts
/// as dark in its column when it or a neighbour up to `sideways` pixels to either side
/// is (0: the pixel alone); the mask's own dark pixels on the long runs are kept. A
/// rule tilted a few degrees (the far side of a phone photo in perspective, once the
/// page's mean skew is taken out) moves a pixel to the side every 20 to 30 rows and
/// breaks into runs shorter than `min_len` in every pixel column; with `sideways` 1
/// it keeps its length.
pub fn long_vertical_runs(mask: &Mask, min_len: usize, max_gap: usize, sideways: usize) -> Mask {
    let (w, h) = (mask.width, mask.height);
    let mut out = vec![0u8; w * h];
    let mut wide = vec![0u8; w];
    // Per column: first and last dark row of the open run (`usize::MAX`: none).
    let mut start = vec![usize::MAX; w];
    let mut last = vec![0usize; w];
    let close = |x: usize, start: usize, last: usize, out: &mut [u8]| {
        if last + 1 - start >= min_len {
            for y in start..=last {
                out[y * w + x] = mask.data[y * w + x];
            }
        }
    };
    for y in 0..h {
        let row = &mask.data[y * w..(y + 1) * w];
        wide.fill(0);
        for (x, &v) in row.iter().enumerate() {
            if v != 0 {
                let (a, b) = (x.saturating_sub(sideways), (x + sideways).min(w - 1));
                wide[a..=b].fill(1);
            }
        }
        for (x, &v) in wide.iter().enumerate() {
            if v == 0 {
                continue;
            }
            if start[x] != usize::MAX && y - last[x] - 1 <= max_gap {
                last[x] = y;
            } else {
                if start[x] != usize::MAX {
                    close(x, start[x], last[x], &mut out);
                }
                start[x] = y;
                last[x] = y;
            }
        }
    }
    for x in 0..w {
        if start[x] != usize::MAX {
            close(x, start[x], last[x], &mut out);
        }
    }
    Mask {
        width: w,
        height: h,
        data: out,
    }
}

/// Marks in `rule` the dark pixels of `ink` (`w` x `h`, row by row) that lie on runs
/// of at least `min` along `axis`, a run allowed to step to a neighbouring line; returns
/// the lines (rows or columns) holding one.
///
/// Unlike [`long_runs`], which follows one line and bridges its gaps (a page's long,
/// broken rules), this bridges no gap but takes a run over three lines, and its dark
/// pixels in all three are the rule's: it takes the short rules of boxes printed round
/// words out of a band of print (`form::print_below`), where a rule on a page turned a
/// little steps a pixel now and then and the print's letters beside it must stay.
pub fn long_stepped_runs(
    ink: &[bool],
    w: usize,
    h: usize,
    axis: Axis,
    min: usize,
    rule: &mut [bool],
) -> Vec<usize> {
    let (lines, len, index) = axis.walk(w, h);
    let mut found = Vec::new();
    for line in 0..lines {
        let band = line.saturating_sub(1)..(line + 2).min(lines);
        let near = |pos: usize| band.clone().any(|l| ink[index(l, pos)]);
        let mut pos = 0;
        while pos < len {
            let run = (pos..len).take_while(|&k| near(k)).count();
            if run >= min {
                for k in pos..pos + run {
                    for l in band.clone() {
                        rule[index(l, k)] |= ink[index(l, k)];
                    }
                }
                found.push(line);
            }
            pos += run.max(1);
        }
    }
    found
}

/// A ruling line found in a run mask: points `(along, across)` in increasing `along`
/// order, e.g. `(x, y)` for a horizontal line. Between points its position is
/// interpolated, beyond its ends held at the end points' slope for a short way.
#[derive(Clone, Debug, PartialEq)]
pub struct Line {
    pub axis: Axis,
    pub points: Vec<(f32, f32)>,
    /// First and last position along the line covered by the strips it was seen in.
    pub start: f32,
    pub end: f32,
}

impl Line {
    /// Position across the line at `t` along it (linear between points, linear
    /// extrapolation from the end segments).
    pub fn at(&self, t: f32) -> f32 {
        let p = &self.points;
        if p.len() == 1 {
            return p[0].1;
        }
        let i = p.partition_point(|q| q.0 <= t).clamp(1, p.len() - 1);
        let ((t0, a0), (t1, a1)) = (p[i - 1], p[i]);
        if (t1 - t0).abs() < f32::EPSILON {
            a0
        } else {
            a0 + (a1 - a0) * (t - t0) / (t1 - t0)
        }
    }

    /// Mean position across the line.
    pub fn mean(&self) -> f32 {
        self.points.iter().map(|p| p.1).sum::<f32>() / self.points.len() as f32
    }

    /// Length covered along the line.
    pub fn span(&self) -> f32 {
        self.end - self.start
    }
}

/// Settings of [`find_lines`].
#[derive(Clone, Copy, Debug)]
pub struct StripParams {
    /// Number of strips the image is cut into along the lines' direction.
    pub strips: usize,
    /// Fraction of a strip's length a line must cover to count as seen there.
    pub min_cover: f32,
    /// Largest jump across, in pixels, between the positions of one line in two
    /// neighbouring strips.
    pub max_step: f32,
    /// Most strips in a row a line may go unseen and still be chained.
    pub max_missing: usize,
    /// Fewest strips a line must be seen in.
    pub min_strips: usize,
}

/// Finds the ruling lines along `axis` in a run mask: the mask is cut into strips
/// along the axis; in each strip the profile across (dark count per row for
/// horizontal lines, summed over 3 neighbouring rows) has a peak where a line
/// crosses; peaks are chained from strip to strip into [`Line`]s.
pub fn find_lines(runs: &Mask, axis: Axis, p: &StripParams) -> Vec<Line> {
    let along_len = match axis {
        Axis::Horizontal => runs.width,
        Axis::Vertical => runs.height,
    };
    let strips = p.strips.clamp(1, along_len.max(1));
    let mut chains: Vec<Chain> = Vec::new();
    for s in 0..strips {
        let a0 = s * along_len / strips;
        let a1 = (s + 1) * along_len / strips;
        if a1 <= a0 {
            continue;
        }
        let profile = strip_profile(runs, axis, a0, a1);
        let peaks = profile_peaks(&profile, p.min_cover * (a1 - a0) as f32);
        let centre = (a0 + a1) as f32 / 2.0;
        // Each peak joins the nearest live chain within reach, each chain takes one.
        let mut taken = vec![false; chains.len()];
        let mut joins: Vec<(f32, usize, usize)> = Vec::new();
        for (pi, &(pos, _)) in peaks.iter().enumerate() {
            for (ci, c) in chains.iter().enumerate() {
                if s - c.last_strip > p.max_missing + 1 {
                    continue;
                }
                let gap = (s - c.last_strip) as f32;
                let d = (pos - c.predict(centre)).abs();
                if d <= p.max_step * gap.sqrt() {
                    joins.push((d, pi, ci));
                }
            }
        }
        joins.sort_by(|a, b| a.0.total_cmp(&b.0));
        let mut used = vec![false; peaks.len()];
        for (_, pi, ci) in joins {
            if used[pi] || taken[ci] {
                continue;
            }
            used[pi] = true;
            taken[ci] = true;
            chains[ci].push(centre, peaks[pi].0, s, a1 as f32);
        }
        for (pi, &(pos, _)) in peaks.iter().enumerate() {
            if !used[pi] {
                chains.push(Chain {
                    points: vec![(centre, pos)],
                    last_strip: s,
                    start: a0 as f32,
                    end: a1 as f32,
                });
            }
        }
    }
    chains
        .into_iter()
        .filter(|c| c.points.len() >= p.min_strips)
        .map(|c| Line {
            axis,
            points: c.points,
            start: c.start,
            end: c.end,
        })
        .collect()
}

/// Joins lines that continue one another: `b` starts after `a` (at most `max_gap`
/// later, or overlapping it) and ends after it, and where they meet or overlap they
/// lie within `max_jump` of each other, as when a rule is interrupted, kinks at a fold
/// of the paper or was chained twice over a few strips. Closest pairs join first.
pub fn merge_fragments(mut lines: Vec<Line>, max_gap: f32, max_jump: f32) -> Vec<Line> {
    loop {
        let mut best: Option<(f32, usize, usize)> = None;
        for (i, a) in lines.iter().enumerate() {
            for (j, b) in lines.iter().enumerate() {
                if i == j || b.start <= a.start || b.end <= a.end || b.start - a.end > max_gap {
                    continue;
                }
                // Distance over the overlap, or at the junction when there is none.
                let (ta, pa) = *a.points.last().expect("non-empty");
                let overlap: Vec<f32> = b
                    .points
                    .iter()
                    .filter(|p| p.0 <= ta)
                    .map(|p| (a.at(p.0) - p.1).abs())
                    .collect();
                let jump = if overlap.is_empty() {
                    (pa - b.points[0].1).abs()
                } else {
                    overlap.iter().sum::<f32>() / overlap.len() as f32
                };
                if jump <= max_jump && best.is_none_or(|x| jump < x.0) {
                    best = Some((jump, i, j));
                }
            }
        }
        let Some((_, i, j)) = best else { return lines };
        let b = lines.remove(j);
        let a = &mut lines[if j < i { i - 1 } else { i }];
        let tb = b.points[0].0;
        a.points.retain(|p| p.0 < tb);
        a.points.extend(b.points);
        a.end = b.end;
    }
}

struct Chain {
    points: Vec<(f32, f32)>,
    last_strip: usize,
    start: f32,
    end: f32,
}

impl Chain {
    /// Expected position across at `t`, from the last two points' slope (damped).
    fn predict(&self, t: f32) -> f32 {
        let n = self.points.len();
        let (tl, al) = self.points[n - 1];
        if n < 2 {
            return al;
        }
        let (tp, ap) = self.points[n - 2];
        let slope = ((al - ap) / (tl - tp).max(1.0)).clamp(-0.05, 0.05);
        al + slope * (t - tl)
    }

    fn push(&mut self, t: f32, a: f32, strip: usize, end: f32) {
        self.points.push((t, a));
        self.last_strip = strip;
        self.end = end;
    }
}

/// Dark counts per position across, over `[a0, a1)` along.
fn strip_profile(runs: &Mask, axis: Axis, a0: usize, a1: usize) -> Vec<f32> {
    let w = runs.width;
    match axis {
        Axis::Horizontal => (0..runs.height)
            .map(|y| {
                runs.data[y * w + a0..y * w + a1]
                    .iter()
                    .filter(|&&v| v != 0)
                    .count() as f32
            })
            .collect(),
        Axis::Vertical => {
            let mut prof = vec![0f32; w];
            for y in a0..a1 {
                for (x, &v) in runs.data[y * w..(y + 1) * w].iter().enumerate() {
                    if v != 0 {
                        prof[x] += 1.0;
                    }
                }
            }
            prof
        }
    }
}

/// Peaks of a profile summed over 3 neighbours: `(position, height)` of each local
/// maximum of at least `min_height`, the position refined to the centroid of the
/// 3-wide window, no two peaks closer than 3 positions (the higher wins).
pub fn profile_peaks(profile: &[f32], min_height: f32) -> Vec<(f32, f32)> {
    let n = profile.len();
    if n == 0 {
        return Vec::new();
    }
    let get = |i: isize| {
        if i < 0 || i as usize >= n {
            0.0
        } else {
            profile[i as usize]
        }
    };
    let sum3: Vec<f32> = (0..n as isize)
        .map(|i| get(i - 1) + get(i) + get(i + 1))
        .collect();
    let mut peaks: Vec<(usize, f32)> = Vec::new();
    for i in 0..n {
        let v = sum3[i];
        if v < min_height.max(1.0) {
            continue;
        }
        let lo = i.saturating_sub(2);
        let hi = (i + 3).min(n);
        // Plateaus: keep the first position of equal maxima.
        let is_max = (lo..hi).all(|j| sum3[j] < v || (sum3[j] == v && j >= i));
        if is_max {
            peaks.push((i, v));
        }
    }
    peaks
        .into_iter()
        .map(|(i, v)| {
            let (a, b, c) = (get(i as isize - 1), get(i as isize), get(i as isize + 1));
            let centroid = ((i as f32 - 1.0) * a + i as f32 * b + (i as f32 + 1.0) * c)
                / (a + b + c).max(1e-6);
            (centroid, v)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mask(rows: &[&str]) -> Mask {
        let width = rows[0].len();
        let data = rows
            .iter()
            .flat_map(|r| r.bytes().map(|b| u8::from(b == b'#')))
            .collect();
        Mask {
            width,
            height: rows.len(),
            data,
        }
    }

    #[test]
    fn long_runs_keep_lines_and_drop_specks() {
        let m = mask(&["#.#.#####.", "..#.......", "###.##....", "..#......."]);
        let h = long_runs(&m, Axis::Horizontal, 5, 1);
        assert_eq!(h.data[..10], [1, 0, 1, 0, 1, 1, 1, 1, 1, 0]);
        assert_eq!(h.data[10..].iter().filter(|&&v| v != 0).count(), 5); // "###.##" bridged
        let v = long_runs(&m, Axis::Vertical, 4, 0);
        assert_eq!(v.data.iter().filter(|&&v| v != 0).count(), 4); // only column 2
        assert!(v.get(2, 3));
    }

    #[test]
    fn vertical_runs_are_horizontal_runs_of_the_transpose() {
        let mut rng = crate::notation::Rng::new(11);
        for (w, h, density) in [(30, 50, 0.5), (17, 80, 0.8), (1, 9, 0.9), (40, 3, 0.6)] {
            let data: Vec<u8> = (0..w * h).map(|_| u8::from(rng.unit() < density)).collect();
            let m = Mask {
                width: w,
                height: h,
                data,
            };
            let t = Mask {
                width: h,
                height: w,
                data: (0..w * h).map(|i| m.data[(i % h) * w + i / h]).collect(),
            };
            for (min_len, max_gap) in [(1, 0), (4, 1), (6, 2), (3, 0)] {
                let v = long_runs(&m, Axis::Vertical, min_len, max_gap);
                let ht = long_runs(&t, Axis::Horizontal, min_len, max_gap);
                for x in 0..w {
                    for y in 0..h {
                        assert_eq!(v.data[y * w + x], ht.data[x * h + y], "{w}x{h} ({x},{y})");
                    }
                }
            }
        }
    }

    #[test]
    fn peaks_of_a_profile() {
        let prof = [
            0.0, 0.0, 5.0, 9.0, 5.0, 0.0, 0.0, 0.0, 1.0, 0.0, 4.0, 4.0, 0.0,
        ];
        let peaks = profile_peaks(&prof, 6.0);
        assert_eq!(peaks.len(), 2, "{peaks:?}");
        assert!((peaks[0].0 - 3.0).abs() < 1e-4);
        assert!((peaks[1].0 - 10.5).abs() < 0.6);
    }

    #[test]
    fn merges_fragments_of_one_rule() {
        let line = |pts: &[(f32, f32)], start, end| Line {
            axis: Axis::Vertical,
            points: pts.to_vec(),
            start,
            end,
        };
        let lines = vec![
            line(&[(150.0, 31.0), (250.0, 30.0)], 100.0, 300.0),
            line(&[(50.0, 40.0), (80.0, 36.0)], 0.0, 100.0),
            line(&[(50.0, 90.0), (250.0, 90.0)], 0.0, 300.0),
        ];
        let merged = merge_fragments(lines, 50.0, 8.0);
        assert_eq!(merged.len(), 2);
        let joined = merged.iter().find(|l| l.mean() < 60.0).unwrap();
        assert_eq!(
            (joined.start, joined.end, joined.points.len()),
            (0.0, 300.0, 4)
        );
    }

    #[test]
    fn chains_a_slightly_tilted_broken_line() {
        // A horizontal line at y = 10 + x / 40 across 200 px, missing over x in 80..110,
        // and a second one at y = 30.
        let (w, h) = (200, 40);
        let mut m = Mask {
            width: w,
            height: h,
            data: vec![0; w * h],
        };
        for x in 0..w {
            if !(80..110).contains(&x) {
                m.data[(10 + x / 40) * w + x] = 1;
            }
            m.data[30 * w + x] = 1;
        }
        let p = StripParams {
            strips: 10,
            min_cover: 0.5,
            max_step: 2.0,
            max_missing: 2,
            min_strips: 3,
        };
        let lines = find_lines(&m, Axis::Horizontal, &p);
        assert_eq!(lines.len(), 2, "{lines:?}");
        let tilted = lines.iter().find(|l| l.mean() < 20.0).unwrap();
        assert!(
            (tilted.at(190.0) - 14.75).abs() < 1.0,
            "{}",
            tilted.at(190.0)
        );
        assert!((tilted.at(95.0) - 12.4).abs() < 1.0);
        assert_eq!((tilted.start, tilted.end), (0.0, 200.0));
    }
}
