//! A game's sheets -> their header fields as read (`report.fields`): on every sheet of
//! every copy, the text reader that comes with the cell model finds the fields and
//! reads what needs letters, the cell reader reads digits, dates and results
//! (`form::values`). The report then takes its `game` headers from them where nothing
//! better gives them ([`crate::report::SheetReport::apply_fields`]).

use crate::form::values::{self, Vocab};
use crate::grid::Grid;
use crate::model::{CellModel, Table};
use crate::page::Page;
use crate::report::{FieldRead, GameInfo, SheetReport};

use super::game::CopyRead;
use super::params::{PipelineParams, SheetError, SheetOptions};
use super::sources::source_name;

/// The header fields of every sheet of `copies`, copy by copy; empty when the model
/// comes with no text reader. `plies`: the game's length as read (a resign word in
/// the result field: the side to move lost); `cyrillic`: the form's headings are
/// Russian.
///
/// # Errors
/// When the model fails.
pub(super) fn read_fields(
    params: &PipelineParams,
    copies: &[CopyRead],
    model: &mut dyn CellModel,
    options: &SheetOptions,
    plies: usize,
    cyrillic: bool,
) -> Result<Vec<FieldRead>, SheetError> {
    let mut out = Vec::new();
    for (copy, c) in copies.iter().enumerate() {
        for (sheet, (page, grid)) in c.sheets().into_iter().enumerate() {
            let Some((looked, read)) = read_sheet(params, page, grid, model, options, cyrillic)?
            else {
                return Ok(Vec::new());
            };
            dump_crops(&looked, &page.source, page.index);
            out.extend(read.into_iter().map(|v| field_read(v, copy, sheet, plies)));
        }
    }
    Ok(out)
}

/// One sheet's header: what was looked at and the values read; `None` when the model
/// comes with no text reader.
fn read_sheet(
    params: &PipelineParams,
    page: &Page,
    grid: &Grid,
    model: &mut dyn CellModel,
    options: &SheetOptions,
    cyrillic: bool,
) -> Result<Option<(values::Looked, Vec<values::ValueRead>)>, SheetError> {
    let vocab = Vocab {
        names: &options.vocab.names,
        rounds: &options.vocab.rounds,
    };
    let Some(reader) = model.header_reader() else {
        return Ok(None);
    };
    let table = table_outline(grid);
    let looked = values::look(&page.image, table.as_ref(), reader, vocab, cyrillic);
    let floor = params.decode.reading.read_floor;
    let read = values::read(&looked, model, vocab, floor).map_err(|source| SheetError::Model {
        path: source_name(&page.source, page.index),
        source,
    })?;
    Ok(Some((looked, read)))
}

/// The game fields a continuation sheet's own header says, read alone (its moves
/// cannot be: the position they start from is on the game's first sheet): what a
/// report would take from them, so that the first sheet can be found (`cyrillic`: the
/// form's headings are Russian). Nothing when
/// the model comes with no text reader or the reading fails.
pub(super) fn sheet_header(
    params: &PipelineParams,
    page: &Page,
    grid: &Grid,
    model: &mut dyn CellModel,
    options: &SheetOptions,
    cyrillic: bool,
) -> GameInfo {
    let Ok(Some((_, read))) = read_sheet(params, page, grid, model, options, cyrillic) else {
        return GameInfo::default();
    };
    let mut report = SheetReport {
        fields: read.into_iter().map(|v| field_read(v, 0, 0, 0)).collect(),
        ..SheetReport::default()
    };
    report.apply_fields();
    let mut game = report.game.unwrap_or_default();
    // What the sheet says of the game, not where it came from or what to review.
    game.from.clear();
    game.review.clear();
    game
}

/// Where the value crops go when `SCORESHEET_DUMP_VALUES` names a folder: the
/// values reader's training data (`training/values_reader.py collect`) is the crops
/// this step makes, so it learns what it will be given. Each inked value's crop is
/// `DIR/<stem>[_p<N>].<field>.png` with its box on the straightened page in
/// `DIR/<stem>[_p<N>].<field>.box` (`x y w h`). Nothing is written otherwise.
fn dump_crops(looked: &values::Looked, source: &std::path::Path, index: usize) {
    static DIR: std::sync::OnceLock<Option<std::path::PathBuf>> = std::sync::OnceLock::new();
    let Some(dir) = DIR.get_or_init(|| std::env::var_os("SCORESHEET_DUMP_VALUES").map(Into::into))
    else {
        return;
    };
    let stem = source
        .file_stem()
        .map_or_else(String::new, |s| s.to_string_lossy().into_owned());
    let stem = if index == 0 {
        stem
    } else {
        format!("{stem}_p{}", index + 1)
    };
    for s in &looked.spots {
        let Some(crop) = &s.crop else { continue };
        let base = format!("{stem}.{}", s.spot.field);
        let [x, y, w, h] = s.spot.value_box;
        let saved = crop.save(dir.join(format!("{base}.png")));
        let boxed = std::fs::write(
            dir.join(format!("{base}.box")),
            format!("{x} {y} {w} {h}\n"),
        );
        if let Err(e) = saved
            .map_err(|e| e.to_string())
            .and(boxed.map_err(|e| e.to_string()))
        {
            eprintln!(
                "warning: cannot write a value crop into {}: {e}",
                dir.display()
            );
        }
    }
}

/// The move table as the header's reader needs it: the union of its cells, its
/// columns' lowest top and highest foot, and its cells' ruled and number boxes.
fn table_outline(grid: &crate::grid::Grid) -> Option<Table> {
    let (mut x0, mut y0, mut x1, mut y1) = (u32::MAX, u32::MAX, 0, 0);
    let mut columns: std::collections::BTreeMap<(usize, bool), (u32, u32)> = Default::default();
    let mut cells = Vec::with_capacity(grid.cells.len() * 2);
    for c in &grid.cells {
        x0 = x0.min(c.bbox.x);
        y0 = y0.min(c.bbox.y);
        x1 = x1.max(c.bbox.x + c.bbox.w);
        y1 = y1.max(c.bbox.y + c.bbox.h);
        let column = columns
            .entry((c.block, c.side == shakmaty::Color::White))
            .or_insert((u32::MAX, 0));
        column.0 = column.0.min(c.bbox.y);
        column.1 = column.1.max(c.bbox.y + c.bbox.h);
        for b in std::iter::once(&c.ruled).chain(&c.number) {
            cells.push([b.x, b.y, b.w, b.h]);
        }
    }
    let mut heights: Vec<u32> = grid.cells.iter().map(|c| c.ruled.h).collect();
    let mid = heights.len() / 2;
    let row = heights
        .get(mid)
        .is_some()
        .then(|| *heights.select_nth_unstable(mid).1);
    let top = columns.values().map(|c| c.0).max().unwrap_or(y0);
    let bottom = columns.values().map(|c| c.1).min().unwrap_or(y1);
    (x1 > x0 && y1 > y0).then(|| Table {
        bbox: [x0, y0, x1 - x0, y1 - y0],
        inner: [top, bottom],
        row: row.unwrap_or(0),
        cells,
    })
}

/// A value read as the report's field; a resign word in the result field becomes the
/// result it means (the side to move after the last move lost).
fn field_read(v: values::ValueRead, copy: usize, sheet: usize, plies: usize) -> FieldRead {
    let mut f = FieldRead {
        field: v.field,
        value: v.value,
        confidence: v.confidence,
        copy,
        sheet,
        bbox: Some(v.bbox),
        label: v.label,
        candidates: v
            .candidates
            .into_iter()
            .map(|(value, score)| crate::report::FieldCandidate { value, score })
            .collect(),
        note: v.note,
        review: false,
    };
    if f.field == "result" && f.value.as_deref() == Some("resigned") {
        let lost = if plies.is_multiple_of(2) {
            "0-1"
        } else {
            "1-0"
        };
        f.value = Some(lost.to_string());
        f.note = Some("a resign word: the side to move resigned".into());
    }
    f
}
