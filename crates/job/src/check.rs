//! What a resolved job must satisfy before anything runs: the checks across options that
//! `iolab run` used to make only once it started (the engine's set-up, the buffer
//! configuration), made here so `iolab parse`, `run`, `sim` and every library caller refuse
//! the same jobs with the same one-line error (issue 35: `parse` accepted `buffer_pattern=x`,
//! `ioengine=rbd` and `cpuio` without `cpuload=`, which `run` then refused).
//!
//! Sources: fio engines/cpu.c `fio_cpuio_init` ("cpu thread needs rate"), engines/exec.c
//! `fio_exec_init` ("no program is defined"), fio's ioengine table (`engines.rs`: the engines
//! iolab refuses, with their reason); iolab's own limits (one open file set per job,
//! `log_store_compressed` without the histogram log's `.fz`, verify without trims, a
//! `verify_only` replay bounded by size), which the engine applied until now.

use crate::error::JobErrorKind;
use crate::spec::Job;
use iolab_data::pattern::parse_pattern;
use iolab_data::VerifyKind;

fn refuse(option: &str, value: &str, expected: impl Into<String>) -> JobErrorKind {
    JobErrorKind::BadValue {
        name: option.to_string(),
        value: value.to_string(),
        expected: expected.into(),
    }
}

fn raw(job: &Job, name: &str) -> String {
    job.options.get(name).map(|o| o.raw.clone()).unwrap_or_default()
}

/// The first reason `job` cannot run, naming the option that makes it so.
pub fn runnable(job: &Job) -> Result<(), JobErrorKind> {
    engine(job)?;
    if let Some(p) = job.options.get("verify_pattern") {
        // `data_config` reads it with buffer_pattern's grammar, and its error says so.
        if let Err(iolab_data::DataError::Pattern { input, at, kind }) = parse_pattern(&p.raw) {
            return Err(JobErrorKind::Data {
                job: job.name.clone(),
                message: format!("verify_pattern `{input}`: at byte {at}: {kind}"),
            });
        }
    }
    let data = job
        .data_config()
        .map_err(|e| JobErrorKind::Data { job: job.name.clone(), message: e.to_string() })?;
    verify(job, data.verify)?;
    job.strided_zones()?;
    if job.log_store_compressed() && job.write_hist_log().is_some() {
        return Err(refuse(
            "log_store_compressed",
            &raw(job, "log_store_compressed"),
            "no write_hist_log in the same job (iolab does not write the histogram log's \
             .fz form); drop one of them",
        ));
    }
    Ok(())
}

/// The engine and the options it cannot do without.
fn engine(job: &Job) -> Result<(), JobErrorKind> {
    let name = job.ioengine.as_str();
    // `external:/path.so` is fio's plug-in form.
    let head = name.split(':').next().unwrap_or(name);
    if let Some(why) = crate::engines::facts(head).and_then(|f| f.refused) {
        // fio on Linux cannot load it either (`--parse-only` fails in add_job too).
        let linux = if why == "Windows only" { " (use libaio or io_uring on Linux)" } else { "" };
        let expected = format!("an engine iolab runs; {head}: {why}{linux}");
        return Err(refuse("ioengine", &raw(job, "ioengine"), expected));
    }
    if job.openfiles().is_some() && !crate::engines::has(name, crate::engines::FILE_OPS) {
        return Err(refuse(
            "openfiles",
            &raw(job, "openfiles"),
            format!(
                "no openfiles with ioengine={name}: iolab keeps all of a job's files open; \
                 drop the option or lower nrfiles"
            ),
        ));
    }
    if name == "cpuio" && job.cpuload() == 0 {
        return Err(refuse(
            "cpuload",
            &raw(job, "cpuload"),
            "cpuload=1 to 100 with ioengine=cpuio (fio: cpu thread needs rate)",
        ));
    }
    if name == "exec" && job.program().is_none() {
        return Err(refuse(
            "program",
            &raw(job, "program"),
            "program=PATH with ioengine=exec (fio: it is mandatory to define one)",
        ));
    }
    Ok(())
}

/// Verification iolab can do: not of trimmed blocks, and a `verify_only` replay of a run
/// bounded by size.
fn verify(job: &Job, kind: VerifyKind) -> Result<(), JobErrorKind> {
    let on = !matches!(kind, VerifyKind::None | VerifyKind::Null);
    let writes = job.rw.has_write();
    if on && writes && job.rw.has_trim() {
        return Err(refuse(
            "verify",
            kind.name(),
            "a write-only job: fio verifies trimmed blocks only through trim_verify_*, and \
             iolab would report every trimmed block as a failure",
        ));
    }
    let timed = job.time_based || job.runtime.is_some_and(|r| r.0 > 0);
    if on && job.verify_only() && timed {
        return Err(refuse(
            "verify_only",
            &raw(job, "verify_only"),
            "a run bounded by size: drop time_based and runtime (a time-bound run's writes \
             cannot be reproduced)",
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {

    fn err(text: &str) -> String {
        let p = crate::parse_str("j.fio", &format!("[j]\nfilename=f\nsize=1m\n{text}\n"));
        p.err().map(|e| e.to_string()).unwrap_or_default()
    }

    #[test]
    fn refusals_name_the_option() {
        assert!(
            err("ioengine=rbd").contains("'ioengine': bad value 'rbd'"),
            "{}",
            err("ioengine=rbd")
        );
        assert!(err("ioengine=cpuio").contains("'cpuload'"));
        assert!(err("ioengine=cpuio\ncpuload=0").contains("'cpuload': 0 is out of range"));
        assert!(err("ioengine=exec").contains("'program'"));
        assert!(err("ioengine=external:/x.so").contains("'ioengine'"));
        assert!(err("verify_pattern=0xzz").contains("verify_pattern `0xzz`"));
        assert!(err("openfiles=1").contains("'openfiles'"));
        assert!(err("buffer_pattern=nosuch").contains("buffer_pattern `nosuch`"));
        assert!(err("rw=trimwrite\nverify=md5").contains("'verify'"));
        assert!(err("rw=write\nverify=md5\nverify_only\nruntime=1").contains("'verify_only'"));
        assert!(err("write_hist_log=h\nlog_store_compressed=1").contains("log_store_compressed"));
    }

    #[test]
    fn runnable_jobs_pass() {
        assert_eq!(err("ioengine=cpuio\ncpuload=10"), "");
        assert_eq!(err("ioengine=exec\nprogram=/bin/true"), "");
        assert_eq!(err("ioengine=filestat\nopenfiles=1"), "");
        assert_eq!(err("rw=write\nverify=md5\nverify_only"), "");
    }
}
