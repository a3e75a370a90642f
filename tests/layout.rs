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
        .filter(|m| !["corrections", "eval", "copies", "learn"].contains(&m.as_str()))
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
        ("form", &["pipeline", "report", "eval", "pairings"]),
        ("ruling", &["page", "grid", "pipeline", "report", "form"]),
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

/// The files of one folder that a file imports: `super::NAME` and
/// `crate::<folder path>::NAME` where NAME is another file (or subfolder) of the folder.
fn sibling_imports(file: &Path, folder_path: &str, siblings: &[String]) -> Vec<String> {
    let text = code(file);
    let mut found: Vec<String> = segments(&text, "super::");
    if !folder_path.is_empty() {
        found.extend(segments(&text, &format!("crate::{folder_path}::")));
    }
    let own = file.file_stem().unwrap().to_string_lossy().into_owned();
    let mut out: Vec<String> = found
        .into_iter()
        .filter(|s| siblings.contains(s) && *s != own)
        .collect();
    out.sort();
    out.dedup();
    out
}

/// A circle in `edges` (file -> files it imports), if any, as the files around it.
fn circle(edges: &std::collections::BTreeMap<String, Vec<String>>) -> Option<Vec<String>> {
    fn visit(
        n: &str,
        edges: &std::collections::BTreeMap<String, Vec<String>>,
        state: &mut std::collections::BTreeMap<String, u8>,
        path: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        match state.get(n) {
            Some(2) => return None,
            Some(1) => {
                let at = path.iter().position(|p| p == n).unwrap_or(0);
                let mut c = path[at..].to_vec();
                c.push(n.to_string());
                return Some(c);
            }
            _ => {}
        }
        state.insert(n.to_string(), 1);
        path.push(n.to_string());
        for m in edges.get(n).into_iter().flatten() {
            if let Some(c) = visit(m, edges, state, path) {
                return Some(c);
            }
        }
        path.pop();
        state.insert(n.to_string(), 2);
        None
    }
    let mut state = std::collections::BTreeMap::new();
    for n in edges.keys() {
        if let Some(c) = visit(n, edges, &mut state, &mut Vec::new()) {
            return Some(c);
        }
    }
    None
}

#[test]
fn no_two_files_of_a_folder_import_each_other_round_a_circle() {
    // A folder's `mod.rs` is its facade and vocabulary: its files may use its types.
    // Between the other files imports run one way: the types a group of files shares
    // live in a file that imports none of them.
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut folders = vec![];
    let mut todo = vec![src.clone()];
    while let Some(dir) = todo.pop() {
        for entry in std::fs::read_dir(&dir).expect("source folder") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                todo.push(path.clone());
                folders.push(path);
            }
        }
    }
    assert!(folders.len() > 5, "src has its stage folders: {folders:?}");
    let mut bad = Vec::new();
    for dir in folders {
        let rel = dir.strip_prefix(&src).unwrap();
        let folder_path = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join("::");
        let mut siblings = Vec::new();
        let mut files = Vec::new();
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
            if path.is_dir() {
                siblings.push(stem);
            } else if path.extension().is_some_and(|e| e == "rs") && stem != "mod" {
                siblings.push(stem);
                files.push(path);
            }
        }
        let edges: std::collections::BTreeMap<String, Vec<String>> = files
            .iter()
            .map(|f| {
                let stem = f.file_stem().unwrap().to_string_lossy().into_owned();
                (stem, sibling_imports(f, &folder_path, &siblings))
            })
            .collect();
        if let Some(c) = circle(&edges) {
            bad.push(format!("src/{}: {}", rel.display(), c.join(" -> ")));
        }
    }
    assert!(
        bad.is_empty(),
        "files importing each other round a circle: {bad:?}"
    );
}

#[test]
fn the_circle_check_finds_a_circle() {
    let edges: std::collections::BTreeMap<String, Vec<String>> = [
        ("beam", vec!["explain"]),
        ("explain", vec!["posterior"]),
        ("posterior", vec!["beam"]),
        ("state", vec![]),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.into_iter().map(String::from).collect()))
    .collect();
    let c = circle(&edges).expect("a circle");
    assert_eq!(c.first(), c.last());
    assert_eq!(c.len(), 4, "{c:?}");
    let mut one_way = edges.clone();
    one_way.insert("posterior".into(), vec!["state".into()]);
    assert_eq!(circle(&one_way), None);
}
