//! Build script: obtains the ONNX Runtime shared library the binary loads at run time.
//!
//! `ort` is built with `load-dynamic`, so nothing is linked at build time. So that a
//! fresh clone runs with no manual step, this script finds `libonnxruntime` and bakes
//! its path into the binary (`SCORESHEET_ORT_DYLIB`), in this order:
//!
//! 1. `ORT_DYLIB_PATH`, if set (nothing is downloaded);
//! 2. a copy already fetched into `<target>/onnxruntime/` by an earlier build;
//! 3. the `onnxruntime` wheel from PyPI (a package registry), fetched with
//!    `python3 -m pip download` (honouring the user's pip index and proxy settings),
//!    with the library extracted from it into `<target>/onnxruntime/`.
//!
//! The library is also copied next to the built binaries (`<target>/<profile>/`), so
//! that the binary can be moved together with it. Set `SCORESHEET_NO_ORT_FETCH=1` to
//! skip step 3; the binary then says at run time how to point it at a library.
//! A failure here is a warning, never a build error: tests that need the runtime
//! report it clearly.

use std::env;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The ONNX Runtime release fetched from PyPI (API 31, matching `ort`'s `api-31`).
const ORT_VERSION: &str = "1.31.1";

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=models");
    println!("cargo:rerun-if-env-changed=ORT_DYLIB_PATH");
    println!("cargo:rerun-if-env-changed=SCORESHEET_NO_ORT_FETCH");

    let out_dir = PathBuf::from(env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    embed_model(&out_dir);
    // OUT_DIR = <target>/<profile>/build/<pkg>-<hash>/out
    let profile_dir = out_dir.ancestors().nth(3).map(Path::to_path_buf);
    let target_dir = out_dir.ancestors().nth(4).map(Path::to_path_buf);

    let lib = match env::var_os("ORT_DYLIB_PATH") {
        Some(p) => Some(PathBuf::from(p)),
        None => target_dir.as_deref().and_then(fetch_or_cached),
    };
    match lib {
        Some(lib) => {
            if let Some(profile) = profile_dir {
                copy_next_to_binaries(&lib, &profile);
            }
            println!("cargo:rustc-env=SCORESHEET_ORT_DYLIB={}", lib.display());
        }
        None => println!("cargo:rustc-env=SCORESHEET_ORT_DYLIB="),
    }
}

fn cache_dir(target: &Path) -> PathBuf {
    target.join("onnxruntime").join(ORT_VERSION)
}

/// The library file name inside the wheel for this platform.
fn lib_name() -> String {
    match env::var("CARGO_CFG_TARGET_OS").as_deref() {
        Ok("macos") => format!("libonnxruntime.{ORT_VERSION}.dylib"),
        Ok("windows") => "onnxruntime.dll".to_string(),
        _ => format!("libonnxruntime.so.{ORT_VERSION}"),
    }
}

fn fetch_or_cached(target: &Path) -> Option<PathBuf> {
    let dir = cache_dir(target);
    let lib = dir.join(lib_name());
    if lib.is_file() {
        return Some(lib);
    }
    if env::var_os("SCORESHEET_NO_ORT_FETCH").is_some() {
        println!(
            "cargo:warning=SCORESHEET_NO_ORT_FETCH set: ONNX Runtime not fetched; set ORT_DYLIB_PATH at run time"
        );
        return None;
    }
    match fetch(&dir, &lib) {
        Ok(()) => Some(lib),
        Err(e) => {
            println!("cargo:warning=could not fetch ONNX Runtime {ORT_VERSION} from PyPI: {e}");
            println!(
                "cargo:warning=set ORT_DYLIB_PATH to a libonnxruntime {ORT_VERSION} and rebuild, or pass --ort-lib at run time"
            );
            None
        }
    }
}

fn python() -> String {
    env::var("PYTHON").unwrap_or_else(|_| "python3".to_string())
}

/// Downloads the `onnxruntime` wheel with pip and extracts the shared library.
fn fetch(dir: &Path, lib: &Path) -> Result<(), String> {
    let wheels = dir.join("wheel");
    fs::create_dir_all(&wheels).map_err(|e| format!("{}: {e}", wheels.display()))?;
    let status = Command::new(python())
        .args([
            "-m",
            "pip",
            "download",
            "--quiet",
            "--no-deps",
            "--only-binary=:all:",
        ])
        .arg(format!("onnxruntime=={ORT_VERSION}"))
        .arg("-d")
        .arg(&wheels)
        .status()
        .map_err(|e| format!("cannot run {} -m pip: {e}", python()))?;
    if !status.success() {
        return Err(format!("pip download exited with {status}"));
    }
    let wheel = fs::read_dir(&wheels)
        .map_err(|e| e.to_string())?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "whl"))
        .ok_or("pip left no wheel")?;
    // A wheel is a zip file; Python's zipfile extracts the one member we need.
    let script = "import sys, zipfile, shutil\n\
        z = zipfile.ZipFile(sys.argv[1])\n\
        name = [n for n in z.namelist() if n.endswith('/capi/' + sys.argv[2])][0]\n\
        tmp = sys.argv[3] + '.part'\n\
        with z.open(name) as src, open(tmp, 'wb') as dst: shutil.copyfileobj(src, dst)\n\
        import os; os.replace(tmp, sys.argv[3])\n";
    let status = Command::new(python())
        .args(["-c", script])
        .arg(&wheel)
        .arg(lib_name())
        .arg(lib)
        .status()
        .map_err(|e| e.to_string())?;
    if !status.success() || !lib.is_file() {
        return Err(format!(
            "could not extract {} from {}",
            lib_name(),
            wheel.display()
        ));
    }
    let _ = fs::remove_file(&wheel);
    Ok(())
}

fn copy_next_to_binaries(lib: &Path, profile: &Path) {
    let Some(name) = lib.file_name() else { return };
    let dest = profile.join(name);
    let same_size = |a: &Path, b: &Path| matches!((fs::metadata(a), fs::metadata(b)), (Ok(x), Ok(y)) if x.len() == y.len());
    if !same_size(lib, &dest) {
        let tmp = dest.with_extension("part");
        if fs::copy(lib, &tmp).is_ok() {
            let _ = fs::rename(&tmp, &dest);
        }
    }
}

/// Writes `OUT_DIR/embedded_model.rs`: the manifest and ONNX file of the one model in
/// `models/` (a `*.json` with an `"onnx"` field), compiled into the binary so that it
/// runs without the repository beside it. `None` when `models/` holds no model.
fn embed_model(out_dir: &Path) {
    let manifest_dir = PathBuf::from(env::var("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let models = manifest_dir.join("models");
    let mut found = None;
    if let Ok(entries) = fs::read_dir(&models) {
        let mut jsons: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect();
        jsons.sort();
        for json in jsons {
            println!("cargo:rerun-if-changed={}", json.display());
            let Ok(text) = fs::read_to_string(&json) else {
                continue;
            };
            let Some(onnx) = onnx_field(&text) else {
                continue;
            };
            let onnx_path = models.join(onnx);
            println!("cargo:rerun-if-changed={}", onnx_path.display());
            if onnx_path.is_file() {
                found = Some((json, onnx_path));
                break;
            }
        }
    }
    let code = match found {
        Some((json, onnx)) => format!(
            "const EMBEDDED_MODEL: Option<(&str, &[u8])> = Some((include_str!({:?}), include_bytes!({:?})));\n",
            json.display().to_string(),
            onnx.display().to_string()
        ),
        None => "const EMBEDDED_MODEL: Option<(&str, &[u8])> = None;\n".to_string(),
    };
    fs::write(out_dir.join("embedded_model.rs"), code).expect("write embedded_model.rs");
}

/// The value of the top-level `"onnx": "<file>"` field of a manifest (a plain scan:
/// build scripts avoid pulling in a JSON parser).
fn onnx_field(text: &str) -> Option<String> {
    let at = text.find("\"onnx\"")?;
    let rest = &text[at + 6..];
    let rest = rest
        .trim_start()
        .strip_prefix(':')?
        .trim_start()
        .strip_prefix('"')?;
    let end = rest.find('"')?;
    Some(rest[..end].to_string())
}
