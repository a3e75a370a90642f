//! Command-line front end: argument parsing, dispatch, exit codes.
//!
//! Exit status: 0 all inputs handled, 1 some inputs failed (the others are still
//! written), 2 usage or setup error. Diagnostics go to stderr, prefixed `scoresheet:`.

mod batch;
mod cells;
mod convert;
mod desk;
mod eval;
mod fix;
mod inputs;
mod learn;
mod merge;
mod read;
mod review;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Exit status when some inputs failed but the others were handled.
pub const EXIT_SOME_FAILED: u8 = 1;
/// Exit status for usage or set-up errors.
pub const EXIT_USAGE: u8 = 2;

#[derive(Parser, Debug)]
#[command(
    name = "scoresheet",
    version,
    about = "Handwritten chess scoresheets to legal PGN games"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Read scoresheet images into PGN games and JSON reports.
    Read(read::ReadArgs),
    /// Lock a corrected move and re-read the rest of the game around it.
    Fix(fix::FixArgs),
    /// Measure accuracy on labelled scans (labels of each cell, or the true games).
    Eval(eval::EvalArgs),
    /// Write a self-contained HTML review page for an output folder.
    Review(review::ReviewArgs),
    /// Convert a game text in English, Russian, Polish or German notation to PGN (or
    /// check a Das text with --variant das).
    Convert(convert::ConvertArgs),
    /// Cut the move table of each page into cell images plus an index TSV.
    Cells(cells::CellsArgs),
    /// Serve the tournament desk: read the sheets that land in a folder, review and
    /// correct them live in a browser or through a JSON API.
    Desk(desk::DeskArgs),
    /// Merge the output folders of `read --shard K/N` into one (reports, PGN, round
    /// file, review page, review budget over all shards).
    Merge(merge::MergeArgs),
    /// Learn a collection's own reader from reviewed output folders: fine-tune on the
    /// cells a human settled, check on reviewed sheets kept apart, write it if it reads
    /// them no worse.
    Learn(learn::LearnArgs),
}

/// Prints a one-line diagnostic on stderr, prefixed with the program name.
pub fn diag(msg: impl std::fmt::Display) {
    use std::io::Write;
    // A closed stderr must not stop a long run (the desk): the line is dropped then.
    let _ = writeln!(std::io::stderr(), "scoresheet: {msg}");
}

pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() { EXIT_USAGE } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    let result = match cli.command {
        Command::Read(args) => read::run(args),
        Command::Fix(args) => fix::run(args),
        Command::Review(args) => review::run(args),
        Command::Eval(args) => eval::run(args),
        Command::Convert(args) => convert::run(args),
        Command::Cells(args) => cells::run(args),
        Command::Merge(args) => merge::run(args),
        Command::Desk(args) => desk::run(args),
        Command::Learn(args) => learn::run(args),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            diag(format!("{e:#}"));
            ExitCode::from(EXIT_USAGE)
        }
    }
}
