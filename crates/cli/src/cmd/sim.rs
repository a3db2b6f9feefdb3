//! `iolab sim`. PLACEHOLDER until its owner lands it.

use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    rest: Vec<String>,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let _ = args.rest;
    anyhow::bail!("`iolab sim` is not built yet")
}
