//! `scoresheet convert`: game text in any supported notation (file or stdin) -> PGN on
//! stdout; with `--variant das`, a Das game text checked move by move (syntax and
//! squares only) -> a PGN-like record with `[Variant "Das"]`.

use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;

use crate::cli::{EXIT_SOME_FAILED, diag};
use scoresheet::{Notation, Variant, convert_game};

#[derive(clap::Args, Debug)]
pub struct ConvertArgs {
    /// Game text file (`-` or nothing: standard input).
    pub input: Option<PathBuf>,
    /// Notation of the text: auto, en, ru, pl or de (chess only).
    #[arg(long, default_value = "auto", value_parser = parse_notation)]
    pub notation: NotationChoice,
    /// What the text records: chess (replayed as a legal game) or das (the 10×10
    /// variant: checked by its notation only, moves kept as written).
    #[arg(long, default_value = "chess")]
    pub variant: Variant,
}

/// `--notation`: detect it, or a fixed notation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NotationChoice {
    Auto,
    Fixed(Notation),
}

fn parse_notation(s: &str) -> Result<NotationChoice, String> {
    if s.eq_ignore_ascii_case("auto") {
        Ok(NotationChoice::Auto)
    } else {
        s.parse::<Notation>()
            .map(NotationChoice::Fixed)
            .map_err(|e| e.to_string())
    }
}

pub fn run(args: ConvertArgs) -> anyhow::Result<ExitCode> {
    let (name, text) = match args.input.as_deref() {
        None => ("<stdin>".to_string(), read_stdin()?),
        Some(p) if p.as_os_str() == "-" => ("<stdin>".to_string(), read_stdin()?),
        Some(p) => (
            p.display().to_string(),
            std::fs::read_to_string(p).with_context(|| format!("cannot read {}", p.display()))?,
        ),
    };
    let notation = match args.notation {
        NotationChoice::Fixed(n) => Some(n),
        NotationChoice::Auto => None,
    };
    match convert_game(&text, notation, args.variant) {
        Ok(out) => {
            print!("{out}");
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            diag(format!("{name}: {e}"));
            Ok(ExitCode::from(EXIT_SOME_FAILED))
        }
    }
}

fn read_stdin() -> anyhow::Result<String> {
    let mut s = String::new();
    std::io::stdin()
        .read_to_string(&mut s)
        .context("cannot read standard input")?;
    Ok(s)
}
