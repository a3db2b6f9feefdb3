//! The built-in quick profile of `iolab run` (no job given; the phases and the table are
//! `iolab_run::quick`, the run `iolab_run::progress`).
//!
//! The profile runs on one temporary file in the current directory (or `--directory`), removed
//! afterwards; the device view and the brief advice go beside the table on stderr.

use std::process::ExitCode;

use anyhow::Context;
use iolab_job::LoadOptions;

pub fn run_quick(fio_options: &[String], flags: &super::Flags) -> anyhow::Result<ExitCode> {
    let (size, dir) = iolab_run::flags::quick_size_and_dir(fio_options)?;
    let phase_time = flags.own.phase_time.unwrap_or(3.0);
    let started = crate::cmd::meta_now(iolab_stats::RunMode::Measured, Vec::new());
    // The scratch is removed however the run ends: return, error, panic, or a signal.
    let plan = iolab_run::quick::plan(&dir, &size, phase_time)?;
    let opts = LoadOptions { files: vec![], cmdline: plan.args, sections: vec![] };
    let parsed = iolab_job::load(&opts).context("building the quick profile")?;
    plan.notes.iter().for_each(|n| eprintln!("iolab: {n}"));
    eprintln!(
        "iolab: quick profile on {} ({size}, {}, {}): 6 phases of {:.1} s",
        plan.file.display(),
        plan.engine,
        if plan.direct { "direct" } else { "buffered" },
        phase_time + (phase_time / 6.0).min(0.5)
    );
    // The device view, as for any job: what each phase's depth became at the device.
    let (mut result, interrupted, _, watch) =
        super::measure::watched_run(&parsed.jobs, flags, true)?;
    let watched = watch.finish(&mut result);
    // Short phases by design: one line about them, not a steady_state warning per phase.
    let steady = iolab_advice::checks::steady_state::fold_short_phases;
    let (advice, short_phases) = steady(watched.advice, phase_time);
    result.advice = iolab_advice::to_json(&advice);
    result.disk_series = watched.series.devices.clone();
    iolab_run::finish::complete(&mut result, &[], &[], &started, interrupted);
    result.notes.extend(plan.notes);
    for n in iolab_report::export::text::job_notes(&result) {
        eprintln!("iolab: {n}");
    }
    emit(&result, &iolab_advice::render_brief(&advice), flags)?;
    if let Some(line) = short_phases {
        eprintln!("iolab: {line}");
    }
    Ok(match interrupted {
        true => ExitCode::from(iolab_core::stop::exit_status().unwrap_or(130)),
        false => ExitCode::SUCCESS,
    })
}

/// The table on stdout (or `--output`) with the device view's findings on stderr; in machine
/// formats the documents go out and the table and findings to stderr.
fn emit(result: &iolab_stats::RunResult, advice: &str, flags: &super::Flags) -> anyhow::Result<()> {
    let table = iolab_run::quick::table(result);
    let output = flags.g.output.as_deref();
    if flags.formats == "normal" {
        iolab_report::render::write(table.as_bytes(), output)?;
        eprint!("{advice}");
        return Ok(());
    }
    let html = iolab_report::export::html::run_page;
    let terse_version = flags.g.terse_version;
    let x = iolab_report::Extras { html: Some(&html), terse_version, ..Default::default() };
    iolab_report::render::render_to(result, &flags.formats, &x, output)?;
    eprint!("{table}{advice}");
    Ok(())
}
