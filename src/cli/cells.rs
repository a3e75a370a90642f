//! `scoresheet cells`: pages -> cell crops (PNG) and an index TSV, optionally an
//! overlay PNG per page showing the grid found.
//!
//! Output: `DIR/<page>/<move>_<w|b>.png`, `DIR/index.tsv` (`page move side x y w h`,
//! boxes in the straightened page's pixels), `DIR/pages.tsv` (`page width height
//! skew_deg`: the straightened page's size and the angle the picture was turned back
//! by, to bring boxes back onto the picture) and with `--overlay`
//! `DIR/<page>.overlay.png`.
//! `<page>` is the file stem, with `_p<N>` appended for each page of a multi-page TIFF.
//! Every file is written to a temporary name and renamed into place.

use std::io::Cursor;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use image::ImageFormat;
use rayon::prelude::*;
use shakmaty::Color;

use scoresheet::{CellModel, CutPage, GridParams, OrtModel, PageParams, cut_cells, write_atomic};

use super::batch::ModelPool;

#[derive(clap::Args, Debug)]
pub struct CellsArgs {
    /// Images (png, jpeg, tiff) or folders (searched recursively).
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// Output folder.
    #[arg(short, long, value_name = "DIR")]
    pub out: PathBuf,
    /// Also write <page>.overlay.png with the grid drawn on the page.
    #[arg(long)]
    pub overlay: bool,
    /// Number the rows from the top of the table, without reading the printed move
    /// numbers (heading rows then count as moves).
    #[arg(long)]
    pub no_numbers: bool,
    /// Model manifest that reads the printed numbers (default: the built-in one).
    #[arg(long, value_name = "MANIFEST")]
    pub model: Option<PathBuf>,
    /// ONNX Runtime shared library to load (default: found automatically).
    #[arg(long, value_name = "FILE")]
    pub ort_lib: Option<PathBuf>,
}

use super::inputs::IMAGE_EXTENSIONS;

pub fn run(args: CellsArgs) -> anyhow::Result<ExitCode> {
    let files = collect_inputs(&args.paths)?;
    if files.is_empty() {
        anyhow::bail!("no png, jpeg, tiff or pdf files found under the given paths");
    }
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("cannot create {}", args.out.display()))?;
    let page_params = PageParams::default();
    let grid_params = GridParams::default();
    let jobs = rayon::current_num_threads().min(files.len()).max(1);
    let pool = if args.no_numbers {
        None
    } else {
        Some(ModelPool::load(
            args.model.as_deref(),
            args.ort_lib.clone(),
            jobs,
            false,
        )?)
    };
    let results: Vec<Result<FileRows, String>> = files
        .par_iter()
        .map(|file| match &pool {
            Some(pool) => {
                pool.with(|m| process_file(file, &args, &page_params, &grid_params, Some(m)))
            }
            None => process_file(file, &args, &page_params, &grid_params, None),
        })
        .collect();
    let (mut rows, mut page_rows) = (Vec::new(), Vec::new());
    let mut failed = 0;
    for result in results {
        match result {
            Ok((r, p)) => {
                rows.extend(r);
                page_rows.extend(p);
            }
            Err(msg) => {
                super::diag(msg);
                failed += 1;
            }
        }
    }
    write_tsv(
        &args.out.join("index.tsv"),
        "page\tmove\tside\tx\ty\tw\th",
        rows,
    )?;
    write_tsv(
        &args.out.join("pages.tsv"),
        "page\twidth\theight\tskew_deg",
        page_rows,
    )?;
    Ok(if failed > 0 {
        ExitCode::from(super::EXIT_SOME_FAILED)
    } else {
        ExitCode::SUCCESS
    })
}

/// Writes a TSV file atomically: the header line, then one line per row.
fn write_tsv(path: &Path, header: &str, rows: Vec<String>) -> anyhow::Result<()> {
    let mut tsv = format!("{header}\n");
    for row in rows {
        tsv.push_str(&row);
        tsv.push('\n');
    }
    write_atomic(path, tsv.as_bytes()).with_context(|| format!("cannot write {}", path.display()))
}

/// Files named directly plus image files found in named folders, sorted, deduplicated.
fn collect_inputs(paths: &[PathBuf]) -> anyhow::Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for path in paths {
        if path.is_dir() {
            walk(path, &mut files)
                .with_context(|| format!("cannot read folder {}", path.display()))?;
        } else {
            files.push(path.clone());
        }
    }
    files.sort();
    files.dedup();
    Ok(files)
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            walk(&path, out)?;
        } else if path
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| IMAGE_EXTENSIONS.contains(&e.to_ascii_lowercase().as_str()))
        {
            out.push(path);
        }
    }
    Ok(())
}

/// One file's rows of `index.tsv` and of `pages.tsv`.
type FileRows = (Vec<String>, Vec<String>);

/// Cuts every page of one file and writes its cells; returns its index rows and its
/// pages' rows, or one diagnostic line.
fn process_file(
    file: &Path,
    args: &CellsArgs,
    pp: &PageParams,
    gp: &GridParams,
    model: Option<&mut OrtModel>,
) -> Result<FileRows, String> {
    let (mut rows, mut pages) = (Vec::new(), Vec::new());
    let model = model.map(|m| m as &mut dyn CellModel);
    for page in cut_cells(file, pp, gp, model, args.overlay)? {
        rows.extend(write_page(&page, args)?);
        pages.push(format!(
            "{}\t{}\t{}\t{:.3}",
            page.name, page.width, page.height, page.skew_deg
        ));
    }
    Ok((rows, pages))
}

fn write_page(page: &CutPage, args: &CellsArgs) -> Result<Vec<String>, String> {
    let name = &page.name;
    let dir = args.out.join(name);
    std::fs::create_dir_all(&dir)
        .map_err(|e| format!("{}: cannot create folder: {e}", dir.display()))?;
    let mut rows = Vec::with_capacity(page.cells.len());
    for cell in &page.cells {
        let side = if cell.side == Color::White { "w" } else { "b" };
        let path = dir.join(format!("{}_{side}.png", cell.move_number));
        write_png(&path, &cell.image)?;
        let b = cell.bbox;
        let side_word = if cell.side == Color::White {
            "white"
        } else {
            "black"
        };
        rows.push(format!(
            "{name}\t{}\t{side_word}\t{}\t{}\t{}\t{}",
            cell.move_number, b.x, b.y, b.w, b.h
        ));
    }
    if let Some(overlay) = &page.overlay {
        let path = args.out.join(format!("{name}.overlay.png"));
        write_png(&path, overlay)?;
    }
    Ok(rows)
}

fn write_png<P, C>(path: &Path, img: &image::ImageBuffer<P, C>) -> Result<(), String>
where
    P: image::PixelWithColorType,
    [P::Subpixel]: image::EncodableLayout,
    C: std::ops::Deref<Target = [P::Subpixel]>,
{
    let mut bytes = Vec::new();
    img.write_to(&mut Cursor::new(&mut bytes), ImageFormat::Png)
        .map_err(|e| format!("{}: cannot encode png: {e}", path.display()))?;
    write_atomic(path, &bytes).map_err(|e| e.to_string())
}
