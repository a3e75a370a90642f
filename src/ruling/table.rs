//! Analysis-scale grayscale page -> table geometry: ruling lines, columns between
//! vertical lines with the evenly spaced row lines crossing each, blocks of
//! number / white / black columns, and row boundaries shared across each block.

use image::GrayImage;

use super::blocks;
use super::lines::{self, Axis, Line, StripParams};
use super::rows::{self, RowLine};
use super::shapes::{AnalysisParams, Column, Edge, Table, TableFailure};
use crate::raster;

/// Most pixels a rule may stray to the side along its runs on a later look.
const MAX_STRAY: usize = 2;

/// [`analyse`], looked at again with rules allowed to stray one pixel to the side and
/// then two where the first look finds no table, or a block without a number column.
/// A phone photo's perspective tilts the rules on its far side by a few degrees more
/// than the page's skew, and they break up: the strongest perspective a hand-held
/// photo shows needs two. Where the thin rules inside the blocks break and the bold
/// outer ones do not, the first look reads each block as one wide column and two
/// blocks as one; the number columns at the left of the blocks tell it
/// from a form printed without numbers. A later look is taken where it finds more
/// blocks; a scan's table stays as the first look found it, and the first failure is
/// the one reported.
pub fn analyse_leaning(gray: &GrayImage, p: &AnalysisParams) -> Result<Table, TableFailure> {
    let first = analyse(gray, p);
    let blocks = match &first {
        Err(TableFailure::NoRuling) => return first,
        Err(_) => 0,
        Ok(t)
            if t.blocks
                .iter()
                .all(|b| b.number.is_some() || b.strip_x.is_some()) =>
        {
            return first;
        }
        Ok(t) => t.blocks.len(),
    };
    (p.sideways + 1..=MAX_STRAY)
        .find_map(|sideways| {
            analyse(gray, &AnalysisParams { sideways, ..*p })
                .ok()
                .filter(|t| t.blocks.len() > blocks)
        })
        .map_or(first, Ok)
}

/// Finds the ruling lines of `gray` and the move table they form.
pub fn analyse(gray: &GrayImage, p: &AnalysisParams) -> Result<Table, TableFailure> {
    let (w, h) = (gray.width() as usize, gray.height() as usize);
    let (dark, hlines, vlines) = ruling_lines(gray, p);
    if hlines.len() < p.min_rows {
        return Err(TableFailure::NoRuling);
    }
    let mut table = Table {
        width: w,
        height: h,
        hlines,
        vlines,
        columns: Vec::new(),
        blocks: Vec::new(),
        pitch: 0.0,
        dark,
        upside_down_votes: 0.0,
    };
    table.columns = find_columns(&table, gray, p.min_rows);
    if table.columns.is_empty() {
        return Err(TableFailure::NoRows);
    }
    // Vertical lines covering little of the table's height (a long pen stroke, a
    // box beside the table) split columns that are not there: drop them and redo.
    let (y0, y1) = table
        .columns
        .iter()
        .map(|c| (c.centre[0].y, c.centre.last().expect("non-empty").y))
        .fold((f32::MAX, f32::MIN), |a, b| (a.0.min(b.0), a.1.max(b.1)));
    let before = table.vlines.len();
    table
        .vlines
        .retain(|l| l.end.min(y1) - l.start.max(y0) >= 0.6 * (y1 - y0));
    if table.vlines.len() < before {
        table.columns = find_columns(&table, gray, p.min_rows);
        if table.columns.is_empty() {
            return Err(TableFailure::NoRows);
        }
    }
    let (blocks, votes) = match blocks::find_blocks(&table, gray) {
        Ok(found) => found,
        Err(failure) => {
            // A form printed without the rule between White and Black: each wide
            // column right of a number column holds both; try again with a rule down
            // its middle.
            let mids = blocks::missing_inner_rules(&table);
            if mids.is_empty() {
                return Err(failure);
            }
            table.vlines.extend(mids);
            table.vlines.sort_by(|a, b| a.mean().total_cmp(&b.mean()));
            table.columns = find_columns(&table, gray, p.min_rows);
            blocks::find_blocks(&table, gray).map_err(|_| failure)?
        }
    };
    table.blocks = blocks;
    table.upside_down_votes = votes;
    blocks::unify_rows(&mut table);
    Ok(table)
}

/// The dark pixels of `gray` and the ruling lines among them: horizontal lines, and
/// vertical lines (fragments of one rule joined) covering a fifth of the page's height
/// or more, left to right.
fn ruling_lines(gray: &GrayImage, p: &AnalysisParams) -> (raster::Mask, Vec<Line>, Vec<Line>) {
    let (w, h) = (gray.width() as usize, gray.height() as usize);
    let dark = raster::adaptive_dark(gray, 12, p.min_contrast, p.min_contrast / 250.0);
    let hruns = lines::long_runs(&dark, Axis::Horizontal, (w / 50).max(12), 2);
    let vruns = lines::long_vertical_runs(&dark, (h / 20).max(12), 2, p.sideways);
    let hp = StripParams {
        strips: 40,
        min_cover: 0.4,
        max_step: 3.0,
        max_missing: 3,
        min_strips: 3,
    };
    let vp = StripParams {
        strips: 16,
        min_cover: 0.5,
        max_step: 8.0,
        max_missing: 3,
        min_strips: 3,
    };
    let hlines = lines::find_lines(&hruns, Axis::Horizontal, &hp);
    let found = lines::find_lines(&vruns, Axis::Vertical, &vp);
    let mut vlines: Vec<Line> =
        lines::merge_fragments(found, 0.25 * h as f32, (w as f32 * 0.015).max(6.0))
            .into_iter()
            .filter(|l| l.span() >= 0.2 * h as f32)
            .collect();
    vlines.sort_by(|a, b| a.mean().total_cmp(&b.mean()));
    (dark, hlines, vlines)
}

/// Every interval between neighbouring boundaries that is crossed by an evenly spaced
/// run of at least `min_rows` rows, keeping those that agree with the main one. An
/// interval whose own rhythm disagrees (large writing whose strokes cross it as often
/// as its rules do) is tried again at the main column's pitch.
fn find_columns(t: &Table, gray: &GrayImage, min_rows: usize) -> Vec<Column> {
    let mut edges = vec![Edge::ImageLeft];
    edges.extend((0..t.vlines.len()).map(Edge::Line));
    edges.push(Edge::ImageRight);
    let found: Vec<Option<Column>> = edges
        .windows(2)
        .map(|pair| column_at(t, gray, (pair[0], pair[1]), min_rows, None))
        .collect();
    // Keep the columns that agree with the one with most rows on pitch and height.
    let Some(main) = found
        .iter()
        .flatten()
        .max_by_key(|c| c.centre.len())
        .cloned()
    else {
        return Vec::new();
    };
    let (m0, m1) = (main.centre[0].y, main.centre.last().expect("non-empty").y);
    let agrees = |c: &Column| {
        let (c0, c1) = (c.centre[0].y, c.centre.last().expect("non-empty").y);
        let overlap = c1.min(m1) - c0.max(m0);
        (c.pitch - main.pitch).abs() <= 0.15 * main.pitch && overlap >= 0.5 * (m1 - m0)
    };
    edges
        .windows(2)
        .zip(found)
        .filter_map(|(pair, c)| match c {
            Some(c) if agrees(&c) => Some(c),
            _ => column_at(t, gray, (pair[0], pair[1]), min_rows, Some(main.pitch))
                .filter(|c| agrees(c)),
        })
        .collect()
}

/// The column between two boundaries, when an evenly spaced run of at least
/// `min_rows` rows crosses it: at the pitch most of its crossing lines agree on, or
/// at `pitch` when given.
fn column_at(
    t: &Table,
    gray: &GrayImage,
    (left, right): (Edge, Edge),
    min_rows: usize,
    pitch: Option<f32>,
) -> Option<Column> {
    let ymid = t.height as f32 / 2.0;
    let (x0, x1) = (t.edge_x(left, ymid), t.edge_x(right, ymid));
    let width = x1 - x0;
    if width < 8.0 {
        return None;
    }
    let xc = (x0 + x1) / 2.0;
    let mut crossing: Vec<(f32, usize)> = t
        .hlines
        .iter()
        .enumerate()
        .filter(|(_, l)| l.end.min(x1) - l.start.max(x0) >= 0.35 * width)
        .map(|(i, l)| (l.at(xc), i))
        .collect();
    crossing.sort_by(|a, b| a.0.total_cmp(&b.0));
    let ys: Vec<f32> = crossing.iter().map(|c| c.0).collect();
    let ids: Vec<usize> = crossing.iter().map(|c| c.1).collect();
    let pitch = match pitch {
        Some(p) => p,
        None => rows::dominant_pitch(&ys, 6.0)?,
    };
    let mut centre = rows::regular_run(&ys, &ids, pitch);
    rows::tidy(&mut centre, &ys, &ids);
    trim_beyond_rules(t, &mut centre, left, right);
    if centre.len() < min_rows + 1
        || centre.iter().filter(|r| r.found.is_some()).count() * 10 < centre.len() * 7
    {
        return None;
    }
    let mut rows = edge_rows(t, &centre, x0, x1);
    let pitch = (centre.last().expect("non-empty").y - centre[0].y) / (centre.len() - 1) as f32;
    if let Some(dy) = band_edge_shift(gray, x0, x1, centre[0].y, pitch) {
        rows[0] = (rows[0].0 + dy, rows[0].1 + dy);
    }
    Some(Column {
        left,
        right,
        x0,
        x1,
        rows,
        centre,
        pitch,
    })
}

/// Share of the rows from `y0` to `y1` where the dark mask shows `edge`'s rule.
fn rule_cover(t: &Table, edge: Edge, y0: f32, y1: f32) -> f32 {
    let (a, b) = (y0.max(0.0) as i64, (y1 as i64).min(t.dark.height as i64));
    if b <= a {
        return 0.0;
    }
    (a..b).filter(|&y| blocks::dark_on_rule(t, edge, y)).count() as f32 / (b - a) as f32
}

/// Drops rows at either end of a column that lie beyond its vertical rules: lines
/// above or below the table that keep its rhythm (header fields, the boxes of a
/// result line) are no move rows when the rules on the column's sides stop short of
/// them. Only rules seen along most of the column count (not an image edge, nor a
/// rule put in where a form prints none). A row shows a rule when the rule covers its
/// middle as well as 60% of the rule's median row does (at least a quarter).
fn trim_beyond_rules(t: &Table, centre: &mut Vec<RowLine>, left: Edge, right: Edge) {
    let n = centre.len();
    if n < 3 {
        return;
    }
    let (top, bottom) = (centre[0].y, centre[n - 1].y);
    let drawn: Vec<Edge> = [left, right]
        .into_iter()
        .filter(|&e| matches!(e, Edge::Line(_)) && rule_cover(t, e, top, bottom) >= 0.5)
        .collect();
    if drawn.is_empty() {
        return;
    }
    // Each rule's share of each row's middle, against its median over the rows.
    let cover: Vec<Vec<f32>> = drawn
        .iter()
        .map(|&e| {
            centre
                .windows(2)
                .map(|w| {
                    let m = 0.2 * (w[1].y - w[0].y);
                    rule_cover(t, e, w[0].y + m, w[1].y - m)
                })
                .collect()
        })
        .collect();
    let mut inside = vec![false; n - 1];
    for c in &cover {
        let mut sorted = c.clone();
        sorted.sort_by(f32::total_cmp);
        let floor = (0.6 * sorted[sorted.len() / 2]).max(0.25);
        for (i, &v) in c.iter().enumerate() {
            inside[i] |= v >= floor;
        }
    }
    // The table runs from the first to the last two rows in a row that show a rule: a
    // rule may miss a row inside the table (a gap in the print), and a mark beyond it
    // may meet a rule's course for one row (a box's edge, a printed word).
    let pair = |i: usize| inside[i] && inside[i + 1];
    let (Some(first), Some(last)) = (
        (0..n - 2).find(|&i| pair(i)),
        (0..n - 2).rev().find(|&i| pair(i)),
    ) else {
        return;
    };
    centre.truncate(last + 3);
    centre.drain(..first);
}

/// Where a dark band (a printed header cell) sits right above a column's first row
/// line, the line found is pulled into the band (its pixels near the edge are darker
/// than their surroundings); returns how far down the band's lower edge really is.
fn band_edge_shift(gray: &GrayImage, x0: f32, x1: f32, y: f32, pitch: f32) -> Option<f32> {
    let (w, h) = (gray.width() as i64, gray.height() as i64);
    let (xa, xb) = ((x0 + 3.0).max(0.0) as i64, (x1 - 3.0).min(w as f32) as i64);
    if xb - xa < 8 || pitch < 8.0 {
        return None;
    }
    // Median grey across the column, for each row from 0.4 pitch above to 0.4 below.
    let reach = (0.4 * pitch) as i64;
    let y0 = y.round() as i64;
    let tone = |yy: i64| -> Option<f32> {
        if !(0..h).contains(&yy) {
            return None;
        }
        let mut v: Vec<u8> = (xa..xb)
            .step_by(2)
            .map(|x| gray.get_pixel(x as u32, yy as u32)[0])
            .collect();
        v.sort_unstable();
        Some(f32::from(v[v.len() / 2]))
    };
    let profile: Vec<(i64, f32)> = (y0 - reach..=y0 + reach)
        .filter_map(|yy| Some((yy, tone(yy)?)))
        .collect();
    let mean = |a: i64, b: i64| {
        let v: Vec<f32> = profile
            .iter()
            .filter(|p| (a..b).contains(&p.0))
            .map(|p| p.1)
            .collect();
        (!v.is_empty()).then(|| v.iter().sum::<f32>() / v.len() as f32)
    };
    let third = (reach / 3).max(1);
    let (band, paper) = (
        mean(y0 - reach, y0 - third)?,
        mean(y0 + third, y0 + reach + 1)?,
    );
    if paper - band < 50.0 {
        return None;
    }
    let mid = (band + paper) / 2.0;
    let edge = profile.iter().find(|p| p.0 >= y0 - third && p.1 >= mid)?.0;
    Some((edge - y0) as f32)
}

/// Row lines of a column at its left and right edges: seen lines are read off their
/// ruling line, interpolated ones placed proportionally between their neighbours.
fn edge_rows(t: &Table, centre: &[RowLine], x0: f32, x1: f32) -> Vec<(f32, f32)> {
    let (xl, xr) = (x0 + 1.0, x1 - 1.0);
    let seen: Vec<Option<(f32, f32)>> = centre
        .iter()
        .map(|r| r.found.map(|i| (t.hlines[i].at(xl), t.hlines[i].at(xr))))
        .collect();
    let seen_idx: Vec<usize> = (0..centre.len()).filter(|&i| seen[i].is_some()).collect();
    (0..centre.len())
        .map(|j| {
            if let Some(v) = seen[j] {
                return v;
            }
            // Interpolate between the nearest seen lines on both sides, or extrapolate
            // from the two nearest on one side, in proportion to the centre positions.
            let prev = seen_idx.iter().rev().find(|&&i| i < j).copied();
            let next = seen_idx.iter().find(|&&i| i > j).copied();
            let (a, b) = match (prev, next) {
                (Some(a), Some(b)) => (a, b),
                (Some(b), None) => match seen_idx.iter().rev().find(|&&i| i < b) {
                    Some(&a) => (a, b),
                    None => return (centre[j].y, centre[j].y),
                },
                (None, Some(a)) => match seen_idx.iter().find(|&&i| i > a) {
                    Some(&b) => (a, b),
                    None => return (centre[j].y, centre[j].y),
                },
                (None, None) => return (centre[j].y, centre[j].y),
            };
            let f = (centre[j].y - centre[a].y) / (centre[b].y - centre[a].y);
            let (pa, pb) = (seen[a].expect("seen"), seen[b].expect("seen"));
            (pa.0 + f * (pb.0 - pa.0), pa.1 + f * (pb.1 - pa.1))
        })
        .collect()
}
