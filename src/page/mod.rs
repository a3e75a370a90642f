//! Image or PDF file -> pages: decode (size limits checked before decoding), straighten the
//! ruling (deskew up to about 6 degrees), turn upside-down sheets round; grayscale out.
//!
//! ```no_run
//! use scoresheet::page::{load_pages, PageParams};
//! let pages = load_pages("scans/r1b3.jpg".as_ref(), &PageParams::default())?;
//! for page in &pages {
//!     println!("{}: skew {:.2} deg, turned: {}", page.source.display(), page.skew_deg, page.rotated_180);
//! }
//! # Ok::<(), scoresheet::page::PageError>(())
//! ```

mod decode;
mod deskew;
mod pdf;
use crate::raster;

use std::path::{Path, PathBuf};

use image::GrayImage;

#[cfg(any(test, feature = "internals"))]
pub use decode::decode_pages;
pub use decode::{decode_page_at, decode_page_results};
pub use pdf::PageImage;

/// Settings of the page stage.
#[derive(Clone, Debug)]
pub struct PageParams {
    /// Largest accepted width or height in pixels (checked from the file header).
    pub max_side: u32,
    /// Largest accepted pixel count of one page (checked from the file header).
    pub max_pixels: u64,
    /// Largest accepted file size in bytes.
    pub max_file_bytes: u64,
    /// Most pages read from one multi-page TIFF or PDF.
    pub max_pages: usize,
    /// Straighten the page along its ruling.
    pub deskew: bool,
    /// Largest skew searched for, in degrees either way.
    pub max_skew_deg: f32,
    /// Turn a page found upside down (table numbers on the right of their blocks).
    pub detect_orientation: bool,
}

impl Default for PageParams {
    fn default() -> Self {
        PageParams {
            max_side: 20_000,
            max_pixels: 100_000_000,
            max_file_bytes: 512 << 20,
            max_pages: 256,
            deskew: true,
            max_skew_deg: 6.0,
            detect_orientation: true,
        }
    }
}

/// Why a file gave no pages. Messages are one lowercase line naming the file.
#[derive(Debug, thiserror::Error)]
pub enum PageError {
    #[error("{}: cannot read: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{}: file is empty (zero bytes)", path.display())]
    Empty { path: PathBuf },
    #[error("{}: not an image (expected png, jpeg, tiff or pdf)", path.display())]
    NotImage { path: PathBuf },
    #[error("{}: unsupported image format {format} (expected png, jpeg, tiff or pdf)", path.display())]
    Unsupported { path: PathBuf, format: String },
    #[error("{}: file of {bytes} bytes is larger than the limit of {limit} bytes", path.display())]
    FileTooLarge {
        path: PathBuf,
        bytes: u64,
        limit: u64,
    },
    #[error(
        "{}: image of {width}x{height} pixels is too large (limit {max_side} px a side, {max_pixels} pixels)",
        path.display()
    )]
    TooLarge {
        path: PathBuf,
        width: u32,
        height: u32,
        max_side: u32,
        max_pixels: u64,
    },
    #[error("{}: truncated image: {reason}", path.display())]
    Truncated { path: PathBuf, reason: String },
    #[error("{}: cannot decode image: {reason}", path.display())]
    Corrupt { path: PathBuf, reason: String },
    #[error("{}: cannot read pdf: {reason}", path.display())]
    Pdf { path: PathBuf, reason: String },
    /// `page` counts from 1.
    #[error(
        "{}#page{page}: the page holds no image (a pdf of text or drawings is not read; scan it or export it as images)",
        path.display()
    )]
    NoImage { path: PathBuf, page: usize },
    /// An encoding of a PDF page's image that is not decoded; `path` names the page
    /// (`scan.pdf#page2`).
    #[error(
        "{}: the page's image is {encoding}, which is not read (scan or export the page as jpeg, png or tiff)",
        path.display()
    )]
    NotRead { path: PathBuf, encoding: String },
}

/// One upright, straightened page.
///
/// `image` is the source page rotated by `-skew_deg` about its centre onto a canvas
/// large enough to hold all of it (same size when no rotation was needed), then turned
/// by 180 degrees when `rotated_180`. [`Page::to_source`] and [`Page::from_source`] map
/// points between the two.
#[derive(Clone, Debug)]
pub struct Page {
    /// Upright, deskewed grayscale page.
    pub image: GrayImage,
    /// File the page came from.
    pub source: PathBuf,
    /// Page number inside the file, from 0 (multi-page TIFF and PDF have more).
    pub index: usize,
    /// Skew of the source's ruling in degrees, positive when its lines descend to the
    /// right (y pointing down); the page was rotated by `-skew_deg` to straighten it.
    pub skew_deg: f32,
    /// The source was upside down and has been turned round.
    pub rotated_180: bool,
    /// Size of the decoded source page.
    pub source_size: (u32, u32),
}

impl Page {
    /// Straightens and orients a decoded grayscale page.
    pub fn from_image(image: GrayImage, source: &Path, index: usize, params: &PageParams) -> Page {
        let source_size = image.dimensions();
        let (w, h) = source_size;
        let k = w.max(h).div_ceil(900).max(1);
        let small = raster::downscale(&image, k);
        let skew_deg = if params.deskew && w >= 16 && h >= 16 {
            let mask = raster::adaptive_dark(&small, 7, 10.0, 0.08);
            deskew::estimate_skew(&mask, params.max_skew_deg)
        } else {
            0.0
        };
        let (mut image, small) = if skew_deg.abs() >= 0.05 {
            let fill = raster::percentile(&small, 0.9);
            let (ow, oh) = rotated_size(w, h, skew_deg);
            let rotated = raster::rotate(&image, -skew_deg, fill, ow, oh);
            // The small copy is turned on its own: cheaper than shrinking again.
            let (sw, sh) = rotated_size(small.width(), small.height(), skew_deg);
            let small = raster::rotate(&small, -skew_deg, fill, sw, sh);
            (rotated, small)
        } else {
            (image, small)
        };
        let mut rotated_180 = false;
        if params.detect_orientation && upside_down(&image, &small) {
            rotated_180 = true;
            image::imageops::rotate180_in_place(&mut image);
        }
        Page {
            image,
            source: source.into(),
            index,
            skew_deg,
            rotated_180,
            source_size,
        }
    }

    /// Maps a point of [`Page::image`] to the decoded source page.
    pub fn to_source(&self, x: f32, y: f32) -> (f32, f32) {
        let (pw, ph) = (self.image.width() as f32, self.image.height() as f32);
        let (x, y) = if self.rotated_180 {
            (pw - 1.0 - x, ph - 1.0 - y)
        } else {
            (x, y)
        };
        let (sw, sh) = (self.source_size.0 as f32, self.source_size.1 as f32);
        let (sin, cos) = self.applied_skew().to_radians().sin_cos();
        let (dx, dy) = (x - (pw - 1.0) / 2.0, y - (ph - 1.0) / 2.0);
        (
            (sw - 1.0) / 2.0 + cos * dx - sin * dy,
            (sh - 1.0) / 2.0 + sin * dx + cos * dy,
        )
    }

    /// Maps a point of the decoded source page to [`Page::image`].
    // The inverse of `to_source`, named as its mirror.
    #[allow(clippy::wrong_self_convention)]
    pub fn from_source(&self, x: f32, y: f32) -> (f32, f32) {
        let (pw, ph) = (self.image.width() as f32, self.image.height() as f32);
        let (sw, sh) = (self.source_size.0 as f32, self.source_size.1 as f32);
        let (sin, cos) = self.applied_skew().to_radians().sin_cos();
        let (dx, dy) = (x - (sw - 1.0) / 2.0, y - (sh - 1.0) / 2.0);
        let (px, py) = (
            (pw - 1.0) / 2.0 + cos * dx + sin * dy,
            (ph - 1.0) / 2.0 - sin * dx + cos * dy,
        );
        if self.rotated_180 {
            (pw - 1.0 - px, ph - 1.0 - py)
        } else {
            (px, py)
        }
    }

    /// The rotation actually applied (tiny skews are left alone).
    fn applied_skew(&self) -> f32 {
        if self.skew_deg.abs() >= 0.05 {
            self.skew_deg
        } else {
            0.0
        }
    }
}

/// Whether the straightened page reads upside down: asked of the small copy first,
/// and when that is unsure (no table, or a single vote) of a copy about 1000 px wide,
/// where narrow number columns are clearer.
fn upside_down(image: &GrayImage, small: &GrayImage) -> bool {
    let votes = crate::ruling::upside_down_votes(small);
    let votes = match votes {
        Some(v) if v.abs() >= 1.5 => v,
        _ => {
            let k = (image.width() / 1000).max(1);
            let work = (image.width().div_ceil(k), image.height().div_ceil(k));
            if work == small.dimensions() {
                votes.unwrap_or(0.0)
            } else {
                crate::ruling::upside_down_votes(&raster::downscale(image, k)).unwrap_or(0.0)
            }
        }
    };
    votes >= 1.0
}

/// Size of the canvas holding a `w x h` image rotated by `deg`.
fn rotated_size(w: u32, h: u32, deg: f32) -> (u32, u32) {
    let (sin, cos) = deg.to_radians().abs().sin_cos();
    let (w, h) = (w as f32, h as f32);
    (
        (w * cos + h * sin).ceil() as u32,
        (w * sin + h * cos).ceil() as u32,
    )
}

/// Reads, decodes, straightens and orients every page of an image or PDF file.
///
/// # Errors
/// [`PageError`] when the file cannot be read, is empty, too large, not a PNG, JPEG,
/// TIFF or PDF, or cannot be decoded, or when any page of a PDF gives no image; the
/// message names the file (and the page). [`load_page_results`] keeps the readable
/// pages of such a file.
pub fn load_pages(path: &Path, params: &PageParams) -> Result<Vec<Page>, PageError> {
    load_page_results(path, params)?.into_iter().collect()
}

/// Like [`load_pages`], with one result a page: a PDF page without a readable image
/// fails alone while the others are read.
///
/// # Errors
/// [`PageError`] when the file as a whole cannot be read (see [`load_pages`]).
pub fn load_page_results(
    path: &Path,
    params: &PageParams,
) -> Result<Vec<Result<Page, PageError>>, PageError> {
    Ok(open_pages(path, params)?.collect())
}

/// Opens a file for its pages, which the returned iterator decodes and straightens
/// one at a time (one result a page, as [`load_page_results`]): the pages of a long
/// PDF are never all in memory at once. PNG, JPEG and TIFF are decoded when opened.
///
/// # Errors
/// [`PageError`] when the file as a whole cannot be read (see [`load_pages`]).
pub fn open_pages(path: &Path, params: &PageParams) -> Result<Pages, PageError> {
    let bytes = read_file(path, params)?;
    let source = if !bytes.is_empty() && pdf::is_pdf(&bytes) {
        let pdf = pdf::Pdf::open(&bytes, path)?;
        let count = pdf.len().min(params.max_pages);
        Source::Pdf(Box::new(pdf), count)
    } else {
        Source::Decoded(decode_page_results(&bytes, path, params)?.into_iter())
    };
    Ok(Pages {
        path: path.into(),
        params: params.clone(),
        source,
        next: 0,
    })
}

/// The pages of one file, read as they are asked for (see [`open_pages`]).
pub struct Pages {
    path: PathBuf,
    params: PageParams,
    source: Source,
    next: usize,
}

enum Source {
    /// The parsed file and the number of its pages to read.
    Pdf(Box<pdf::Pdf>, usize),
    Decoded(std::vec::IntoIter<PageImage>),
}

impl Iterator for Pages {
    type Item = Result<Page, PageError>;

    fn next(&mut self) -> Option<Self::Item> {
        let index = self.next;
        let image = match &mut self.source {
            Source::Pdf(pdf, count) if index == *count => {
                self.next += 1;
                return pdf.beyond_limit(*count).map(Err);
            }
            Source::Pdf(pdf, count) => (index < *count).then(|| pdf.page(index, &self.params))?,
            Source::Decoded(images) => images.next()?,
        };
        self.next += 1;
        Some(image.map(|image| Page::from_image(image, &self.path, index, &self.params)))
    }
}

/// Loads page `index` (from 0) of a file alone, straightened as [`load_pages`] does.
///
/// # Errors
/// [`PageError`] when the file cannot be read, lacks the page or the page cannot be
/// decoded.
pub fn load_page(path: &Path, index: usize, params: &PageParams) -> Result<Page, PageError> {
    let bytes = read_file(path, params)?;
    let image = decode_page_at(&bytes, path, index, params)?;
    Ok(Page::from_image(image, path, index, params))
}

fn read_file(path: &Path, params: &PageParams) -> Result<Vec<u8>, PageError> {
    let io = |source| PageError::Io {
        path: path.into(),
        source,
    };
    let bytes_len = std::fs::metadata(path).map_err(io)?.len();
    if bytes_len > params.max_file_bytes {
        return Err(PageError::FileTooLarge {
            path: path.into(),
            bytes: bytes_len,
            limit: params.max_file_bytes,
        });
    }
    std::fs::read(path).map_err(io)
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::Luma;

    fn ruled(w: u32, h: u32) -> GrayImage {
        GrayImage::from_fn(w, h, |x, y| {
            Luma([if y % 20 == 10 || x % 60 == 30 {
                40
            } else {
                230
            }])
        })
    }

    #[test]
    fn source_mapping_round_trips() {
        let params = PageParams {
            detect_orientation: false,
            ..PageParams::default()
        };
        let mut page = Page::from_image(ruled(200, 120), Path::new("t.png"), 0, &params);
        page.skew_deg = 3.0;
        page.image = GrayImage::new(210, 131);
        for rotated_180 in [false, true] {
            page.rotated_180 = rotated_180;
            let (sx, sy) = page.to_source(17.0, 99.0);
            let (x, y) = page.from_source(sx, sy);
            assert!(
                (x - 17.0).abs() < 1e-3 && (y - 99.0).abs() < 1e-3,
                "{x} {y}"
            );
        }
    }

    #[test]
    fn a_straight_page_is_left_alone() {
        let params = PageParams {
            detect_orientation: false,
            ..PageParams::default()
        };
        let img = ruled(300, 200);
        let page = Page::from_image(img.clone(), Path::new("t.png"), 0, &params);
        assert!(page.skew_deg.abs() < 0.05, "{}", page.skew_deg);
        assert_eq!(page.image, img);
    }

    #[test]
    fn a_tilted_page_is_straightened() {
        let params = PageParams {
            detect_orientation: false,
            ..PageParams::default()
        };
        let img = raster::rotate(&ruled(300, 200), 2.0, 230, 300, 200);
        let page = Page::from_image(img, Path::new("t.png"), 0, &params);
        assert!((page.skew_deg - 2.0).abs() < 0.15, "{}", page.skew_deg);
        // A point on a ruling line maps to a row of the straightened page.
        let (x, y) = page.from_source(
            150.0 + 40.0 * 2f32.to_radians().cos(),
            90.0 + 40.0 * 2f32.to_radians().sin(),
        );
        let (_, y0) = page.from_source(150.0, 90.0);
        assert!((y - y0).abs() < 0.5, "{x} {y} {y0}");
    }

    #[test]
    fn a_pdfs_pages_come_one_result_each() {
        use pdf::tests::{pdf_of, raw_image};
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("scan.pdf");
        let sheet = raw_image(30, 20, "DeviceGray".into(), 8, vec![200; 600]);
        std::fs::write(&path, pdf_of(vec![None, Some(sheet)])).unwrap();
        let params = PageParams::default();
        let pages: Vec<_> = open_pages(&path, &params).unwrap().collect();
        assert_eq!(pages.len(), 2);
        assert!(matches!(pages[0], Err(PageError::NoImage { page: 1, .. })));
        let second = pages[1].as_ref().unwrap();
        assert_eq!((second.index, second.source_size), (1, (30, 20)));
        // One page alone, as reports reload their page.
        assert_eq!(load_page(&path, 1, &params).unwrap().image, second.image);
        assert!(matches!(
            load_page(&path, 2, &params),
            Err(PageError::Pdf { .. })
        ));
        // Pages past the limit: one error after the pages read.
        let one = PageParams {
            max_pages: 1,
            ..PageParams::default()
        };
        let pages: Vec<_> = open_pages(&path, &one).unwrap().collect();
        assert_eq!(pages.len(), 2);
        assert!(
            matches!(&pages[1], Err(PageError::Pdf { reason, .. }) if reason.contains("after page 1"))
        );
        // All or nothing.
        assert!(matches!(
            load_pages(&path, &params),
            Err(PageError::NoImage { .. })
        ));
    }

    #[test]
    fn missing_file_names_the_path() {
        let err =
            load_pages(Path::new("/nonexistent/sheet.png"), &PageParams::default()).unwrap_err();
        assert!(
            err.to_string()
                .starts_with("/nonexistent/sheet.png: cannot read"),
            "{err}"
        );
    }
}
