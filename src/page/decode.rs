//! Image file bytes -> grayscale pages: format sniffing, size limits checked from the
//! header before any pixel is decoded, EXIF orientation, multi-page TIFF; PDFs go to
//! `pdf`.

use std::io::Cursor;
use std::path::{Path, PathBuf};

use image::{GrayImage, ImageFormat};

use super::pdf::{self, PageImage};
use super::single::{check_size, decode_single, luma};
use super::{PageError, PageParams};

/// Decodes every page of an image file held in memory into 8-bit grayscale.
///
/// PNG and JPEG give one page, TIFF one page per image directory, PDF the largest
/// image of each page. Dimensions are read from the header and checked against
/// `params` before decoding.
///
/// # Errors
/// [`PageError`] naming `path` when the bytes are empty, not an image, too large,
/// truncated or otherwise undecodable, or when any page of a PDF gives no image (see
/// [`decode_page_results`] for one result a page).
#[cfg(any(test, feature = "internals"))]
pub fn decode_pages(
    bytes: &[u8],
    path: &Path,
    params: &PageParams,
) -> Result<Vec<GrayImage>, PageError> {
    decode_page_results(bytes, path, params)?
        .into_iter()
        .collect()
}

/// Like [`decode_pages`], with one result a page: a PDF page without a readable image
/// fails alone (the outer error is the file's).
///
/// # Errors
/// [`PageError`] naming `path` when the file as a whole cannot be read.
pub fn decode_page_results(
    bytes: &[u8],
    path: &Path,
    params: &PageParams,
) -> Result<Vec<PageImage>, PageError> {
    if bytes.is_empty() {
        return Err(PageError::Empty { path: path.into() });
    }
    if pdf::is_pdf(bytes) {
        return pdf::decode_pdf(bytes, path, params);
    }
    Ok(decode_images(bytes, path, params)?
        .into_iter()
        .map(Ok)
        .collect())
}

/// Decodes page `index` (0-based) of a file: only that page of a PDF, every page of
/// a TIFF (its directories are read in order).
///
/// # Errors
/// [`PageError`] naming `path` when the file cannot be read or lacks the page.
pub fn decode_page_at(
    bytes: &[u8],
    path: &Path,
    index: usize,
    params: &PageParams,
) -> Result<GrayImage, PageError> {
    if pdf::is_pdf(bytes) {
        return pdf::Pdf::open(bytes, path)?.page(index, params);
    }
    let mut pages = decode_images(bytes, path, params)?;
    if index >= pages.len() {
        return Err(PageError::Corrupt {
            path: path.into(),
            reason: format!("has no page {}", index + 1),
        });
    }
    Ok(pages.swap_remove(index))
}

/// The pages of a PNG, JPEG or TIFF.
fn decode_images(
    bytes: &[u8],
    path: &Path,
    params: &PageParams,
) -> Result<Vec<GrayImage>, PageError> {
    if bytes.is_empty() {
        return Err(PageError::Empty { path: path.into() });
    }
    let format =
        image::guess_format(bytes).map_err(|_| PageError::NotImage { path: path.into() })?;
    // A PNG states its size in the first chunk (IHDR); refuse an absurd one even
    // when nothing follows the header.
    if let (ImageFormat::Png, Some((w, h))) = (format, png_ihdr_size(bytes)) {
        check_size(path, w, h, params)?;
    }
    match format {
        ImageFormat::Tiff => decode_tiff(bytes, path, params),
        ImageFormat::Png | ImageFormat::Jpeg => {
            decode_single(bytes, format, path, params, true).map(|g| vec![g])
        }
        other => Err(PageError::Unsupported {
            path: path.into(),
            format: format!("{other:?}").to_lowercase(),
        }),
    }
}

/// Width and height from a PNG's IHDR chunk (bytes 16..24), if present.
fn png_ihdr_size(bytes: &[u8]) -> Option<(u32, u32)> {
    if bytes.len() < 24 || &bytes[12..16] != b"IHDR" {
        return None;
    }
    let w = u32::from_be_bytes(bytes[16..20].try_into().ok()?);
    let h = u32::from_be_bytes(bytes[20..24].try_into().ok()?);
    Some((w, h))
}

fn tiff_error(path: &Path, e: tiff::TiffError) -> PageError {
    let reason = e.to_string();
    let path: PathBuf = path.into();
    match e {
        tiff::TiffError::IoError(io) if io.kind() == std::io::ErrorKind::UnexpectedEof => {
            PageError::Truncated { path, reason }
        }
        _ if reason.to_lowercase().contains("eof") => PageError::Truncated { path, reason },
        _ => PageError::Corrupt { path, reason },
    }
}

fn decode_tiff(
    bytes: &[u8],
    path: &Path,
    params: &PageParams,
) -> Result<Vec<GrayImage>, PageError> {
    let mut limits = tiff::decoder::Limits::default();
    limits.decoding_buffer_size =
        usize::try_from(params.max_pixels.saturating_mul(8)).unwrap_or(usize::MAX);
    let mut decoder = tiff::decoder::Decoder::new(Cursor::new(bytes))
        .map_err(|e| tiff_error(path, e))?
        .with_limits(limits);
    let mut pages = Vec::new();
    loop {
        let (width, height) = decoder.dimensions().map_err(|e| tiff_error(path, e))?;
        check_size(path, width, height, params)?;
        let color = decoder.colortype().map_err(|e| tiff_error(path, e))?;
        let data = decoder.read_image().map_err(|e| tiff_error(path, e))?;
        pages.push(tiff_to_gray(path, width, height, color, data)?);
        if pages.len() >= params.max_pages {
            break;
        }
        if !decoder.more_images() {
            break;
        }
        decoder.next_image().map_err(|e| tiff_error(path, e))?;
    }
    Ok(pages)
}

/// Converts one decoded TIFF image to 8-bit gray (first plane only for planar data).
fn tiff_to_gray(
    path: &Path,
    width: u32,
    height: u32,
    color: tiff::ColorType,
    data: tiff::decoder::DecodingResult,
) -> Result<GrayImage, PageError> {
    use tiff::ColorType as C;
    use tiff::decoder::DecodingResult as D;
    let unsupported = || PageError::Corrupt {
        path: path.into(),
        reason: format!("unsupported tiff colour type {color:?}"),
    };
    let (w, h) = (width as usize, height as usize);
    // Samples as 8-bit values, whatever the stored depth.
    let samples: Vec<u8> = match data {
        D::U8(v) => v,
        D::U16(v) => v.iter().map(|&s| (s >> 8) as u8).collect(),
        _ => return Err(unsupported()),
    };
    if let C::Gray(1) = color {
        let row_bytes = w.div_ceil(8);
        if samples.len() < row_bytes * h {
            return Err(PageError::Truncated {
                path: path.into(),
                reason: "short bilevel data".into(),
            });
        }
        let mut out = GrayImage::new(width, height);
        for (y, row) in samples.chunks_exact(row_bytes).take(h).enumerate() {
            for x in 0..w {
                let bit = (row[x / 8] >> (7 - x % 8)) & 1;
                out.put_pixel(
                    x as u32,
                    y as u32,
                    image::Luma([if bit == 1 { 255 } else { 0 }]),
                );
            }
        }
        return Ok(out);
    }
    let spp = match color {
        C::Gray(8 | 16) => 1,
        C::GrayA(8 | 16) => 2,
        C::RGB(8 | 16) => 3,
        C::RGBA(8 | 16) | C::CMYK(8 | 16) => 4,
        _ => return Err(unsupported()),
    };
    // Planar images come back as their first plane only.
    let spp = if samples.len() == w * h && spp > 1 {
        1
    } else {
        spp
    };
    if samples.len() < w * h * spp {
        return Err(PageError::Truncated {
            path: path.into(),
            reason: "short tiff image data".into(),
        });
    }
    let cmyk = matches!(color, C::CMYK(_)) && spp == 4;
    let gray: Vec<u8> = samples
        .chunks_exact(spp)
        .take(w * h)
        .map(|px| match (spp, cmyk) {
            (1 | 2, _) => px[0],
            (_, true) => {
                let k = 255 - u32::from(px[3]);
                let rgb = [px[0], px[1], px[2]].map(|c| (255 - u32::from(c)) * k / 255);
                luma(rgb[0], rgb[1], rgb[2])
            }
            _ => luma(px[0].into(), px[1].into(), px[2].into()),
        })
        .collect();
    GrayImage::from_raw(width, height, gray).ok_or_else(unsupported)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn png_bytes(img: &GrayImage) -> Vec<u8> {
        let mut out = Vec::new();
        img.write_to(&mut Cursor::new(&mut out), ImageFormat::Png)
            .unwrap();
        out
    }

    fn p() -> PathBuf {
        PathBuf::from("x/sheet.png")
    }

    #[test]
    fn decodes_a_tiny_png() {
        let img = GrayImage::from_fn(3, 2, |x, y| image::Luma([(x * 10 + y) as u8]));
        let pages = decode_pages(&png_bytes(&img), &p(), &PageParams::default()).unwrap();
        assert_eq!(pages, vec![img]);
    }

    #[test]
    fn refuses_empty_and_non_images() {
        let params = PageParams::default();
        assert!(matches!(
            decode_pages(b"", &p(), &params),
            Err(PageError::Empty { .. })
        ));
        let err = decode_pages(b"1. e4 e5 2. Nf3", &p(), &params).unwrap_err();
        assert!(matches!(err, PageError::NotImage { .. }));
        assert!(err.to_string().contains("x/sheet.png"), "{err}");
    }

    #[test]
    fn refuses_a_truncated_png() {
        let img = GrayImage::from_fn(64, 64, |x, y| image::Luma([((x * 7) ^ (y * 13)) as u8]));
        let bytes = png_bytes(&img);
        let err =
            decode_pages(&bytes[..bytes.len() / 2], &p(), &PageParams::default()).unwrap_err();
        assert!(
            matches!(err, PageError::Truncated { .. } | PageError::Corrupt { .. }),
            "{err}"
        );
    }

    #[test]
    fn a_cut_jpeg_is_refused_and_a_trailer_is_fine() {
        let img = GrayImage::from_fn(64, 48, |x, y| image::Luma([((x * 5) ^ (y * 3)) as u8]));
        let mut jpeg = Vec::new();
        img.write_to(&mut Cursor::new(&mut jpeg), ImageFormat::Jpeg)
            .unwrap();
        let params = PageParams::default();
        assert!(decode_pages(&jpeg, &p(), &params).is_ok());
        let err = decode_pages(&jpeg[..jpeg.len() * 2 / 3], &p(), &params).unwrap_err();
        assert!(matches!(err, PageError::Truncated { .. }), "{err}");
        let mut trailer = jpeg.clone();
        trailer.extend(std::iter::repeat_n(0x5A, 500));
        assert!(decode_pages(&trailer, &p(), &params).is_ok());
    }

    #[test]
    fn refuses_a_huge_png_from_its_header() {
        // A valid PNG header claiming 100000 x 100000 pixels, followed by nothing.
        let img = GrayImage::new(1, 1);
        let mut bytes = png_bytes(&img);
        // IHDR width/height live at bytes 16..24 and its CRC at 29..33.
        bytes[16..20].copy_from_slice(&100_000u32.to_be_bytes());
        bytes[20..24].copy_from_slice(&100_000u32.to_be_bytes());
        let crc = crc32(&bytes[12..29]);
        bytes[29..33].copy_from_slice(&crc.to_be_bytes());
        let err = decode_pages(&bytes, &p(), &PageParams::default()).unwrap_err();
        assert!(
            matches!(err, PageError::TooLarge { width: 100_000, .. }),
            "{err}"
        );
        // The header alone, nothing after IHDR: still refused for its size.
        let err = decode_pages(&bytes[..33], &p(), &PageParams::default()).unwrap_err();
        assert!(
            matches!(err, PageError::TooLarge { width: 100_000, .. }),
            "{err}"
        );
    }

    fn crc32(data: &[u8]) -> u32 {
        let mut crc = !0u32;
        for &b in data {
            crc ^= u32::from(b);
            for _ in 0..8 {
                crc = if crc & 1 == 1 {
                    (crc >> 1) ^ 0xEDB8_8320
                } else {
                    crc >> 1
                };
            }
        }
        !crc
    }

    #[test]
    fn reads_every_page_of_a_multipage_tiff() {
        let mut bytes = Vec::new();
        {
            let mut enc = tiff::encoder::TiffEncoder::new(Cursor::new(&mut bytes)).unwrap();
            enc.write_image::<tiff::encoder::colortype::Gray8>(2, 2, &[0, 50, 100, 150])
                .unwrap();
            enc.write_image::<tiff::encoder::colortype::RGB8>(1, 1, &[255, 255, 255])
                .unwrap();
        }
        let pages = decode_pages(&bytes, Path::new("a.tif"), &PageParams::default()).unwrap();
        assert_eq!(pages.len(), 2);
        assert_eq!(pages[0].as_raw(), &vec![0, 50, 100, 150]);
        assert_eq!(pages[1].as_raw(), &vec![255]);
    }
}
