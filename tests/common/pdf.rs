//! JPEG files -> a PDF in memory with one page per image (DCTDecode), or a page of
//! text where no image is given: the scanner PDFs of the CLI tests.

#![allow(dead_code)]

use std::path::Path;

use lopdf::{Document, Object, Stream, dictionary};

/// A PDF whose pages show the given JPEG files full-page, in order; `None` gives a
/// page of text only (no image).
pub fn pdf_of_jpegs(pages: &[Option<&Path>]) -> Vec<u8> {
    let mut doc = Document::with_version("1.5");
    let pages_id = doc.new_object_id();
    let mut kids = Vec::new();
    for page in pages {
        let (resources, content, (w, h)) = match page {
            Some(jpeg) => {
                let (w, h) = image::ImageReader::open(jpeg)
                    .unwrap()
                    .into_dimensions()
                    .unwrap();
                let image = Stream::new(
                    dictionary! {
                        "Type" => "XObject", "Subtype" => "Image",
                        "Width" => i64::from(w), "Height" => i64::from(h),
                        "ColorSpace" => "DeviceRGB", "BitsPerComponent" => 8,
                        "Filter" => "DCTDecode",
                    },
                    std::fs::read(jpeg).unwrap(),
                );
                let id = doc.add_object(image);
                (
                    dictionary! { "XObject" => dictionary! { "Im0" => id } },
                    format!("q {w} 0 0 {h} 0 0 cm /Im0 Do Q").into_bytes(),
                    (w, h),
                )
            }
            None => (
                dictionary! { "Font" => dictionary! { "F1" => dictionary! {
                "Type" => "Font", "Subtype" => "Type1", "BaseFont" => "Helvetica" } } },
                b"BT /F1 12 Tf 72 720 Td (1. e4 e5 2. Nf3) Tj ET".to_vec(),
                (595, 842),
            ),
        };
        let contents = doc.add_object(Stream::new(dictionary! {}, content));
        kids.push(Object::from(doc.add_object(dictionary! {
            "Type" => "Page", "Parent" => pages_id, "Contents" => contents,
            "Resources" => resources,
            "MediaBox" => vec![0.into(), 0.into(), i64::from(w).into(), i64::from(h).into()],
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
