//! Cell crops -> CTC log-probabilities with ONNX Runtime (`ort`, loaded dynamically).
//!
//! The runtime library is found in this order: an explicit path (`--ort-lib`),
//! `ORT_DYLIB_PATH`, `libonnxruntime*` next to the executable, then the copy the
//! build script fetched from PyPI (path baked in at build time).

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use image::GrayImage;
use ort::environment::Environment;
use ort::session::Session;
use ort::session::builder::GraphOptimizationLevel;
use ort::value::Tensor;

use super::manifest::InputSpec;
use super::{Alphabet, CellModel, CellScores, Manifest, ModelError, SecondLook};

include!(concat!(env!("OUT_DIR"), "/embedded_model.rs"));

/// The values reader (`models/valuereader.*`, `training/values_reader.py`): the cell
/// reader's network fine-tuned on the handwritten rounds, boards, dates and results of
/// forms' headers. It travels with every cell model, a `--model` one included: it
/// reads the header, not the moves.
const VALUES_ONNX: &[u8] = include_bytes!("../../models/valuereader.onnx");
const VALUES_JSON: &str = include_str!("../../models/valuereader.json");

/// How to start ONNX Runtime.
#[derive(Clone, Debug)]
pub struct RuntimeParams {
    /// The ONNX Runtime shared library; `None` searches as the module docs say.
    pub ort_lib: Option<PathBuf>,
    /// Threads one session may use for one batch (intra-op).
    pub threads: usize,
    /// Largest batch sent to one `run` call. Small batches keep the activations in
    /// the cache: on HCS pages 16 took 0.83-0.95 times the model time of 128, with the
    /// same outputs (`docs/measurements.md`).
    pub max_batch: usize,
    /// Read unsure cells again as the manifest's `second_look` says (when it has one).
    pub second_look: bool,
    /// Read the form's header fields with the printed-text reader (loaded on the
    /// first sheet that needs it).
    pub header_fields: bool,
}

impl Default for RuntimeParams {
    fn default() -> Self {
        RuntimeParams {
            ort_lib: None,
            threads: 1,
            max_batch: 16,
            second_look: true,
            header_fields: true,
        }
    }
}

static RUNTIME: OnceLock<Result<Environment, String>> = OnceLock::new();

/// Candidate paths of the ONNX Runtime library, in search order.
fn library_candidates(explicit: Option<&Path>) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Some(p) = explicit {
        out.push(p.to_path_buf());
        return out;
    }
    if let Some(p) = std::env::var_os("ORT_DYLIB_PATH") {
        out.push(PathBuf::from(p));
        return out;
    }
    if let Some(dir) = std::env::current_exe()
        .ok()
        .and_then(|e| e.parent().map(Path::to_path_buf))
    {
        // Test binaries live in <profile>/deps; the library is copied to <profile>.
        for d in [Some(dir.clone()), dir.parent().map(Path::to_path_buf)]
            .into_iter()
            .flatten()
        {
            if let Ok(entries) = std::fs::read_dir(&d) {
                let mut found: Vec<PathBuf> = entries
                    .filter_map(Result::ok)
                    .map(|e| e.path())
                    .filter(|p| {
                        p.file_name()
                            .and_then(|n| n.to_str())
                            .is_some_and(is_ort_library_name)
                    })
                    .collect();
                found.sort();
                out.extend(found);
            }
        }
    }
    let baked = env!("SCORESHEET_ORT_DYLIB");
    if !baked.is_empty() {
        out.push(PathBuf::from(baked));
    }
    out
}

fn is_ort_library_name(name: &str) -> bool {
    name == "onnxruntime.dll"
        || (name.starts_with("libonnxruntime.")
            && (name.contains(".so") || name.ends_with(".dylib")))
}

/// Loads ONNX Runtime once per process and returns its environment.
///
/// # Errors
/// When no candidate library loads; the message lists what was tried and how to fix it.
pub fn init_runtime(ort_lib: Option<&Path>) -> Result<Environment, ModelError> {
    RUNTIME
        .get_or_init(|| {
            let candidates = library_candidates(ort_lib);
            let mut tried = Vec::new();
            for path in candidates {
                if !path.exists() {
                    tried.push(format!("{} (missing)", path.display()));
                    continue;
                }
                match ort::init_from(&path) {
                    Ok(builder) => {
                        return builder
                            .with_name("scoresheet")
                            .build()
                            .map_err(|e| format!("{}: {e}", path.display()));
                    }
                    Err(e) => tried.push(e.to_string()),
                }
            }
            Err(format!(
                "no usable ONNX Runtime library (tried: {}); rebuild with network access to PyPI, \
                 or set ORT_DYLIB_PATH / pass --ort-lib to a libonnxruntime 1.31 or newer",
                if tried.is_empty() {
                    "nothing".to_string()
                } else {
                    tried.join("; ")
                }
            ))
        })
        .clone()
        .map_err(ModelError::Runtime)
}

/// The model and manifest compiled into the binary from `models/`, if the build
/// found one: `(manifest JSON, ONNX bytes)`.
pub fn embedded_model() -> Option<(&'static str, &'static [u8])> {
    EMBEDDED_MODEL
}

/// The shipped CRNN cell reader running in ONNX Runtime. One session: `read` takes
/// `&mut self`, so give each worker thread its own `OrtModel`.
pub struct OrtModel {
    session: Session,
    manifest: Manifest,
    alphabet: Alphabet,
    max_batch: usize,
    second_look: Option<SecondLook>,
    header: Lazy<super::ocr::PrintedReader>,
    values: Lazy<OrtModel>,
}

/// A reader an [`OrtModel`] loads on its first use and hands out: the printed-text
/// reader of the header, the values reader of its numbers. Off where header fields are
/// not read; a reader that failed to load is not tried again.
enum Lazy<T> {
    Off,
    Unloaded(RuntimeParams),
    Ready(Box<T>),
    Failed,
}

impl<T> Lazy<T> {
    fn new(params: &RuntimeParams) -> Self {
        if params.header_fields {
            Lazy::Unloaded(params.clone())
        } else {
            Lazy::Off
        }
    }

    /// The reader, loaded by `load` the first time; where that fails, a warning
    /// (`what` did not load, and so `then`), said once per process through `said`.
    fn get(
        &mut self,
        load: impl FnOnce(&RuntimeParams) -> Result<T, ModelError>,
        said: &'static std::sync::Once,
        what: &str,
        then: &str,
    ) -> Option<&mut T> {
        if let Lazy::Unloaded(params) = self {
            *self = match load(params) {
                Ok(r) => Lazy::Ready(Box::new(r)),
                Err(e) => {
                    said.call_once(|| eprintln!("warning: {what} did not load ({e}): {then}"));
                    Lazy::Failed
                }
            };
        }
        match self {
            Lazy::Ready(r) => Some(r.as_mut()),
            _ => None,
        }
    }
}

impl OrtModel {
    /// Loads the model described by a manifest file (the `.onnx` sits beside it).
    ///
    /// # Errors
    /// Bad manifest, missing runtime, or an ONNX file the runtime refuses.
    pub fn from_manifest_file(path: &Path, params: &RuntimeParams) -> Result<Self, ModelError> {
        let manifest = Manifest::load(path)?;
        let onnx_path = path.parent().unwrap_or(Path::new(".")).join(&manifest.onnx);
        let bytes = std::fs::read(&onnx_path).map_err(|e| ModelError::Load {
            path: onnx_path.display().to_string(),
            reason: e.to_string(),
        })?;
        Self::from_parts(manifest, &bytes, &onnx_path.display().to_string(), params)
    }

    /// Loads the model compiled into the binary.
    ///
    /// # Errors
    /// When the binary was built without a model in `models/`, or as for
    /// [`OrtModel::from_manifest_file`].
    pub fn embedded(params: &RuntimeParams) -> Result<Self, ModelError> {
        let (json, bytes) = embedded_model().ok_or_else(|| ModelError::Load {
            path: "<embedded>".into(),
            reason: "this binary was built without a model in models/; pass --model".into(),
        })?;
        let manifest = Manifest::from_json(json, "<embedded manifest>")?;
        Self::from_parts(manifest, bytes, "<embedded model>", params)
    }

    /// Loads a model from its manifest and ONNX bytes (`origin` names it in errors).
    ///
    /// # Errors
    /// As [`OrtModel::from_manifest_file`].
    pub(crate) fn from_parts(
        manifest: Manifest,
        onnx: &[u8],
        origin: &str,
        params: &RuntimeParams,
    ) -> Result<Self, ModelError> {
        let session = build_session(onnx, origin, params)?;
        let has = |names: Vec<&str>, want: &str| names.contains(&want);
        let inputs: Vec<&str> = session.inputs().iter().map(|o| o.name()).collect();
        let outputs: Vec<&str> = session.outputs().iter().map(|o| o.name()).collect();
        if !has(inputs.clone(), &manifest.input.name)
            || !has(outputs.clone(), &manifest.output.name)
        {
            return Err(ModelError::Load {
                path: origin.to_string(),
                reason: format!(
                    "graph has inputs {inputs:?} and outputs {outputs:?}, manifest names `{}` -> `{}`",
                    manifest.input.name, manifest.output.name
                ),
            });
        }
        let alphabet = manifest.alphabet();
        let second_look = manifest.second_look.clone().filter(|_| params.second_look);
        Ok(OrtModel {
            session,
            manifest,
            alphabet,
            max_batch: params.max_batch.max(1),
            second_look,
            header: Lazy::new(params),
            values: Lazy::new(params),
        })
    }

    /// The manifest this model was loaded with.
    pub fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    /// The crops as the network takes them, one after the other.
    fn prepare(&self, cells: &[GrayImage]) -> Vec<f32> {
        Self::prepare_on(&self.manifest.input, cells.iter())
    }

    /// The crops prepared for `spec`'s canvas.
    fn prepare_on<'a>(
        spec: &InputSpec,
        cells: impl ExactSizeIterator<Item = &'a GrayImage>,
    ) -> Vec<f32> {
        let len = spec.cell_len();
        let mut data = vec![0f32; cells.len() * len];
        for (cell, out) in cells.zip(data.chunks_mut(len)) {
            spec.prepare_into(cell, out);
        }
        data
    }

    /// Runs prepared inputs (`n` cells of [`InputSpec::cell_len`] values), in batches
    /// of at most `max_batch`.
    fn run_prepared(&mut self, data: &[f32]) -> Result<Vec<CellScores>, ModelError> {
        self.run_prepared_at(self.manifest.input.width, data)
    }

    /// [`Self::run_prepared`] for inputs prepared on a canvas `width` wide.
    fn run_prepared_at(&mut self, width: u32, data: &[f32]) -> Result<Vec<CellScores>, ModelError> {
        let len = (self.manifest.input.height * width) as usize;
        let mut out = Vec::with_capacity(data.len() / len);
        for chunk in data.chunks(self.max_batch * len) {
            out.extend(self.run_batch(width, chunk.to_vec())?);
        }
        Ok(out)
    }

    /// Reads `cells`, those too wide for the input's canvas on `wide` (the manifest's
    /// wide canvas) in a batch of their own; in the order given.
    fn read_widths(
        &mut self,
        wide: &InputSpec,
        cells: &[GrayImage],
    ) -> Result<Vec<CellScores>, ModelError> {
        let spec = &self.manifest.input;
        let (broad, narrow): (Vec<usize>, Vec<usize>) =
            (0..cells.len()).partition(|&i| spec.fitted_width(&cells[i]) > spec.width);
        let prepared = [(narrow, spec), (broad, wide)].map(|(ix, on)| {
            let data = Self::prepare_on(on, ix.iter().map(|&i| &cells[i]));
            (ix, data, on.width)
        });
        let mut out: Vec<Option<CellScores>> = vec![None; cells.len()];
        for (ix, data, width) in prepared {
            if ix.is_empty() {
                continue;
            }
            for (&i, s) in ix.iter().zip(self.run_prepared_at(width, &data)?) {
                out[i] = Some(s);
            }
        }
        Ok(out.into_iter().flatten().collect())
    }

    /// Runs one batch of prepared inputs (on a canvas `width` wide): at most
    /// `max_batch` cells.
    fn run_batch(&mut self, width: u32, data: Vec<f32>) -> Result<Vec<CellScores>, ModelError> {
        let spec = &self.manifest.input;
        let n = data.len() / (spec.height * width) as usize;
        let shape = [n as i64, 1, spec.height as i64, width as i64];
        let input =
            Tensor::from_array((shape, data)).map_err(|e| ModelError::Inference(e.to_string()))?;
        let input_name = spec.name.clone();
        let output_name = self.manifest.output.name.clone();
        let log_softmax = self.manifest.output.log_softmax;
        let outputs = self
            .session
            .run(ort::inputs![input_name => input])
            .map_err(|e| ModelError::Inference(e.to_string()))?;
        let (shape, values) = outputs[output_name.as_str()]
            .try_extract_tensor::<f32>()
            .map_err(|e| ModelError::Inference(e.to_string()))?;
        let dims: Vec<i64> = shape.iter().copied().collect();
        if dims.len() != 3 || dims[0] as usize != n || dims[2] as usize != self.alphabet.len() {
            return Err(ModelError::Inference(format!(
                "output shape {dims:?}, expected [{n}, T, {}]",
                self.alphabet.len()
            )));
        }
        let (steps, classes) = (dims[1] as usize, dims[2] as usize);
        Ok(values
            .chunks(steps * classes)
            .map(|m| {
                let mut logp = m.to_vec();
                if !log_softmax {
                    for row in logp.chunks_mut(classes) {
                        log_softmax_in_place(row);
                    }
                }
                CellScores::new(steps, classes, logp)
            })
            .collect())
    }
}

fn log_softmax_in_place(row: &mut [f32]) {
    let max = row.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let lse = max + row.iter().map(|v| (v - max).exp()).sum::<f32>().ln();
    row.iter_mut().for_each(|v| *v -= lse);
}

impl CellModel for OrtModel {
    fn alphabet(&self) -> &Alphabet {
        &self.alphabet
    }

    fn calibration(&self) -> Option<&crate::vocab::Calibration> {
        self.manifest.calibration.as_ref()
    }

    fn header_reader(&mut self) -> Option<&mut dyn super::HeaderReader> {
        static SAID: std::sync::Once = std::sync::Once::new();
        let load = super::ocr::PrintedReader::embedded;
        let what = "the printed-text reader";
        let r = self
            .header
            .get(load, &SAID, what, "header fields are not read");
        r.map(|r| r as &mut dyn super::HeaderReader)
    }

    fn value_reader(&mut self) -> Option<&mut dyn CellModel> {
        static SAID: std::sync::Once = std::sync::Once::new();
        let load = |params: &RuntimeParams| {
            let params = RuntimeParams {
                header_fields: false,
                second_look: false,
                ..params.clone()
            };
            let manifest = Manifest::from_json(VALUES_JSON, "<embedded valuereader.json>")?;
            Self::from_parts(manifest, VALUES_ONNX, "<embedded valuereader>", &params)
        };
        let then = "the cell reader reads the header's numbers";
        let r = self.values.get(load, &SAID, "the values reader", then);
        r.map(|r| r as &mut dyn CellModel)
    }

    fn read_once(&mut self, cells: &[GrayImage]) -> Result<Vec<CellScores>, ModelError> {
        if let Some(wide) = self.manifest.input.widened() {
            return self.read_widths(&wide, cells);
        }
        let data = self.prepare(cells);
        self.run_prepared(&data)
    }

    fn read(&mut self, cells: &[GrayImage]) -> Result<Vec<CellScores>, ModelError> {
        if self.manifest.input.wide.is_some() {
            // (The manifest allows no second look with a wide canvas.)
            return self.read_once(cells);
        }
        let len = self.manifest.input.cell_len();
        let data = self.prepare(cells);
        let mut out = self.run_prepared(&data)?;
        let Some(look) = self.second_look.clone() else {
            return Ok(out);
        };
        // The unsure cells, read again shifted up and down; each gets the mean of its
        // readings' probabilities.
        let below = look.below.ln();
        let unsure: Vec<usize> = (0..out.len())
            .filter(|&i| out[i].best_path_logp() < below)
            .collect();
        if unsure.is_empty() {
            return Ok(out);
        }
        let spec = &self.manifest.input;
        let mut views = Vec::with_capacity(unsure.len() * look.shifts.len() * len);
        for &i in &unsure {
            for &dy in &look.shifts {
                spec.push_shifted(&data[i * len..(i + 1) * len], dy, &mut views);
            }
        }
        let again = self.run_prepared(&views)?;
        for (&i, readings) in unsure.iter().zip(again.chunks(look.shifts.len())) {
            let all: Vec<&CellScores> = std::iter::once(&out[i]).chain(readings).collect();
            out[i] = CellScores::mean(&all);
        }
        Ok(out)
    }
}

/// An ONNX Runtime session on `bytes` with the crate's settings (full graph
/// optimisation, `params.threads` threads inside an operator, one between); `origin`
/// names the model in errors.
pub(crate) fn build_session(
    bytes: &[u8],
    origin: &str,
    params: &RuntimeParams,
) -> Result<Session, ModelError> {
    let env = init_runtime(params.ort_lib.as_deref())?;
    let load = |e: ort::Error| ModelError::Load {
        path: origin.to_string(),
        reason: e.to_string(),
    };
    Session::builder(&env)
        .map_err(load)?
        .with_optimization_level(GraphOptimizationLevel::Level3)
        .map_err(|e| load(e.into()))?
        .with_intra_threads(params.threads.max(1))
        .map_err(|e| load(e.into()))?
        .with_inter_threads(1)
        .map_err(|e| load(e.into()))?
        .commit_from_memory(bytes)
        .map_err(load)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn library_names_are_recognised() {
        assert!(is_ort_library_name("libonnxruntime.so.1.31.1"));
        assert!(is_ort_library_name("libonnxruntime.so"));
        assert!(is_ort_library_name("libonnxruntime.1.31.1.dylib"));
        assert!(!is_ort_library_name("libonnxruntime_providers_shared.so"));
        assert!(!is_ort_library_name("libfoo.so"));
    }

    #[test]
    fn log_softmax_normalises() {
        let mut row = [1.0f32, 2.0, 3.0];
        log_softmax_in_place(&mut row);
        let total: f32 = row.iter().map(|v| v.exp()).sum();
        assert!((total - 1.0).abs() < 1e-6);
    }
}
