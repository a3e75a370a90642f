//! Image file -> its pages' move cells cut out (and, on request, a picture of the grid
//! found): what `scoresheet cells` writes, for training data and for looking at a form.

use std::path::Path;

use image::{GrayImage, RgbImage};
use shakmaty::Color;

use super::params::PipelineParams;
use crate::form::rows;
use crate::grid::{self, CellBox, GridParams, overlay::overlay};
use crate::model::CellModel;
use crate::page::{self, Page, PageParams};

/// One cut cell: its place in the game and its box in the straightened page.
#[derive(Clone, Debug)]
pub struct CutCell {
    pub move_number: u32,
    pub side: Color,
    pub bbox: CellBox,
    pub image: GrayImage,
}

/// The cells of one page.
#[derive(Clone, Debug)]
pub struct CutPage {
    /// The file stem, with `_p<N>` appended for each page of a multi-page file.
    pub name: String,
    pub cells: Vec<CutCell>,
    /// The page with the grid drawn on it, when asked for.
    pub overlay: Option<RgbImage>,
    /// The straightened page the boxes lie on: its size (a turned picture's canvas
    /// grows to hold it) and the angle the picture was turned back by (degrees, as the
    /// report's `page.skew_deg`).
    pub width: u32,
    pub height: u32,
    pub skew_deg: f32,
}

/// Cuts every page of one image file. With a model, the rows are numbered as `read`
/// numbers them ([`rows::number_first_sheet`]: the printed move numbers read, heading rows
/// dropped, a continuation sheet numbered from its first printed number); without,
/// rows count from the table's top as move 1.
///
/// # Errors
/// One line naming the file (or page) and the reason: an unreadable image, or pages
/// with no move table (the pages that worked are not returned then).
pub fn cut_cells(
    file: &Path,
    page_params: &PageParams,
    grid_params: &GridParams,
    mut model: Option<&mut dyn CellModel>,
    with_overlay: bool,
) -> Result<Vec<CutPage>, String> {
    let pages = page::load_pages(file, page_params).map_err(|e| e.to_string())?;
    let stem = file
        .file_stem()
        .map_or_else(|| "page".into(), |s| s.to_string_lossy().into_owned());
    let many = pages.len() > 1;
    let mut out = Vec::new();
    let mut errors = Vec::new();
    for page in &pages {
        let name = if many {
            format!("{stem}_p{}", page.index + 1)
        } else {
            stem.clone()
        };
        let m = model.as_mut().map(|m| &mut **m as &mut dyn CellModel);
        match cut_page(page, name, grid_params, m, with_overlay) {
            Ok(p) => out.push(p),
            Err(e) => errors.push(e),
        }
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(errors.join("; "))
    }
}

fn cut_page(
    page: &Page,
    name: String,
    gp: &GridParams,
    model: Option<&mut dyn CellModel>,
    with_overlay: bool,
) -> Result<CutPage, String> {
    let mut grid = grid::find_grid(page, gp).map_err(|e| e.to_string())?;
    if let Some(model) = model {
        // the rows numbered as `read` numbers them
        let params = PipelineParams::default();
        let how = rows::RowParams {
            decode: &params.decode,
            variant: params.variant,
            model_ink: params.model_ink,
        };
        rows::number_first_sheet(page, &mut grid, model, &how, None).map_err(|e| {
            format!(
                "{}: {e}",
                super::sources::source_name(&page.source, page.index)
            )
        })?;
    }
    let cells = grid
        .cells
        .iter()
        .map(|cell| CutCell {
            move_number: cell.move_number,
            side: cell.side,
            bbox: cell.bbox,
            image: grid::crop(page, cell),
        })
        .collect();
    let overlay = with_overlay.then(|| overlay(page, &grid));
    Ok(CutPage {
        name,
        cells,
        overlay,
        width: page.image.width(),
        height: page.image.height(),
        skew_deg: page.skew_deg,
    })
}
