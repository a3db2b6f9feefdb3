//! fio's completion-latency histogram log (`write_hist_log`, `log_hist_msec`,
//! `log_hist_coarseness`): stat.c `add_clat_sample` takes a copy of the direction's
//! cumulative 1856-bucket plat histogram (fio 3.33: `FIO_IO_U_PLAT_GROUP_NR` 29 ×
//! `FIO_IO_U_PLAT_VAL` 64, nanoseconds) at the first completion at least `log_hist_msec` after
//! the previous copy, and iolog.c `flush_hist_samples` writes, per copy, `time, ddir, bs, `
//! and the bucket counts added since the previous copy, summed over runs of
//! `2^log_hist_coarseness` buckets. The bucket index is fio's `plat_val_to_idx` (copied from
//! stats' sibling in `report::fio_plat`, which depends on this crate).

/// fio 3.33's plat layout.
pub const PLAT_BITS: u32 = 6;
pub const PLAT_VAL: u64 = 1 << PLAT_BITS;
pub const PLAT_NR: usize = 29 * PLAT_VAL as usize;

/// fio `plat_val_to_idx` (nanoseconds).
pub fn plat_idx(val: u64) -> usize {
    let msb = if val == 0 { 0 } else { 63 - val.leading_zeros() };
    if msb <= PLAT_BITS {
        return val as usize;
    }
    let error_bits = msb - PLAT_BITS;
    let base = ((error_bits + 1) as u64) << PLAT_BITS;
    let offset = (PLAT_VAL - 1) & (val >> error_bits);
    ((base + offset) as usize).min(PLAT_NR - 1)
}

/// One logged copy: time (ms since the job's measurement started), direction, block size,
/// and the buckets added since the previous copy of that direction (full resolution).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HistSample {
    pub time_ms: u64,
    pub ddir: u8,
    pub bs: u64,
    pub counts: Vec<u64>,
}

/// The per-direction windows and the samples taken so far.
#[derive(Clone, Debug)]
pub struct HistLog {
    msec: u64,
    /// Per direction: buckets since the last copy, and when that copy was taken (None:
    /// nothing completed yet; fio's `hist_last` starts at the first completion).
    cur: [Vec<u64>; 3],
    last: [Option<u64>; 3],
    samples: Vec<HistSample>,
}

impl HistLog {
    /// `msec` is `log_hist_msec`; 0 logs nothing, as fio's `add_clat_sample` only copies the
    /// histogram when `hist_msec` is set.
    pub fn new(msec: u64) -> Self {
        HistLog {
            msec,
            cur: [vec![0; PLAT_NR], vec![0; PLAT_NR], vec![0; PLAT_NR]],
            last: [None; 3],
            samples: Vec::new(),
        }
    }

    /// One completion of direction `ddir` (0 read, 1 write, 2 trim) at `t_ms`, `bs` bytes,
    /// `clat_ns` completion latency.
    pub fn add(&mut self, t_ms: u64, ddir: usize, bs: u64, clat_ns: u64) {
        if ddir > 2 || self.msec == 0 {
            return;
        }
        self.cur[ddir][plat_idx(clat_ns)] += 1;
        let last = *self.last[ddir].get_or_insert(t_ms);
        if t_ms.saturating_sub(last) >= self.msec {
            let counts = std::mem::replace(&mut self.cur[ddir], vec![0; PLAT_NR]);
            self.samples.push(HistSample { time_ms: t_ms, ddir: ddir as u8, bs, counts });
            self.last[ddir] = Some(t_ms);
        }
    }

    pub fn samples(&self) -> &[HistSample] {
        &self.samples
    }
}

/// The log's text, as `flush_hist_samples` prints it: each line `time, ddir, bs, ` and
/// `PLAT_NR >> coarseness` sums of `2^coarseness` adjacent buckets.
pub fn render(samples: &[HistSample], coarseness: u32) -> String {
    let stride = 1usize << coarseness.min(6);
    let mut s = String::new();
    for h in samples {
        s.push_str(&format!("{}, {}, {}", h.time_ms, h.ddir, h.bs));
        for chunk in h.counts.chunks(stride) {
            s.push_str(&format!(", {}", chunk.iter().sum::<u64>()));
        }
        s.push('\n');
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_msec_logs_nothing_as_fio() {
        let mut h = HistLog::new(0);
        for t in 0..1000 {
            h.add(t, 0, 4096, 1000);
        }
        assert!(h.samples().is_empty());
    }

    #[test]
    fn a_copy_per_window_with_the_buckets_added_since_the_last() {
        let mut h = HistLog::new(100);
        h.add(5, 0, 4096, 1000); // window starts at 5 ms
        h.add(50, 0, 4096, 1000);
        h.add(105, 0, 4096, 64); // 100 ms after 5: a copy with 3 completions
        h.add(150, 0, 4096, 2000);
        h.add(210, 1, 8192, 10); // writes have their own window
        h.add(205, 0, 4096, 2000); // 100 ms after 105: a copy with 2 completions
        let s = h.samples();
        assert_eq!(s.len(), 2);
        assert_eq!((s[0].time_ms, s[0].ddir, s[0].bs), (105, 0, 4096));
        assert_eq!(s[0].counts.iter().sum::<u64>(), 3);
        assert_eq!(s[0].counts[plat_idx(1000)], 2);
        assert_eq!(s[1].counts.iter().sum::<u64>(), 2);
        let text = render(s, 4);
        let first: Vec<&str> = text.lines().next().unwrap_or_default().split(", ").collect();
        assert_eq!(first.len(), 3 + PLAT_NR / 16, "116 sums of 16 buckets");
        assert_eq!(first[3 + plat_idx(64) / 16], "1");
        // plat_val_to_idx: values below 128 are their own bucket, then 64 per power of two.
        assert_eq!((plat_idx(127), plat_idx(128), plat_idx(1 << 20)), (127, 128, 960));
    }
}
