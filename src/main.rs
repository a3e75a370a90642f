//! The `scoresheet` command line: parses arguments and dispatches to a subcommand.

mod cli;

use std::process::ExitCode;

fn main() -> ExitCode {
    cli::main()
}
