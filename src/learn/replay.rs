//! Cells the base reader was trained on, mixed into every fine-tuning batch so that
//! learning a collection's hands does not make the reader forget the others.
//!
//! A pack is two files: a grayscale PNG of cells stacked top to bottom, each already
//! the reader's input size (its `height` rows, `width` columns, padded with paper as
//! the reader pads), and a text file with one label per cell, in the same order
//! (lines starting with `#` are comments). The shipped pack (`models/replay.*`) holds
//! cells of HCS training games (CC BY 3.0), cut by the product's cutter and stored in
//! eight grey levels, paper white; `examples/learn_hcs.rs --dump-replay N` writes it.

use image::GrayImage;

use super::tune::Example;
use crate::model::Manifest;

const SHIPPED_PNG: &[u8] = include_bytes!("../../models/replay.png");
const SHIPPED_LABELS: &str = include_str!("../../models/replay.tsv");

/// The pack built into the binary, for a reader with the shipped reader's input size
/// and alphabet.
///
/// # Errors
/// When the reader's input size differs from the pack's cells, or a label is not in
/// its alphabet.
pub fn shipped(manifest: &Manifest) -> Result<Vec<Example>, String> {
    let sprite = image::load_from_memory_with_format(SHIPPED_PNG, image::ImageFormat::Png)
        .map_err(|e| format!("the built-in replay cells: {e}"))?
        .to_luma8();
    unpack(&sprite, SHIPPED_LABELS, manifest)
}

/// A pack read from `png` and its labels file `labels`.
///
/// # Errors
/// When a file cannot be read, or [`unpack`] fails.
pub fn load(
    png: &std::path::Path,
    labels: &std::path::Path,
    manifest: &Manifest,
) -> Result<Vec<Example>, String> {
    let sprite = image::open(png)
        .map_err(|e| format!("{}: {e}", png.display()))?
        .to_luma8();
    let text = std::fs::read_to_string(labels).map_err(|e| format!("{}: {e}", labels.display()))?;
    unpack(&sprite, &text, manifest).map_err(|e| format!("{}: {e}", png.display()))
}

/// The cells of a sprite and their labels as examples for `manifest`'s reader.
///
/// # Errors
/// When the sprite's width is not the reader's input width, its height is not one
/// input height per label, or a label is not in the reader's alphabet.
pub fn unpack(
    sprite: &GrayImage,
    labels: &str,
    manifest: &Manifest,
) -> Result<Vec<Example>, String> {
    let (w, h) = (manifest.input.width, manifest.input.height);
    let labels: Vec<&str> = labels.lines().filter(|l| !l.starts_with('#')).collect();
    if sprite.width() != w || sprite.height() != h * labels.len() as u32 {
        return Err(format!(
            "{} cells of {w}x{h} expected, the image is {}x{}",
            labels.len(),
            sprite.width(),
            sprite.height()
        ));
    }
    let alphabet = manifest.alphabet();
    labels
        .iter()
        .enumerate()
        .map(|(i, label)| {
            let target = alphabet.encode(label).ok_or_else(|| {
                format!("cell {}: {label:?} is not in the reader's alphabet", i + 1)
            })?;
            Ok(Example {
                crop: image::imageops::crop_imm(sprite, 0, h * i as u32, w, h).to_image(),
                target: target.into_iter().map(|c| c as u32).collect(),
            })
        })
        .collect()
}

/// Cells as a pack: each resized as the reader sizes it ([`InputSpec::fit`]),
/// stacked into one image; light grey is paper, the rest rounded to seven levels
/// (so the PNG compresses well: models/README.md).
///
/// [`InputSpec::fit`]: crate::model::InputSpec::fit
pub fn pack(crops: &[&GrayImage], manifest: &Manifest) -> GrayImage {
    let spec = &manifest.input;
    let (w, h) = (spec.width, spec.height);
    let mut sprite = GrayImage::from_pixel(w, h * crops.len() as u32, image::Luma([255]));
    for (i, c) in crops.iter().enumerate() {
        let Some(resized) = spec.fit(c) else {
            continue;
        };
        for (x, y, p) in resized.enumerate_pixels() {
            let v = p.0[0];
            let q = if v >= 192 {
                255
            } else {
                ((f32::from(v) / 32.0).round() * 32.0).min(192.0) as u8
            };
            sprite.put_pixel(x, h * i as u32 + y, image::Luma([q]));
        }
    }
    sprite
}

/// A pack's image as PNG bytes, compressed as far as the encoder goes.
///
/// # Errors
/// When encoding fails.
pub fn encode_png(sprite: &GrayImage) -> Result<Vec<u8>, image::ImageError> {
    use image::ImageEncoder;
    use image::codecs::png::{CompressionType, FilterType, PngEncoder};
    let mut out = Vec::new();
    PngEncoder::new_with_quality(&mut out, CompressionType::Best, FilterType::Adaptive)
        .write_image(
            sprite.as_raw(),
            sprite.width(),
            sprite.height(),
            image::ExtendedColorType::L8,
        )?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn manifest() -> Manifest {
        Manifest::load(std::path::Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/models/cellreader.json"
        )))
        .expect("the shipped manifest")
    }

    #[test]
    fn a_pack_unpacks_to_its_cells_and_labels() {
        let m = manifest();
        let a = GrayImage::from_fn(40, 20, |x, _| image::Luma([if x < 20 { 0 } else { 255 }]));
        let b = GrayImage::from_pixel(300, 30, image::Luma([0]));
        let sprite = pack(&[&a, &b], &m);
        let cells = unpack(&sprite, "# two cells\ne4\nNf3\n", &m).unwrap();
        assert_eq!(cells.len(), 2);
        assert_eq!(
            cells[0].target,
            m.alphabet()
                .encode("e4")
                .unwrap()
                .into_iter()
                .map(|c| c as u32)
                .collect::<Vec<_>>()
        );
        // The first cell: 40x20 scaled to 96x48, dark on its left half, paper after.
        assert_eq!(cells[0].crop.get_pixel(10, 10).0[0], 0);
        assert_eq!(cells[0].crop.get_pixel(150, 10).0[0], 255);
        // The wide one is squeezed to the input width, as the reader squeezes it.
        assert_eq!(cells[1].crop.get_pixel(191, 47).0[0], 0);
        assert!(unpack(&sprite, "e4\n", &m).is_err());
        assert!(unpack(&sprite, "e4\nЖ9\n", &m).is_err());
    }

    #[test]
    fn the_shipped_pack_fits_the_shipped_reader() {
        let cells = shipped(&manifest()).unwrap();
        assert!(cells.len() >= 500, "{} cells", cells.len());
        assert!(cells.iter().all(|c| c.crop.dimensions() == (192, 48)));
    }
}
