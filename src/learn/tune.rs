//! The training engine: fine-tunes the reader's weights on labelled cells and returns
//! the same ONNX file with the new weights.

use candle_core::{Device, Tensor};
use image::GrayImage;

use super::ctc::ctc_loss_grad;
use super::net::{Net, log_softmax};
use super::onnx_proto;
use crate::model::Manifest;

/// One cell to learn from: the crop as cut from the page, and its label as indices
/// into the manifest's alphabet (no blanks; empty = a blank cell).
#[derive(Clone)]
pub struct Example {
    pub crop: GrayImage,
    pub target: Vec<u32>,
}

impl std::fmt::Debug for Example {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Example({}x{}, {:?})",
            self.crop.width(),
            self.crop.height(),
            self.target
        )
    }
}

/// How to fine-tune. The defaults are the least harmful setting measured on HCS
/// (docs/measurements.md, "The fine-tuning engine in Rust"): training only the last
/// layers, briefly, without shifts.
#[derive(Clone, Debug)]
pub struct TuneParams {
    /// Optimiser steps: 50 of 64 cells is about one pass over a few thousand cells;
    /// on HCS, 300 steps over 700 cells made the reader worse on the same writers'
    /// other cells (it learns the cells themselves).
    pub steps: usize,
    /// Cells per step, as in the reader's own training.
    pub batch: usize,
    /// AdamW learning rate, the one the PyTorch fine-tuning recipe used.
    pub lr: f32,
    /// Seeds the order of the cells and their shifts.
    pub seed: u64,
    /// Worker threads; 0 = all cores. The result depends on it (the order of float
    /// sums), so the same inputs and params give the same bytes.
    pub threads: usize,
    /// Convolutions, from the input, kept as they are (run without gradients, and
    /// once per cell when `shift` is 0). 35 trains the last convolution (the 160x160
    /// neck), the two matrix products and their biases: 0.6 s a step on 2 cores;
    /// training from the 21st as well was 2.5 s a step and overfitted more.
    pub frozen_convs: usize,
    /// Decoupled weight decay toward the base reader's weights (each step moves each
    /// weight `lr * pull` of the way back). 30 changed nothing measurable on HCS.
    pub pull: f32,
    /// Largest random shift of a cell's input, in pixels, horizontally; vertically
    /// half of it. 0 lets the frozen layers run once per cell; 2 did not help on HCS.
    pub shift: u32,
    /// Cells of the base reader's own training data, mixed into every batch so that
    /// learning a collection's cells does not make it forget the rest (`learn` passes
    /// the shipped pack, [`super::replay`]; none by default here).
    pub replay: Vec<Example>,
    /// The share of each batch drawn from `replay` (rounded to whole cells; ignored
    /// when `replay` is empty).
    pub replay_share: f32,
}

impl Default for TuneParams {
    fn default() -> Self {
        TuneParams {
            steps: 50,
            batch: 64,
            lr: 1e-4,
            seed: 1,
            threads: 0,
            frozen_convs: 35,
            pull: 0.0,
            shift: 0,
            replay: Vec::new(),
            replay_share: 0.5,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum TuneError {
    #[error("no cells to learn from")]
    NoExamples,
    #[error(
        "cell {example}: class {class} is not in the reader's alphabet of {classes}, or is the blank"
    )]
    BadLabel {
        example: usize,
        class: u32,
        classes: usize,
    },
    #[error("cell {example}: a label of {len} symbols does not fit in the reader's {steps} steps")]
    TooLong {
        example: usize,
        len: usize,
        steps: usize,
    },
    #[error("bad fine-tuning parameters: {0}")]
    Params(String),
    #[error("cannot train this reader: {0}")]
    Model(String),
}

fn model_err(e: impl ToString) -> TuneError {
    TuneError::Model(e.to_string())
}

/// A small deterministic generator (splitmix64), so that a seed means the same order
/// on every platform and version.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn shuffle(&mut self, v: &mut [usize]) {
        for i in (1..v.len()).rev() {
            let j = self.below(i as u64 + 1) as usize;
            v.swap(i, j);
        }
    }
}

/// Cells drawn in a shuffled order, reshuffled after each pass.
struct Deck {
    order: Vec<usize>,
    next: usize,
}

impl Deck {
    fn new(cells: std::ops::Range<usize>, rng: &mut Rng) -> Self {
        let mut order: Vec<usize> = cells.collect();
        rng.shuffle(&mut order);
        Deck { order, next: 0 }
    }

    fn draw(&mut self, rng: &mut Rng) -> usize {
        if self.next == self.order.len() {
            rng.shuffle(&mut self.order);
            self.next = 0;
        }
        self.next += 1;
        self.order[self.next - 1]
    }
}

fn pool(threads: usize) -> Result<rayon::ThreadPool, TuneError> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| TuneError::Params(format!("cannot start {threads} threads: {e}")))
}

/// The manifest's input for each crop, `height * width` values each.
fn prepare(manifest: &Manifest, crops: &[&GrayImage]) -> Vec<Vec<f32>> {
    crops
        .iter()
        .map(|c| {
            let mut v = vec![0.0; manifest.input.cell_len()];
            manifest.input.prepare_into(c, &mut v);
            v
        })
        .collect()
}

/// The input moved by `(dx, dy)` pixels, the uncovered part filled with `fill`.
fn shifted(src: &[f32], w: usize, h: usize, dx: i64, dy: i64, fill: f32, out: &mut Vec<f32>) {
    for y in 0..h as i64 {
        for x in 0..w as i64 {
            let (sx, sy) = (x - dx, y - dy);
            out.push(
                if (0..w as i64).contains(&sx) && (0..h as i64).contains(&sy) {
                    src[(sy as usize) * w + sx as usize]
                } else {
                    fill
                },
            );
        }
    }
}

/// The log-probabilities `[steps * classes]` the network of `onnx` gives each crop
/// (what ONNX Runtime's `logp` output would be), computed by this engine.
///
/// # Errors
/// A graph the engine cannot run.
pub fn read_logp(
    onnx: &[u8],
    manifest: &Manifest,
    crops: &[GrayImage],
    threads: usize,
) -> Result<Vec<Vec<f32>>, TuneError> {
    let net = Net::new(onnx, usize::MAX).map_err(model_err)?;
    let refs: Vec<&GrayImage> = crops.iter().collect();
    let inputs = prepare(manifest, &refs);
    pool(threads)?.install(|| {
        let mut out = Vec::new();
        for chunk in inputs.chunks(64) {
            let x = batch_tensor(manifest, chunk.iter().map(|v| v.as_slice()))?;
            let logp = net
                .logits(&x)
                .and_then(|l| log_softmax(&l))
                .map_err(model_err)?;
            let (_, t, c) = logp.dims3().map_err(model_err)?;
            let flat: Vec<f32> = logp
                .flatten_all()
                .and_then(|x| x.to_vec1())
                .map_err(model_err)?;
            out.extend(flat.chunks(t * c).map(<[f32]>::to_vec));
        }
        Ok(out)
    })
}

/// The mean CTC loss (per label symbol, as in training) of the network of `onnx` on
/// `examples`; cells whose label cannot be aligned count as 0.
///
/// # Errors
/// A graph the engine cannot run.
pub fn mean_loss(
    onnx: &[u8],
    manifest: &Manifest,
    examples: &[Example],
    threads: usize,
) -> Result<f32, TuneError> {
    let crops: Vec<GrayImage> = examples.iter().map(|e| e.crop.clone()).collect();
    let logps = read_logp(onnx, manifest, &crops, threads)?;
    let (steps, classes) = (manifest.output.steps, manifest.alphabet.len());
    let mut sum = 0.0;
    for (lp, e) in logps.iter().zip(examples) {
        if let Some((loss, _)) = ctc_loss_grad(lp, steps, classes, &e.target, manifest.blank) {
            sum += loss / e.target.len().max(1) as f64;
        }
    }
    Ok((sum / examples.len().max(1) as f64) as f32)
}

fn batch_tensor<'a>(
    manifest: &Manifest,
    rows: impl Iterator<Item = &'a [f32]>,
) -> Result<Tensor, TuneError> {
    let (h, w) = (
        manifest.input.height as usize,
        manifest.input.width as usize,
    );
    let mut data = Vec::new();
    for r in rows {
        data.extend_from_slice(r);
    }
    let n = data.len() / (h * w);
    Tensor::from_vec(data, (n, 1, h, w), &Device::Cpu).map_err(model_err)
}

/// Fine-tunes the reader whose ONNX bytes are `base_onnx` (described by `manifest`)
/// on `examples`; returns the new ONNX file's bytes: the same graph with new weights
/// (so reading speed is unchanged and `read --model` loads it with the same manifest
/// fields). Deterministic for the same inputs and params. `progress(step, steps, loss)`
/// after each step, with that step's mean loss.
///
/// # Errors
/// No examples, a label outside the alphabet or too long for the reader, bad
/// parameters, or a graph the engine cannot train.
pub fn fine_tune(
    base_onnx: &[u8],
    manifest: &Manifest,
    examples: &[Example],
    params: &TuneParams,
    progress: &mut dyn FnMut(usize, usize, f32),
) -> Result<Vec<u8>, TuneError> {
    if examples.is_empty() {
        return Err(TuneError::NoExamples);
    }
    if params.batch == 0
        || params.lr.is_nan()
        || params.lr <= 0.0
        || params.pull.is_nan()
        || params.pull < 0.0
        || !(0.0..=1.0).contains(&params.replay_share)
    {
        return Err(TuneError::Params(
            "batch and learning rate must be positive, pull not negative, the replay share between 0 and 1".into(),
        ));
    }
    let classes = manifest.alphabet.len();
    let steps_t = manifest.output.steps;
    // Replay cells are numbered after the learning cells, in errors and in the cache.
    let all: Vec<&Example> = examples.iter().chain(&params.replay).collect();
    for (i, e) in all.iter().enumerate() {
        if let Some(&c) = e
            .target
            .iter()
            .find(|&&c| c as usize >= classes || c as usize == manifest.blank)
        {
            return Err(TuneError::BadLabel {
                example: i,
                class: c,
                classes,
            });
        }
        let repeats = e.target.windows(2).filter(|w| w[0] == w[1]).count();
        if e.target.len() + repeats > steps_t {
            return Err(TuneError::TooLong {
                example: i,
                len: e.target.len(),
                steps: steps_t,
            });
        }
    }
    let net = Net::new(base_onnx, params.frozen_convs).map_err(model_err)?;
    if net.params.is_empty() {
        return Err(TuneError::Params("every layer is frozen".into()));
    }
    let refs: Vec<&GrayImage> = all.iter().map(|e| &e.crop).collect();
    let inputs = prepare(manifest, &refs);
    let (h, w) = (
        manifest.input.height as usize,
        manifest.input.width as usize,
    );
    let spec = &manifest.input;
    let fill = (spec.pad_value * spec.scale - spec.mean) / spec.std;
    let replayed = if params.replay.is_empty() {
        0
    } else {
        ((params.batch as f32 * params.replay_share).round() as usize).min(params.batch)
    };

    let pool = pool(params.threads)?;
    let mut rng = Rng(params.seed);
    let mut own = Deck::new(0..examples.len(), &mut rng);
    let mut replay = Deck::new(examples.len()..all.len(), &mut rng);
    let mut weights: Vec<Vec<f32>> = net.params.iter().map(|p| p.base.clone()).collect();
    let mut m: Vec<Vec<f32>> = weights.iter().map(|v| vec![0.0; v.len()]).collect();
    let mut v: Vec<Vec<f32>> = m.clone();
    let (b1, b2, eps) = (0.9f32, 0.999f32, 1e-8f32);
    // Without shifts a cell's frozen layers give the same values every time: compute
    // them once per cell.
    let cache = if params.shift == 0 && net.has_frozen_part() {
        Some(pool.install(|| frozen_cache(&net, manifest, &inputs))?)
    } else {
        None
    };
    for step in 0..params.steps {
        let mut picked = Vec::with_capacity(params.batch);
        let mut data = Vec::with_capacity(params.batch * h * w);
        for k in 0..params.batch {
            let deck = if k < params.batch - replayed {
                &mut own
            } else {
                &mut replay
            };
            let i = deck.draw(&mut rng);
            let s = i64::from(params.shift);
            let dx = rng.below(2 * s as u64 + 1) as i64 - s;
            let dy = rng.below(s as u64 + 1) as i64 - s / 2;
            if cache.is_none() {
                shifted(&inputs[i], w, h, dx, dy, fill, &mut data);
            }
            picked.push(i);
        }
        let targets: Vec<&[u32]> = picked.iter().map(|&i| all[i].target.as_slice()).collect();
        let input = match &cache {
            Some(c) => Input::Frozen(c.batch(&picked)?),
            None => Input::Image(data),
        };
        let (loss, grads) = pool.install(|| gradients(&net, manifest, input, &targets))?;
        let t = (step + 1) as i32;
        let (c1, c2) = (1.0 - b1.powi(t), 1.0 - b2.powi(t));
        for (pi, (p, g)) in net.params.iter().zip(&grads).enumerate() {
            let Some(g) = g else {
                continue;
            };
            let (wv, mv, vv) = (&mut weights[pi], &mut m[pi], &mut v[pi]);
            for j in 0..wv.len() {
                mv[j] = b1 * mv[j] + (1.0 - b1) * g[j];
                vv[j] = b2 * vv[j] + (1.0 - b2) * g[j] * g[j];
                let update = (mv[j] / c1) / ((vv[j] / c2).sqrt() + eps);
                wv[j] -= params.lr * (update + params.pull * (wv[j] - p.base[j]));
            }
            let new = Tensor::from_slice(wv, p.var.dims(), &Device::Cpu).map_err(model_err)?;
            p.var.set(&new).map_err(model_err)?;
        }
        progress(step + 1, params.steps, loss);
    }
    let new: Vec<_> = net
        .params
        .iter()
        .zip(weights)
        .map(|(p, w)| (p.raw.clone(), w))
        .collect();
    onnx_proto::replace_raw(base_onnx, &new).map_err(model_err)
}

/// One batch's mean loss and the gradient of each trained weight (none for a weight
/// the loss does not reach).
/// Each trained weight's gradient, none for one the loss does not reach.
type Grads = Vec<Option<Vec<f32>>>;

/// What a step's forward pass starts from.
enum Input {
    /// Prepared cells, `[N][H * W]` flattened.
    Image(Vec<f32>),
    /// The frozen layers' outputs for the cells.
    Frozen(Vec<(String, Tensor)>),
}

/// Each cell's values of the frozen layers' outputs the trained layers read.
struct FrozenCache {
    /// Per value: its name, its shape without the batch axis, and each cell's values.
    values: Vec<(String, Vec<usize>, Vec<Vec<f32>>)>,
}

impl FrozenCache {
    fn batch(&self, cells: &[usize]) -> Result<Vec<(String, Tensor)>, TuneError> {
        self.values
            .iter()
            .map(|(name, dims, per_cell)| {
                let mut data = Vec::with_capacity(cells.len() * per_cell[0].len());
                for &i in cells {
                    data.extend_from_slice(&per_cell[i]);
                }
                let mut shape = vec![cells.len()];
                shape.extend(dims);
                let t = Tensor::from_vec(data, shape, &Device::Cpu).map_err(model_err)?;
                Ok((name.clone(), t))
            })
            .collect()
    }
}

fn frozen_cache(
    net: &Net,
    manifest: &Manifest,
    inputs: &[Vec<f32>],
) -> Result<FrozenCache, TuneError> {
    let mut values: Vec<(String, Vec<usize>, Vec<Vec<f32>>)> = Vec::new();
    for chunk in inputs.chunks(64) {
        let x = batch_tensor(manifest, chunk.iter().map(|v| v.as_slice()))?;
        let out = net.frozen_part(&x).map_err(model_err)?;
        if values.is_empty() {
            values = out
                .iter()
                .map(|(name, t)| (name.clone(), t.dims()[1..].to_vec(), Vec::new()))
                .collect();
        }
        for ((_, _, cells), (name, t)) in values.iter_mut().zip(out) {
            if t.dim(0).map_err(model_err)? != chunk.len() {
                return Err(model_err(format!("{name} is not one row per cell")));
            }
            let flat: Vec<f32> = t
                .flatten_all()
                .and_then(|t| t.to_vec1())
                .map_err(model_err)?;
            cells.extend(flat.chunks(flat.len() / chunk.len()).map(<[f32]>::to_vec));
        }
    }
    Ok(FrozenCache { values })
}

fn gradients(
    net: &Net,
    manifest: &Manifest,
    input: Input,
    targets: &[&[u32]],
) -> Result<(f32, Grads), TuneError> {
    let (h, w) = (
        manifest.input.height as usize,
        manifest.input.width as usize,
    );
    let (steps_t, classes) = (manifest.output.steps, manifest.alphabet.len());
    let n = targets.len();
    let logits = match input {
        Input::Image(data) => {
            let x = Tensor::from_vec(data, (n, 1, h, w), &Device::Cpu).map_err(model_err)?;
            net.logits(&x).map_err(model_err)?
        }
        Input::Frozen(values) => net.logits_from(&values).map_err(model_err)?,
    };
    let logp: Vec<f32> = log_softmax(&logits)
        .and_then(|l| l.flatten_all().map_err(|e| e.to_string()))
        .and_then(|l| l.to_vec1().map_err(|e| e.to_string()))
        .map_err(model_err)?;
    let per = steps_t * classes;
    let mut grad = vec![0f32; n * per];
    let mut loss_sum = 0.0f64;
    for (k, target) in targets.iter().enumerate() {
        let norm = target.len().max(1) as f64;
        let lp = &logp[k * per..(k + 1) * per];
        if let Some((loss, g)) = ctc_loss_grad(lp, steps_t, classes, target, manifest.blank) {
            loss_sum += loss / norm;
            let scale = (1.0 / (norm * n as f64)) as f32;
            for (dst, src) in grad[k * per..(k + 1) * per].iter_mut().zip(&g) {
                *dst = src * scale;
            }
        }
    }
    // The gradient of sum(logits * g) with g held constant is g: back-propagating it
    // carries the CTC gradient into the weights.
    let gt = Tensor::from_vec(grad, logits.dims(), &Device::Cpu).map_err(model_err)?;
    let store = logits
        .mul(&gt)
        .and_then(|s| s.sum_all())
        .and_then(|s| s.backward())
        .map_err(model_err)?;
    let grads = net
        .params
        .iter()
        .map(|p| {
            store
                .get(p.var.as_tensor())
                .map(|g| g.flatten_all().and_then(|g| g.to_vec1::<f32>()))
                .transpose()
        })
        .collect::<Result<Vec<_>, _>>()
        .map_err(model_err)?;
    Ok(((loss_sum / n as f64) as f32, grads))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn manifest() -> Manifest {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("models/cellreader.json");
        Manifest::load(&path).unwrap()
    }

    fn cell(target: Vec<u32>) -> Example {
        Example {
            crop: GrayImage::new(40, 12),
            target,
        }
    }

    #[test]
    fn replay_cells_are_checked_like_the_learning_cells() {
        let m = manifest();
        let params = TuneParams {
            replay: vec![cell(vec![1]), cell(vec![m.blank as u32])],
            ..TuneParams::default()
        };
        // The labels are checked before the graph is read: no graph is needed.
        let err = fine_tune(b"", &m, &[cell(vec![1, 2])], &params, &mut |_, _, _| {});
        assert!(
            matches!(err, Err(TuneError::BadLabel { example: 2, .. })),
            "{err:?}"
        );
    }

    #[test]
    fn a_replay_share_outside_0_to_1_is_refused() {
        let m = manifest();
        for share in [-0.1, 1.5, f32::NAN] {
            let params = TuneParams {
                replay: vec![cell(vec![1])],
                replay_share: share,
                ..TuneParams::default()
            };
            let err = fine_tune(b"", &m, &[cell(vec![1])], &params, &mut |_, _, _| {});
            assert!(matches!(err, Err(TuneError::Params(_))), "{share}: {err:?}");
        }
    }

    #[test]
    fn a_deck_gives_every_cell_once_per_pass() {
        let mut rng = Rng(7);
        let mut deck = Deck::new(5..9, &mut rng);
        for _ in 0..3 {
            let mut pass: Vec<usize> = (0..4).map(|_| deck.draw(&mut rng)).collect();
            pass.sort_unstable();
            assert_eq!(pass, vec![5, 6, 7, 8]);
        }
    }
}
