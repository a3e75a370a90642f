//! `scoresheet desk`: the tournament desk. A scanner's folder -> sheets read in the
//! background as they land (watch.rs), into a normal `read -o` output folder whose
//! reports, versions and per-game locks the store keeps (store.rs), served live to
//! the arbiter's browser and to scripts as pages and a JSON API (http.rs, page.rs):
//! a correction is checked, locked, the game re-read around it and written to disk
//! before it is acknowledged.

mod http;
mod page;
mod store;
mod watch;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;

use scoresheet::{Pipeline, Producer, RuntimeParams};

use super::batch::{ModelArgs, load_model};
use super::read::{TableArgs, load_pairings};
use super::{EXIT_USAGE, diag};

#[derive(clap::Args, Debug)]
pub struct DeskArgs {
    /// The scanner's folder: images (png, jpeg, tiff) and PDFs are read as they land in it.
    pub watch: PathBuf,
    /// The output folder (as `read -o`; `fix`, `merge` and `review` work on it, and a
    /// desk restarted on it carries on).
    #[arg(short, long, value_name = "DIR")]
    pub out: PathBuf,
    /// Address to serve on. Off loopback a token is required on every request.
    #[arg(long, default_value = "127.0.0.1:8080", value_name = "ADDR:PORT")]
    pub listen: String,
    /// The token every request must carry (`Authorization: Bearer T`, or open
    /// `/?token=T` once in the browser); generated and printed when serving off
    /// loopback without one.
    #[arg(long, value_name = "T")]
    pub token: Option<String>,
    #[command(flatten)]
    pub tables: TableArgs,
    /// The round's PGN, rewritten (in round and board order) after every read and
    /// every correction.
    #[arg(long, value_name = "FILE")]
    pub pgn_out: Option<PathBuf>,
    /// How often the scanner's folder is looked at, in milliseconds.
    #[arg(long, default_value_t = 1000, value_name = "MS")]
    pub poll_ms: u64,
    #[command(flatten)]
    pub model: ModelArgs,
}

/// A token of 32 hex digits from the system's random source.
fn new_token() -> anyhow::Result<String> {
    use std::io::Read;
    let mut bytes = [0u8; 16];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut bytes))
        .context("cannot make a token (no /dev/urandom); give one with --token")?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

pub fn run(args: DeskArgs) -> anyhow::Result<ExitCode> {
    let addr: SocketAddr = match args.listen.parse() {
        Ok(a) => a,
        Err(_) => {
            diag(format!(
                "--listen {}: give an address and port, e.g. 127.0.0.1:8080",
                args.listen
            ));
            return Ok(ExitCode::from(EXIT_USAGE));
        }
    };
    if !args.watch.is_dir() {
        diag(format!("{}: no such folder to watch", args.watch.display()));
        return Ok(ExitCode::from(EXIT_USAGE));
    }
    if args.token.as_deref().is_some_and(|t| {
        t.len() < 8
            || !t
                .bytes()
                .all(|b| b.is_ascii_graphic() && b != b';' && b != b'&')
    }) {
        diag("--token: give at least 8 printable characters, without ; and &");
        return Ok(ExitCode::from(EXIT_USAGE));
    }
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("cannot create output folder {}", args.out.display()))?;
    let pairings = match load_pairings(&args.tables) {
        Ok(p) => p,
        Err(e) => {
            diag(format!("{e:#}"));
            return Ok(ExitCode::from(EXIT_USAGE));
        }
    };
    let mut params = args.model.pipeline_params()?;
    params.variant = scoresheet::Variant::Chess;
    let token = match (&args.token, addr.ip().is_loopback()) {
        (Some(t), _) => Some(t.clone()),
        (None, true) => None,
        (None, false) => {
            let t = new_token()?;
            diag(format!(
                "token: {t} (every request needs it; open http://{addr}/?token={t})"
            ));
            Some(t)
        }
    };

    // One model reads the scanner's sheets, the others re-read corrected games.
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let jobs = args.model.jobs.unwrap_or(2).clamp(2, 16);
    let runtime = RuntimeParams {
        ort_lib: args.model.ort_lib.clone(),
        threads: (cores / jobs).max(1),
        second_look: !args.model.one_look,
        ..RuntimeParams::default()
    };
    let models = (0..jobs)
        .map(|_| load_model(args.model.model.as_deref(), &runtime))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let models = Arc::new(store::Models::new(models));
    let producer = Producer {
        tool: format!("scoresheet {}", env!("CARGO_PKG_VERSION")),
        model: models.name.clone(),
        settings: Some(args.model.read_settings()),
    };
    let store = Arc::new(store::Store::new(
        args.out.clone(),
        args.pgn_out.clone(),
        models,
        producer,
    ));
    store.sweep();
    let queue = Arc::new(watch::Queue::default());
    let watcher = watch::Watcher {
        dir: args.watch.clone(),
        poll: Duration::from_millis(args.poll_ms.max(50)),
        store: store.clone(),
        queue: queue.clone(),
        pipeline: Pipeline::new(params),
        pairings,
    };
    std::thread::Builder::new()
        .name("desk-watch".into())
        .spawn(move || watcher.run())
        .context("cannot start the watcher")?;

    let desk = Arc::new(http::Desk {
        store,
        queue,
        pages: page::Pages::default(),
        token,
    });
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("cannot start the server")?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .with_context(|| format!("cannot listen on {addr}"))?;
        let bound = listener.local_addr()?;
        diag(format!(
            "desk on http://{bound}/ (watching {}, writing {})",
            args.watch.display(),
            args.out.display()
        ));
        http::serve(listener, http::router(desk)).await;
        anyhow::Ok(())
    })?;
    Ok(ExitCode::SUCCESS)
}
