//! `scoresheet convert`: game text in any supported notation -> PGN.

use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct ConvertArgs {}

pub fn run(_args: ConvertArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!("convert is not implemented yet")
}
