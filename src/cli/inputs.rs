//! Command-line paths -> the list of sheet files to read, each with a unique output
//! stem.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// File extensions taken from folders (case-insensitive). Files named explicitly are
/// always taken, whatever their extension, so that a wrong file gets a clear error.
pub const IMAGE_EXTENSIONS: [&str; 5] = ["png", "jpg", "jpeg", "tif", "tiff"];

/// One input file and the stem its outputs are named after.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Input {
    pub path: PathBuf,
    pub stem: String,
}

fn is_image_name(p: &Path) -> bool {
    p.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| IMAGE_EXTENSIONS.iter().any(|x| x.eq_ignore_ascii_case(e)))
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>, errors: &mut Vec<String>) {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) => {
            errors.push(format!("{}: cannot list folder: {e}", dir.display()));
            return;
        }
    };
    let mut paths: Vec<PathBuf> = entries.filter_map(Result::ok).map(|e| e.path()).collect();
    paths.sort();
    for p in paths {
        let hidden = p
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with('.'));
        if hidden {
            continue;
        }
        if p.is_dir() {
            walk(&p, out, errors);
        } else if is_image_name(&p) {
            out.push(p);
        }
    }
}

/// Expands files and folders (recursed, hidden entries skipped, sorted) into inputs.
/// Paths that do not exist are returned as one-line errors; the rest still run.
pub fn collect(paths: &[PathBuf]) -> (Vec<Input>, Vec<String>) {
    let mut files = Vec::new();
    let mut errors = Vec::new();
    for p in paths {
        if p.is_dir() {
            walk(p, &mut files, &mut errors);
        } else if p.exists() {
            files.push(p.clone());
        } else {
            errors.push(format!("{}: no such file or folder", p.display()));
        }
    }
    let mut seen = std::collections::HashSet::new();
    files.retain(|f| seen.insert(f.clone()));
    (unique_stems(files), errors)
}

fn sanitize(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_alphanumeric() || "-_.".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// Names outputs after the file stem; where two inputs share a stem, their parent
/// folders are prefixed (`a_r1`, `b_r1`) until the names differ.
fn unique_stems(files: Vec<PathBuf>) -> Vec<Input> {
    let stem_at = |p: &Path, depth: usize| -> String {
        let mut parts: Vec<String> = Vec::new();
        parts.push(sanitize(
            &p.file_stem().unwrap_or_default().to_string_lossy(),
        ));
        let mut cur = p.parent();
        for _ in 0..depth {
            match cur.and_then(|c| c.file_name().map(|n| (c, n))) {
                Some((c, n)) => {
                    parts.push(sanitize(&n.to_string_lossy()));
                    cur = c.parent();
                }
                None => break,
            }
        }
        parts.reverse();
        parts.join("_")
    };
    let mut depth = vec![0usize; files.len()];
    for _round in 0..8 {
        let names: Vec<String> = files
            .iter()
            .zip(&depth)
            .map(|(f, &d)| stem_at(f, d))
            .collect();
        let mut count: HashMap<&str, usize> = HashMap::new();
        for n in &names {
            *count.entry(n).or_default() += 1;
        }
        let clashes: Vec<usize> = (0..files.len())
            .filter(|&i| count[names[i].as_str()] > 1)
            .collect();
        if clashes.is_empty() {
            break;
        }
        for i in clashes {
            depth[i] += 1;
        }
    }
    let mut used: HashMap<String, usize> = HashMap::new();
    files
        .into_iter()
        .zip(depth)
        .map(|(path, d)| {
            let mut stem = stem_at(&path, d);
            let n = used.entry(stem.clone()).or_default();
            *n += 1;
            if *n > 1 {
                stem = format!("{stem}_{n}");
            }
            Input { path, stem }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folders_recurse_and_take_images_only() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::create_dir_all(d.join("a/b")).unwrap();
        for f in [
            "a/r1.jpg",
            "a/b/r2.PNG",
            "a/notes.txt",
            "a/.hidden.png",
            "c.tiff",
        ] {
            std::fs::write(d.join(f), b"x").unwrap();
        }
        let (inputs, errors) = collect(&[d.join("a"), d.join("c.tiff"), d.join("nope.png")]);
        let stems: Vec<&str> = inputs.iter().map(|i| i.stem.as_str()).collect();
        assert_eq!(stems, ["r2", "r1", "c"]);
        assert_eq!(errors.len(), 1);
        assert!(errors[0].contains("nope.png"));
    }

    #[test]
    fn clashing_stems_get_their_folder() {
        let files = vec![
            PathBuf::from("x/a/r1.jpg"),
            PathBuf::from("x/b/r1.jpg"),
            PathBuf::from("x/b/r2.jpg"),
        ];
        let stems: Vec<String> = unique_stems(files).into_iter().map(|i| i.stem).collect();
        assert_eq!(stems, ["a_r1", "b_r1", "r2"]);
    }
}
