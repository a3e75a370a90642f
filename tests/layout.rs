//! The library's layout, checked from the source: the command line speaks to the
//! library entry only (the crate root's re-exports and the `corrections` and `eval` job
//! modules), and the leaf and decoding stages import only downward.

use std::path::{Path, PathBuf};

fn sources(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).expect("source folder") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            out.extend(sources(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    out.sort();
    out
}

/// Code lines only (comments dropped), so that docs may name any module.
fn code(path: &Path) -> String {
    std::fs::read_to_string(path)
        .expect("readable source")
        .lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

/// First path segments after `prefix` (e.g. `scoresheet::page::load` -> `page`).
fn segments(text: &str, prefix: &str) -> Vec<String> {
    text.match_indices(prefix)
        .map(|(i, _)| {
            text[i + prefix.len()..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect::<String>()
        })
        .filter(|s| !s.is_empty())
        .collect()
}

fn modules() -> Vec<String> {
    let lib = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/lib.rs"))
        .expect("lib.rs");
    lib.lines()
        .filter_map(|l| {
            let l = l.trim();
            l.strip_prefix("pub mod ")
                .or_else(|| l.strip_prefix("pub(crate) mod "))
                .map(|m| m.trim_end_matches(';').to_string())
        })
        .collect()
}

#[test]
fn the_command_line_imports_no_stage() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let stages: Vec<String> = modules()
        .into_iter()
        .filter(|m| m != "corrections" && m != "eval")
        .collect();
    assert!(
        stages.iter().any(|m| m == "page"),
        "lib.rs lists the stages: {stages:?}"
    );
    let mut files = sources(&root.join("src/cli"));
    files.push(root.join("src/main.rs"));
    let mut bad = Vec::new();
    for file in &files {
        let text = code(file);
        for seg in segments(&text, "scoresheet::") {
            if stages.contains(&seg) {
                bad.push(format!("{}: scoresheet::{seg}", file.display()));
            }
        }
    }
    assert!(bad.is_empty(), "front-end files reach into stages: {bad:?}");
}

#[test]
fn stages_import_only_downward() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    // stage -> modules it must never import
    let rules: &[(&str, &[&str])] = &[
        (
            "vocab",
            &[
                "decode", "model", "grid", "page", "pipeline", "report", "eval", "notation",
            ],
        ),
        (
            "decode",
            &["model", "eval", "pipeline", "report", "grid", "page"],
        ),
        (
            "model",
            &["decode", "eval", "pipeline", "report", "grid", "page"],
        ),
        ("grid", &["pipeline", "report", "decode", "model", "eval"]),
        (
            "page",
            &["grid", "pipeline", "report", "decode", "model", "eval"],
        ),
        (
            "notation",
            &[
                "pipeline", "report", "decode", "model", "eval", "grid", "page",
            ],
        ),
    ];
    let mut bad = Vec::new();
    for (stage, forbidden) in rules {
        let dir = root.join(stage);
        let files = if dir.is_dir() {
            sources(&dir)
        } else {
            vec![root.join(format!("{stage}.rs"))]
        };
        assert!(!files.is_empty(), "stage {stage} has sources");
        for file in files {
            for seg in segments(&code(&file), "crate::") {
                if forbidden.contains(&seg.as_str()) {
                    bad.push(format!("{}: crate::{seg}", file.display()));
                }
            }
        }
    }
    assert!(bad.is_empty(), "upward imports: {bad:?}");
}
