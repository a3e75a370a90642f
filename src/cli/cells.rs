//! `scoresheet cells`: pages -> cell crops (PNG) and an index TSV, optionally an
//! overlay PNG per page showing the grid found.
//!
//! Output: `DIR/<page>/<move>_<w|b>.png`, `DIR/index.tsv` (`page move side x y w h`,
//! boxes in the straightened page's pixels) and with `--overlay` `DIR/<page>.overlay.png`.
//! `<page>` is the file stem, with `_p<N>` appended for each page of a multi-page TIFF.
//! Every file is written to a temporary name and renamed into place.

use std::io::Cursor;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use image::ImageFormat;
use rayon::prelude::*;
use shakmaty::Color;

use scoresheet::grid::{self, GridParams, overlay::overlay};
use scoresheet::page::{self, PageParams};

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
}

const IMAGE_EXTENSIONS: [&str; 5] = ["png", "jpg", "jpeg", "tif", "tiff"];

pub fn run(args: CellsArgs) -> anyhow::Result<ExitCode> {
    let files = collect_inputs(&args.paths)?;
    if files.is_empty() {
        anyhow::bail!("no png, jpeg or tiff files found under the given paths");
    }
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("cannot create {}", args.out.display()))?;
    let page_params = PageParams::default();
    let grid_params = GridParams::default();
    let results: Vec<Result<Vec<String>, String>> = files
        .par_iter()
        .map(|file| process_file(file, &args, &page_params, &grid_params))
        .collect();
    let mut rows = Vec::new();
    let mut failed = 0;
    for result in results {
        match result {
            Ok(r) => rows.extend(r),
            Err(msg) => {
                super::diag(msg);
                failed += 1;
            }
        }
    }
    let mut tsv = String::from("page\tmove\tside\tx\ty\tw\th\n");
    for row in rows {
        tsv.push_str(&row);
        tsv.push('\n');
    }
    let index = args.out.join("index.tsv");
    write_atomic(&index, tsv.as_bytes())
        .with_context(|| format!("cannot write {}", index.display()))?;
    Ok(if failed > 0 {
        ExitCode::from(super::EXIT_SOME_FAILED)
    } else {
        ExitCode::SUCCESS
    })
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

/// Cuts every page of one file; returns its index rows, or one diagnostic line.
fn process_file(
    file: &Path,
    args: &CellsArgs,
    pp: &PageParams,
    gp: &GridParams,
) -> Result<Vec<String>, String> {
    let pages = page::load_pages(file, pp).map_err(|e| e.to_string())?;
    let stem = file
        .file_stem()
        .map_or_else(|| "page".into(), |s| s.to_string_lossy().into_owned());
    let many = pages.len() > 1;
    let mut rows = Vec::new();
    let mut errors = Vec::new();
    for page in &pages {
        let name = if many {
            format!("{stem}_p{}", page.index + 1)
        } else {
            stem.clone()
        };
        match cut_page(page, &name, args, gp) {
            Ok(r) => rows.extend(r),
            Err(e) => errors.push(e),
        }
    }
    if errors.is_empty() {
        Ok(rows)
    } else {
        Err(errors.join("; "))
    }
}

fn cut_page(
    page: &page::Page,
    name: &str,
    args: &CellsArgs,
    gp: &GridParams,
) -> Result<Vec<String>, String> {
    let grid = grid::find_grid(page, gp).map_err(|e| e.to_string())?;
    let dir = args.out.join(name);
    std::fs::create_dir_all(&dir)
        .map_err(|e| format!("{}: cannot create folder: {e}", dir.display()))?;
    let mut rows = Vec::with_capacity(grid.cells.len());
    for cell in &grid.cells {
        let side = if cell.side == Color::White { "w" } else { "b" };
        let path = dir.join(format!("{}_{side}.png", cell.move_number));
        write_png(&path, &grid::crop(page, cell))?;
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
    if args.overlay {
        let path = args.out.join(format!("{name}.overlay.png"));
        write_png(&path, &overlay(page, &grid))?;
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
    write_atomic(path, &bytes).map_err(|e| format!("{}: cannot write: {e}", path.display()))
}

/// Writes `bytes` to a temporary file next to `path`, then renames it into place.
fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let name = path
        .file_name()
        .map_or_else(|| "out".into(), |n| n.to_string_lossy().into_owned());
    let tmp = path.with_file_name(format!(".{name}.tmp{}", std::process::id()));
    std::fs::write(&tmp, bytes)?;
    std::fs::rename(&tmp, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
}
