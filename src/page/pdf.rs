//! PDF file bytes -> one grayscale image per page: the largest image each page shows
//! (JPEG, Flate/LZW/run-length raw samples, CCITT Group 4), size limits checked before
//! any pixel is decoded. A page without an image is an error of that page only.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use image::{GrayImage, ImageFormat};
use lopdf::{Dictionary, Document, Object, ObjectId, Stream};

use super::single::{check_size, decode_single, luma};
use super::{PageError, PageParams};

/// One page's image, or why that page gave none.
pub type PageImage = Result<GrayImage, PageError>;

/// Whether the bytes are a PDF: the `%PDF-` header within the first 1024 bytes, where
/// readers accept it (some producers put junk before it).
pub fn is_pdf(bytes: &[u8]) -> bool {
    bytes[..bytes.len().min(1024)]
        .windows(5)
        .any(|w| w == b"%PDF-")
}

/// Decodes the image of every page (up to `params.max_pages`), in page order.
///
/// # Errors
/// [`PageError::Pdf`] when the file does not parse as a PDF or has no pages; the
/// errors of single pages are in the returned list.
pub fn decode_pdf(
    bytes: &[u8],
    path: &Path,
    params: &PageParams,
) -> Result<Vec<PageImage>, PageError> {
    let pdf = Pdf::open(bytes, path)?;
    Ok((0..pdf.len().min(params.max_pages))
        .map(|i| pdf.page(i, params))
        .chain(pdf.beyond_limit(params.max_pages).map(Err))
        .collect())
}

/// A parsed PDF whose page images are decoded one at a time, when asked for.
pub struct Pdf {
    doc: Document,
    pages: Vec<ObjectId>,
    path: PathBuf,
}

impl Pdf {
    /// Parses the file and lists its pages.
    ///
    /// # Errors
    /// [`PageError::Pdf`] when the bytes do not parse as a PDF (or one whose password
    /// is not empty) or the PDF has no pages.
    pub fn open(bytes: &[u8], path: &Path) -> Result<Pdf, PageError> {
        let pdf_error = |reason: String| PageError::Pdf {
            path: path.into(),
            reason,
        };
        let doc = Document::load_mem(bytes).map_err(|e| {
            pdf_error(match e {
                lopdf::Error::Decryption(_) => "the pdf is password-protected".into(),
                other => other.to_string(),
            })
        })?;
        let pages: Vec<ObjectId> = doc.get_pages().into_values().collect();
        // A file whose password is not empty loads, but its page tree stays locked.
        if pages.is_empty() && doc.is_encrypted() {
            return Err(pdf_error("the pdf is password-protected".into()));
        }
        if pages.is_empty() {
            return Err(pdf_error("the pdf has no pages".into()));
        }
        Ok(Pdf {
            doc,
            pages,
            path: path.into(),
        })
    }

    /// Number of pages.
    pub fn len(&self) -> usize {
        self.pages.len()
    }

    /// The error that says the pages after the first `max_pages` are not read, when
    /// the file has more.
    pub fn beyond_limit(&self, max_pages: usize) -> Option<PageError> {
        (self.pages.len() > max_pages).then(|| PageError::Pdf {
            path: self.path.clone(),
            reason: format!(
                "has {} pages; those after page {max_pages} are not read (the limit of one file)",
                self.pages.len()
            ),
        })
    }

    /// The image of page `index` (from 0).
    ///
    /// # Errors
    /// [`PageError`] naming the page when it has no image or its image cannot be
    /// decoded, or the file when it has no such page.
    pub fn page(&self, index: usize, params: &PageParams) -> PageImage {
        let &id = self.pages.get(index).ok_or_else(|| PageError::Pdf {
            path: self.path.clone(),
            reason: format!("has no page {} ({} pages)", index + 1, self.pages.len()),
        })?;
        page_image(&self.doc, id, &self.path, index, params)
    }
}

/// The name of page `index` (0-based) in messages: `scan.pdf#page3`, the form report
/// sources use for the pages of multi-page files.
fn page_path(path: &Path, index: usize) -> PathBuf {
    PathBuf::from(format!("{}#page{}", path.display(), index + 1))
}

fn page_image(
    doc: &Document,
    page: ObjectId,
    path: &Path,
    index: usize,
    params: &PageParams,
) -> PageImage {
    let mut images = Vec::new();
    let page_dict = doc.get_dictionary(page).ok();
    if let Some(resources) = page_dict.and_then(|d| resources(doc, d)) {
        collect_images(doc, resources, 0, &mut HashSet::new(), &mut images);
    }
    // A scanner puts one image on a page; where there are more (a logo, a stamp, a
    // strip of the page) the sheet is the largest.
    let largest = images
        .into_iter()
        .filter_map(|s| Some((dimensions(doc, &s.dict)?, s)))
        .max_by_key(|&((w, h), _)| u64::from(w) * u64::from(h));
    let Some(((width, height), stream)) = largest else {
        return Err(PageError::NoImage {
            path: path.into(),
            page: index + 1,
        });
    };
    let named = page_path(path, index);
    check_size(&named, width, height, params)?;
    let image = decode_image(doc, stream, width, height, &named, params)?;
    // A scanner stores a sideways sheet as scanned and turns the page for display.
    Ok(match page_dict.map_or(0, |d| rotation(doc, d)) {
        90 => image::imageops::rotate90(&image),
        180 => image::imageops::rotate180(&image),
        270 => image::imageops::rotate270(&image),
        _ => image,
    })
}

fn deref<'a>(doc: &'a Document, object: &'a Object) -> &'a Object {
    doc.dereference(object).map_or(object, |(_, o)| o)
}

fn dict_at<'a>(doc: &'a Document, dict: &'a Dictionary, key: &[u8]) -> Option<&'a Dictionary> {
    dict.get(key)
        .ok()
        .map(|o| deref(doc, o))
        .and_then(|o| o.as_dict().ok())
}

fn int_at(doc: &Document, dict: &Dictionary, key: &[u8]) -> Option<i64> {
    dict.get(key)
        .ok()
        .map(|o| deref(doc, o))
        .and_then(|o| o.as_i64().ok())
}

/// An entry of the page dictionary, or of the nearest page-tree node above it that has
/// one (`Resources`, `Rotate`).
fn inherited<'a>(doc: &'a Document, mut node: &'a Dictionary, key: &[u8]) -> Option<&'a Object> {
    // The bound stops a cyclic page tree.
    for _ in 0..64 {
        if let Ok(value) = node.get(key) {
            return Some(deref(doc, value));
        }
        let parent = node.get(b"Parent").ok()?.as_reference().ok()?;
        node = doc.get_dictionary(parent).ok()?;
    }
    None
}

/// The page's resources, or those it inherits from the page tree.
fn resources<'a>(doc: &'a Document, node: &'a Dictionary) -> Option<&'a Dictionary> {
    inherited(doc, node, b"Resources").and_then(|o| o.as_dict().ok())
}

/// How far the page is turned clockwise when shown: 0, 90, 180 or 270 degrees.
fn rotation(doc: &Document, node: &Dictionary) -> i64 {
    inherited(doc, node, b"Rotate")
        .and_then(|o| o.as_i64().ok())
        .map_or(0, |r| r.rem_euclid(360) / 90 * 90)
}

/// Image XObjects of a resource dictionary, and of the forms it draws (some scanning
/// apps wrap the page image in a form).
fn collect_images<'a>(
    doc: &'a Document,
    resources: &'a Dictionary,
    depth: usize,
    seen: &mut HashSet<ObjectId>,
    out: &mut Vec<&'a Stream>,
) {
    let Some(xobjects) = dict_at(doc, resources, b"XObject") else {
        return;
    };
    for (_, value) in xobjects.iter() {
        let Ok(id) = value.as_reference() else {
            continue;
        };
        if !seen.insert(id) {
            continue;
        }
        let Ok(stream) = doc.get_object(id).and_then(Object::as_stream) else {
            continue;
        };
        match stream.dict.get(b"Subtype").and_then(Object::as_name) {
            Ok(b"Image") => out.push(stream),
            Ok(b"Form") if depth < 8 => {
                if let Some(inner) = dict_at(doc, &stream.dict, b"Resources") {
                    collect_images(doc, inner, depth + 1, seen, out);
                }
            }
            _ => {}
        }
    }
}

fn dimensions(doc: &Document, dict: &Dictionary) -> Option<(u32, u32)> {
    let w = u32::try_from(int_at(doc, dict, b"Width")?).ok()?;
    let h = u32::try_from(int_at(doc, dict, b"Height")?).ok()?;
    Some((w, h))
}

/// A colour space the raw-sample path converts to gray.
#[derive(Clone, Debug, PartialEq)]
enum Space {
    Gray,
    Rgb,
    Cmyk,
    /// A palette of `base` colours, `components(base)` bytes an entry.
    Indexed {
        base: Box<Space>,
        palette: Vec<u8>,
    },
}

impl Space {
    fn components(&self) -> usize {
        match self {
            Space::Gray | Space::Indexed { .. } => 1,
            Space::Rgb => 3,
            Space::Cmyk => 4,
        }
    }

    /// Gray of one colour given as 8-bit components.
    fn gray(&self, c: &[u8]) -> u8 {
        match self {
            Space::Gray | Space::Indexed { .. } => c[0],
            Space::Rgb => luma(c[0].into(), c[1].into(), c[2].into()),
            Space::Cmyk => {
                let k = 255 - u32::from(c[3]);
                let rgb = [c[0], c[1], c[2]].map(|v| (255 - u32::from(v)) * k / 255);
                luma(rgb[0], rgb[1], rgb[2])
            }
        }
    }
}

fn color_space(doc: &Document, object: &Object, depth: usize) -> Result<Space, String> {
    let object = deref(doc, object);
    let by_name = |name: &[u8]| match name {
        b"DeviceGray" | b"CalGray" | b"G" => Ok(Space::Gray),
        b"DeviceRGB" | b"CalRGB" | b"RGB" => Ok(Space::Rgb),
        b"DeviceCMYK" | b"CMYK" => Ok(Space::Cmyk),
        other => Err(format!(
            "colour space {} is not read",
            String::from_utf8_lossy(other)
        )),
    };
    if let Ok(name) = object.as_name() {
        return by_name(name);
    }
    let array = object
        .as_array()
        .map_err(|_| "colour space is neither a name nor an array".to_string())?;
    let family = array
        .first()
        .and_then(|o| o.as_name().ok())
        .ok_or("colour space array without a family name")?;
    match family {
        b"ICCBased" => {
            let n = array
                .get(1)
                .map(|o| deref(doc, o))
                .and_then(|o| o.as_stream().ok())
                .and_then(|s| int_at(doc, &s.dict, b"N"));
            match n {
                Some(1) => Ok(Space::Gray),
                Some(3) => Ok(Space::Rgb),
                Some(4) => Ok(Space::Cmyk),
                _ => Err("icc colour space without 1, 3 or 4 components".into()),
            }
        }
        b"Indexed" | b"I" if depth == 0 => {
            let base = color_space(doc, array.get(1).ok_or("indexed without base")?, 1)?;
            let hival = array
                .get(2)
                .map(|o| deref(doc, o))
                .and_then(|o| o.as_i64().ok())
                .filter(|h| (0..=255).contains(h))
                .ok_or("indexed colour space without a valid highest index")?;
            let lookup = deref(doc, array.get(3).ok_or("indexed without a palette")?);
            let mut palette = match lookup {
                Object::String(bytes, _) => bytes.clone(),
                Object::Stream(s) => s
                    .decompressed_content_with_limit(4096)
                    .map_err(|e| format!("palette: {e}"))?,
                _ => return Err("indexed palette is neither a string nor a stream".into()),
            };
            // A short palette is padded with black rather than refused.
            palette.resize((hival as usize + 1) * base.components(), 0);
            Ok(Space::Indexed {
                base: Box::new(base),
                palette,
            })
        }
        b"CalGray" | b"CalRGB" | b"DeviceGray" | b"DeviceRGB" | b"DeviceCMYK" => by_name(family),
        other => Err(format!(
            "colour space {} is not read",
            String::from_utf8_lossy(other)
        )),
    }
}

/// The image's /Decode array swaps dark and light (`[1 0]` for the first component).
fn decode_inverts(doc: &Document, dict: &Dictionary) -> bool {
    let Some(array) = dict
        .get(b"Decode")
        .ok()
        .map(|o| deref(doc, o))
        .and_then(|o| o.as_array().ok())
    else {
        return false;
    };
    let num = |o: &Object| {
        o.as_float()
            .ok()
            .or_else(|| o.as_i64().ok().map(|i| i as f32))
    };
    matches!((array.first().and_then(num), array.get(1).and_then(num)), (Some(a), Some(b)) if a > b)
}

/// The decoding parameters of the stream's last filter.
fn last_params<'a>(doc: &'a Document, dict: &'a Dictionary) -> Option<&'a Dictionary> {
    match dict.get(b"DecodeParms").ok().map(|o| deref(doc, o))? {
        Object::Dictionary(d) => Some(d),
        Object::Array(a) => a
            .last()
            .map(|o| deref(doc, o))
            .and_then(|o| o.as_dict().ok()),
        _ => None,
    }
}

fn decode_image(
    doc: &Document,
    stream: &Stream,
    width: u32,
    height: u32,
    named: &Path,
    params: &PageParams,
) -> PageImage {
    let corrupt = |reason: String| PageError::Corrupt {
        path: named.into(),
        reason,
    };
    let filters: Vec<Vec<u8>> = match stream.dict.get(b"Filter").map(|o| deref(doc, o)) {
        Err(_) => Vec::new(),
        Ok(Object::Name(n)) => vec![n.clone()],
        Ok(Object::Array(a)) => a
            .iter()
            .map(|o| o.as_name().map(<[u8]>::to_vec))
            .collect::<Result<_, _>>()
            .map_err(|_| corrupt("unreadable image filter list".into()))?,
        Ok(_) => return Err(corrupt("unreadable image filter".into())),
    };
    let invert = decode_inverts(doc, &stream.dict);
    let last = filters.last().map(Vec::as_slice);
    let not_read = |what: &str| PageError::NotRead {
        path: named.into(),
        encoding: what.into(),
    };
    let mut gray = match last {
        Some(b"DCTDecode" | b"DCT") => {
            if filters.len() > 1 {
                return Err(not_read("a jpeg image under a further filter"));
            }
            decode_single(&stream.content, ImageFormat::Jpeg, named, params, false)?
        }
        Some(b"JPXDecode") => return Err(not_read("jpeg 2000 (JPXDecode)")),
        Some(b"JBIG2Decode") => return Err(not_read("jbig2 (JBIG2Decode)")),
        Some(b"CCITTFaxDecode" | b"CCF") => {
            if filters.len() > 1 {
                return Err(not_read("a ccitt fax image under a further filter"));
            }
            decode_ccitt(doc, stream, width, height, named)?
        }
        _ => {
            let image_mask = matches!(stream.dict.get(b"ImageMask"), Ok(Object::Boolean(true)));
            let space = if image_mask {
                Space::Gray
            } else {
                let object = stream
                    .dict
                    .get(b"ColorSpace")
                    .map_err(|_| corrupt("raw image without a colour space".into()))?;
                color_space(doc, object, 0).map_err(corrupt)?
            };
            let bits = if image_mask {
                1
            } else {
                int_at(doc, &stream.dict, b"BitsPerComponent").unwrap_or(8)
            };
            if ![1, 2, 4, 8, 16].contains(&bits) {
                return Err(corrupt(format!("{bits} bits per component")));
            }
            let row_bytes = (width as usize * space.components() * bits as usize).div_ceil(8);
            // Predictors add a byte a row before they are undone; the slack covers it.
            let limit = (row_bytes + 1) * height as usize + 4096;
            let data = stream
                .decompressed_content_with_limit(limit)
                .map_err(|e| match e {
                    lopdf::Error::Unimplemented(_) => not_read(&format!(
                        "the image filter {}",
                        String::from_utf8_lossy(last.unwrap_or_default())
                    )),
                    other => corrupt(format!("image data: {other}")),
                })?;
            samples_to_gray(&data, width, height, bits as u8, &space).map_err(|reason| {
                PageError::Truncated {
                    path: named.into(),
                    reason,
                }
            })?
        }
    };
    if invert {
        image::imageops::invert(&mut gray);
    }
    Ok(gray)
}

/// Converts raw samples (rows padded to whole bytes, big-endian 16-bit samples) to
/// 8-bit gray.
fn samples_to_gray(
    data: &[u8],
    width: u32,
    height: u32,
    bits: u8,
    space: &Space,
) -> Result<GrayImage, String> {
    let (w, h) = (width as usize, height as usize);
    let comps = space.components();
    let row_bytes = (w * comps * usize::from(bits)).div_ceil(8);
    if data.len() < row_bytes * h {
        return Err(format!(
            "short image data ({} of {} bytes)",
            data.len(),
            row_bytes * h
        ));
    }
    let max = (1u32 << bits.min(8)) - 1;
    // Sample `i` of a row as its raw value (palette index) or scaled to 0..=255.
    let sample = |row: &[u8], i: usize, scale: bool| -> u8 {
        let v = match bits {
            8 => u32::from(row[i]),
            16 => u32::from(row[2 * i]),
            _ => {
                let bit = i * usize::from(bits);
                u32::from(row[bit / 8] >> (8 - usize::from(bits) - bit % 8)) & max
            }
        };
        if scale && bits < 8 {
            (v * 255 / max) as u8
        } else {
            v as u8
        }
    };
    let mut out = Vec::with_capacity(w * h);
    let mut px = [0u8; 4];
    for row in data.chunks_exact(row_bytes).take(h) {
        for x in 0..w {
            let g = match space {
                Space::Indexed { base, palette } => {
                    let n = base.components();
                    let entry = usize::from(sample(row, x, false)) * n;
                    let max_entry = palette.len() - n;
                    let at = entry.min(max_entry);
                    base.gray(&palette[at..at + n])
                }
                _ => {
                    for (c, p) in px.iter_mut().enumerate().take(comps) {
                        *p = sample(row, x * comps + c, true);
                    }
                    space.gray(&px[..comps])
                }
            };
            out.push(g);
        }
    }
    GrayImage::from_raw(width, height, out).ok_or_else(|| "image buffer size".to_string())
}

/// Decodes a CCITT Group 4 image (the usual encoding of 1-bit scans). Group 3 (`/K`
/// of 0 or more) is not read.
fn decode_ccitt(
    doc: &Document,
    stream: &Stream,
    width: u32,
    height: u32,
    named: &Path,
) -> PageImage {
    let p = last_params(doc, &stream.dict);
    let get = |key: &[u8]| p.and_then(|p| int_at(doc, p, key));
    if get(b"K").unwrap_or(0) >= 0 {
        return Err(PageError::NotRead {
            path: named.into(),
            encoding: "ccitt group 3 fax".into(),
        });
    }
    let black_is_1 = matches!(
        p.map(|p| p.get(b"BlackIs1")),
        Some(Ok(Object::Boolean(true)))
    );
    let columns = get(b"Columns").unwrap_or(1728);
    let (Ok(cols), Ok(rows)) = (u16::try_from(columns), u16::try_from(height)) else {
        return Err(PageError::Corrupt {
            path: named.into(),
            reason: format!("fax image of {columns}x{height} pixels is wider or taller than 65535"),
        });
    };
    let mut out = Vec::with_capacity(width as usize * height as usize);
    let done = fax::decoder::decode_g4(stream.content.iter().copied(), cols, Some(rows), |line| {
        out.extend(
            fax::decoder::pels(line, cols)
                .chain(std::iter::repeat(fax::Color::White))
                .take(width as usize)
                .map(|c| match (c, black_is_1) {
                    (fax::Color::Black, false) | (fax::Color::White, true) => 0u8,
                    _ => 255,
                }),
        );
    });
    out.truncate(width as usize * height as usize);
    if done.is_none() || out.len() < width as usize * height as usize {
        return Err(PageError::Truncated {
            path: named.into(),
            reason: "ccitt fax data ends early or is corrupt".into(),
        });
    }
    GrayImage::from_raw(width, height, out).ok_or_else(|| PageError::Corrupt {
        path: named.into(),
        reason: "fax image buffer size".into(),
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use lopdf::dictionary;

    /// A PDF whose pages show the given image streams (`None`: a page of text only).
    pub(crate) fn pdf_of(pages: Vec<Option<Stream>>) -> Vec<u8> {
        let mut doc = Document::with_version("1.5");
        let pages_id = doc.new_object_id();
        let mut kids = Vec::new();
        for image in pages {
            let (resources, content) = match image {
                Some(stream) => {
                    let id = doc.add_object(stream);
                    (
                        dictionary! { "XObject" => dictionary! { "Im0" => id } },
                        b"q 600 0 0 800 0 0 cm /Im0 Do Q".to_vec(),
                    )
                }
                None => (
                    dictionary! { "Font" => dictionary! { "F1" => dictionary! {
                    "Type" => "Font", "Subtype" => "Type1", "BaseFont" => "Helvetica" } } },
                    b"BT /F1 12 Tf 72 720 Td (1. e4 e5) Tj ET".to_vec(),
                ),
            };
            let contents = doc.add_object(Stream::new(dictionary! {}, content));
            kids.push(Object::from(doc.add_object(dictionary! {
                "Type" => "Page", "Parent" => pages_id, "Contents" => contents,
                "Resources" => resources,
                "MediaBox" => vec![0.into(), 0.into(), 600.into(), 800.into()],
            })));
        }
        let count = kids.len() as i64;
        doc.objects.insert(
            pages_id,
            Object::Dictionary(dictionary! { "Type" => "Pages", "Kids" => kids, "Count" => count }),
        );
        let catalog = doc.add_object(dictionary! { "Type" => "Catalog", "Pages" => pages_id });
        doc.trailer.set("Root", catalog);
        let mut out = Vec::new();
        doc.save_to(&mut out).unwrap();
        out
    }

    pub(crate) fn raw_image(w: u32, h: u32, space: Object, bits: i64, data: Vec<u8>) -> Stream {
        Stream::new(
            dictionary! { "Type" => "XObject", "Subtype" => "Image", "Width" => w as i64,
            "Height" => h as i64, "ColorSpace" => space, "BitsPerComponent" => bits },
            data,
        )
    }

    fn flate(mut s: Stream) -> Stream {
        s.compress().unwrap();
        assert_eq!(
            s.dict.get(b"Filter").unwrap().as_name().unwrap(),
            b"FlateDecode"
        );
        s
    }

    fn pages(bytes: &[u8]) -> Vec<PageImage> {
        decode_pdf(bytes, Path::new("x/scan.pdf"), &PageParams::default()).unwrap()
    }

    #[test]
    fn reads_a_flate_gray_page_with_a_png_predictor() {
        let (w, h) = (40u32, 30u32);
        let gray = GrayImage::from_fn(w, h, |x, y| image::Luma([(x * 6 + y) as u8]));
        // PNG predictor rows: a filter-type byte (0, none) before each row.
        let mut data = Vec::new();
        for row in gray.as_raw().chunks(w as usize) {
            data.push(0);
            data.extend_from_slice(row);
        }
        let mut s = raw_image(w, h, "DeviceGray".into(), 8, data);
        s.dict.set(
            "DecodeParms",
            dictionary! { "Predictor" => 12, "Columns" => w as i64, "Colors" => 1 },
        );
        let got = pages(&pdf_of(vec![Some(flate(s))]));
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].as_ref().unwrap(), &gray);
    }

    #[test]
    fn reads_a_flate_rgb_page_and_an_indexed_one() {
        let (w, h) = (32u32, 24u32);
        let rgb: Vec<u8> = (0..w * h)
            .flat_map(|i| [(i % 251) as u8, (i * 3 % 256) as u8, 200])
            .collect();
        let want = GrayImage::from_fn(w, h, |x, y| {
            let p = &rgb[((y * w + x) * 3) as usize..][..3];
            image::Luma([luma(p[0].into(), p[1].into(), p[2].into())])
        });
        let page = flate(raw_image(w, h, "DeviceRGB".into(), 8, rgb));
        // A 1-bit palette of white and red, every other pixel red.
        let indexed_space = Object::Array(vec![
            "Indexed".into(),
            "DeviceRGB".into(),
            1.into(),
            Object::string_literal(vec![255u8, 255, 255, 255, 0, 0]),
        ]);
        let bits: Vec<u8> = (0..h).flat_map(|_| [0b0101_0101u8; 4]).collect();
        let indexed = flate(raw_image(w, h, indexed_space, 1, bits));
        let got = pages(&pdf_of(vec![Some(page), Some(indexed)]));
        assert_eq!(got[0].as_ref().unwrap(), &want);
        let second = got[1].as_ref().unwrap();
        let red = luma(255, 0, 0);
        assert_eq!(second.get_pixel(0, 0).0, [255]);
        assert_eq!(second.get_pixel(1, 0).0, [red]);
        assert_eq!(second.get_pixel(31, 23).0, [red]);
    }

    #[test]
    fn a_page_without_an_image_is_an_error_of_that_page() {
        let (w, h) = (8u32, 8u32);
        let img = raw_image(w, h, "DeviceGray".into(), 8, vec![77; 64]);
        let bytes = pdf_of(vec![Some(img), None]);
        let got = pages(&bytes);
        assert_eq!(got[0].as_ref().unwrap().as_raw(), &vec![77u8; 64]);
        // Pages past the limit are one error, after the pages read.
        let one = PageParams {
            max_pages: 1,
            ..PageParams::default()
        };
        let limited = decode_pdf(&bytes, Path::new("x/scan.pdf"), &one).unwrap();
        assert_eq!(limited.len(), 2);
        assert!(limited[0].is_ok());
        let err = limited[1].as_ref().unwrap_err().to_string();
        assert!(
            err.contains("has 2 pages; those after page 1 are not read"),
            "{err}"
        );
        let err = got[1].as_ref().unwrap_err();
        assert!(matches!(err, PageError::NoImage { page: 2, .. }), "{err}");
        assert!(
            err.to_string()
                .starts_with("x/scan.pdf#page2: the page holds no image"),
            "{err}"
        );
    }

    #[test]
    fn the_largest_image_of_a_page_is_the_sheet() {
        let small = raw_image(4, 4, "DeviceGray".into(), 8, vec![0; 16]);
        let large = raw_image(16, 8, "DeviceGray".into(), 8, vec![200; 128]);
        let mut doc_bytes = pdf_of(vec![Some(small)]);
        // Rebuild with both images on one page.
        let mut doc = Document::load_mem(&doc_bytes).unwrap();
        let page = *doc.get_pages().values().next().unwrap();
        let id = doc.add_object(large);
        let res = doc
            .get_dictionary_mut(page)
            .unwrap()
            .get_mut(b"Resources")
            .unwrap();
        res.as_dict_mut()
            .unwrap()
            .get_mut(b"XObject")
            .unwrap()
            .as_dict_mut()
            .unwrap()
            .set("Im1", id);
        doc_bytes.clear();
        doc.save_to(&mut doc_bytes).unwrap();
        let got = pages(&doc_bytes);
        assert_eq!(got[0].as_ref().unwrap().dimensions(), (16, 8));
    }

    #[test]
    fn a_turned_page_is_turned_back() {
        let img = raw_image(2, 1, "DeviceGray".into(), 8, vec![10, 20]);
        let mut doc = Document::load_mem(&pdf_of(vec![Some(img)])).unwrap();
        let page = *doc.get_pages().values().next().unwrap();
        let mut read = |rotate: i64| {
            doc.get_dictionary_mut(page).unwrap().set("Rotate", rotate);
            let mut bytes = Vec::new();
            doc.save_to(&mut bytes).unwrap();
            let got = pages(&bytes).remove(0).unwrap();
            (got.dimensions(), got.into_raw())
        };
        assert_eq!(read(0), ((2, 1), vec![10, 20]));
        // Shown turned a quarter clockwise: the first pixel on top.
        assert_eq!(read(90), ((1, 2), vec![10, 20]));
        assert_eq!(read(-90), ((1, 2), vec![20, 10]));
        assert_eq!(read(180), ((2, 1), vec![20, 10]));
    }

    #[test]
    fn a_ccitt_group4_page_is_read() {
        let (w, h) = (64u16, 16u16);
        // A black bar over columns 8..24 on every row but the first.
        let black = |x: u16, y: u16| y > 0 && (8..24).contains(&x);
        let mut enc = fax::encoder::Encoder::new(fax::VecWriter::new());
        for y in 0..h {
            let line = (0..w).map(|x| {
                if black(x, y) {
                    fax::Color::Black
                } else {
                    fax::Color::White
                }
            });
            enc.encode_line(line, w).unwrap();
        }
        let data = enc.finish().unwrap().finish();
        let mut s = raw_image(w.into(), h.into(), "DeviceGray".into(), 1, data);
        s.dict.set("Filter", "CCITTFaxDecode");
        s.dict.set(
            "DecodeParms",
            dictionary! { "K" => -1, "Columns" => i64::from(w), "Rows" => i64::from(h) },
        );
        let got = pages(&pdf_of(vec![Some(s)]));
        let img = got[0].as_ref().unwrap();
        for (x, y, p) in img.enumerate_pixels() {
            let want = if black(x as u16, y as u16) { 0 } else { 255 };
            assert_eq!(p.0[0], want, "{x},{y}");
        }
    }

    /// Pages of PDFs written by other tools (`tests/fixtures/pdf`, see its README)
    /// decode to their source images.
    #[test]
    fn pdfs_of_other_writers_give_their_source_images() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/pdf");
        let params = PageParams::default();
        let file = |name: &str| std::fs::read(dir.join(name)).unwrap();
        let image = |name: &str| {
            crate::page::decode_pages(&file(name), Path::new(name), &params)
                .unwrap()
                .remove(0)
        };
        let pdf = |name: &str| -> Vec<GrayImage> {
            decode_pdf(&file(name), Path::new(name), &params)
                .unwrap()
                .into_iter()
                .map(Result::unwrap)
                .collect()
        };
        // JPEG as is, 8-bit gray PNG data with its predictor, CCITT Group 4 (BlackIs1).
        let pages = pdf("img2pdf.pdf");
        assert_eq!(pages.len(), 3);
        assert_eq!(pages[0], image("crop.jpg"));
        assert_eq!(pages[1], image("crop.png"));
        assert_eq!(pages[2], image("crop_bw.png"));
        assert_eq!(pdf("pillow_bw.pdf"), vec![image("crop_bw.png")]);
        // Encrypted with an empty user password (printing restricted): read as usual;
        // with a password: one line for the file.
        assert_eq!(pdf("owner_only.pdf"), vec![image("crop_bw.png")]);
        let err = decode_pdf(&file("password.pdf"), Path::new("p.pdf"), &params).unwrap_err();
        assert_eq!(
            err.to_string(),
            "p.pdf: cannot read pdf: the pdf is password-protected"
        );
        // A sideways PNG on a page shown turned a quarter clockwise is the upright
        // sheet (the PNG was decoded by another JPEG decoder: within a grey level).
        let turned = pdf("img2pdf_rotate90.pdf").remove(0);
        let want = image("crop.jpg");
        assert_eq!(turned.dimensions(), want.dimensions());
        let off = turned
            .as_raw()
            .iter()
            .zip(want.as_raw())
            .map(|(a, b)| u64::from(a.abs_diff(*b)))
            .sum::<u64>() as f64
            / want.as_raw().len() as f64;
        assert!(off < 1.0, "mean difference {off}");
    }

    #[test]
    fn unread_encodings_and_broken_files_say_why() {
        let mut s = raw_image(8, 8, "DeviceGray".into(), 8, vec![1, 2, 3]);
        s.dict.set("Filter", "JPXDecode");
        let got = pages(&pdf_of(vec![Some(s)]));
        let err = got[0].as_ref().unwrap_err().to_string();
        assert!(
            err.starts_with("x/scan.pdf#page1: ") && err.contains("jpeg 2000"),
            "{err}"
        );
        // Raw data shorter than the image.
        let s = raw_image(8, 8, "DeviceGray".into(), 8, vec![1, 2, 3]);
        let got = pages(&pdf_of(vec![Some(s)]));
        assert!(
            matches!(got[0], Err(PageError::Truncated { .. })),
            "{:?}",
            got[0]
        );
        let err = decode_pdf(
            b"%PDF-1.4\n garbage",
            Path::new("b.pdf"),
            &PageParams::default(),
        )
        .unwrap_err();
        assert!(matches!(err, PageError::Pdf { .. }), "{err}");
        assert!(
            err.to_string().starts_with("b.pdf: cannot read pdf"),
            "{err}"
        );
    }
}
