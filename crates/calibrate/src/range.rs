//! The range a calibrated profile is valid for, and what a prediction outside it says.
//!
//! A profile's `[[point]]` tables are the sweep it was fitted to: per direction, the block
//! sizes and the depths measured. Between those points the fit interpolates; beyond them it
//! extrapolates (a transfer rate fitted up to 1 MiB says nothing sure about 16 MiB commands,
//! a stretch fitted to QD64 nothing about QD256). A prediction for a job outside the swept
//! sizes or depths carries a note naming the job, the direction and both ranges (issue 32,
//! "predicting outside that range says so"). A profile without points (a preset's, or a
//! hand-written one) has no stated range and gets no note.

use iolab_core::IoDir;
use iolab_job::engines::{has, SYNC};
use iolab_job::Job;
use iolab_model::device::profile::{DeviceProfile, ValidRange};

use crate::fit::Measured;

/// What every note of this module starts with (the `--predict` table lists them).
pub const PREFIX: &str = "outside the calibrated range: ";

/// The sizes and depths one direction's sweep measured.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Swept {
    pub min_bs: u64,
    pub max_bs: u64,
    /// The deepest point: commands in flight.
    pub max_depth: u32,
}

fn of_dir(rw: &str, read: bool) -> bool {
    rw.contains("rw") || rw.contains(if read { "read" } else { "write" })
}

/// The range the profile's points cover for reads (`read`) or writes; `None` without points.
pub fn swept(p: &DeviceProfile, read: bool) -> Option<Swept> {
    let mut pts = p.points.iter().filter(|pt| of_dir(&pt.rw, read));
    let first = pts.next()?;
    let start = Swept { min_bs: first.bs, max_bs: first.bs, max_depth: first.iodepth };
    Some(pts.fold(start, |s, pt| Swept {
        min_bs: s.min_bs.min(pt.bs),
        max_bs: s.max_bs.max(pt.bs),
        max_depth: s.max_depth.max(pt.iodepth),
    }))
}

/// The range each direction's sweep measured, as the profile states it (`[[valid]]`): the
/// sizes and commands in flight swept, and the least and most IOPS and bandwidth measured
/// (the 50/50 point counts for both directions).
pub fn valid(ms: &[Measured]) -> Vec<ValidRange> {
    let mut out = Vec::new();
    for (dir, name) in [(IoDir::Read, "read"), (IoDir::Write, "write")] {
        let pts: Vec<&Measured> =
            ms.iter().filter(|m| m.point.dir() == dir || m.point.mixed()).collect();
        let Some(first) = pts.first() else { continue };
        let depth = |m: &Measured| m.point.iodepth.saturating_mul(m.point.numjobs.max(1));
        let mut v = ValidRange {
            dir: name.into(),
            bs: [first.point.bs; 2],
            depth: [depth(first); 2],
            iops: [first.m.iops; 2],
            bytes_per_sec: [first.m.bw_bytes; 2],
        };
        for m in &pts[1..] {
            v.bs = [v.bs[0].min(m.point.bs), v.bs[1].max(m.point.bs)];
            v.depth = [v.depth[0].min(depth(m)), v.depth[1].max(depth(m))];
            v.iops = [v.iops[0].min(m.m.iops), v.iops[1].max(m.m.iops)];
            v.bytes_per_sec =
                [v.bytes_per_sec[0].min(m.m.bw_bytes), v.bytes_per_sec[1].max(m.m.bw_bytes)];
        }
        out.push(v);
    }
    out
}

fn size(b: u64) -> String {
    iolab_core::units::format_bytes_iec(b)
}

/// The notes for `jobs` on `p`: one per job and direction whose block sizes or depth (the
/// job's commands in flight on the device: `iodepth`, 1 for a synchronous engine, times
/// `numjobs`) fall outside the direction's sweep.
pub fn outside(p: &DeviceProfile, jobs: &[Job]) -> Vec<String> {
    let mut notes = Vec::new();
    for job in jobs {
        let depth = if has(&job.ioengine, SYNC) { 1 } else { job.iodepth.max(1) };
        let depth = depth.saturating_mul(job.numjobs.max(1));
        for (read, wants, b) in
            [(true, job.rw.has_read(), &job.bs.read), (false, job.rw.has_write(), &job.bs.write)]
        {
            let Some(s) = swept(p, read).filter(|_| wants) else { continue };
            let dir = if read { "reads" } else { "writes" };
            let split = b.split.iter().map(|x| x.bs);
            let (lo, hi) = match (split.clone().min(), split.max()) {
                (Some(lo), Some(hi)) => (lo, hi),
                _ => (b.min, b.max),
            };
            if lo < s.min_bs || hi > s.max_bs {
                let asked =
                    if lo == hi { size(lo) } else { format!("{}–{}", size(lo), size(hi)) };
                notes.push(format!(
                    "{PREFIX}job '{}' {dir} {asked} blocks; the profile's sweep measured {dir} of \
                     {}–{}: the prediction extrapolates the fit",
                    job.name,
                    size(s.min_bs),
                    size(s.max_bs)
                ));
            }
            let asked = if read { job.rate_iops.read } else { job.rate_iops.write };
            let most = p.valid.iter().find(|v| v.dir == if read { "read" } else { "write" });
            if let Some(v) = most.filter(|v| asked as f64 > 1.1 * v.iops[1]) {
                notes.push(format!(
                    "{PREFIX}job '{}' asks {asked} {dir} a second (rate_iops); the most the \
                     profile's sweep measured was {:.0}: the prediction extrapolates the fit",
                    job.name, v.iops[1]
                ));
            }
            if depth > s.max_depth {
                notes.push(format!(
                    "{PREFIX}job '{}' keeps {depth} {dir} in flight; the profile's deepest {dir} \
                     point was {}: the prediction extrapolates the fit",
                    job.name, s.max_depth
                ));
            }
        }
    }
    notes
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use iolab_model::device::profile::FitPoint;

    fn point(rw: &str, bs: u64, iodepth: u32) -> FitPoint {
        FitPoint {
            rw: rw.into(),
            bs,
            iodepth,
            span: 1 << 30,
            measured_iops: 1000.0,
            predicted_iops: 1000.0,
            measured_p50_us: 100.0,
            predicted_p50_us: 100.0,
            measured_p99_us: 200.0,
            predicted_p99_us: 200.0,
            iops_error: 0.0,
            p50_error: 0.0,
            p99_error: 0.0,
        }
    }

    /// A sweep of reads at 4 KiB–1 MiB up to QD64 and writes at 4 KiB–64 KiB up to QD16.
    fn profile() -> DeviceProfile {
        let mut p = iolab_model::device::preset_profile("nvme").unwrap();
        p.points = vec![
            point("randread", 4096, 1),
            point("randread", 4096, 64),
            point("read", 1 << 20, 16),
            point("randwrite", 4096, 16),
            point("write", 65536, 1),
        ];
        p
    }

    fn notes(job: &str) -> Vec<String> {
        let parsed = iolab_job::parse_str("t", job).unwrap();
        outside(&profile(), &parsed.jobs)
    }

    #[test]
    fn swept_ranges_are_per_direction() {
        let p = profile();
        assert_eq!(swept(&p, true), Some(Swept { min_bs: 4096, max_bs: 1 << 20, max_depth: 64 }));
        assert_eq!(swept(&p, false), Some(Swept { min_bs: 4096, max_bs: 65536, max_depth: 16 }));
        let mut bare = p.clone();
        bare.points.clear();
        assert_eq!(swept(&bare, true), None);
        assert!(outside(&bare, &iolab_job::parse_str("t", "[a]\nbs=16m\nsize=1g\n").unwrap().jobs)
            .is_empty());
    }

    #[test]
    fn jobs_inside_the_sweep_get_no_note() {
        assert!(
            notes("[a]\nrw=randread\nioengine=libaio\nbs=64k\niodepth=32\nsize=1g\n").is_empty()
        );
        assert!(notes("[a]\nrw=randrw\nioengine=libaio\nbs=8k\niodepth=8\nnumjobs=2\nsize=1g\n")
            .is_empty());
        // A synchronous engine keeps one command in flight whatever iodepth asks.
        assert!(notes("[a]\nrw=randwrite\nioengine=psync\niodepth=128\nsize=1g\n").is_empty());
    }

    #[test]
    fn sizes_and_depths_beyond_the_sweep_are_named() {
        let n = notes("[big]\nrw=read\nbs=4m\nsize=1g\n");
        assert_eq!(n.len(), 1, "{n:?}");
        assert!(n[0].starts_with(PREFIX), "{n:?}");
        assert!(n[0].contains("job 'big' reads 4 MiB blocks"), "{n:?}");
        assert!(n[0].contains("measured reads of 4 KiB–1 MiB"), "{n:?}");
        // numjobs × iodepth is what the device sees: 4 × 32 = 128 > 64.
        let n =
            notes("[deep]\nrw=randread\nioengine=libaio\nbs=4k\niodepth=32\nnumjobs=4\nsize=1g\n");
        assert_eq!(n.len(), 1, "{n:?}");
        assert!(n[0].contains("keeps 128 reads in flight") && n[0].contains("was 64"), "{n:?}");
        // Writes have their own, narrower range; a bssplit is judged by its sizes.
        let n = notes(
            "[w]\nrw=randwrite\nioengine=io_uring\nbssplit=4k/50:256k/50\niodepth=32\nsize=1g\n",
        );
        assert_eq!(n.len(), 2, "{n:?}");
        assert!(n[0].contains("writes 4 KiB–256 KiB blocks"), "{n:?}");
        assert!(n[1].contains("keeps 32 writes in flight") && n[1].contains("was 16"), "{n:?}");
    }

    /// A rate the sweep never measured is named (`[[valid]]`'s most IOPS per direction); a
    /// rate within it is not.
    #[test]
    fn a_rate_beyond_the_measured_iops_is_named() {
        let mut p = profile();
        p.valid = vec![ValidRange {
            dir: "read".into(),
            bs: [4096, 1 << 20],
            depth: [1, 64],
            iops: [500.0, 2000.0],
            bytes_per_sec: [1e6, 3e7],
        }];
        let job = |rate: u32| {
            let text = format!("[r]\nrw=randread\nbs=4k\nrate_iops={rate}\nsize=1g\n");
            outside(&p, &iolab_job::parse_str("t", &text).unwrap().jobs)
        };
        let n = job(5000);
        assert_eq!(n.len(), 1, "{n:?}");
        assert!(n[0].contains("job 'r' asks 5000 reads a second"), "{n:?}");
        assert!(n[0].contains("the most the profile's sweep measured was 2000"), "{n:?}");
        assert!(job(1500).is_empty());
    }
}
