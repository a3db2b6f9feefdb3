//! One module per subcommand; each has `Args` (clap) and `run(Args) -> Result<ExitCode>`.
//!
//! `run`, `sim` and `parse` mix iolab's flags with fio's job files and `--option=value`
//! arguments in any order: their `Args` flatten a clap flag struct (so `--help` lists every
//! flag) beside the fio arguments, and [`split_own`] re-reads the whole list, taking the
//! flag names from clap (`Command::get_arguments`) so no second list is kept by hand.

use anyhow::Context;
use clap::{Args, Command, FromArgMatches};
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

/// The long flag names of `F`, as `split_fio_args` takes them: `name=` when it takes a value
/// (a flag whose value is optional, `--predict[=FILE]`, takes it only after `=`).
pub fn flag_names<F: Args>() -> Vec<String> {
    F::augment_args(Command::new("flags"))
        .get_arguments()
        .filter_map(|a| {
            let long = a.get_long()?;
            let value = a.get_action().takes_values() && !a.is_require_equals_set();
            Some(if value { format!("{long}=") } else { long.into() })
        })
        .collect()
}

/// The arguments after the subcommand's name, as text (clap has already refused non-UTF-8
/// in the fio arguments; this refuses it in a flag's value too).
pub fn raw_args() -> anyhow::Result<Vec<String>> {
    std::env::args_os()
        .skip(2)
        .map(|a| {
            a.into_string().map_err(|bad| {
                let shown: String = bad.to_string_lossy().chars().take(100).collect();
                anyhow::anyhow!("argument '{}' is invalid UTF-8", shown.escape_default())
            })
        })
        .collect()
}

/// Split `rest` into fio's parts and `F`'s flags, parsed by clap as `iolab NAME` would.
pub fn split_own<F: Args + FromArgMatches>(
    name: &'static str,
    rest: &[String],
) -> anyhow::Result<(SplitArgs, F)> {
    let names = flag_names::<F>();
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let split = iolab_job::split_fio_args(rest, &refs);
    let cmd = F::augment_args(Command::new(name));
    let argv = std::iter::once(format!("iolab {name}")).chain(split.other.iter().cloned());
    // clap's message on one line: its first line, without the `error: ` it adds.
    let m = cmd.try_get_matches_from(argv).map_err(|e| {
        let text = e.to_string();
        let first = text.lines().next().unwrap_or_default();
        anyhow::anyhow!("{}", first.trim_start_matches("error: "))
    })?;
    let flags = F::from_arg_matches(&m).with_context(|| format!("iolab {name}"))?;
    Ok((split, flags))
}

/// The result's meta for a command starting now (`RunMeta::started`).
pub fn meta_now(mode: iolab_stats::RunMode, percentiles: Vec<f64>) -> iolab_stats::RunMeta {
    iolab_stats::RunMeta::started(mode, std::env::args().collect(), percentiles)
}
