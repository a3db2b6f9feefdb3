//! Helpers shared by the topic modules of iolab-data's integration tests.

use iolab_data::{DataConfig, DataGen};
use iolab_job::{Job, OptionValue, Origin, ResolvedOption};

pub(crate) fn set(job: &mut Job, name: &str, v: OptionValue) {
    let raw = match &v {
        OptionValue::Str(s) => s.clone(),
        OptionValue::Int(i) => i.to_string(),
        OptionValue::Bool(b) => u8::from(*b).to_string(),
        OptionValue::Size(s) => s.to_string(),
        other => format!("{other:?}"),
    };
    job.options
        .insert(name.into(), ResolvedOption { value: v, raw, origin: Origin::Default, seq: 0 });
}

pub(crate) fn write_job() -> Job {
    let mut j = Job::with_defaults("w");
    j.rw = iolab_job::RwKind::Write;
    j
}

/// Sequential writes of `bs` over `total` bytes, as the engine would issue them.
pub(crate) fn stream(cfg: &DataConfig, seed: u64, total: usize, bs: usize) -> Vec<u8> {
    let mut g = DataGen::new(cfg, seed);
    let mut out = vec![0u8; total];
    for (i, blk) in out.chunks_mut(bs).enumerate() {
        g.fill(blk, 0, (i * bs) as u64, 0);
    }
    out
}

pub(crate) fn zstd_ratio(m: &iolab_data::measure::Measurement) -> f64 {
    m.codecs.iter().find(|c| c.codec == "zstd-3").unwrap().block_ratio
}
