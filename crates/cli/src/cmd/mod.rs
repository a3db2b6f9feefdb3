//! One module per subcommand; each has `Args` (clap) and `run(Args) -> Result<ExitCode>`.
//!
//! `run`, `sim` and `parse` mix iolab's flags with fio's job files and `--option=value`
//! arguments in any order: their `Args` flatten a clap flag struct (so `--help` lists every
//! flag) beside the fio arguments, and [`split_own`] re-reads the whole list
//! (`iolab_job::cmdline::clap_split`, which takes the flag names from clap).

use clap::{Args, FromArgMatches};
use iolab_job::SplitArgs;

pub mod calibrate;
pub mod compare;
pub mod data;
pub mod fill;
pub mod fio;
pub mod mrc;
pub mod options;
pub mod parse;
pub mod plot;
pub mod replay;
pub mod report;
pub mod run;
pub mod sim;
pub mod trace;

/// The arguments after the subcommand's name, as text (clap has already refused non-UTF-8
/// in the fio arguments; this refuses it in a flag's value too).
pub fn raw_args() -> anyhow::Result<Vec<String>> {
    let args = iolab_job::cmdline::personality::utf8_args(std::env::args_os().skip(2));
    args.map_err(|shown| anyhow::anyhow!("argument '{shown}' is invalid UTF-8"))
}

/// Split `rest` into fio's parts and `F`'s flags (`iolab_job::cmdline::clap_split`), clap's
/// message on one line: its first line, without the `error: ` it adds.
pub fn split_own<F: Args + FromArgMatches>(
    name: &'static str,
    rest: &[String],
) -> anyhow::Result<(SplitArgs, F)> {
    iolab_job::cmdline::clap_split::split_own(name, rest).map_err(|e| {
        let text = e.to_string();
        let first = text.lines().next().unwrap_or_default();
        anyhow::anyhow!("{}", first.trim_start_matches("error: "))
    })
}

/// The result's meta for a command starting now (`RunMeta::started`).
pub fn meta_now(mode: iolab_stats::RunMode, percentiles: Vec<f64>) -> iolab_stats::RunMeta {
    iolab_stats::RunMeta::started(mode, std::env::args().collect(), percentiles)
}
