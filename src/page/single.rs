//! One image's bytes -> a gray page image: a PNG or JPEG decoded with its size checked
//! before any pixel buffer exists, a cut-off JPEG refused; the gray value of a colour.
//! Imports no other file of `page` but its façade's types.

use std::io::Cursor;
use std::path::{Path, PathBuf};

use image::{DynamicImage, GrayImage, ImageDecoder, ImageError, ImageFormat, ImageReader};

use super::{PageError, PageParams};

pub(super) fn check_size(
    path: &Path,
    width: u32,
    height: u32,
    params: &PageParams,
) -> Result<(), PageError> {
    let pixels = u64::from(width) * u64::from(height);
    if width == 0 || height == 0 {
        return Err(PageError::Corrupt {
            path: path.into(),
            reason: format!("image has zero size {width}x{height}"),
        });
    }
    if width > params.max_side || height > params.max_side || pixels > params.max_pixels {
        return Err(PageError::TooLarge {
            path: path.into(),
            width,
            height,
            max_side: params.max_side,
            max_pixels: params.max_pixels,
        });
    }
    Ok(())
}

fn limits(params: &PageParams) -> image::Limits {
    let mut limits = image::Limits::default();
    limits.max_image_width = Some(params.max_side);
    limits.max_image_height = Some(params.max_side);
    // RGBA16 is the widest buffer a PNG or JPEG decodes to (8 bytes a pixel), plus slack.
    limits.max_alloc = Some(params.max_pixels.saturating_mul(10));
    limits
}

/// Decodes a PNG or JPEG, turned by its EXIF orientation when `exif`.
pub(super) fn decode_single(
    bytes: &[u8],
    format: ImageFormat,
    path: &Path,
    params: &PageParams,
    exif: bool,
) -> Result<GrayImage, PageError> {
    let mut reader = ImageReader::with_format(Cursor::new(bytes), format);
    reader.no_limits();
    // Building the decoder reads the header only; the size is checked before any
    // pixel buffer exists, then the decoder gets its allocation limits.
    let mut decoder = reader.into_decoder().map_err(|e| image_error(path, e))?;
    let (width, height) = decoder.dimensions();
    check_size(path, width, height, params)?;
    decoder
        .set_limits(limits(params))
        .map_err(|e| image_error(path, e))?;
    if format == ImageFormat::Jpeg {
        check_jpeg_complete(bytes, path)?;
    }
    let orientation = match decoder.orientation() {
        Ok(o) if exif => o,
        _ => image::metadata::Orientation::NoTransforms,
    };
    let mut image = DynamicImage::from_decoder(decoder).map_err(|e| image_error(path, e))?;
    image.apply_orientation(orientation);
    Ok(image.into_luma8())
}

/// The JPEG decoder fills a cut-off file with grey instead of failing: refuse a file
/// without an end-of-image marker after its first scan. Segments before the scan
/// (EXIF thumbnails carry their own marker) are skipped by their lengths; inside
/// entropy-coded data a marker cannot be faked (0xFF bytes are stuffed), and data
/// after the marker (phone trailers) is allowed.
fn check_jpeg_complete(bytes: &[u8], path: &Path) -> Result<(), PageError> {
    let truncated = || PageError::Truncated {
        path: path.into(),
        reason: "jpeg data ends before its end-of-image marker".into(),
    };
    let mut pos = 2; // after SOI
    loop {
        while bytes.get(pos) == Some(&0xFF) && bytes.get(pos + 1) == Some(&0xFF) {
            pos += 1; // fill bytes
        }
        let (Some(&0xFF), Some(&marker)) = (bytes.get(pos), bytes.get(pos + 1)) else {
            return Err(truncated());
        };
        pos += 2;
        match marker {
            0xD9 => return Ok(()),
            0xDA => {
                let scan = bytes.get(pos..).unwrap_or_default();
                return if scan.windows(2).any(|w| w == [0xFF, 0xD9]) {
                    Ok(())
                } else {
                    Err(truncated())
                };
            }
            0x01 | 0xD0..=0xD7 => {}
            _ => {
                let len = match bytes.get(pos..pos + 2) {
                    Some(l) => usize::from(u16::from_be_bytes([l[0], l[1]])),
                    None => return Err(truncated()),
                };
                pos += len;
            }
        }
    }
}

fn image_error(path: &Path, e: ImageError) -> PageError {
    let path: PathBuf = path.into();
    match e {
        ImageError::Limits(l) => PageError::Corrupt {
            path,
            reason: format!("size limit: {l}"),
        },
        ImageError::IoError(io) if io.kind() == std::io::ErrorKind::UnexpectedEof => {
            PageError::Truncated {
                path,
                reason: io.to_string(),
            }
        }
        other => {
            let reason = other.to_string();
            let lower = reason.to_lowercase();
            if lower.contains("eof") || lower.contains("end of") || lower.contains("truncat") {
                PageError::Truncated { path, reason }
            } else {
                PageError::Corrupt { path, reason }
            }
        }
    }
}

pub(super) fn luma(r: u32, g: u32, b: u32) -> u8 {
    ((r * 2126 + g * 7152 + b * 722) / 10_000) as u8
}
