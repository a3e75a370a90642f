//! Command-line paths -> the list of sheet files to read, each with a unique output
//! stem.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// File extensions taken from folders (case-insensitive). Files named explicitly are
/// always taken, whatever their extension, so that a wrong file gets a clear error.
pub const IMAGE_EXTENSIONS: [&str; 6] = ["png", "jpg", "jpeg", "tif", "tiff", "pdf"];

/// Extensions of files that may hold several sheets, one a page.
const MULTI_PAGE_EXTENSIONS: [&str; 3] = ["pdf", "tif", "tiff"];

/// Extensions of what `read` and `review` write into an output folder.
const OUTPUT_EXTENSIONS: [&str; 3] = ["pgn", "json", "html"];

/// One input file and the stem its outputs are named after.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Input {
    pub path: PathBuf,
    pub stem: String,
    /// The page of a multi-page file (from 0) a game read from several files takes;
    /// a sheet read alone reads all its pages.
    pub page: usize,
}

fn has_extension(p: &Path, list: &[&str]) -> bool {
    p.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| list.iter().any(|x| x.eq_ignore_ascii_case(e)))
}

fn is_image_name(p: &Path) -> bool {
    has_extension(p, &IMAGE_EXTENSIONS)
}

/// Whether a folder holds the tool's reports: some `x.json` beside its `x.pgn`.
fn is_output_folder(files: &[PathBuf]) -> bool {
    let with = |ext: &str| -> std::collections::HashSet<&std::ffi::OsStr> {
        files
            .iter()
            .filter(|p| has_extension(p, &[ext]))
            .filter_map(|p| p.file_stem())
            .collect()
    };
    !with("json").is_disjoint(&with("pgn"))
}

/// What a folder walk found: the files to read, the folders it could not list, and a
/// line for each file it skipped.
struct Walk {
    files: Vec<PathBuf>,
    errors: Vec<String>,
    skipped: Vec<String>,
}

/// Takes the images and PDFs of a folder and its sub-folders. Hidden entries (`.git`,
/// `.DS_Store`) and the reports of an output folder (`.json`, `.pgn`, `.html` in a
/// folder holding `x.json` beside `x.pgn`) are passed over quietly: they are never
/// sheets, and naming each would bury the lines that matter. Every other file left
/// out is named with the reason.
fn walk(dir: &Path, found: &mut Walk) {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) => {
            found
                .errors
                .push(format!("{}: cannot list folder: {e}", dir.display()));
            return;
        }
    };
    let mut paths: Vec<PathBuf> = entries.filter_map(Result::ok).map(|e| e.path()).collect();
    paths.sort();
    let output_folder = is_output_folder(&paths);
    for p in paths {
        let hidden = p
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with('.'));
        if hidden {
            continue;
        }
        if p.is_dir() {
            walk(&p, found);
        } else if is_image_name(&p) {
            found.files.push(p);
        } else if !(output_folder && has_extension(&p, &OUTPUT_EXTENSIONS)) {
            found.skipped.push(format!(
                "{}: skipped: not a png, jpeg, tiff or pdf file",
                p.display()
            ));
        }
    }
}

/// Expands files and folders (recursed, sorted) into inputs. Returns the inputs,
/// one-line errors for paths that do not exist or cannot be listed (the rest still
/// run), and one line for each file a folder walk skipped (see [`walk`]).
pub fn collect(paths: &[PathBuf]) -> (Vec<Input>, Vec<String>, Vec<String>) {
    let mut found = Walk {
        files: Vec::new(),
        errors: Vec::new(),
        skipped: Vec::new(),
    };
    for p in paths {
        if p.is_dir() {
            walk(p, &mut found);
        } else if p.exists() {
            found.files.push(p.clone());
        } else {
            found
                .errors
                .push(format!("{}: no such file or folder", p.display()));
        }
    }
    let Walk {
        mut files,
        errors,
        skipped,
    } = found;
    let mut seen = std::collections::HashSet::new();
    files.retain(|f| seen.insert(f.clone()));
    (unique_stems(files), errors, skipped)
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

/// The stem of the file whose later page would be written as `name`: `scan` for
/// `scan_p2` (`read` writes page N of a multi-page file as `<stem>_pN`).
fn page_of(name: &str) -> Option<&str> {
    let (base, n) = name.rsplit_once("_p")?;
    (n.bytes().all(|b| b.is_ascii_digit()) && n.parse::<u32>().is_ok_and(|k| k >= 2))
        .then_some(base)
}

/// Names outputs after the file stem; where two inputs share a stem, or one's stem is
/// the name a later page of a PDF or TIFF takes (`scan_p2.jpg` beside `scan.pdf`),
/// their parent folders are prefixed (`a_r1`, `b_r1`) until the names differ.
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
        let multi_page: std::collections::HashSet<&str> = files
            .iter()
            .zip(&names)
            .filter(|(f, _)| has_extension(f, &MULTI_PAGE_EXTENSIONS))
            .map(|(_, n)| n.as_str())
            .collect();
        let clashes: Vec<usize> = (0..files.len())
            .filter(|&i| {
                count[names[i].as_str()] > 1
                    || page_of(&names[i]).is_some_and(|base| multi_page.contains(base))
            })
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
            Input {
                path,
                stem,
                page: 0,
            }
        })
        .collect()
}

/// What one worker reads: a sheet, or one game read from several files.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Job {
    One(Input),
    /// A game's copies (one, or both players'), each its sheets in order (the first,
    /// then its continuation sheets), and the stem of the output.
    Game(Vec<Vec<Input>>, String),
}

impl Job {
    /// The stem the job's output is named by.
    pub fn stem(&self) -> &str {
        match self {
            Job::One(input) => &input.stem,
            Job::Game(_, stem) => stem,
        }
    }

    /// Every input file of the job.
    pub fn inputs(&self) -> Vec<&Input> {
        match self {
            Job::One(input) => vec![input],
            Job::Game(copies, _) => copies.iter().flatten().collect(),
        }
    }

    /// The job's sheets, copy by copy.
    fn into_copies(self) -> Vec<Vec<Input>> {
        match self {
            Job::One(input) => vec![vec![input]],
            Job::Game(copies, _) => copies,
        }
    }

    /// The first sheet of the first copy.
    fn first(&self) -> &Input {
        match self {
            Job::One(input) => input,
            Job::Game(copies, _) => &copies[0][0],
        }
    }
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
            Job::Game(vec![sheets], stem)
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
    pair_copies(inputs.into_iter().map(Job::One).collect(), auto, explicit)
}

/// Joins jobs that hold the two copies of one game into one job: with `auto`, two
/// whose (first sheets') stems name the two copies of one game (same folder), and
/// `explicit` pairs (paths of first sheets) always. A copy may be a game over several
/// sheets (`r3b12_w`, `r3b12_w-2` beside `r3b12_b`, `r3b12_b-2`). Jobs left alone keep
/// their order: games over several sheets, then the pairs, then single sheets.
pub fn pair_copies(units: Vec<Job>, auto: bool, explicit: &[(PathBuf, PathBuf)]) -> Vec<Job> {
    let mut taken = vec![false; units.len()];
    let mut pairs: Vec<(usize, usize, String)> = Vec::new();
    let find = |p: &Path| units.iter().position(|u| u.first().path == p);
    for (a, b) in explicit {
        if let (Some(i), Some(j)) = (find(a), find(b))
            && i != j
            && !taken[i]
            && !taken[j]
        {
            taken[i] = true;
            taken[j] = true;
            let stem = match (copy_of(units[i].stem()), copy_of(units[j].stem())) {
                (Some((x, _)), Some((y, _))) if x == y => x.to_string(),
                _ => format!("{}+{}", units[i].stem(), units[j].stem()),
            };
            pairs.push((i, j, stem));
        }
    }
    if auto {
        let mut by_game: HashMap<(PathBuf, String), [Option<usize>; 2]> = HashMap::new();
        for (i, unit) in units.iter().enumerate() {
            if let (false, Some((base, k))) = (taken[i], copy_of(unit.stem())) {
                let dir = unit
                    .first()
                    .path
                    .parent()
                    .map(Path::to_path_buf)
                    .unwrap_or_default();
                by_game.entry((dir, base.to_string())).or_default()[k] = Some(i);
            }
        }
        let mut found: Vec<(String, usize, usize)> = by_game
            .into_iter()
            .filter_map(|((_, base), slots)| Some((base, slots[0]?, slots[1]?)))
            .collect();
        found.sort_by_key(|p| p.1);
        for (base, i, j) in found {
            taken[i] = true;
            taken[j] = true;
            pairs.push((i, j, base));
        }
    }
    let mut units: Vec<Option<Job>> = units.into_iter().map(Some).collect();
    let mut out: Vec<Job> = Vec::new();
    for (u, t) in units.iter_mut().zip(&taken) {
        if !t && matches!(u, Some(Job::Game(..))) {
            out.extend(u.take());
        }
    }
    for (i, j, stem) in pairs {
        let (Some(a), Some(b)) = (units[i].take(), units[j].take()) else {
            continue;
        };
        let mut copies = a.into_copies();
        copies.extend(b.into_copies());
        out.push(Job::Game(copies, stem));
    }
    out.extend(units.into_iter().flatten());
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
    let stem = job.stem();
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
            page: 0,
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
            Job::Game(s, stem) if s.len() == 1 => (
                stem.clone(),
                s[0].iter()
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
                page: 0,
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
        let (inputs, errors, skipped) =
            collect(&[d.join("a"), d.join("c.tiff"), d.join("nope.png")]);
        let stems: Vec<&str> = inputs.iter().map(|i| i.stem.as_str()).collect();
        assert_eq!(stems, ["r2", "r1", "c"]);
        assert_eq!(errors.len(), 1);
        assert!(errors[0].contains("nope.png"));
        assert_eq!(skipped.len(), 1, "{skipped:?}");
        assert!(skipped[0].contains("notes.txt"), "{skipped:?}");
    }

    #[test]
    fn pdfs_are_taken_and_an_output_folders_reports_pass_quietly() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::create_dir_all(d.join("out")).unwrap();
        for f in [
            "scan.PDF",
            "r1.jpg",
            "r1.json", // not beside its pgn: not an output folder here
            "out/r1.json",
            "out/r1.pgn",
            "out/review.html",
            "out/notes.txt",
        ] {
            std::fs::write(d.join(f), b"x").unwrap();
        }
        let (inputs, errors, skipped) = collect(&[d.to_path_buf()]);
        let stems: Vec<&str> = inputs.iter().map(|i| i.stem.as_str()).collect();
        assert_eq!(stems, ["r1", "scan"]);
        assert!(errors.is_empty(), "{errors:?}");
        let named: Vec<String> = skipped
            .iter()
            .map(|s| {
                s.split(':')
                    .next()
                    .unwrap()
                    .replace(&d.display().to_string(), "")
            })
            .collect();
        assert_eq!(named, ["/out/notes.txt", "/r1.json"]);
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
            page: 0,
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
                Job::Game(copies, stem) if copies.len() == 2 => Some(stem.as_str()),
                _ => None,
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
        // Page 2 of `scan.pdf` is written as `scan_p2`: a sheet of that name moves aside.
        let files = vec![
            PathBuf::from("x/scan.pdf"),
            PathBuf::from("x/scan_p2.jpg"),
            PathBuf::from("x/scan_p1.jpg"),
            PathBuf::from("x/r1_p2.jpg"),
            PathBuf::from("x/r1.jpg"),
        ];
        let stems: Vec<String> = unique_stems(files).into_iter().map(|i| i.stem).collect();
        assert_eq!(stems, ["scan", "x_scan_p2", "scan_p1", "r1_p2", "r1"]);
    }
}
