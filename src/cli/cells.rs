//! `scoresheet cells`: pages -> cell crops (PNG) and an index TSV.

use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct CellsArgs {}

pub fn run(_args: CellsArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!("cells is not implemented yet")
}
