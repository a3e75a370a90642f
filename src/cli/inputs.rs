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

/// What one worker reads: a sheet, both players' copies of one game, or one game
/// written over several sheets.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Job {
    One(Input),
    /// Two copies and the stem of the combined output.
    Pair([Input; 2], String),
    /// The sheets of one game in order (the first, then its continuation sheets) and
    /// the stem of the output (the first sheet's).
    Sheets(Vec<Input>, String),
}

/// The first sheet's stem and the number (2 to 99) of a stem that names a later sheet
/// of a game: `r3b12-2`, `r3b12_3`, `r3b12-white-2` (not the board of `3-12`).
fn continuation_of(stem: &str) -> Option<(&str, u32)> {
    let (base, n) = stem.rsplit_once(['_', '-'])?;
    let k: u32 = n.parse().ok()?;
    let digits_only = |t: &str| t.bytes().all(|b| b.is_ascii_digit());
    ((2..=99).contains(&k) && (1..=2).contains(&n.len()) && digits_only(n) && !digits_only(base))
        .then_some((base, k))
}

/// Takes out of `inputs` the games written over several sheets: a sheet named as a
/// later sheet of another (`r3b12-2`, `r3b12-3` beside `r3b12`, numbered on from 2,
/// same folder), and `explicit` (A, B): B goes on after A. Returns those games (the
/// first sheet's stem names the output) and the other inputs.
pub fn continuations(
    inputs: Vec<Input>,
    explicit: &[(PathBuf, PathBuf)],
) -> (Vec<Job>, Vec<Input>) {
    let folder = |i: &Input| i.path.parent().map(Path::to_path_buf).unwrap_or_default();
    // head index -> later sheets' indices, in order
    let mut chains: Vec<(usize, Vec<usize>)> = Vec::new();
    let mut taken = vec![false; inputs.len()];
    for (h, head) in inputs.iter().enumerate() {
        let mut later = Vec::new();
        for k in 2..=99u32 {
            let next = inputs.iter().position(|i| {
                continuation_of(&i.stem) == Some((head.stem.as_str(), k))
                    && folder(i) == folder(head)
            });
            match next {
                Some(j) if !taken[j] => later.push(j),
                _ => break,
            }
        }
        if !later.is_empty() {
            taken[h] = true;
            for &j in &later {
                taken[j] = true;
            }
            chains.push((h, later));
        }
    }
    for (a, b) in explicit {
        let find = |p: &Path| inputs.iter().position(|i| i.path == p);
        let (Some(a), Some(b)) = (find(a), find(b)) else {
            continue;
        };
        if a == b || chains.iter().any(|(h, l)| *h == b || l.contains(&b)) {
            continue;
        }
        // B goes after A: at the end of the chain A ends (or heads alone), or A and B
        // start a chain; A inside a chain cannot take B
        if let Some(at) = chains
            .iter()
            .position(|(h, l)| l.last().map_or(*h == a, |&x| x == a))
        {
            chains[at].1.push(b);
        } else if chains.iter().any(|(h, l)| *h == a || l.contains(&a)) {
            continue;
        } else {
            chains.push((a, vec![b]));
        }
        taken[a] = true;
        taken[b] = true;
    }
    chains.sort_by_key(|c| c.0);
    let jobs = chains
        .into_iter()
        .map(|(h, later)| {
            let sheets: Vec<Input> = std::iter::once(h)
                .chain(later)
                .map(|i| inputs[i].clone())
                .collect();
            let stem = sheets[0].stem.clone();
            Job::Sheets(sheets, stem)
        })
        .collect();
    let rest = inputs
        .into_iter()
        .zip(taken)
        .filter_map(|(i, t)| (!t).then_some(i))
        .collect();
    (jobs, rest)
}

/// Suffix pairs that mark the two copies of one game: `053_0`/`053_1`,
/// `r1b3_w`/`r1b3_b`, `r1b3-white`/`r1b3-black`.
const COPY_SUFFIXES: [(&str, &str); 3] = [("0", "1"), ("w", "b"), ("white", "black")];

/// The game stem and copy number (0 or 1) of a stem that names one copy.
fn copy_of(stem: &str) -> Option<(&str, usize)> {
    let (base, suffix) = stem.rsplit_once(['_', '-'])?;
    let suffix_lc = suffix.to_ascii_lowercase();
    COPY_SUFFIXES.iter().find_map(|&(a, b)| {
        if suffix_lc == a {
            Some((base, 0))
        } else if suffix_lc == b {
            Some((base, 1))
        } else {
            None
        }
    })
}

/// Groups inputs into jobs. With `auto`, two inputs whose stems name the two copies
/// of one game (same folder) become a pair; `explicit` pairs (paths) always do.
/// Everything else is read alone.
pub fn jobs(inputs: Vec<Input>, auto: bool, explicit: &[(PathBuf, PathBuf)]) -> Vec<Job> {
    let mut taken = vec![false; inputs.len()];
    let mut out = Vec::new();
    let find = |p: &Path| inputs.iter().position(|i| i.path == p);
    for (a, b) in explicit {
        if let (Some(i), Some(j)) = (find(a), find(b))
            && i != j
            && !taken[i]
            && !taken[j]
        {
            taken[i] = true;
            taken[j] = true;
            let stem = match (copy_of(&inputs[i].stem), copy_of(&inputs[j].stem)) {
                (Some((x, _)), Some((y, _))) if x == y => x.to_string(),
                _ => format!("{}+{}", inputs[i].stem, inputs[j].stem),
            };
            out.push(Job::Pair([inputs[i].clone(), inputs[j].clone()], stem));
        }
    }
    if auto {
        let mut by_game: HashMap<(PathBuf, String), [Option<usize>; 2]> = HashMap::new();
        for (i, input) in inputs.iter().enumerate() {
            if let (false, Some((base, k))) = (taken[i], copy_of(&input.stem)) {
                let dir = input
                    .path
                    .parent()
                    .map(Path::to_path_buf)
                    .unwrap_or_default();
                by_game.entry((dir, base.to_string())).or_default()[k] = Some(i);
            }
        }
        let mut pairs: Vec<(String, usize, usize)> = by_game
            .into_iter()
            .filter_map(|((_, base), slots)| Some((base, slots[0]?, slots[1]?)))
            .collect();
        pairs.sort_by_key(|p| p.1);
        for (base, i, j) in pairs {
            taken[i] = true;
            taken[j] = true;
            out.push(Job::Pair([inputs[i].clone(), inputs[j].clone()], base));
        }
    }
    for (i, input) in inputs.into_iter().enumerate() {
        if !taken[i] {
            out.push(Job::One(input));
        }
    }
    out
}

/// `K/N` (1 <= K <= N) as `--shard` takes it.
pub fn parse_shard(text: &str) -> Result<(usize, usize), String> {
    let bad = || format!("`{text}`: give K/N with 1 <= K <= N, e.g. 3/8");
    let (k, n) = text.split_once('/').ok_or_else(bad)?;
    let (k, n): (usize, usize) = (
        k.trim().parse().map_err(|_| bad())?,
        n.trim().parse().map_err(|_| bad())?,
    );
    if k == 0 || k > n {
        return Err(bad());
    }
    Ok((k, n))
}

/// The name of the game a stem belongs to: without a copy suffix (`_0`, `_b`,
/// `-white`) and a continuation sheet's number (`-2`, `_3`, up to two digits; not the
/// board of a `<round>-<board>` name), in lower case.
pub(super) fn game_key(stem: &str) -> String {
    let mut key = stem.to_lowercase();
    for _ in 0..2 {
        if let Some((base, _)) = copy_of(&key) {
            key = base.to_string();
        } else if let Some((base, n)) = key.rsplit_once(['_', '-'])
            && !base.bytes().all(|b| b.is_ascii_digit())
            && (1..=2).contains(&n.len())
            && n.bytes().all(|b| b.is_ascii_digit())
            && n != "0"
            && n != "1"
        {
            key = base.to_string();
        }
    }
    key
}

/// The shard (1..=n) of a job: FNV-1a of its game's name, so the split depends on
/// nothing but the name (not on the other inputs, nor on the Rust version).
pub fn shard_of(job: &Job, n: usize) -> usize {
    let stem = match job {
        Job::One(input) => &input.stem,
        Job::Pair(_, stem) | Job::Sheets(_, stem) => stem,
    };
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in game_key(stem).bytes() {
        h = (h ^ b as u64).wrapping_mul(0x0100_0000_01b3);
    }
    (h % n.max(1) as u64) as usize + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn continuation_sheets_join_their_first_sheet() {
        let input = |path: &str| Input {
            path: PathBuf::from(path),
            stem: Path::new(path)
                .file_stem()
                .unwrap()
                .to_string_lossy()
                .into_owned(),
        };
        let inputs = vec![
            input("r1/r3b12.jpg"),
            input("r1/r3b12-2.jpg"),
            input("r1/r3b12-3.jpg"),
            input("r1/r3b14-2.jpg"), // no first sheet: read alone
            input("r1/3.jpg"),
            input("r1/3-12.jpg"), // round 3 board 12, not sheet 12 of `3`
            input("r1/a.jpg"),
            input("r1/b.jpg"),
            input("r2/r3b12-2.jpg"), // another folder
        ];
        let explicit = [(PathBuf::from("r1/a.jpg"), PathBuf::from("r1/b.jpg"))];
        let (jobs, rest) = continuations(inputs, &explicit);
        let names = |j: &Job| match j {
            Job::Sheets(s, stem) => (
                stem.clone(),
                s.iter()
                    .map(|i| i.path.display().to_string())
                    .collect::<Vec<_>>(),
            ),
            _ => panic!("not a game over several sheets"),
        };
        assert_eq!(
            jobs.iter().map(names).collect::<Vec<_>>(),
            vec![
                (
                    "r3b12".to_string(),
                    vec![
                        "r1/r3b12.jpg".into(),
                        "r1/r3b12-2.jpg".into(),
                        "r1/r3b12-3.jpg".into()
                    ]
                ),
                ("a".to_string(), vec!["r1/a.jpg".into(), "r1/b.jpg".into()]),
            ]
        );
        let rest: Vec<String> = rest.iter().map(|i| i.path.display().to_string()).collect();
        assert_eq!(
            rest,
            [
                "r1/r3b14-2.jpg",
                "r1/3.jpg",
                "r1/3-12.jpg",
                "r2/r3b12-2.jpg"
            ]
        );
    }

    #[test]
    fn shards_split_by_game_and_keep_a_games_sheets_together() {
        assert_eq!(parse_shard("3/8"), Ok((3, 8)));
        for bad in ["0/4", "5/4", "3", "a/b", "2/0"] {
            assert!(parse_shard(bad).is_err(), "{bad}");
        }
        assert_eq!(game_key("hcs_053_1"), "hcs_053");
        assert_eq!(game_key("R3B12-2"), "r3b12");
        assert_eq!(game_key("r3b12_w"), "r3b12");
        assert_eq!(game_key("r3b12-black-2"), "r3b12");
        assert_eq!(game_key("3-12"), "3-12");
        assert_eq!(game_key("3-12-2"), "3-12");
        let one = |stem: &str| {
            Job::One(Input {
                path: PathBuf::from(format!("{stem}.jpg")),
                stem: stem.to_string(),
            })
        };
        let names: Vec<String> = (0..200)
            .map(|i| format!("r{}b{}", i / 20, i % 20))
            .collect();
        for n in [1, 2, 5] {
            let mut seen = vec![0; n + 1];
            for name in &names {
                let k = shard_of(&one(name), n);
                assert!((1..=n).contains(&k));
                seen[k] += 1;
                // A game's copies and continuation sheets go with it.
                for other in [
                    format!("{name}_w"),
                    format!("{name}-2"),
                    format!("{name}_b-3"),
                ] {
                    assert_eq!(shard_of(&one(&other), n), k, "{other}");
                }
            }
            // Every shard gets a fair part (200 names: no shard under half its share).
            assert!(
                seen[1..].iter().all(|&c| c * n * 2 >= names.len()),
                "{seen:?}"
            );
        }
    }

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
    fn copies_pair_by_name() {
        let input = |p: &str| Input {
            path: PathBuf::from(p),
            stem: Path::new(p)
                .file_stem()
                .unwrap()
                .to_string_lossy()
                .into_owned(),
        };
        let inputs = vec![
            input("s/053_0.jpg"),
            input("s/053_1.jpg"),
            input("s/r1_w.png"),
            input("s/r1_B.png"),
            input("s/070_1.jpg"),
            input("s/solo.jpg"),
        ];
        let jobs = jobs(inputs.clone(), true, &[]);
        let pairs: Vec<&str> = jobs
            .iter()
            .filter_map(|j| match j {
                Job::Pair(_, stem) => Some(stem.as_str()),
                Job::One(_) | Job::Sheets(..) => None,
            })
            .collect();
        assert_eq!(pairs, ["053", "r1"]);
        assert_eq!(jobs.len(), 4);
        assert!(
            super::jobs(inputs, false, &[])
                .iter()
                .all(|j| matches!(j, Job::One(_)))
        );
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
