//! The setters the registry entries name (`.set(a::set_bs)`): each maps one option onto the
//! typed [`Job`] fields, with fio's grammar and checks
//! for the options that have their own (`rw`, `bssplit`, `random_distribution`,
//! `file_service_type`, …).
//!
//! Sources: fio options.c `str_rw_cb` (`rw=randread:8` sets `ddir_seq_nr`; `rw=write:4k` sets
//! `ddir_seq_add`), `str_bssplit_cb` / `bssplit_ddir`, `str_random_distribution_cb` /
//! `parse_zoned_distribution` / `zone_split_ddir` (zoned access shares must add up to 100),
//! `str_fst_cb` (`file_service_type` forms and defaults zipf 1.1, pareto 0.2, normal 0),
//! `str_rwmix_read_cb` / `str_rwmix_write_cb` (the last one written wins), init.c
//! `fixup_options` (a non-uniform distribution forces `norandommap`, l.1037).

use crate::error::JobErrorKind;
use crate::spec::*;
use crate::value::{
    self, fill_shares, parse_bool, parse_share, parse_u32, per_dir, split_entries, unit_err,
};
use iolab_core::units::{self, KbBase, SizeOrPercent, TimeUnitDefault};
use iolab_core::{Nanos, PerDir};

/// fio's defaults for `zipf:` / `pareto:` without a value (`FIO_DEF_ZIPF`, `FIO_DEF_PARETO`).
const DEF_ZIPF: f64 = 1.1;
const DEF_PARETO: f64 = 0.2;

/// The `kb_base` in force for this job: the last `kb_base` set before this option.
pub fn kb_base(job: &Job) -> KbBase {
    job.kb_base()
}

fn bad(name: &str, value: &str, expected: impl Into<String>) -> JobErrorKind {
    JobErrorKind::BadValue {
        name: name.to_string(),
        value: value.to_string(),
        expected: expected.into(),
    }
}

fn need<'a>(name: &str, v: Option<&'a str>) -> Result<&'a str, JobErrorKind> {
    v.ok_or_else(|| JobErrorKind::MissingValue { name: name.to_string() })
}

fn size(name: &str, v: &str, kb: KbBase, warn: &mut Vec<String>) -> Result<u64, JobErrorKind> {
    let v = value::fio_head(name, v, warn);
    if let Some(w) = units::suffix_warning(v, kb) {
        warn.push(format!("{name}: {w}"));
    }
    units::parse_size(v, kb).map_err(|e| unit_err(name, e))
}

fn time(name: &str, v: &str, unit: TimeUnitDefault) -> Result<Nanos, JobErrorKind> {
    units::parse_time(v, unit).map_err(|e| unit_err(name, e))
}

fn size_spec(
    name: &str,
    v: &str,
    kb: KbBase,
    warn: &mut Vec<String>,
) -> Result<SizeSpec, JobErrorKind> {
    let v = value::fio_head(name, v, warn);
    if let Some(w) = units::suffix_warning(v, kb) {
        warn.push(format!("{name}: {w}"));
    }
    Ok(match units::parse_size_or_percent(v, kb).map_err(|e| unit_err(name, e))? {
        SizeOrPercent::Bytes(b) => SizeSpec::Bytes(b),
        SizeOrPercent::Percent(p) => SizeSpec::Percent(p as f64),
    })
}

fn set_dirs<T>(target: &mut PerDir<T>, vals: [Option<T>; 3]) {
    let [r, w, t] = vals;
    if let Some(r) = r {
        target.read = r;
    }
    if let Some(w) = w {
        target.write = w;
    }
    if let Some(t) = t {
        target.trim = t;
    }
}

fn map_dirs<T>(
    name: &str,
    v: &str,
    seps: &[char],
    mut f: impl FnMut(&str) -> Result<T, JobErrorKind>,
) -> Result<[Option<T>; 3], JobErrorKind> {
    let d = per_dir(name, v, seps)?;
    let mut out: [Option<T>; 3] = [None, None, None];
    for (i, p) in d.into_iter().enumerate() {
        if let Some(p) = p {
            out[i] = Some(f(p)?);
        }
    }
    Ok(out)
}

/// Setters for plain flags (`stonewall`, `time_based`, …): the field takes the value.
macro_rules! flag_setters {
    ($($f:ident => $field:ident, $name:literal;)*) => {$(
        #[doc = concat!("`", $name, "`.")]
        pub(crate) fn $f(
            job: &mut Job,
            v: Option<&str>,
            _warn: &mut Vec<String>,
        ) -> Result<(), JobErrorKind> {
            job.$field = parse_bool($name, v)?;
            Ok(())
        }
    )*};
}

flag_setters! {
    set_stonewall => stonewall, "stonewall";
    set_new_group => new_group, "new_group";
    set_group_reporting => group_reporting, "group_reporting";
    set_bs_unaligned => bs_unaligned, "bs_unaligned";
    set_time_based => time_based, "time_based";
    set_norandommap => norandommap, "norandommap";
    set_softrandommap => softrandommap, "softrandommap";
    set_randrepeat => randrepeat, "randrepeat";
    set_zipf_exact => zipf_exact, "zipf_exact";
    set_direct => direct, "direct";
    set_thread => thread, "thread";
}

/// `name`.
pub(crate) fn set_name(
    job: &mut Job,
    v: Option<&str>,
    _warn: &mut Vec<String>,
) -> Result<(), JobErrorKind> {
    let name = "name";
    job.name = need(name, v)?.to_string();
    Ok(())
}

/// `kb_base`.
pub(crate) fn set_kb_base(
    _job: &mut Job,
    v: Option<&str>,
    _warn: &mut Vec<String>,
) -> Result<(), JobErrorKind> {
    let name = "kb_base";
    let s = need(name, v)?;
    if !matches!(s.trim(), "1000" | "1024") {
        return Err(bad(name, s, "1024 or 1000"));
    }
    Ok(())
}

/// `numjobs`.
pub(crate) fn set_numjobs(
    job: &mut Job,
    v: Option<&str>,
    _warn: &mut Vec<String>,
) -> Result<(), JobErrorKind> {
    let name = "numjobs";
    let kb = kb_base(job);
    // fio's minval for numjobs is 1
    job.numjobs = parse_u32(name, need(name, v)?, kb)?;
    if job.numjobs == 0 {
        return Err(bad(name, need(name, v)?, "1 or more jobs"));
    }
    Ok(())
}

/// `wait_for`.
pub(crate) fn set_wait_for(
    job: &mut Job,
    v: Option<&str>,
    _warn: &mut Vec<String>,
) -> Result<(), JobErrorKind> {
    let name = "wait_for";
    job.wait_for = Some(need(name, v)?.to_string());
    Ok(())
}

/// `rw`.
pub(crate) fn set_rw(
    job: &mut Job,
    v: Option<&str>,
    _warn: &mut Vec<String>,
) -> Result<(), JobErrorKind> {
    let name = "rw";
    let kb = kb_base(job);
    apply_rw(job, need(name, v)?, kb)?;
    Ok(())
}

/// `rw_sequencer`.
pub(crate) fn set_rw_sequencer(
    job: &mut Job,
    v: Option<&str>,
    _warn: &mut Vec<String>,
) -> Result<(), JobErrorKind> {
    let name = "rw_sequencer";
    job.rw_sequencer = match need(name, v)? {
        "sequential" => RwSequencer::Sequential,
        "identical" => RwSequencer::Identical,
        o => return Err(bad(name, o, "sequential or identical")),
    };
    Ok(())
}

/// `rwmixread`.
pub(crate) fn set_rwmixread(
    job: &mut Job,
    v: Option<&str>,
    _warn: &mut Vec<String>,
) -> Result<(), JobErrorKind> {
    let name = "rwmixread";
    job.rwmixread = units::parse_percent(need(name, v)?).map_err(|e| unit_err(name, e))?;
    Ok(())
}

/// `rwmixwrite`.
pub(crate) fn set_rwmixwrite(
    job: &mut Job,
    v: Option<&str>,
    _warn: &mut Vec<String>,
) -> Result<(), JobErrorKind> {
    let name = "rwmixwrite";
    job.rwmixread = 100 - units::parse_percent(need(name, v)?).map_err(|e| unit_err(name, e))?;
    Ok(())
}

/// `percentage_random`.
pub(crate) fn set_percentage_random(
    job: &mut Job,
    v: Option<&str>,
    _warn: &mut Vec<String>,
) -> Result<(), JobErrorKind> {
    let name = "percentage_random";
    let vals = map_dirs(name, need(name, v)?, &[','], |p| {
        units::parse_percent(p).map_err(|e| unit_err(name, e))
    })?;
    set_dirs(&mut job.percentage_random, vals);
    Ok(())
}

/// `bs`.
pub(crate) fn set_bs(
    job: &mut Job,
    v: Option<&str>,
    warn: &mut Vec<String>,
) -> Result<(), JobErrorKind> {
    let name = "bs";
    let kb = kb_base(job);
    let vals = map_dirs(name, need(name, v)?, &[','], |p| size(name, p, kb, warn))?;
    for (d, val) in [&mut job.bs.read, &mut job.bs.write, &mut job.bs.trim].into_iter().zip(vals) {
        if let Some(b) = val {
            if b == 0 {
                return Err(bad(name, need(name, v)?, "a block size above 0"));
            }
            // init.c fixup_options: min_bs/max_bs fall back to bs only where bsrange left
            // them unset.
            if !d.ranged {
                d.min = b;
                d.max = b;
            }
        }
    }
    Ok(())
}

/// `bsrange`.
pub(crate) fn set_bsrange(
    job: &mut Job,
    v: Option<&str>,
    warn: &mut Vec<String>,
) -> Result<(), JobErrorKind> {
    let name = "bsrange";
    let kb = kb_base(job);
    // parse.c FIO_OPT_RANGE: directions split at `,` only; `1k-4k/8k-32k` is 1k-4k for all
    // three (fio 3.33 reads `4k/8k-32k` as 4k), and `1k-4k,` leaves write and trim at `bs`.
    let vals = map_dirs(name, need(name, v)?, &[','], |p| {
        if let Some(w) = units::suffix_warning(p.split(['-', ':']).next().unwrap_or(p), kb) {
            warn.push(format!("{name}: {w}"));
        }
        value::parse_range_tails(name, p, kb, warn)
    })?;
    for (d, val) in [&mut job.bs.read, &mut job.bs.write, &mut job.bs.trim].into_iter().zip(vals) {
        if let Some((lo, hi)) = val {
            d.min = lo;
            d.max = hi;
            d.ranged = true;
        }
    }
    Ok(())
}

/// `bssplit`.
pub(crate) fn set_bssplit(
    job: &mut Job,
    v: Option<&str>,
    warn: &mut Vec<String>,
) -> Result<(), JobErrorKind> {
    let name = "bssplit";
    let kb = kb_base(job);
    apply_bssplit(job, need(name, v)?, kb, warn)?;
    Ok(())
}

/// `ba`.
pub(crate) fn set_ba(
    job: &mut Job,
    v: Option<&str>,
    warn: &mut Vec<String>,
) -> Result<(), JobErrorKind> {
    let name = "ba";
    let kb = kb_base(job);
    let vals = map_dirs(name, need(name, v)?, &[','], |p| size(name, p, kb, warn))?;
    set_dirs(&mut job.blockalign, vals);
    Ok(())
}

/// `size`.
pub(crate) fn set_size(
    job: &mut Job,
    v: Option<&str>,
    warn: &mut Vec<String>,
) -> Result<(), JobErrorKind> {
    let name = "size";
    let kb = kb_base(job);
    job.size = Some(size_spec(name, need(name, v)?, kb, warn)?);
    Ok(())
}

/// `filesize`.
pub(crate) fn set_filesize(
    job: &mut Job,
    v: Option<&str>,
    warn: &mut Vec<String>,
) -> Result<(), JobErrorKind> {
    let name = "filesize";
    let kb = kb_base(job);
    let s = need(name, v)?;
    if let Some(w) = units::suffix_warning(s, kb) {
        warn.push(format!("{name}: {w}"));
    }
    job.filesize = Some(value::parse_range_tails(name, s, kb, warn)?);
    Ok(())
}

/// `zonemode`: `none` or `strided` (fio's `zbd` needs a zoned block device).
pub(crate) fn set_zonemode(
    _job: &mut Job,
    v: Option<&str>,
    _warn: &mut Vec<String>,
) -> Result<(), JobErrorKind> {
    let name = "zonemode";
    let v = need(name, v)?;
    match v.trim() {
        "none" | "strided" => Ok(()),
        "zbd" => Err(JobErrorKind::Unsupported {
            name: "zonemode=zbd".to_string(),
            reason: "zoned block devices are not supported (zonemode=strided is)".to_string(),
        }),
        _ => Err(bad(name, v, "one of: none, strided")),
    }
}

/// `zoneskip`: a size, or `Nz` zones (read by `Job::strided_zones`).
pub(crate) fn set_zoneskip(
    job: &mut Job,
    v: Option<&str>,
    warn: &mut Vec<String>,
) -> Result<(), JobErrorKind> {
    let name = "zoneskip";
    let v = need(name, v)?;
    value::fio_head(name, v, warn);
    value::parse_zoneskip(name, v, kb_base(job)).map(|_| ())
}

/// `offset`.
pub(crate) fn set_offset(
    job: &mut Job,
    v: Option<&str>,
    warn: &mut Vec<String>,
) -> Result<(), JobErrorKind> {
    let name = "offset";
    let kb = kb_base(job);
    job.offset = size_spec(name, need(name, v)?, kb, warn)?;
    Ok(())
}

/// `offset_increment`.
pub(crate) fn set_offset_increment(
    job: &mut Job,
    v: Option<&str>,
    warn: &mut Vec<String>,
) -> Result<(), JobErrorKind> {
    let name = "offset_increment";
    let kb = kb_base(job);
    match size_spec(name, need(name, v)?, kb, warn)? {
        SizeSpec::Bytes(b) => {
            job.offset_increment = b;
            job.offset_increment_percent = None;
        }
        SizeSpec::Percent(p) => {
            job.offset_increment = 0;
            job.offset_increment_percent = Some(p as u32);
        }
    };
    Ok(())
}

/// `io_size`.
pub(crate) fn set_io_size(
    job: &mut Job,
    v: Option<&str>,
    warn: &mut Vec<String>,
) -> Result<(), JobErrorKind> {
    let name = "io_size";
    let kb = kb_base(job);
    match size_spec(name, need(name, v)?, kb, warn)? {
        SizeSpec::Bytes(b) => {
            job.io_size = Some(b);
            job.io_size_percent = None;
        }
        SizeSpec::Percent(p) => {
            job.io_size = None;
            job.io_size_percent = Some(p as u32);
        }
    };
    Ok(())
}

/// `number_ios`.
pub(crate) fn set_number_ios(
    job: &mut Job,
    v: Option<&str>,
    warn: &mut Vec<String>,
) -> Result<(), JobErrorKind> {
    let name = "number_ios";
    let kb = kb_base(job);
    job.number_ios = Some(size(name, need(name, v)?, kb, warn)?);
    Ok(())
}

/// `loops`.
pub(crate) fn set_loops(
    job: &mut Job,
    v: Option<&str>,
    _warn: &mut Vec<String>,
) -> Result<(), JobErrorKind> {
    let name = "loops";
    let kb = kb_base(job);
    job.loops = parse_u32(name, need(name, v)?, kb)?;
    Ok(())
}

/// `runtime`.
pub(crate) fn set_runtime(
    job: &mut Job,
    v: Option<&str>,
    _warn: &mut Vec<String>,
) -> Result<(), JobErrorKind> {
    let name = "runtime";
    job.runtime = Some(time(name, need(name, v)?, TimeUnitDefault::Seconds)?);
    Ok(())
}

/// `ramp_time`.
pub(crate) fn set_ramp_time(
    job: &mut Job,
    v: Option<&str>,
    _warn: &mut Vec<String>,
) -> Result<(), JobErrorKind> {
    let name = "ramp_time";
    job.ramp_time = Some(time(name, need(name, v)?, TimeUnitDefault::Seconds)?);
    Ok(())
}

/// `startdelay`.
pub(crate) fn set_startdelay(
    job: &mut Job,
    v: Option<&str>,
    _warn: &mut Vec<String>,
) -> Result<(), JobErrorKind> {
    let name = "startdelay";
    let (a, b) = value::parse_time_range(name, need(name, v)?, TimeUnitDefault::Seconds)?;
    job.startdelay = (Nanos(a), Nanos(b));
    Ok(())
}

/// `random_generator`.
pub(crate) fn set_random_generator(
    job: &mut Job,
    v: Option<&str>,
    _warn: &mut Vec<String>,
) -> Result<(), JobErrorKind> {
    let name = "random_generator";
    job.random_generator = match need(name, v)? {
        "tausworthe" => RandomGenerator::Tausworthe,
        "tausworthe64" => RandomGenerator::Tausworthe64,
        "lfsr" => RandomGenerator::Lfsr,
        o => return Err(bad(name, o, "tausworthe, tausworthe64 or lfsr")),
    };
    Ok(())
}

/// `randseed`.
pub(crate) fn set_randseed(
    job: &mut Job,
    v: Option<&str>,
    warn: &mut Vec<String>,
) -> Result<(), JobErrorKind> {
    let name = "randseed";
    let kb = kb_base(job);
    job.randseed = size(name, need(name, v)?, kb, warn)?;
    job.randseed_set = true;
    Ok(())
}

/// `random_distribution`.
pub(crate) fn set_random_distribution(
    job: &mut Job,
    v: Option<&str>,
    _warn: &mut Vec<String>,
) -> Result<(), JobErrorKind> {
    let name = "random_distribution";
    let kb = kb_base(job);
    apply_distribution(job, need(name, v)?, kb)?;
    Ok(())
}

/// `hot_set`.
pub(crate) fn set_hot_set(
    job: &mut Job,
    v: Option<&str>,
    _warn: &mut Vec<String>,
) -> Result<(), JobErrorKind> {
    let name = "hot_set";
    job.hot_set = match need(name, v)? {
        "per_job" => HotSet::PerJob,
        "shared" => HotSet::Shared,
        o => return Err(bad(name, o, "per_job or shared")),
    };
    Ok(())
}

/// `filename`.
pub(crate) fn set_filename(
    job: &mut Job,
    v: Option<&str>,
    warn: &mut Vec<String>,
) -> Result<(), JobErrorKind> {
    let name = "filename";
    let s = need(name, v)?;
    value::check_path_lengths(name, s)?;
    job.filenames = value::split_filenames(s);
    if job.filenames.is_empty() {
        return Err(bad(name, s, "one or more file names separated by ':'"));
    }
    drive_letter_warning(&job.filenames, s, warn);
    Ok(())
}

/// `directory`.
pub(crate) fn set_directory(
    job: &mut Job,
    v: Option<&str>,
    _warn: &mut Vec<String>,
) -> Result<(), JobErrorKind> {
    let name = "directory";
    job.directory = value::split_filenames(need(name, v)?);
    Ok(())
}

/// `nrfiles`.
pub(crate) fn set_nrfiles(
    job: &mut Job,
    v: Option<&str>,
    _warn: &mut Vec<String>,
) -> Result<(), JobErrorKind> {
    let name = "nrfiles";
    let kb = kb_base(job);
    job.nrfiles = parse_u32(name, need(name, v)?, kb)?;
    Ok(())
}

/// `filename_format`.
pub(crate) fn set_filename_format(
    job: &mut Job,
    v: Option<&str>,
    warn: &mut Vec<String>,
) -> Result<(), JobErrorKind> {
    let name = "filename_format";
    job.filename_format = Some(check_filename_format(need(name, v)?, warn)?);
    Ok(())
}

/// `file_service_type`.
pub(crate) fn set_file_service_type(
    job: &mut Job,
    v: Option<&str>,
    _warn: &mut Vec<String>,
) -> Result<(), JobErrorKind> {
    let name = "file_service_type";
    job.file_service = parse_file_service(need(name, v)?)?;
    Ok(())
}

/// `rate`.
pub(crate) fn set_rate(
    job: &mut Job,
    v: Option<&str>,
    warn: &mut Vec<String>,
) -> Result<(), JobErrorKind> {
    let name = "rate";
    let kb = kb_base(job);
    let vals = map_dirs(name, need(name, v)?, &[','], |p| size(name, p, kb, warn))?;
    set_dirs(&mut job.rate, vals);
    Ok(())
}

/// `rate_iops`.
pub(crate) fn set_rate_iops(
    job: &mut Job,
    v: Option<&str>,
    warn: &mut Vec<String>,
) -> Result<(), JobErrorKind> {
    let name = "rate_iops";
    let kb = kb_base(job);
    let vals = map_dirs(name, need(name, v)?, &[','], |p| size(name, p, kb, warn))?;
    set_dirs(&mut job.rate_iops, vals);
    Ok(())
}

/// `rate_process`.
pub(crate) fn set_rate_process(
    job: &mut Job,
    v: Option<&str>,
    _warn: &mut Vec<String>,
) -> Result<(), JobErrorKind> {
    let name = "rate_process";
    job.rate_process = match need(name, v)? {
        "linear" => RateProcess::Linear,
        "poisson" => RateProcess::Poisson,
        o => return Err(bad(name, o, "linear or poisson")),
    };
    Ok(())
}

/// `thinktime`.
pub(crate) fn set_thinktime(
    job: &mut Job,
    v: Option<&str>,
    _warn: &mut Vec<String>,
) -> Result<(), JobErrorKind> {
    let name = "thinktime";
    job.thinktime = time(name, need(name, v)?, TimeUnitDefault::Micros)?;
    Ok(())
}

/// `thinktime_spin`.
pub(crate) fn set_thinktime_spin(
    job: &mut Job,
    v: Option<&str>,
    _warn: &mut Vec<String>,
) -> Result<(), JobErrorKind> {
    let name = "thinktime_spin";
    job.thinktime_spin = time(name, need(name, v)?, TimeUnitDefault::Micros)?;
    Ok(())
}

/// `thinktime_blocks`.
pub(crate) fn set_thinktime_blocks(
    job: &mut Job,
    v: Option<&str>,
    _warn: &mut Vec<String>,
) -> Result<(), JobErrorKind> {
    let name = "thinktime_blocks";
    let kb = kb_base(job);
    job.thinktime_blocks = parse_u32(name, need(name, v)?, kb)?;
    Ok(())
}

/// `steadystate` (`ss`): fio's `metric:limit[%]`, typed here once with the job's `kb_base`
/// (`bw:10m` is 10 MiB/s, or 10 MB/s with `kb_base=1000`), so `iolab parse` refuses what a
/// run would.
pub(crate) fn set_steadystate(
    job: &mut Job,
    v: Option<&str>,
    _warn: &mut Vec<String>,
) -> Result<(), JobErrorKind> {
    let name = "steadystate";
    let text = need(name, v)?;
    job.ss_criterion = iolab_stats::SsCriterion::parse(text, kb_base(job))
        .map_err(|e| bad(name, text, ss_expected(&e)))?;
    Ok(())
}

/// What a refused `steadystate=` should have been, from the parser's reason.
fn ss_expected(e: &iolab_stats::steady::SsParseError) -> String {
    use iolab_stats::steady::SsParseError as E;
    match e {
        E::UnknownCriterion { .. } => {
            "iops, iops_slope, bw, bw_slope, lat or lat_slope, a ':' and a limit".into()
        }
        E::MissingLimit { .. } => "metric:limit, e.g. iops:20%".into(),
        E::BadLimit { .. } => "a number or a percentage as the limit, e.g. iops:20%".into(),
        E::Unit { source, .. } => format!("a limit in fio's units ({source})"),
    }
}

/// `ioengine`.
pub(crate) fn set_ioengine(
    job: &mut Job,
    v: Option<&str>,
    _warn: &mut Vec<String>,
) -> Result<(), JobErrorKind> {
    let name = "ioengine";
    // An engine iolab does not run (windowsaio, rbd, …) is refused by `check::runnable`
    // once the section is read, so a later ioengine= in the section can still replace it.
    let e = need(name, v)?.trim();
    job.ioengine = e.to_string();
    Ok(())
}

/// `iodepth`.
pub(crate) fn set_iodepth(
    job: &mut Job,
    v: Option<&str>,
    _warn: &mut Vec<String>,
) -> Result<(), JobErrorKind> {
    let name = "iodepth";
    let kb = kb_base(job);
    let d = parse_u32(name, need(name, v)?, kb)?;
    if d == 0 {
        return Err(bad(name, need(name, v)?, "a depth of 1 or more"));
    }
    job.iodepth = d;
    Ok(())
}

/// `buffered`.
pub(crate) fn set_buffered(
    job: &mut Job,
    v: Option<&str>,
    _warn: &mut Vec<String>,
) -> Result<(), JobErrorKind> {
    let name = "buffered";
    job.direct = !parse_bool(name, v)?;
    Ok(())
}

/// `rw=randread:8` / `rw=write:4k` (fio `str_rw_cb`).
fn apply_rw(job: &mut Job, v: &str, kb: KbBase) -> Result<(), JobErrorKind> {
    let (mode, post) = match v.split_once(':') {
        Some((m, p)) => (m.trim(), Some(p.trim())),
        None => (v.trim(), None),
    };
    job.rw = match mode {
        "read" => RwKind::Read,
        "write" => RwKind::Write,
        "trim" => RwKind::Trim,
        "randread" => RwKind::RandRead,
        "randwrite" => RwKind::RandWrite,
        "randtrim" => RwKind::RandTrim,
        "rw" | "readwrite" => RwKind::ReadWrite,
        "randrw" => RwKind::RandRw,
        "trimwrite" => RwKind::TrimWrite,
        "randtrimwrite" => RwKind::RandTrimWrite,
        _ => {
            return Err(bad(
                "rw",
                v,
                "read, write, trim, randread, randwrite, randtrim, rw, readwrite, randrw, \
                 trimwrite or randtrimwrite, optionally with :N",
            ))
        }
    };
    job.ddir_seq_nr = 1;
    job.ddir_seq_add = 0;
    if let Some(p) = post.filter(|p| !p.is_empty()) {
        if job.rw.is_random() {
            let n = parse_u32("rw", p, kb)?;
            if n == 0 {
                return Err(bad("rw", v, "randX:N with N of 1 or more"));
            }
            job.ddir_seq_nr = n;
        } else {
            job.ddir_seq_add = value::parse_int("rw", p, kb)?;
        }
    }
    Ok(())
}

/// `bssplit=4k/50:1k/:32k/[,…]` (fio `bssplit_ddir`): sizes with shares, blanks share the
/// remainder, sorted by share as fio does; min/max follow the split.
fn apply_bssplit(
    job: &mut Job,
    v: &str,
    kb: KbBase,
    warn: &mut Vec<String>,
) -> Result<(), JobErrorKind> {
    let name = "bssplit";
    let dirs = per_dir(name, v, &[','])?;
    let targets = [&mut job.bs.read, &mut job.bs.write, &mut job.bs.trim];
    for (d, t) in dirs.into_iter().zip(targets) {
        let Some(d) = d else { continue };
        let entries = split_entries(name, d, value::BSSPLIT_MAX)?;
        if entries.is_empty() {
            continue;
        }
        let mut sizes = Vec::new();
        let mut shares = Vec::new();
        for (bs, p) in &entries {
            let b = size(name, bs, kb, warn)?;
            if b == 0 {
                return Err(bad(name, bs, "a block size above 0"));
            }
            sizes.push(b);
            shares.push(parse_share(name, p.as_deref())?);
        }
        let filled = fill_shares(name, "block size", &shares)?;
        let total: u32 = filled.iter().sum();
        if total < 100 && !(filled.len() == 1 && shares[0].is_none()) {
            warn.push(format!(
                "bssplit '{d}': shares add up to {total}%, not 100%; fio picks the last entry for \
                 the rest"
            ));
        }
        let mut split: Vec<BsSplit> = sizes
            .iter()
            .zip(&filled)
            .map(|(&bs, &perc)| BsSplit {
                bs,
                perc: if filled.len() == 1 && shares[0].is_none() { 100 } else { perc },
            })
            .collect();
        split.sort_by_key(|s| s.perc);
        t.min = sizes.iter().copied().min().unwrap_or(t.min);
        t.max = sizes.iter().copied().max().unwrap_or(t.max);
        t.split = split;
    }
    Ok(())
}

/// `zipf:1.2[:center]`, `pareto:0.3`, `normal:5`, `gauss`, `zoned:…`, `zoned_abs:…`, `random`.
fn apply_distribution(job: &mut Job, v: &str, kb: KbBase) -> Result<(), JobErrorKind> {
    let name = "random_distribution";
    let (kind, post) = match v.split_once(':') {
        Some((k, p)) => (k.trim(), Some(p.trim())),
        None => (v.trim(), None),
    };
    let dist = match kind {
        "random" => Distribution::Random,
        "zipf" | "pareto" | "normal" | "gauss" => {
            let (val, center) = distr_params(name, v, post, kind)?;
            match kind {
                "zipf" => Distribution::Zipf { theta: val, center },
                "pareto" => Distribution::Pareto { h: val, center },
                _ => Distribution::Normal { dev: val, center },
            }
        }
        "zoned" | "zoned_abs" => {
            let abs = kind == "zoned_abs";
            let body =
                post.ok_or_else(|| bad(name, v, "zoned:access%/size%:… with at least one zone"))?;
            let dirs = per_dir(name, body, &[','])?;
            let mut zones: PerDir<Vec<Zone>> = PerDir::default();
            let mut parsed: [Option<Vec<Zone>>; 3] = [None, None, None];
            for (i, d) in dirs.into_iter().enumerate() {
                if let Some(d) = d {
                    parsed[i] = Some(parse_zones(name, d, abs, kb)?);
                }
            }
            set_dirs(&mut zones, parsed);
            if abs {
                Distribution::ZonedAbs(zones)
            } else {
                Distribution::Zoned(zones)
            }
        }
        _ => {
            return Err(bad(
                name,
                v,
                "random, zipf[:theta[:center]], pareto[:h[:center]], normal[:dev[:center]], \
                 zoned:… or zoned_abs:…",
            ))
        }
    };
    job.random_distribution = dist;
    Ok(())
}

fn distr_params(
    name: &str,
    v: &str,
    post: Option<&str>,
    kind: &str,
) -> Result<(f64, Option<f64>), JobErrorKind> {
    let mut val = match kind {
        "zipf" => DEF_ZIPF,
        "pareto" => DEF_PARETO,
        _ => 0.0,
    };
    let mut center = None;
    if let Some(p) = post.filter(|p| !p.is_empty()) {
        let mut it = p.split(':');
        if let Some(a) = it.next() {
            val = value::parse_float(name, a)?;
        }
        if let Some(c) = it.next() {
            let c = value::parse_float(name, c)?;
            if !(0.0..=1.0).contains(&c) {
                return Err(bad(name, v, "a center from 0 to 1.0"));
            }
            center = Some(c);
        }
        if it.next().is_some() {
            return Err(bad(name, v, format!("{kind}:value[:center]")));
        }
    }
    match kind {
        "zipf" if val == 1.0 => Err(bad(name, v, "a zipf theta other than 1.0")),
        "zipf" if val <= 0.0 => Err(bad(name, v, "a zipf theta above 0")),
        "pareto" if !(val > 0.0 && val < 1.0) => Err(bad(name, v, "a pareto h with 0 < h < 1.0")),
        "normal" | "gauss" if !(0.0..100.0).contains(&val) => {
            Err(bad(name, v, "a normal deviation with 0 <= dev < 100.0"))
        }
        _ => Ok((val, center)),
    }
}

/// One direction of `zoned` / `zoned_abs` (fio `zone_split_ddir`): access shares must add up to
/// exactly 100 (blank shares take equal parts of the rest); `zoned` sizes are percentages.
fn parse_zones(name: &str, s: &str, abs: bool, kb: KbBase) -> Result<Vec<Zone>, JobErrorKind> {
    let entries = split_entries(name, s, value::ZONESPLIT_MAX)?;
    let mut access = Vec::new();
    let mut sizes: Vec<Option<u64>> = Vec::new();
    for (a, sz) in &entries {
        access.push(parse_share(name, Some(a.trim_end_matches('%')))?);
        if abs {
            let sz = sz
                .as_deref()
                .ok_or_else(|| bad(name, s, "zoned_abs:access%/size:… with a size per zone"))?;
            sizes.push(Some(units::parse_size(sz, kb).map_err(|e| unit_err(name, e))?));
        } else {
            sizes.push(parse_share(name, sz.as_deref())?.map(u64::from));
        }
    }
    let access = fill_shares(name, "zone access", &access)?;
    let total: u32 = access.iter().sum();
    if total != 100 {
        return Err(bad(name, s, format!("zone access shares that add up to 100 (got {total})")));
    }
    let sizes: Vec<f64> = if abs {
        sizes.iter().map(|s| s.unwrap_or(0) as f64).collect()
    } else {
        let shares: Vec<Option<u32>> = sizes.iter().map(|s| s.map(|v| v as u32)).collect();
        fill_shares(name, "zone size", &shares)?.into_iter().map(f64::from).collect()
    };
    Ok(access.into_iter().zip(sizes).map(|(access_pct, size)| Zone { access_pct, size }).collect())
}

/// `file_service_type=random|roundrobin|sequential[:N]`, `zipf|pareto|normal|gauss[:v]`
/// (fio `str_fst_cb`).
pub fn parse_file_service(v: &str) -> Result<FileService, JobErrorKind> {
    let name = "file_service_type";
    let (kind, post) = match v.split_once(':') {
        Some((k, p)) => (k.trim(), Some(p.trim())),
        None => (v.trim(), None),
    };
    let simple = |k: FileServiceKind| -> Result<FileService, JobErrorKind> {
        let nr = match post.filter(|p| !p.is_empty()) {
            Some(p) => parse_u32(name, p, KbBase::K1024)?,
            None => 1,
        };
        if nr == 0 {
            return Err(bad(name, v, "a switch count of 1 or more after ':'"));
        }
        Ok(FileService { kind: k, nr })
    };
    match kind {
        "random" => simple(FileServiceKind::Random),
        "roundrobin" => simple(FileServiceKind::RoundRobin),
        "sequential" => simple(FileServiceKind::Sequential),
        "zipf" | "pareto" | "normal" | "gauss" => {
            let (val, _center) = distr_params(name, v, post, kind)?;
            let kind = match kind {
                "zipf" => FileServiceKind::Zipf(val),
                "pareto" => FileServiceKind::Pareto(val),
                _ => FileServiceKind::Normal(val),
            };
            Ok(FileService { kind, nr: 1 })
        }
        _ => Err(bad(
            name,
            v,
            "random, roundrobin, sequential[:N], zipf[:theta], pareto[:h] or normal[:dev]",
        )),
    }
}

/// fio #1912: `filename=D:\x` is two files, `D` and `\x`; the drive colon must be written `\:`.
fn drive_letter_warning(names: &[String], raw: &str, warn: &mut Vec<String>) {
    for pair in names.windows(2) {
        let letter = pair[0].len() == 1 && pair[0].chars().all(|c| c.is_ascii_alphabetic());
        if letter && pair[1].starts_with(['\\', '/']) {
            warn.push(format!(
                "filename '{raw}' is split at ':' into '{}' and '{}' (fio issue #1912); for a \
                 Windows drive letter escape the colon: {}\\:{}",
                pair[0], pair[1], pair[0], pair[1]
            ));
        }
    }
}

/// `filename_format` keywords: `$jobname`, `$jobnum`, `$filenum`, `$clientuid`.
fn check_filename_format(v: &str, warn: &mut Vec<String>) -> Result<String, JobErrorKind> {
    const KEYWORDS: &[&str] = &["$jobname", "$jobnum", "$filenum", "$clientuid"];
    let mut rest = v;
    while let Some(i) = rest.find('$') {
        let tail = &rest[i..];
        match KEYWORDS.iter().find(|k| tail.starts_with(**k)) {
            Some(k) => rest = &tail[k.len()..],
            None => {
                warn.push(format!(
                    "filename_format '{v}': '{}' is not a keyword ($jobname, $jobnum, $filenum, \
                     $clientuid) and is kept literally, as fio does",
                    tail.split(|c: char| !(c == '$' || c.is_ascii_alphanumeric() || c == '_'))
                        .next()
                        .unwrap_or(tail)
                ));
                rest = &tail[1..];
            }
        }
    }
    Ok(v.to_string())
}

/// After all options of a job: fio's fix-ups that change typed fields, with warnings.
pub fn finish(job: &mut Job, warn: &mut Vec<String>) {
    if !matches!(job.random_distribution, Distribution::Random)
        && !job.norandommap
        && job.rw.is_random()
    {
        job.norandommap = true;
        warn.push(
            "a non-uniform random_distribution forces norandommap=1, as in fio (blocks can be \
             hit repeatedly and some never)"
                .to_string(),
        );
    }
    if !matches!(job.random_distribution, Distribution::Random) && !job.norandommap {
        job.norandommap = true;
    }
    let scrambled = matches!(
        job.random_distribution,
        Distribution::Zipf { .. } | Distribution::Pareto { .. } | Distribution::Normal { .. }
    );
    if scrambled && job.numjobs > 1 && job.hot_set == HotSet::PerJob && job.rw.is_random() {
        warn.push(format!(
            "each of the {} clones gets its own hot set: fio seeds the {} scramble per job, so \
             the clones share few hot blocks; set hot_set=shared for one shared hot set, or use \
             zoned/zoned_abs for a contiguous one",
            job.numjobs,
            match job.random_distribution {
                Distribution::Zipf { .. } => "zipf",
                Distribution::Pareto { .. } => "pareto",
                _ => "normal",
            }
        ));
    }
    if job.filenames.len() > 1 && job.nrfiles_given() {
        warn.push(format!(
            "nrfiles is ignored because filename= lists {} files, as in fio",
            job.filenames.len()
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A registry entry with a setter is one iolab acts on; the setter is reached through the
    /// entry (by name or alias), and an entry without one has no typed field.
    #[test]
    fn setters_belong_to_supported_entries_and_apply() {
        use crate::registry::{lookup, Status, OPTIONS};
        let with_setter = OPTIONS.iter().filter(|o| o.set.is_some()).count();
        // 53 set typed fields; `zonemode` and `zoneskip` only check their grammar
        // (`Job::strided_zones` reads them).
        assert_eq!(with_setter, 55, "typed fields set through the registry");
        for o in OPTIONS.iter().filter(|o| o.set.is_some()) {
            assert_eq!(o.status, Status::Supported, "{}", o.name);
        }
        let set = |n: &str| lookup(n).and_then(|d| d.set).unwrap();
        let mut job = Job::with_defaults("j");
        let mut w = Vec::new();
        assert!(lookup("description").unwrap().set.is_none());
        set("blockalign")(&mut job, Some("8k"), &mut w).unwrap();
        assert_eq!(job.blockalign.trim, 8192);
        set("io_size")(&mut job, Some("50%"), &mut w).unwrap();
        assert_eq!((job.io_size, job.io_size_percent), (None, Some(50)));
    }
}
