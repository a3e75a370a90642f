//! Manifest JSON -> checked model description: alphabet, input geometry and
//! normalisation, tensor names, and the preprocessing of a cell crop into the model's
//! input tensor.

use std::path::Path;

use image::GrayImage;
use image::imageops::{self, FilterType};
use serde::{Deserialize, Serialize};

use super::{Alphabet, ModelError};

/// The manifest written next to the `.onnx` file by `training/` (`python -m
/// training.export`). The Rust side reads everything it needs from here.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Manifest {
    pub name: String,
    #[serde(default)]
    pub version: String,
    /// File name of the ONNX graph, relative to the manifest.
    pub onnx: String,
    /// One string per class, in class order; the blank's entry is a placeholder.
    pub alphabet: Vec<String>,
    pub blank: usize,
    pub input: InputSpec,
    pub output: OutputSpec,
    /// How to read again the cells the model is unsure of; none: one reading each.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub second_look: Option<SecondLook>,
    /// How the decoder's confidence maps to the probability that a cell is read
    /// right with this reader; none: confidences are the beam's shares.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub calibration: Option<crate::vocab::Calibration>,
    /// Validation split and figures recorded by training (kept as raw JSON).
    #[serde(default)]
    pub validation: serde_json::Value,
    #[serde(default)]
    pub metrics: serde_json::Value,
}

/// Input tensor: `[N, 1, height, width]` f32, NCHW.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct InputSpec {
    pub name: String,
    #[serde(default = "default_layout_in")]
    pub layout: String,
    pub height: u32,
    pub width: u32,
    #[serde(default = "one")]
    pub channels: u32,
    /// Only `fit-height` is defined: scale to `height` keeping the aspect ratio, width
    /// capped at `width` (wider crops are squashed), pasted at x = 0.
    pub resize: String,
    /// A wider canvas for the crops that do not fit `width` once fitted to `height`:
    /// they are read on it (squashed only past it) instead of squashed into `width`.
    /// The network must take any width (a convolutional trunk); the crops that fit
    /// are read on `width` as without it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wide: Option<u32>,
    pub pad_value: f32,
    pub scale: f32,
    pub mean: f32,
    pub std: f32,
}

/// A second look at unsure cells (test-time views): a cell whose most likely CTC path
/// has probability below `below` is read again with its input shifted by each of
/// `shifts` rows (positive: down; rows that come into view are padding), and its
/// scores become the mean of the probabilities of all its readings. Chosen and
/// measured in training with the model it ships with.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SecondLook {
    pub below: f32,
    pub shifts: Vec<i32>,
}

/// Output tensor: `[N, steps, classes]` log-softmax, NTC.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct OutputSpec {
    pub name: String,
    #[serde(default = "default_layout_out")]
    pub layout: String,
    #[serde(default)]
    pub steps: usize,
    #[serde(default = "yes")]
    pub log_softmax: bool,
}

fn default_layout_in() -> String {
    "NCHW".into()
}
fn default_layout_out() -> String {
    "NTC".into()
}
fn one() -> u32 {
    1
}
fn yes() -> bool {
    true
}

impl Manifest {
    /// Parses and checks a manifest; `origin` names it in errors.
    ///
    /// # Errors
    /// Malformed JSON, or a manifest this code cannot honour (layouts, resize policy,
    /// alphabet entries that are not single glyphs).
    pub fn from_json(text: &str, origin: &str) -> Result<Self, ModelError> {
        let bad = |reason: String| ModelError::Manifest {
            path: origin.to_string(),
            reason,
        };
        let m: Manifest = serde_json::from_str(text).map_err(|e| bad(e.to_string()))?;
        if m.input.layout != "NCHW" || m.input.channels != 1 {
            return Err(bad(format!(
                "unsupported input layout {} with {} channels (expected NCHW, 1)",
                m.input.layout, m.input.channels
            )));
        }
        if m.input.resize != "fit-height" {
            return Err(bad(format!(
                "unsupported resize policy `{}`",
                m.input.resize
            )));
        }
        if m.output.layout != "NTC" {
            return Err(bad(format!(
                "unsupported output layout {}",
                m.output.layout
            )));
        }
        if m.input.height == 0 || m.input.width == 0 || m.input.std == 0.0 {
            return Err(bad("input height, width and std must be non-zero".into()));
        }
        if let Some(wide) = m.input.wide
            && (wide <= m.input.width || m.second_look.is_some())
        {
            return Err(bad(format!(
                "input wide ({wide}) must exceed width ({}) and goes without second_look",
                m.input.width
            )));
        }
        if let Some(look) = &m.second_look
            && (look
                .shifts
                .iter()
                .any(|&d| d == 0 || d.unsigned_abs() >= m.input.height)
                || !(look.below > 0.0 && look.below <= 1.0))
        {
            return Err(bad(format!(
                "second_look needs shifts of 1 to {} rows, none 0, and below in (0, 1]",
                m.input.height - 1
            )));
        }
        if let Some(cal) = &m.calibration {
            cal.check().map_err(bad)?;
        }
        if m.blank >= m.alphabet.len() {
            return Err(bad(format!("blank index {} outside the alphabet", m.blank)));
        }
        for (i, s) in m.alphabet.iter().enumerate() {
            if i != m.blank && s.chars().count() != 1 {
                return Err(bad(format!("class {i} is `{s}`, not a single glyph")));
            }
        }
        Ok(m)
    }

    /// Reads and checks a manifest file.
    ///
    /// # Errors
    /// See [`Manifest::from_json`]; also when the file cannot be read.
    pub fn load(path: &Path) -> Result<Self, ModelError> {
        let text = std::fs::read_to_string(path).map_err(|e| ModelError::Manifest {
            path: path.display().to_string(),
            reason: e.to_string(),
        })?;
        Self::from_json(&text, &path.display().to_string())
    }

    /// The model's classes as an [`Alphabet`].
    pub fn alphabet(&self) -> Alphabet {
        let symbols = self
            .alphabet
            .iter()
            .map(|s| s.chars().next().unwrap_or('\0'))
            .collect();
        Alphabet::new(symbols, self.blank)
    }
}

impl InputSpec {
    /// Number of f32 values of one cell's input, `height * width`.
    pub fn cell_len(&self) -> usize {
        (self.height * self.width) as usize
    }

    /// Writes one cell crop into `out` (length [`InputSpec::cell_len`]) as the model's
    /// input: row-major `[height][width]` f32, `(p * scale - mean) / std` where `p` is
    /// the 0-255 gray value (ink dark), after a `fit-height` resize (bilinear) and
    /// right padding with `pad_value`.
    pub fn prepare_into(&self, cell: &GrayImage, out: &mut [f32]) {
        let w = self.width;
        let norm = |p: f32| (p * self.scale - self.mean) / self.std;
        out.fill(norm(self.pad_value));
        let Some(resized) = self.fit(cell) else {
            return;
        };
        for (x, y, p) in resized.enumerate_pixels() {
            out[(y * w + x) as usize] = norm(p.0[0] as f32);
        }
    }

    /// A cell crop resized as the model sees it (`fit-height`, bilinear): `height`
    /// rows, its width scaled alike and at most `width`, before the padding; `None`
    /// for an empty crop.
    pub fn fit(&self, cell: &GrayImage) -> Option<GrayImage> {
        if cell.width() == 0 || cell.height() == 0 {
            return None;
        }
        let new_w = self.fitted_width(cell).clamp(1, self.width);
        Some(imageops::resize(
            cell,
            new_w,
            self.height,
            FilterType::Triangle,
        ))
    }

    /// The width of `cell` scaled to `height` rows, before any cap.
    pub fn fitted_width(&self, cell: &GrayImage) -> u32 {
        let h = self.height as f32;
        ((cell.width() as f32) * h / (cell.height().max(1) as f32)).round() as u32
    }

    /// This spec on the wide canvas (`wide`), where it has one.
    pub fn widened(&self) -> Option<InputSpec> {
        self.wide.map(|w| InputSpec {
            width: w,
            wide: None,
            ..self.clone()
        })
    }

    /// Appends to `out` a prepared input (from [`InputSpec::prepare_into`]) moved `dy`
    /// rows down (up when negative), the rows that come into view filled with padding.
    pub fn push_shifted(&self, input: &[f32], dy: i32, out: &mut Vec<f32>) {
        let (h, w) = (self.height as i64, self.width as usize);
        let pad = (self.pad_value * self.scale - self.mean) / self.std;
        for y in 0..h {
            let from = y - dy as i64;
            if (0..h).contains(&from) {
                let at = from as usize * w;
                out.extend_from_slice(&input[at..at + w]);
            } else {
                out.extend(std::iter::repeat_n(pad, w));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = r#"{"name": "t", "onnx": "t.onnx", "alphabet": ["<blank>", "e", "4"],
        "blank": 0,
        "input": {"name": "image", "layout": "NCHW", "height": 4, "width": 8, "channels": 1,
                  "resize": "fit-height", "pad_value": 255, "scale": 0.00392156862745098,
                  "mean": 0.5, "std": 0.5},
        "output": {"name": "logp", "layout": "NTC", "steps": 2, "log_softmax": true}}"#;

    #[test]
    fn manifest_parses_and_builds_alphabet() {
        let m = Manifest::from_json(SAMPLE, "sample").unwrap();
        let abc = m.alphabet();
        assert_eq!(abc.len(), 3);
        assert_eq!(abc.encode("e4"), Some(vec![1, 2]));
    }

    #[test]
    fn manifest_rejects_multi_char_classes() {
        let bad = SAMPLE.replace(r#""e", "4""#, r#""e", "10""#);
        let err = Manifest::from_json(&bad, "sample").unwrap_err().to_string();
        assert!(err.contains("class 2"), "{err}");
    }

    #[test]
    fn a_wide_canvas_is_optional_wider_and_without_a_second_look() {
        assert!(
            Manifest::from_json(SAMPLE, "s")
                .unwrap()
                .input
                .wide
                .is_none()
        );
        let wide =
            |w: u32| SAMPLE.replace(r#""width": 8,"#, &format!(r#""width": 8, "wide": {w},"#));
        let m = Manifest::from_json(&wide(16), "s").unwrap();
        let spec = m.input.widened().unwrap();
        assert_eq!((spec.width, spec.wide, spec.cell_len()), (16, None, 64));
        assert!(Manifest::from_json(&wide(8), "s").is_err());
        let looked = wide(16).replace(
            r#""blank": 0,"#,
            r#""blank": 0, "second_look": {"below": 0.8, "shifts": [1]},"#,
        );
        let err = Manifest::from_json(&looked, "s").unwrap_err().to_string();
        assert!(err.contains("second_look"), "{err}");
    }

    #[test]
    fn second_look_is_optional_and_checked() {
        assert!(
            Manifest::from_json(SAMPLE, "sample")
                .unwrap()
                .second_look
                .is_none()
        );
        let with = |look: &str| {
            SAMPLE.replace(
                r#""blank": 0,"#,
                &format!(r#""blank": 0, "second_look": {look},"#),
            )
        };
        let m = Manifest::from_json(&with(r#"{"below": 0.8, "shifts": [-1, 1]}"#), "s").unwrap();
        assert_eq!(m.second_look.unwrap().shifts, vec![-1, 1]);
        for bad in [
            r#"{"below": 0.8, "shifts": [0]}"#,
            r#"{"below": 0.8, "shifts": [4]}"#,
            r#"{"below": 0.0, "shifts": [1]}"#,
        ] {
            let err = Manifest::from_json(&with(bad), "s")
                .unwrap_err()
                .to_string();
            assert!(err.contains("second_look"), "{bad}: {err}");
        }
    }

    #[test]
    fn calibration_is_optional_and_checked() {
        assert!(
            Manifest::from_json(SAMPLE, "sample")
                .unwrap()
                .calibration
                .is_none()
        );
        let with = |bias: &str, below: &str| {
            SAMPLE.replace(
                r#""blank": 0,"#,
                &format!(
                    r#""blank": 0, "calibration": {{"log_confidence": 0.1, "log_doubt": -0.2,
                    "written": -0.3, "written_is_read": 1.7, "sheet_log_doubt": -0.7,
                    "bias": {bias}, "review_below": {below}}},"#
                ),
            )
        };
        let m = Manifest::from_json(&with("-1.3", "0.89"), "s").unwrap();
        assert_eq!(m.calibration.unwrap().review_below, 0.89);
        for (bias, below) in [("-1.3", "1.5"), ("1e39", "0.8")] {
            let err = Manifest::from_json(&with(bias, below), "s")
                .unwrap_err()
                .to_string();
            assert!(err.contains("calibration"), "{bias} {below}: {err}");
        }
    }

    #[test]
    fn shifted_inputs_move_rows_and_pad_with_paper() {
        let m = Manifest::from_json(SAMPLE, "sample").unwrap();
        // Row y holds the value 10 + y (4 rows of 8); paper (255) normalises to 1.
        let input: Vec<f32> = (0..4).flat_map(|y| [10.0 + y as f32; 8]).collect();
        let rows = |v: &[f32]| (0..4).map(|y| v[y * 8]).collect::<Vec<_>>();
        let mut down = Vec::new();
        m.input.push_shifted(&input, 1, &mut down);
        assert_eq!(down.len(), 32);
        assert_eq!(rows(&down), [1.0, 10.0, 11.0, 12.0]);
        let mut up = Vec::new();
        m.input.push_shifted(&input, -2, &mut up);
        assert_eq!(rows(&up), [12.0, 13.0, 1.0, 1.0]);
    }

    #[test]
    fn prepare_pads_white_and_keeps_aspect() {
        let m = Manifest::from_json(SAMPLE, "sample").unwrap();
        // A 2x4 black crop: height 2 -> 4, width 4 -> 8 would be 8; use 2x2 -> 4x4.
        let cell = GrayImage::from_pixel(2, 2, image::Luma([0]));
        let mut out = vec![0.0; m.input.cell_len()];
        m.input.prepare_into(&cell, &mut out);
        // Ink (0) maps to -1, padding (255) to +1.
        assert!((out[0] + 1.0).abs() < 1e-6);
        assert!((out[3] + 1.0).abs() < 1e-6);
        assert!((out[4] - 1.0).abs() < 1e-6);
        assert!((out[7] - 1.0).abs() < 1e-6);
    }
}
