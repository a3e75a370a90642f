//! The fine-tuning engine alone on HCS cells: the reader's exact-cell accuracy before
//! and after fine-tuning, read by ONNX Runtime (one look, greedy, `0` read as `O`).
//!
//! `flock /work/heavy.lock cargo run --release --example learn_hcs -- [MODE] [options]`
//! (needs `../shared/data/hcs`; cells are cut once and kept under `--cache`).
//!
//! Modes:
//! * `train`: learn from cells of HCS training games (the base reader trained on them),
//!   test on the selection games: must not get worse.
//! * `same` (default): learn from the selection games' odd-numbered moves, test on
//!   their even-numbered moves: the same writers, other cells, as a reviewer's settled
//!   sheets teach the reader a collection's hands.
//!
//! Options: `--steps N --batch N --lr X --pull X --frozen N --shift N --threads N
//! --seed N --limit N` (at most N training cells), `--replay N` (N cells of HCS training
//! games, which the base reader trained on, spread evenly over them, replayed in every
//! batch; never selection games, they are the test) `--share X` (of each batch
//! replayed), `--cache DIR`, `--out FILE.onnx`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use image::GrayImage;
use scoresheet::learn::tune::{self, Example, TuneParams};
use scoresheet::model::{CellModel, Manifest, OrtModel, RuntimeParams};
use scoresheet::{GridParams, PageParams};

#[path = "../tests/common/hcs.rs"]
mod hcs;

struct Cell {
    game: String,
    move_number: u32,
    crop: GrayImage,
    label: String,
}

fn arg<T: std::str::FromStr>(args: &[String], name: &str, default: T) -> T {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .map_or(default, |v| v.parse().ok().expect("a number"))
}

/// Every labelled cell of the pages, cut by the product's cutter (cached as PNGs).
fn load_cells(dir: &Path, cache: &Path) -> Vec<Cell> {
    let text = std::fs::read_to_string(dir.join("labels.tsv")).expect("labels.tsv");
    let mut labels: HashMap<(String, u32, bool), String> = HashMap::new();
    for line in text.lines().skip(1) {
        let f: Vec<&str> = line.split('\t').collect();
        if f.len() == 4 {
            let key = (f[0].to_string(), f[1].parse().unwrap_or(0), f[2] == "white");
            labels.insert(key, f[3].to_string());
        }
    }
    let mut pages: Vec<PathBuf> = std::fs::read_dir(dir.join("pages"))
        .expect("pages")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    pages.sort();
    let mut out = Vec::new();
    for page in pages {
        let stem = page.file_stem().unwrap().to_string_lossy().into_owned();
        let game = stem.split('_').next().unwrap().to_string();
        let pdir = cache.join(&stem);
        if !pdir.join("done").exists() {
            std::fs::create_dir_all(&pdir).unwrap();
            match scoresheet::cut_cells(
                &page,
                &PageParams::default(),
                &GridParams::default(),
                None,
                false,
            ) {
                Ok(cut) => {
                    for c in cut.iter().flat_map(|p| &p.cells) {
                        let side = if c.side == shakmaty::Color::White {
                            "w"
                        } else {
                            "b"
                        };
                        c.image
                            .save(pdir.join(format!("{}_{side}.png", c.move_number)))
                            .unwrap();
                    }
                }
                Err(e) => eprintln!("{stem}: {e}"),
            }
            std::fs::write(pdir.join("done"), "").unwrap();
        }
        for e in std::fs::read_dir(&pdir).unwrap().filter_map(Result::ok) {
            let name = e.file_name().to_string_lossy().into_owned();
            let Some(base) = name.strip_suffix(".png") else {
                continue;
            };
            let (mv, side) = base.split_once('_').unwrap();
            let mv: u32 = mv.parse().unwrap();
            if let Some(label) = labels.get(&(stem.clone(), mv, side == "w")) {
                out.push(Cell {
                    game: game.clone(),
                    move_number: mv,
                    crop: image::open(e.path()).unwrap().to_luma8(),
                    label: label.clone(),
                });
            }
        }
    }
    out.sort_by(|a, b| (&a.game, a.move_number, &a.label).cmp(&(&b.game, b.move_number, &b.label)));
    out
}

fn exact(model: &mut OrtModel, cells: &[&Cell]) -> f64 {
    let crops: Vec<GrayImage> = cells.iter().map(|c| c.crop.clone()).collect();
    let mut right = 0;
    for (chunk, cs) in crops.chunks(256).zip(cells.chunks(256)) {
        let scores = model.read_once(chunk).unwrap();
        for (s, c) in scores.iter().zip(cs) {
            let got = model.alphabet().greedy(s).replace('0', "O");
            right += usize::from(got == c.label.replace('0', "O"));
        }
    }
    right as f64 / cells.len().max(1) as f64
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mode = args.first().filter(|a| !a.starts_with("--")).cloned();
    let mode = mode.unwrap_or_else(|| "same".into());
    let Some(dir) = hcs::hcs_dir() else {
        eprintln!("learn_hcs: ../shared/data/hcs not found; nothing to check");
        std::process::exit(2);
    };
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let cache: PathBuf = arg(
        &args,
        "--cache",
        PathBuf::from("/work/scratch/tune/hcs_cells"),
    );
    let d = TuneParams::default();
    let mut params = TuneParams {
        steps: arg(&args, "--steps", d.steps),
        batch: arg(&args, "--batch", d.batch),
        lr: arg(&args, "--lr", d.lr),
        seed: arg(&args, "--seed", d.seed),
        threads: arg(&args, "--threads", 2),
        frozen_convs: arg(&args, "--frozen", d.frozen_convs),
        pull: arg(&args, "--pull", d.pull),
        shift: arg(&args, "--shift", d.shift),
        replay: Vec::new(),
        replay_share: arg(&args, "--share", d.replay_share),
    };
    let limit: usize = arg(&args, "--limit", usize::MAX);

    let split: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(root.join("training/split.json")).unwrap())
            .unwrap();
    let mut train_games: Vec<String> = split["hcs_train_games"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g.as_str().unwrap().to_string())
        .collect();
    train_games.sort();
    let select: Vec<String> = train_games.iter().step_by(7).cloned().collect();
    let train_games: Vec<String> = train_games
        .into_iter()
        .filter(|g| !select.contains(g))
        .collect();

    let t0 = Instant::now();
    let cells = load_cells(&dir, &cache);
    eprintln!(
        "{} labelled cells ({:.0} s)",
        cells.len(),
        t0.elapsed().as_secs_f64()
    );
    let manifest_path = root.join("models/cellreader.json");
    let manifest = Manifest::load(&manifest_path).unwrap();
    let alphabet = manifest.alphabet();
    let in_select = |c: &&Cell| select.contains(&c.game);
    let (learn, test): (Vec<&Cell>, Vec<&Cell>) = match mode.as_str() {
        "train" => (
            cells
                .iter()
                .filter(|c| train_games.contains(&c.game))
                .collect(),
            cells.iter().filter(in_select).collect(),
        ),
        "same" => (
            cells
                .iter()
                .filter(in_select)
                .filter(|c| c.move_number % 2 == 1)
                .collect(),
            cells
                .iter()
                .filter(in_select)
                .filter(|c| c.move_number % 2 == 0)
                .collect(),
        ),
        m => panic!("unknown mode {m} (train or same)"),
    };
    let example = |c: &&Cell| {
        let target = alphabet.encode(&c.label)?;
        Some(Example {
            crop: c.crop.clone(),
            target: target.into_iter().map(|k| k as u32).collect(),
        })
    };
    let examples: Vec<Example> = learn.iter().filter_map(example).take(limit).collect();
    let replay_n: usize = arg(&args, "--replay", 0);
    let pool: Vec<&Cell> = cells
        .iter()
        .filter(|c| train_games.contains(&c.game))
        .collect();
    // `n` cells spread evenly over the training games.
    let spread = |n: usize| {
        let every = (pool.len() as f64 / n as f64).max(1.0);
        (0..n.min(pool.len())).map(move |k| pool[(k as f64 * every) as usize])
    };
    let dump_n: usize = arg(&args, "--dump-replay", 0);
    if dump_n > 0 {
        // The pack `learn` ships, the cells the reader's alphabet cannot spell left out.
        let picked: Vec<&Cell> = spread(dump_n)
            .filter(|c| alphabet.encode(&c.label).is_some())
            .collect();
        let crops: Vec<&GrayImage> = picked.iter().map(|c| &c.crop).collect();
        let sprite = scoresheet::learn::replay::pack(&crops, &manifest);
        let png = scoresheet::learn::replay::encode_png(&sprite).unwrap();
        std::fs::write(root.join("models/replay.png"), png).unwrap();
        let mut text = format!(
            "# {} cells of HCS training games (CC BY 3.0), spread evenly; written by examples/learn_hcs.rs --dump-replay {dump_n}\n",
            picked.len()
        );
        for c in &picked {
            text += &c.label;
            text.push('\n');
        }
        std::fs::write(root.join("models/replay.tsv"), text).unwrap();
        println!(
            "wrote models/replay.png and models/replay.tsv: {} cells",
            picked.len()
        );
        return;
    }
    if replay_n > 0 {
        params.replay = spread(replay_n).filter_map(|c| example(&c)).collect();
    }
    let one_look = RuntimeParams {
        second_look: false,
        ..RuntimeParams::default()
    };
    let mut base = OrtModel::from_manifest_file(&manifest_path, &one_look).unwrap();
    let before = exact(&mut base, &test);
    let learn_before = exact(&mut base, &learn);
    println!(
        "mode {mode}: learn from {} cells, test on {} cells, replay {} cells (share {}); steps {} batch {} lr {} seed {} frozen convs {} pull {} shift {}",
        examples.len(),
        test.len(),
        params.replay.len(),
        params.replay_share,
        params.steps,
        params.batch,
        params.lr,
        params.seed,
        params.frozen_convs,
        params.pull,
        params.shift
    );
    println!(
        "base: exact {:.2}% on the test cells, {:.2}% on the learning cells",
        100.0 * before,
        100.0 * learn_before
    );

    let onnx = std::fs::read(root.join("models/cellreader.onnx")).unwrap();
    let t1 = Instant::now();
    let mut last = Instant::now();
    let tuned = tune::fine_tune(&onnx, &manifest, &examples, &params, &mut |s, n, loss| {
        if s == 1 || s % 25 == 0 || s == n {
            eprintln!(
                "step {s}/{n} loss {loss:.4} ({:.2} s/step lately)",
                last.elapsed().as_secs_f64() / if s == 1 { 1.0 } else { 25.0 }
            );
            last = Instant::now();
        }
    })
    .unwrap();
    let secs = t1.elapsed().as_secs_f64();
    let out: PathBuf = arg(&args, "--out", cache.join("tuned.onnx"));
    let tmp = out.parent().unwrap().join("tuned-model");
    std::fs::create_dir_all(&tmp).unwrap();
    std::fs::copy(&manifest_path, tmp.join("cellreader.json")).unwrap();
    std::fs::write(tmp.join("cellreader.onnx"), &tuned).unwrap();
    std::fs::write(&out, &tuned).unwrap();
    let mut model = OrtModel::from_manifest_file(&tmp.join("cellreader.json"), &one_look).unwrap();
    let after = exact(&mut model, &test);
    let learn_after = exact(&mut model, &learn);
    println!(
        "tuned: exact {:.2}% on the test cells, {:.2}% on the learning cells; {} steps in {secs:.0} s ({:.2} s/step)",
        100.0 * after,
        100.0 * learn_after,
        params.steps,
        secs / params.steps.max(1) as f64
    );
}
