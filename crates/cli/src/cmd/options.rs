//! `iolab options [NAME] [--status S] [--markdown] [--json]`: the option registry
//! (`iolab_job::registry`), listed like `fio --cmdhelp`, one option in full, or as the
//! Markdown reference that is committed as `docs/options.md`; `--paths` prints
//! `docs/paths.md` (`cmd::paths`).

use std::io::Write;
use std::process::ExitCode;

use anyhow::{bail, Context};
use iolab_job::registry::{self, StatusFilter};

#[derive(clap::Args)]
pub struct Args {
    /// Show this option (name or alias) in full.
    name: Option<String>,
    /// Print the whole reference as Markdown (the source of docs/options.md).
    #[arg(long, conflicts_with_all = ["name", "json"])]
    markdown: bool,
    /// Print fio's global flags and what iolab does with each, as Markdown (docs/fio-flags.md).
    #[arg(long, conflicts_with_all = ["name", "json", "markdown"])]
    fio_flags: bool,
    /// Print every path-taking flag and option with its gate intent, as Markdown
    /// (docs/paths.md).
    #[arg(long, conflicts_with_all = ["name", "json", "markdown", "fio_flags"])]
    paths: bool,
    /// Print the registry (or the named option) as JSON.
    #[arg(long)]
    json: bool,
    /// List only options with this status.
    #[arg(long, value_enum, conflicts_with_all = ["name", "markdown"])]
    status: Option<StatusFilter>,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let text = if args.paths {
        crate::cmd::paths::markdown()
    } else if args.fio_flags {
        iolab_job::cmdline::flags_markdown()
    } else if args.markdown {
        registry::markdown()
    } else if let Some(name) = &args.name {
        let Some(o) = registry::lookup(name) else {
            match registry::nearest(name) {
                Some(n) => bail!("unknown option `{name}`; did you mean `{n}`?"),
                None => bail!("unknown option `{name}`; `iolab options` lists them all"),
            }
        };
        if args.json {
            serde_json::to_string_pretty(o)? + "\n"
        } else {
            registry::describe(o)
        }
    } else if args.json {
        let keep: Vec<_> = registry::OPTIONS
            .iter()
            .filter(|o| args.status.is_none_or(|f| f.keeps(o.status)))
            .collect();
        serde_json::to_string_pretty(&keep)? + "\n"
    } else if let Some(f) = args.status {
        registry::listing_where(|o| f.keeps(o.status))
    } else {
        registry::listing()
    };
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()) {
        // A closed pipe (`iolab options | head`) is not an error.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
        r => r.context("writing to stdout")?,
    }
    Ok(ExitCode::SUCCESS)
}
