//! Table columns -> blocks: (number,) White and Black columns grouped left to right,
//! their row lines merged into one set per block, header or footer rows trimmed, and
//! every block given the same number of rows.

use image::GrayImage;

use super::lines::Line;
use super::shapes::{Block, Column, Edge, Table, TableFailure};
use super::strip;

/// Groups the table columns into blocks of (number,) white and black columns, read
/// as upright. Returns the blocks and the upside-down votes: a narrow ruled column
/// or a shaded strip at the right of its block votes for upside down, at the left
/// against.
pub fn find_blocks(t: &Table, gray: &GrayImage) -> Result<(Vec<Block>, f32), TableFailure> {
    let cols = &t.columns;
    let n = cols.len();
    let max_w = cols.iter().map(Column::width).fold(0.0, f32::max);
    let wide: Vec<bool> = cols.iter().map(|c| c.width() >= 0.55 * max_w).collect();
    // A number column is narrow but not a sliver between the outer rule and the crop.
    let numbery: Vec<bool> = cols
        .iter()
        .map(|c| {
            let edge = matches!(c.left, Edge::ImageLeft) || matches!(c.right, Edge::ImageRight);
            (0.08 * max_w..0.45 * max_w).contains(&c.width()) && !edge
        })
        .collect();
    let adjacent = |a: usize, b: usize| (cols[a].x1 - cols[b].x0).abs() <= (0.04 * max_w).max(6.0);
    let pair_at = |i: usize| i + 1 < n && wide[i] && wide[i + 1] && adjacent(i, i + 1);
    let (mut strip_votes, mut number_votes) = (0.0, 0.0);
    let mut strips: Vec<Option<(f32, f32)>> = vec![None; n];
    for i in 0..n {
        if wide[i] {
            let (y0, y1) = y_range(&cols[i]);
            let left = strip::strip_edge(gray, cols[i].x0, cols[i].x1, y0, y1, true);
            let right = strip::strip_edge(gray, cols[i].x0, cols[i].x1, y0, y1, false);
            strip_votes += right.map_or(0.0, |s| s.1) - left.map_or(0.0, |s| s.1);
            strips[i] = left;
        } else if numbery[i] {
            let before = i >= 2 && pair_at(i - 2) && adjacent(i - 1, i);
            let after = pair_at(i + 1) && adjacent(i, i + 1);
            number_votes += f32::from(u8::from(before)) - f32::from(u8::from(after));
        }
    }
    // Ruled number columns outvote shading: a column's paper tone also darkens at one
    // end under a photo's shadow or a hand that writes close to one rule.
    let votes = if number_votes != 0.0 {
        number_votes
    } else {
        strip_votes
    };
    let mut blocks = Vec::new();
    let mut i = 0;
    while i < n {
        if numbery[i] && pair_at(i + 1) && adjacent(i, i + 1) {
            blocks.push(block(t, Some(i), i + 1, i + 2, None));
            i += 3;
        } else if pair_at(i) {
            blocks.push(block(t, None, i, i + 1, strips[i].map(|s| s.0)));
            i += 2;
        } else {
            i += 1;
        }
    }
    if blocks.is_empty() {
        let wide_count = wide.iter().filter(|&&w| w).count();
        return Err(TableFailure::Columns(format!(
            "cannot group {n} table columns ({wide_count} wide) into white/black blocks"
        )));
    }
    for b in &mut blocks {
        trim_rows(t, gray, b);
    }
    Ok((blocks, votes))
}

/// Rules down the middle of the wide columns that follow a number column: where a
/// form prints no rule between White and Black, such a column holds both, and this
/// rule splits it (for [`find_blocks`] to try again). Empty when there is none.
pub fn missing_inner_rules(t: &Table) -> Vec<Line> {
    let cols = &t.columns;
    let max_w = cols.iter().map(Column::width).fold(0.0, f32::max);
    let mut out = Vec::new();
    for w in cols.windows(2) {
        let (num, wide) = (&w[0], &w[1]);
        let numbery = (0.08 * max_w..0.45 * max_w).contains(&num.width());
        let adjacent = (num.x1 - wide.x0).abs() <= (0.04 * max_w).max(6.0);
        let (Edge::Line(a), Edge::Line(b)) = (wide.left, wide.right) else {
            continue;
        };
        if !(numbery
            && adjacent
            && wide.width() >= 0.8 * max_w
            && wide.width() >= 2.5 * num.width())
        {
            continue;
        }
        let (l, r) = (&t.vlines[a], &t.vlines[b]);
        let (start, end) = (l.start.max(r.start), l.end.min(r.end));
        if end <= start {
            continue;
        }
        let steps = 16;
        let points = (0..=steps)
            .map(|k| {
                let y = start + (end - start) * k as f32 / steps as f32;
                (y, (l.at(y) + r.at(y)) / 2.0)
            })
            .collect();
        out.push(Line {
            axis: l.axis,
            points,
            start,
            end,
        });
    }
    out
}

fn y_range(c: &Column) -> (f32, f32) {
    (c.centre[0].y, c.centre.last().expect("non-empty").y)
}

/// A block with its row lines merged over its columns: a line one column missed (its
/// rule hidden under a header band, too faint, cut by the crop) is taken from another
/// column of the block, shifted by how far apart the two columns' nearby lines lie.
fn block(
    t: &Table,
    number: Option<usize>,
    white: usize,
    black: usize,
    strip_x: Option<f32>,
) -> Block {
    let ids: Vec<usize> = number.into_iter().chain([white, black]).collect();
    let reference = *ids
        .iter()
        .max_by_key(|&&c| t.columns[c].centre.len())
        .expect("columns");
    let offsets: Vec<i32> = ids
        .iter()
        .map(|&c| row_offset(&t.columns[reference], &t.columns[c]))
        .collect();
    let lo = offsets.iter().copied().min().unwrap_or(0);
    let hi = ids
        .iter()
        .zip(&offsets)
        .map(|(&c, &k)| k + t.columns[c].rows.len() as i32)
        .max()
        .unwrap_or(0);
    let own = |m: usize, j: i32| -> Option<(f32, f32)> {
        let rows = &t.columns[ids[m]].rows;
        let i = j - offsets[m];
        (0..rows.len() as i32)
            .contains(&i)
            .then(|| rows[i as usize])
    };
    // With three columns a line must be seen in two of them (a stray line over one
    // column, e.g. header print, does not add a row); with two, in either.
    let need = if ids.len() >= 3 { 2 } else { 1 };
    let votes = |j: i32| (0..ids.len()).filter(|&m| own(m, j).is_some()).count();
    let first = (lo..hi).find(|&j| votes(j) >= need);
    let last = (lo..hi).rev().find(|&j| votes(j) >= need);
    let (lo, hi) = match (first, last) {
        (Some(a), Some(b)) => (a, b + 1),
        _ => (lo, hi),
    };
    let merged = |m: usize| -> Vec<(f32, f32)> {
        (lo..hi)
            .map(|j| {
                if let Some(r) = own(m, j) {
                    return r;
                }
                for d in (0..ids.len()).filter(|&d| d != m) {
                    let Some(donor) = own(d, j) else { continue };
                    // Offset between the two columns over their nearest shared lines.
                    let mut shared: Vec<(i32, (f32, f32))> = (lo..hi)
                        .filter_map(|i| Some((i, sub(own(m, i)?, own(d, i)?))))
                        .collect();
                    shared.sort_by_key(|(i, _)| (i - j).abs());
                    shared.truncate(3);
                    if shared.is_empty() {
                        continue;
                    }
                    let n = shared.len() as f32;
                    let (dl, dr) = shared
                        .iter()
                        .fold((0.0, 0.0), |a, (_, d)| (a.0 + d.0 / n, a.1 + d.1 / n));
                    return (donor.0 + dl, donor.1 + dr);
                }
                extended_row(&t.columns[ids[m]].rows, j - offsets[m])
            })
            .collect()
    };
    let at = |c: usize| ids.iter().position(|&x| x == c).expect("member");
    let seen = (lo..hi)
        .map(|j| {
            (0..ids.len()).any(|m| {
                let i = j - offsets[m];
                let centre = &t.columns[ids[m]].centre;
                (0..centre.len() as i32).contains(&i) && centre[i as usize].found.is_some()
            })
        })
        .collect();
    Block {
        number,
        white,
        black,
        strip_x,
        white_rows: merged(at(white)),
        black_rows: merged(at(black)),
        seen,
    }
}

fn sub(a: (f32, f32), b: (f32, f32)) -> (f32, f32) {
    (a.0 - b.0, a.1 - b.1)
}

/// Index shift `k` such that line `j` of `other` is line `j + k` of `reference`: the
/// shift with the smallest mean distance over an overlap of at least half the shorter.
fn row_offset(reference: &Column, other: &Column) -> i32 {
    let (r, o) = (&reference.centre, &other.centre);
    let mut best = (f32::INFINITY, 0);
    for k in -(o.len() as i32)..=r.len() as i32 {
        let pairs: Vec<f32> = (0..o.len() as i32)
            .filter_map(|j| {
                let rj = j + k;
                (rj >= 0 && (rj as usize) < r.len())
                    .then(|| (r[rj as usize].y - o[j as usize].y).abs())
            })
            .collect();
        if pairs.len() * 2 < o.len().min(r.len()) {
            continue;
        }
        let mean = pairs.iter().sum::<f32>() / pairs.len() as f32;
        if mean < best.0 {
            best = (mean, k);
        }
    }
    best.1
}

/// Row line `j` of a column, extrapolated with the end pitch outside its range.
pub fn extended_row(rows: &[(f32, f32)], j: i32) -> (f32, f32) {
    let n = rows.len() as i32;
    if (0..n).contains(&j) {
        return rows[j as usize];
    }
    if n < 2 {
        return rows[0];
    }
    let (a, b, steps) = if j < 0 {
        (rows[1], rows[0], -j)
    } else {
        (rows[n as usize - 2], rows[n as usize - 1], j - n + 1)
    };
    let s = steps as f32;
    (b.0 + s * (b.0 - a.0), b.1 + s * (b.1 - a.1))
}

/// Median grey level of a box (clipped to the image; 255 when empty).
fn median_grey(gray: &GrayImage, x0: f32, y0: f32, x1: f32, y1: f32) -> f32 {
    let (w, h) = (gray.width() as f32, gray.height() as f32);
    let (xa, xb) = (x0.max(0.0) as u32, x1.min(w).max(0.0) as u32);
    let (ya, yb) = (y0.max(0.0) as u32, y1.min(h).max(0.0) as u32);
    let mut hist = [0u32; 256];
    let mut n = 0;
    for y in (ya..yb).step_by(2) {
        for x in (xa..xb).step_by(2) {
            hist[gray.get_pixel(x, y)[0] as usize] += 1;
            n += 1;
        }
    }
    if n == 0 {
        return 255.0;
    }
    let mut acc = 0;
    for (v, &c) in hist.iter().enumerate() {
        acc += c;
        if acc * 2 > n {
            return v as f32;
        }
    }
    255.0
}

/// How far down from a block's top row [`trim_rows`] looks for the gap under a
/// form's header.
const TOP_GAP_ROWS: usize = 3;

/// Drops rows at either end of a block that are no move rows: a row filled dark in
/// one of its columns (a header band), or a row without the rule between White and
/// Black (a header or footer box the row rules ran into), and at the top, everything
/// down to an unruled gap under the form's header.
fn trim_rows(t: &Table, gray: &GrayImage, b: &mut Block) {
    let (wc, bc) = (&t.columns[b.white], &t.columns[b.black]);
    let write_x0 = b.strip_x.unwrap_or(wc.x0);
    let cell = |rows: &[(f32, f32)], r: usize, x0: f32, x1: f32| -> f32 {
        let top = rows[r].0.max(rows[r].1);
        let bottom = rows[r + 1].0.min(rows[r + 1].1);
        let (mx, my) = (((x1 - x0) * 0.08).max(3.0), ((bottom - top) * 0.2).max(2.0));
        median_grey(gray, x0 + mx, top + my, x1 - mx, bottom - my)
    };
    let profile = |b: &Block| -> Vec<(f32, f32)> {
        (0..b.white_rows.len().saturating_sub(1))
            .map(|r| {
                (
                    cell(&b.white_rows, r, write_x0, wc.x1),
                    cell(&b.black_rows, r, bc.x0, bc.x1),
                )
            })
            .collect()
    };
    loop {
        let p = profile(b);
        if p.len() < 4 {
            return;
        }
        // A header band: one column of the row printed dark, the other not (compared
        // within the row, so a shadow darkening whole rows does not count). A header
        // or footer box: no rule between the block's columns along the row. A row
        // whose outer line was seen nowhere: a gap in the rhythm bridged at the end.
        let mut diffs: Vec<f32> = p.iter().map(|q| q.0 - q.1).collect();
        diffs.sort_by(f32::total_cmp);
        let usual = diffs[diffs.len() / 2];
        let not_a_move_row =
            |r: usize, q: &(f32, f32)| (q.0 - q.1 - usual).abs() > 45.0 || !separated(t, b, r);
        // The gap between a form's header and the table's top border: a row near the
        // top whose upper line was seen nowhere and that no column rule crosses. The
        // rows above it are the header's underlined fields, which the row rhythm can
        // run on into (often on a blurred page).
        let gap = (1..p.len().min(TOP_GAP_ROWS + 1)).find(|&r| !b.seen[r] && !separated(t, b, r));
        if let Some(r) = gap {
            b.white_rows.drain(..=r);
            b.black_rows.drain(..=r);
            b.seen.drain(..=r);
        } else if !b.seen[0] || not_a_move_row(0, &p[0]) {
            b.white_rows.remove(0);
            b.black_rows.remove(0);
            b.seen.remove(0);
        } else if !b.seen[p.len()] || not_a_move_row(p.len() - 1, &p[p.len() - 1]) {
            b.white_rows.pop();
            b.black_rows.pop();
            b.seen.pop();
        } else {
            return;
        }
    }
}

/// Whether a rule inside the block (between White and Black, or between the number
/// column and White) crosses row `r`: dark pixels within 2 px of the rule's course
/// over an unbroken 60% of the row's height (print crossing the spot is shorter). A
/// dashed or dotted rule ([`dashed`]) is unbroken with its gaps bridged.
fn separated(t: &Table, b: &Block, r: usize) -> bool {
    let (top, bottom) = (b.black_rows[r].0, b.black_rows[r + 1].0);
    let margin = 0.1 * (bottom - top);
    let (y0, y1) = ((top + margin) as i64, (bottom - margin) as i64);
    let h = t.dark.height as i64;
    let (y0, y1) = (y0.max(0), y1.min(h));
    let need = (0.6 * (bottom - top)) as i64;
    let inner = [
        Some(t.columns[b.black].left),
        b.number.map(|_| t.columns[b.white].left),
    ];
    let (first, last) = (b.black_rows[0].0, b.black_rows[b.black_rows.len() - 1].0);
    inner.into_iter().flatten().any(|edge| {
        let gap = if dashed(t, edge, first, last) {
            RULE_GAP
        } else if clean_beside(t, edge, y0, y1) {
            // A rule broken here and there by a pixel (dots seen through a blur)
            // where no noise could fill the breaks.
            1
        } else {
            0
        };
        let (mut start, mut end, mut longest) = (None, 0i64, 0i64);
        for y in y0..y1 {
            if !dark_on_rule(t, edge, y) {
                continue;
            }
            if start.is_none() || y - end - 1 > gap {
                start = Some(y);
            }
            end = y;
            longest = longest.max(y - start.unwrap_or(y) + 1);
        }
        longest >= need
    })
}

/// Whether the paper 4-6 px either side of `edge`'s course from `y0` to `y1` is clean:
/// dark on under a tenth of the rows (noise there would fill a rule's breaks too).
fn clean_beside(t: &Table, edge: Edge, y0: i64, y1: i64) -> bool {
    let dark = (y0..y1)
        .filter(|&y| dark_beside(t, edge, y, [-6, -5, -4, 4, 5, 6]))
        .count();
    y1 > y0 && (dark as f32) < 0.1 * (y1 - y0) as f32
}

/// Light pixels a dashed rule's run may skip in [`separated`] (the gaps of the
/// generated dotted forms are 3 px at full size).
const RULE_GAP: i64 = 3;

/// Whether the dark mask has a pixel within 2 px of `edge`'s course at row `y`.
pub(super) fn dark_on_rule(t: &Table, edge: Edge, y: i64) -> bool {
    dark_beside(t, edge, y, -2..=2)
}

/// Whether the dark mask has a pixel at row `y` at one of the offsets `dx` from
/// `edge`'s course.
fn dark_beside(t: &Table, edge: Edge, y: i64, dx: impl IntoIterator<Item = i64>) -> bool {
    let w = t.dark.width as i64;
    let x = t.edge_x(edge, y as f32).round() as i64;
    dx.into_iter()
        .map(|d| x + d)
        .any(|x| x >= 0 && x < w && t.dark.data[(y * w + x) as usize] != 0)
}

/// Whether the rule along `edge` from `y0` to `y1` (a block's height) is dashed or
/// dotted: its gaps short ([`RULE_GAP`] px or less) over 90% of its rows, and either
/// seen on under 85% of them or broken often (a gap every 12 px or closer: dots seen
/// through a blur). A solid rule is seen nearly everywhere with few breaks, on a
/// noisy or shadowed page too; writing or noise beside no rule leaves long gaps.
fn dashed(t: &Table, edge: Edge, y0: f32, y1: f32) -> bool {
    let (y0, y1) = ((y0.max(0.0)) as i64, (y1 as i64).min(t.dark.height as i64));
    if y1 - y0 < 20 {
        return false;
    }
    let (mut seen, mut bridged, mut breaks, mut last) = (0i64, 0i64, 0i64, None::<i64>);
    for y in y0..y1 {
        if dark_on_rule(t, edge, y) {
            seen += 1;
            bridged += match last {
                Some(l) if y - l - 1 <= RULE_GAP => y - l,
                _ => 1,
            };
            breaks += i64::from(last.is_some_and(|l| y - l > 1));
            last = Some(y);
        }
    }
    let n = (y1 - y0) as f32;
    bridged as f32 >= 0.9 * n && ((seen as f32) < 0.85 * n || breaks as f32 * 12.0 >= n)
}

/// Gives every block the same number of rows: a block missing rows at its top or
/// bottom (its first rule hidden under a header band or cut by the crop) is
/// extended to the rows of the block with most rows, aligned by height.
pub fn unify_rows(t: &mut Table) {
    let Some(most) = t.blocks.iter().map(|b| b.white_rows.len()).max() else {
        return;
    };
    let Some(reference) = t
        .blocks
        .iter()
        .find(|b| b.white_rows.len() == most)
        .cloned()
    else {
        return;
    };
    let pitch =
        (reference.white_rows[most - 1].0 - reference.white_rows[0].0) / (most - 1).max(1) as f32;
    t.pitch = pitch;
    for b in &mut t.blocks {
        let n = b.white_rows.len();
        if n == most {
            continue;
        }
        let shift = ((b.white_rows[0].0 - reference.white_rows[0].0) / pitch).round() as i32;
        let top = shift.clamp(0, (most - n) as i32);
        let extend = |rows: &[(f32, f32)]| -> Vec<(f32, f32)> {
            (-top..(most as i32 - top))
                .map(|j| extended_row(rows, j))
                .collect()
        };
        b.white_rows = extend(&b.white_rows);
        b.black_rows = extend(&b.black_rows);
        let seen = std::mem::take(&mut b.seen);
        b.seen = (-top..(most as i32 - top))
            .map(|j| j >= 0 && seen.get(j as usize).copied().unwrap_or(false))
            .collect();
    }
}
