//! The scanner's folder -> the desk's queue: polled; a file is taken once its size and
//! modification time are the same on two polls in a row (written, or renamed into
//! place); the files of one game (both copies, continuation sheets) are read together
//! through `read`'s own job, once none of them is still being written. Each file is
//! waiting, reading, read (into a game) or failed (with the reason).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use scoresheet::{Pairings, Pipeline};

use super::super::inputs::{self, Input, Job};
use super::super::read::read_job;
use super::store::{Store, lock};

/// Where a file of the scanner's folder stands.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[serde(tag = "state", rename_all = "lowercase")]
pub enum State {
    /// Seen, still being written (or its game's other files are).
    Waiting,
    Reading,
    /// Read into the game `stem`.
    Read {
        stem: String,
    },
    Failed {
        reason: String,
    },
}

/// One file of the queue.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Entry {
    /// The path under the scanner's folder.
    pub file: String,
    #[serde(flatten)]
    pub state: State,
    #[serde(skip)]
    seen: (u64, Option<SystemTime>),
    /// The size and time it was read (or failed) at.
    #[serde(skip)]
    done: Option<(u64, Option<SystemTime>)>,
}

/// The queue, shared with the HTTP side.
#[derive(Default)]
pub struct Queue {
    entries: Mutex<BTreeMap<PathBuf, Entry>>,
}

impl Queue {
    pub fn snapshot(&self) -> Vec<Entry> {
        lock(&self.entries).values().cloned().collect()
    }

    fn set(&self, path: &Path, state: State) {
        if let Some(e) = lock(&self.entries).get_mut(path) {
            if matches!(state, State::Read { .. } | State::Failed { .. }) {
                e.done = Some(e.seen);
            }
            e.state = state;
        }
    }
}

/// What the watcher reads with.
pub struct Watcher {
    pub dir: PathBuf,
    pub poll: Duration,
    pub store: Arc<Store>,
    pub queue: Arc<Queue>,
    pub pipeline: Pipeline,
    pub pairings: Option<Pairings>,
}

/// Size and modification time of a file.
fn stat(path: &Path) -> Option<(u64, Option<SystemTime>)> {
    let m = std::fs::metadata(path).ok()?;
    Some((m.len(), m.modified().ok()))
}

fn job_inputs(job: &Job) -> Vec<&Input> {
    job.inputs()
}

fn job_stem(job: &Job) -> &str {
    job.stem()
}

impl Watcher {
    /// Polls for ever.
    pub fn run(self) {
        loop {
            let polled =
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.poll_once()));
            if polled.is_err() {
                super::super::diag("the watcher failed on this poll; it polls again");
            }
            std::thread::sleep(self.poll);
        }
    }

    /// One poll: new and changed files noted, stable games read.
    pub fn poll_once(&self) {
        // Files the walk skips (not an image or a PDF) are not named: the folder is
        // polled every moment, and would name them each time.
        let (found, errors, _skipped) = inputs::collect(std::slice::from_ref(&self.dir));
        for e in errors {
            super::super::diag(e);
        }
        let mut ready: Vec<Input> = Vec::new();
        let mut unsettled: BTreeSet<String> = BTreeSet::new();
        {
            let mut entries = lock(&self.queue.entries);
            entries.retain(|p, _| p.exists());
            for input in &found {
                let Some(now) = stat(&input.path) else {
                    continue;
                };
                let key = inputs::game_key(&input.stem);
                let file = input
                    .path
                    .strip_prefix(&self.dir)
                    .unwrap_or(&input.path)
                    .display()
                    .to_string();
                let e = entries.entry(input.path.clone()).or_insert_with(|| Entry {
                    file,
                    state: State::Waiting,
                    seen: (u64::MAX, None),
                    done: None,
                });
                let stable = e.seen == now && now.0 > 0;
                e.seen = now;
                if e.done == Some(now) {
                    continue;
                }
                if !stable {
                    e.state = State::Waiting;
                    unsettled.insert(key);
                } else if e.state != State::Reading {
                    ready.push(input.clone());
                }
            }
        }
        // A game is read once none of its files is still being written; with it, the
        // files of that game already read (a second copy joins the first).
        let games: BTreeSet<String> = ready
            .iter()
            .map(|i| inputs::game_key(&i.stem))
            .filter(|k| !unsettled.contains(k))
            .collect();
        if games.is_empty() {
            return;
        }
        let todo: Vec<Input> = found
            .into_iter()
            .filter(|i| games.contains(&inputs::game_key(&i.stem)))
            .collect();
        let (mut jobs, rest) = inputs::continuations(todo, &[]);
        jobs.extend(inputs::jobs(rest, true, &[]));
        for job in &jobs {
            self.read(job);
        }
    }

    /// Reads one job under its game's lock, unless its report is newer than its files
    /// (a desk restarted on its output folder carries on).
    fn read(&self, job: &Job) {
        let stem = job_stem(job).to_string();
        let files: Vec<PathBuf> = job_inputs(job).iter().map(|i| i.path.clone()).collect();
        let report = self.store.json_path(&stem);
        let newest = files
            .iter()
            .filter_map(|f| std::fs::metadata(f).ok()?.modified().ok())
            .max();
        let current = std::fs::metadata(&report)
            .ok()
            .and_then(|m| m.modified().ok())
            .zip(newest)
            .is_some_and(|(r, f)| r >= f);
        if current {
            for f in &files {
                self.queue.set(f, State::Read { stem: stem.clone() });
            }
            return;
        }
        for f in &files {
            self.queue.set(f, State::Reading);
        }
        let game = self.store.game_lock(&stem);
        let (errors, notes) = {
            let _held = lock(&game);
            // A reader that panics on one sheet fails that sheet, not the desk.
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                self.store.models.with(|m| {
                    read_job(
                        job,
                        &self.pipeline,
                        m,
                        &self.store.out,
                        &self.store.producer,
                        self.pairings.as_ref(),
                    )
                })
            }))
            .unwrap_or_else(|_| {
                let what = files
                    .first()
                    .map_or(stem.clone(), |f| f.display().to_string());
                (
                    vec![format!("{what}: the reader failed on this sheet")],
                    Vec::new(),
                )
            })
        };
        for n in &notes {
            super::super::diag(n);
        }
        for e in &errors {
            super::super::diag(e);
        }
        let state = if errors.is_empty() && report.exists() {
            State::Read { stem: stem.clone() }
        } else {
            State::Failed {
                reason: errors
                    .first()
                    .cloned()
                    .unwrap_or_else(|| "nothing was read".into()),
            }
        };
        if errors.is_empty() {
            self.supersede(job, &stem);
            // Before the queue says `read`: whoever sees that state finds the game in
            // the round file too.
            self.store.write_round();
        }
        for f in &files {
            self.queue.set(f, state.clone());
        }
    }

    /// A file read alone earlier and now part of a joined game (its other copy or a
    /// continuation came later): its lone report is moved to `OUT/.superseded/`.
    fn supersede(&self, job: &Job, stem: &str) {
        for input in job_inputs(job) {
            if input.stem == stem {
                continue;
            }
            let old = self.store.json_path(&input.stem);
            if !old.exists() {
                continue;
            }
            let game = self.store.game_lock(&input.stem);
            let _held = lock(&game);
            let aside = self.store.out.join(".superseded");
            let _ = std::fs::create_dir_all(&aside);
            for ext in ["json", "pgn"] {
                let name = format!("{}.{ext}", input.stem);
                let _ = std::fs::rename(self.store.out.join(&name), aside.join(&name));
            }
            super::super::diag(format!(
                "{}: now read with its game into {stem}; its lone report moved to .superseded/",
                input.path.display()
            ));
        }
    }
}
