//! The job → [`DataConfig`] mapping: what a job's write buffers contain, resolved from fio's
//! buffer and verify options the way fio resolves them (init.c `fixup_options` l.1015–1030,
//! l.891, options.c `str_buffer_pattern_cb`, io_u.c `get_io_u` l.1975–1986), plus iolab's
//! extensions `compress_content=` and `dedupe_spread=`, and the warnings for fio's traps.
//! It lives here, beside the registry, so `data` knows nothing of job files.

use crate::spec::{Job, OptionValue, Origin, ResolvedOption, RwKind, SizeSpec};
use iolab_data::genfile::GenSpec;
use iolab_data::pattern::parse_pattern;
use iolab_data::{CompressContent, DataConfig, DataError, DedupeMode, OptionErrorKind, VerifyKind};

fn num(job: &Job, name: &str) -> Result<Option<u64>, DataError> {
    let Some(v) = job.opt(name) else { return Ok(None) };
    let bad = || DataError::option(name, raw(job, name), OptionErrorKind::NotNumber);
    match v {
        OptionValue::Int(i) => u64::try_from(*i).map(Some).map_err(|_| bad()),
        OptionValue::Size(s) => Ok(Some(*s)),
        OptionValue::Bool(b) => Ok(Some(u64::from(*b))),
        OptionValue::Float(f) if *f >= 0.0 && f.fract() == 0.0 => Ok(Some(*f as u64)),
        OptionValue::Str(s) => s.trim().parse().map(Some).map_err(|_| bad()),
        _ => Err(bad()),
    }
}

fn pct(job: &Job, name: &str) -> Result<Option<u32>, DataError> {
    match num(job, name) {
        Ok(Some(v)) if v <= 100 => Ok(Some(v as u32)),
        Ok(None) => Ok(None),
        _ => Err(DataError::option(name, raw(job, name), OptionErrorKind::Percent)),
    }
}

fn flag(job: &Job, name: &str) -> Result<Option<bool>, DataError> {
    match job.opt(name) {
        None => Ok(None),
        Some(OptionValue::Bool(b)) => Ok(Some(*b)),
        Some(OptionValue::Int(i)) => Ok(Some(*i != 0)),
        Some(OptionValue::Str(s)) if s == "1" || s.is_empty() => Ok(Some(true)),
        Some(OptionValue::Str(s)) if s == "0" => Ok(Some(false)),
        Some(_) => Err(DataError::option(name, raw(job, name), OptionErrorKind::OneOf("0, 1"))),
    }
}

fn text<'a>(job: &'a Job, name: &str) -> Option<&'a str> {
    job.options.get(name).map(|o| match &o.value {
        OptionValue::Str(s) => s.as_str(),
        _ => o.raw.as_str(),
    })
}

fn raw(job: &Job, name: &str) -> String {
    job.options.get(name).map(|o| o.raw.clone()).unwrap_or_default()
}

impl Job {
    /// Resolve a job's buffer options as fio does, and note where fio's result misleads.
    pub fn data_config(&self) -> Result<DataConfig, DataError> {
        let job = self;
        let mut c = DataConfig {
            min_write_bs: job.bs.write.min.max(1),
            region_size: match job.size {
                Some(crate::SizeSpec::Bytes(b)) if b > 0 => Some(b),
                _ => None,
            },
            ..DataConfig::default()
        };
        let refill_set = flag(job, "refill_buffers")?;
        c.refill_buffers = refill_set.unwrap_or(false);
        c.scramble_buffers = flag(job, "scramble_buffers")?.unwrap_or(true);
        c.zero_buffers = flag(job, "zero_buffers")?.unwrap_or(false);
        if let Some(v) = num(job, "buffer_compress_chunk")? {
            c.compress_chunk = v;
        }
        let compress = pct(job, "buffer_compress_percentage")?.unwrap_or(0);
        c.dedupe_percentage = pct(job, "dedupe_percentage")?.unwrap_or(0);
        if let Some(v) = pct(job, "dedupe_working_set_percentage")? {
            c.dedupe_working_set_percentage = v;
        }
        if let Some(m) = text(job, "dedupe_mode") {
            c.dedupe_mode = match m {
                "repeat" => DedupeMode::Repeat,
                "working_set" => DedupeMode::WorkingSet,
                _ => {
                    return Err(DataError::option(
                        "dedupe_mode",
                        m,
                        OptionErrorKind::OneOf("repeat, working_set"),
                    ))
                }
            };
        }
        c.dedupe_spread = flag(job, "dedupe_spread")?.unwrap_or(false);
        if let Some(p) = text(job, "buffer_pattern") {
            c.pattern = parse_pattern(p)?;
            // options.c str_buffer_pattern_cb: reads or compression force refills; the
            // pattern turns scrambling and zero_buffers off.
            c.refill_buffers = compress != 0 || job.rw.has_read();
            c.scramble_buffers = false;
            c.zero_buffers = false;
            if let Some(r) = refill_set {
                c.refill_buffers = r;
            }
        }
        c.compress_content = compress_content(job, &c.pattern)?;
        // init.c l.1023: 100 % compressible is filled once with zeros.
        if compress == 100 && c.compress_content != CompressContent::Text {
            c.zero_buffers = true;
        } else {
            c.compress_percentage = compress;
            if compress != 0 && refill_set.is_none() {
                c.refill_buffers = true;
            }
        }
        if c.dedupe_percentage != 0 && refill_set.is_none() {
            c.refill_buffers = true;
        }
        verify_settings(job, &mut c, refill_set.is_none())?;
        let needs_region = c.dedupe_mode == DedupeMode::WorkingSet || c.dedupe_spread;
        if c.dedupe_percentage != 0 && needs_region && c.region_size.is_none() {
            return Err(DataError::option(
                if c.dedupe_spread { "dedupe_spread" } else { "dedupe_mode" },
                raw(job, if c.dedupe_spread { "dedupe_spread" } else { "dedupe_mode" }),
                OptionErrorKind::Conflict(
                    "needs an explicit size= in bytes (as fio's working_set)",
                ),
            ));
        }
        collect_warnings(&mut c, job)?;
        Ok(c)
    }
}

/// iolab `compress_content=`: what fills the compressible part (fio: zeros, or the pattern).
fn compress_content(job: &Job, pattern: &[u8]) -> Result<CompressContent, DataError> {
    let default =
        if pattern.is_empty() { CompressContent::Zeros } else { CompressContent::Pattern };
    let Some(cc) = text(job, "compress_content") else { return Ok(default) };
    match cc {
        "zeros" => Ok(CompressContent::Zeros),
        "text" => Ok(CompressContent::Text),
        "pattern" if !pattern.is_empty() => Ok(CompressContent::Pattern),
        "pattern" => Err(DataError::option(
            "compress_content",
            cc,
            OptionErrorKind::Conflict("`pattern` needs buffer_pattern="),
        )),
        _ => Err(DataError::option(
            "compress_content",
            cc,
            OptionErrorKind::OneOf("zeros, text, pattern"),
        )),
    }
}

/// `verify`, `verify_fatal`, `verify_pattern`, `verify_interval`, and their checks.
fn verify_settings(job: &Job, c: &mut DataConfig, refill_unset: bool) -> Result<(), DataError> {
    if let Some(v) = text(job, "verify") {
        c.verify = VerifyKind::parse(v)?;
        // init.c l.891: verify forces refill_buffers unless set explicitly.
        if c.verify != VerifyKind::None && refill_unset {
            c.refill_buffers = true;
        }
    }
    c.verify_fatal = flag(job, "verify_fatal")?.unwrap_or(false);
    if let Some(p) = text(job, "verify_pattern") {
        c.verify_pattern = parse_pattern(p)?;
    }
    if let Some(v) = num(job, "verify_interval")? {
        c.verify_interval = verify_interval(job, v)?;
    }
    if c.verify == VerifyKind::Pattern && c.verify_pattern.is_empty() {
        return Err(DataError::option(
            "verify",
            "pattern",
            OptionErrorKind::Conflict("needs verify_pattern="),
        ));
    }
    let min_block = iolab_data::verify::MIN_BLOCK as u64;
    if !matches!(c.verify, VerifyKind::None | VerifyKind::Null) && c.min_write_bs < min_block {
        return Err(DataError::option(
            "verify",
            c.verify.name(),
            OptionErrorKind::Conflict("write block size below 160 bytes cannot hold a header"),
        ));
    }
    Ok(())
}

/// `verify_interval=v` as fio 3.33's init.c `fixup_options` settles it: at most the minimum
/// write size (or, for a job that reads, the minimum read size), and a divisor of the minimum
/// and maximum write sizes, else their gcd. iolab's header is 80 bytes (fio's 48), so an
/// interval below 160 cannot hold one with room for data and is refused.
fn verify_interval(job: &Job, v: u64) -> Result<u32, DataError> {
    let (wmin, wmax) = (job.bs.write.min.max(1), job.bs.write.max.max(1));
    let rmin = job.bs.read.min.max(1);
    let mut iv = v;
    if iv > wmin {
        iv = wmin;
    } else if job.rw.has_read() && iv > rmin {
        iv = rmin;
    }
    if iv == 0 || wmin % iv != 0 || wmax % iv != 0 {
        // gcd(wmin, wmax)
        let (mut a, mut b) = (wmin, wmax);
        while b != 0 {
            (a, b) = (b, a % b);
        }
        iv = a;
    }
    if iv < iolab_data::verify::MIN_BLOCK as u64 {
        return Err(DataError::option(
            "verify_interval",
            v,
            OptionErrorKind::Conflict(
                "an interval of at least 160 bytes (iolab's verify header is 80 bytes)",
            ),
        ));
    }
    u32::try_from(iv)
        .map_err(|_| DataError::option("verify_interval", v, OptionErrorKind::NotNumber))
}

fn collect_warnings(c: &mut DataConfig, job: &Job) -> Result<(), DataError> {
    let mut w = Vec::new();
    let writes = job.rw.has_write();
    if writes && !c.refill_buffers && !c.zero_buffers && c.pattern.is_empty() {
        w.push(if c.scramble_buffers && c.compress_percentage == 0 {
            "write buffers are filled once and reused with small scrambles (fio default): \
             every block is unique to a fixed-block dedupe, but the stream is ~98% \
             redundant to any cross-block compressor or variable-size dedupe; set \
             refill_buffers=1 for unique incompressible data"
                .to_string()
        } else {
            "refill_buffers=0: every write carries the same bytes; set refill_buffers=1".to_string()
        });
    }
    if c.zero_buffers && writes {
        w.push(
            "write data is all zeros: thin provisioning, zero detection and compression \
             store nothing; use buffer_compress_percentage with compress_content=text for \
             compressible data that is not zeros"
                .to_string(),
        );
    }
    if c.compress_percentage != 0 && c.compress_content == CompressContent::Zeros {
        w.push(format!(
            "buffer_compress_percentage={}: the compressible part of each {}-byte chunk is \
             zeros, so the ratio comes from zero suppression, not real compression; set \
             compress_content=text (or buffer_pattern=) for LZ-compressible content",
            c.compress_percentage, c.compress_chunk
        ));
    }
    if c.compress_content == CompressContent::Text && c.compress_percentage > 69 {
        w.push(format!(
            "compress_content=text with buffer_compress_percentage={}: text alone keeps \
             ~30% of a 4 KiB block under zstd, so the blocks compress ~3.3:1, not {:.1}:1",
            c.compress_percentage,
            100.0 / (100.0 - f64::from(c.compress_percentage)).max(1.0)
        ));
    }
    if c.dedupe_percentage != 0 && c.dedupe_mode == DedupeMode::Repeat && !c.dedupe_spread {
        w.push(format!(
            "dedupe_percentage={} with dedupe_mode=repeat: each duplicate is adjacent to its \
             twin, so even a small-window compressor removes them; set dedupe_spread=1 to \
             spread duplicates over the region",
            c.dedupe_percentage
        ));
    }
    if flag(job, "dedupe_global")?.unwrap_or(false) {
        w.push(
            "dedupe_global=1 is not modelled: duplicates are drawn within each job's file"
                .to_string(),
        );
    }
    if writes && c.refill_buffers && job.randrepeat && !job.randseed_set && !c.zero_buffers {
        w.push(
            "randrepeat=1 (default): the same bytes are written run after run, so a \
             deduplicating target stores a repeated run for free; set randrepeat=0 or a \
             new randseed= per run"
                .to_string(),
        );
    }
    c.warnings = w;
    Ok(())
}

/// `iolab data gen`'s flags as the job a fio user would write, resolved as a job's data is.
pub fn gen_config(spec: &GenSpec) -> Result<DataConfig, DataError> {
    let mut job = Job::with_defaults("data-gen");
    job.rw = RwKind::Write;
    job.bs.write.min = spec.bs;
    job.bs.write.max = spec.bs;
    job.size = Some(SizeSpec::Bytes(spec.size));
    job.randseed = spec.seed;
    job.randseed_set = true;
    let mut opts: Vec<(&str, OptionValue, String)> = Vec::new();
    let int = |v: u32| (OptionValue::Int(i64::from(v)), v.to_string());
    let on = || (OptionValue::Bool(true), "1".to_string());
    let text = |s: &String| (OptionValue::Str(s.clone()), s.clone());
    let mut put = |name, (v, raw): (OptionValue, String)| opts.push((name, v, raw));
    if !spec.fio_default {
        put("refill_buffers", on());
    }
    if spec.compress != 0 {
        put("buffer_compress_percentage", int(spec.compress));
    }
    put("buffer_compress_chunk", (OptionValue::Size(spec.chunk.0), spec.chunk.1.clone()));
    if spec.dedupe != 0 {
        put("dedupe_percentage", int(spec.dedupe));
        put("dedupe_working_set_percentage", int(spec.dedupe_working_set));
    }
    put("dedupe_mode", text(&spec.dedupe_mode));
    if spec.dedupe_spread {
        put("dedupe_spread", on());
    }
    if let Some(p) = &spec.pattern {
        put("buffer_pattern", text(p));
    }
    if let Some(c) = &spec.content {
        put("compress_content", text(c));
    }
    if spec.zeros {
        put("zero_buffers", on());
    }
    for (i, (name, value, raw)) in opts.into_iter().enumerate() {
        let origin = Origin::CommandLine { index: i as u32 + 1 };
        job.options.insert(name.to_string(), ResolvedOption { value, raw, origin, seq: i as u32 });
    }
    job.data_config()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Origin, ResolvedOption, RwKind};

    fn job(opts: &[(&str, OptionValue)]) -> Job {
        let mut j = Job::with_defaults("t");
        j.rw = RwKind::RandWrite;
        for (k, v) in opts {
            let r = ResolvedOption {
                value: v.clone(),
                raw: format!("{v:?}"),
                origin: Origin::Default,
                seq: 0,
            };
            j.options.insert(k.to_string(), r);
        }
        j
    }

    fn warns(c: &DataConfig, needle: &str) -> bool {
        c.warnings().iter().any(|w| w.contains(needle))
    }

    #[test]
    fn traps_are_warned() {
        let c = job(&[("refill_buffers", OptionValue::Bool(true))]).data_config().unwrap();
        assert!(warns(&c, "randrepeat=1"), "{:?}", c.warnings());
        let c = job(&[
            ("buffer_compress_percentage", OptionValue::Int(80)),
            ("compress_content", OptionValue::Str("text".into())),
        ])
        .data_config()
        .unwrap();
        assert!(warns(&c, "3.3:1, not 5.0:1"), "{:?}", c.warnings());
        let c = job(&[
            ("dedupe_percentage", OptionValue::Int(40)),
            ("dedupe_global", OptionValue::Bool(true)),
        ])
        .data_config()
        .unwrap();
        assert!(warns(&c, "adjacent to its twin") && warns(&c, "dedupe_global=1 is not modelled"));
        let c = job(&[("zero_buffers", OptionValue::Bool(true))]).data_config().unwrap();
        assert!(warns(&c, "all zeros"));
        let mut j = job(&[("refill_buffers", OptionValue::Bool(true))]);
        j.randseed_set = true;
        assert!(j.data_config().unwrap().warnings().is_empty());
    }

    #[test]
    fn explicit_refill_off_means_one_buffer() {
        let c = job(&[
            ("buffer_compress_percentage", OptionValue::Int(50)),
            ("refill_buffers", OptionValue::Bool(false)),
        ])
        .data_config()
        .unwrap();
        assert!(!c.refill_buffers);
        assert!(warns(&c, "every write carries the same bytes"));
        let mut g = iolab_data::DataGen::new(&c, 3);
        let (mut a, mut b) = (vec![0u8; 4096], vec![0u8; 4096]);
        g.fill(&mut a, 0, 0, 0);
        g.fill(&mut b, 1, 1 << 20, 5);
        assert_eq!(a, b);
    }

    #[test]
    fn verify_options() {
        let e = job(&[("verify", OptionValue::Str("pattern".into()))]).data_config();
        assert!(e.unwrap_err().to_string().contains("needs verify_pattern="));
        let c = job(&[
            ("verify", OptionValue::Str("pattern".into())),
            ("verify_pattern", OptionValue::Str("0xabcd".into())),
            ("verify_fatal", OptionValue::Bool(true)),
        ])
        .data_config()
        .unwrap();
        assert!(c.verify_fatal);
        let ctx = c.verify_ctx(0, 4096, 1, 9);
        assert_eq!(ctx.pattern.as_deref(), Some(&[0xab, 0xcd][..]));
        let mut j = job(&[("verify", OptionValue::Str("md5".into()))]);
        j.bs.write.min = 128;
        let e = j.data_config().unwrap_err().to_string();
        assert!(e.contains("cannot hold a header"), "{e}");
    }
}
