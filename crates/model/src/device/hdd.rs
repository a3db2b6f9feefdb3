//! Mechanical disk timing after Ruemmler & Wilkes, "An introduction to disk drive modeling"
//! (IEEE Computer 27(3), 1994) and DiskSim 4.0's `diskmodel` (CMU-PDL-08-101):
//!
//! * **Geometry and zones.** Linear bit density is constant, so the media rate grows with the
//!   radius r (outer/inner ratio = `outer_mbps / inner_mbps`), and an LBA fraction x maps to
//!   r(x) = √(1 − x·(1 − r_in²)) (capacity from the outer edge ∝ area swept). The cylinder
//!   position used for seeks is (1 − r)/(1 − r_in).
//! * **Seek curve.** DiskSim's "3-point curve" t(d) = t_track + A·√d + B·d for a stroke
//!   fraction d > 0: the √ term dominates short, acceleration-limited seeks, the linear term
//!   long, coasting ones. A and B are solved so that t(1) is the full-stroke time and the mean
//!   over random pairs (E[√d] = 8/15, E[d] = 1/3) is the datasheet average seek.
//! * **Rotation.** The platter's phase is a function of absolute time (60/RPM per turn), and
//!   a sector's angle follows from its offset within its track, so rotational delay is
//!   computed from where the head lands after the seek: seek and rotation overlap correctly,
//!   and the mean is half a turn only for random placements.
//! * **Streaming.** A command that continues the previous one (same direction, next byte) is
//!   served at the media rate with no seek or rotational delay: read-ahead and queued
//!   sequential commands hide the host's turnaround on real drives.
//! * **Queueing.** `ncq_depth` lets the simulator pick, among the first N queued commands,
//!   the one with the shortest positioning time (SPTF, the NCQ/TCQ strategy).
//!
//! Presets (average seek is the datasheet's "typical read"; full stroke and track-to-track
//! where the datasheet gives them, else the ratios of a sibling drive):
//! * 7,200 RPM 1 TB SATA: WD RE4 / HGST Ultrastar A7K1000 class — 8.5 ms avg, 0.8 ms
//!   track-to-track, 16 ms full stroke, 150 → 75 MB/s, 0.3 ms command overhead.
//! * 7,200 RPM 4 TB NL-SAS: HGST Ultrastar 7K4000 spec p.25 — 8.2 ms avg, 171 → 85 MB/s.
//! * 10,000 RPM 1.2 TB 2.5-inch SAS (Seagate Savvio / Enterprise Performance 10K class) —
//!   ≈4 ms avg read seek (VelociRaptor 4.2, 10K SAS datasheets 3.6–4.2), 0.4 ms
//!   track-to-track, 8 ms full stroke, 240 → 125 MB/s, 0.5 ms command overhead (SAS HBA and
//!   drive firmware; the 7.2K SATA figure is 0.3 ms).
//! * 15,000 RPM 450 GB SAS: Hitachi Ultrastar 15K450 — 3.3 ms avg, 0.2 ms track-to-track,
//!   6.5 ms full stroke, 200 → 130 MB/s.

use super::{xfer, DevOp, Device};
use iolab_core::Nanos;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct HddParams {
    pub capacity: u64,
    pub rpm: u32,
    pub avg_seek_ms: f64,
    pub full_stroke_ms: f64,
    pub track_to_track_ms: f64,
    pub overhead_ms: f64,
    pub outer_mbps: f64,
    pub inner_mbps: f64,
    /// Commands the drive may reorder (NCQ 32, TCQ 64); 1 = first come, first served.
    pub ncq_depth: usize,
}

impl Default for HddParams {
    fn default() -> Self {
        HddParams::sata_7200_1tb()
    }
}

impl HddParams {
    pub fn sata_7200_1tb() -> Self {
        HddParams {
            capacity: 1_000_000_000_000,
            rpm: 7200,
            avg_seek_ms: 8.5,
            full_stroke_ms: 16.0,
            track_to_track_ms: 0.8,
            overhead_ms: 0.3,
            outer_mbps: 150.0,
            inner_mbps: 75.0,
            ncq_depth: 1,
        }
    }
    pub fn nl_sas_7200_4tb() -> Self {
        HddParams {
            capacity: 4_000_000_000_000,
            avg_seek_ms: 8.2,
            full_stroke_ms: 16.0,
            track_to_track_ms: 0.5,
            overhead_ms: 0.2,
            outer_mbps: 171.0,
            inner_mbps: 85.0,
            ..HddParams::sata_7200_1tb()
        }
    }
    pub fn sas_10k_1200g() -> Self {
        HddParams {
            capacity: 1_200_000_000_000,
            rpm: 10_000,
            avg_seek_ms: 4.0,
            full_stroke_ms: 8.0,
            track_to_track_ms: 0.4,
            overhead_ms: 0.5,
            outer_mbps: 240.0,
            inner_mbps: 125.0,
            ncq_depth: 1,
        }
    }
    pub fn sas_15k_450g() -> Self {
        HddParams {
            capacity: 450_000_000_000,
            rpm: 15_000,
            avg_seek_ms: 3.3,
            full_stroke_ms: 6.5,
            track_to_track_ms: 0.2,
            overhead_ms: 0.2,
            outer_mbps: 200.0,
            inner_mbps: 130.0,
            ncq_depth: 1,
        }
    }

    /// (A, B) of t(d) = t_track + A·√d + B·d; B is clamped at 0 for datasheets whose average
    /// is too high for a concave curve.
    pub fn seek_coefficients(&self) -> (f64, f64) {
        let s = self.track_to_track_ms;
        let a = (5.0 / 3.0) * (3.0 * (self.avg_seek_ms - s) - (self.full_stroke_ms - s));
        let a = a.clamp(0.0, self.full_stroke_ms - s);
        (a, self.full_stroke_ms - s - a)
    }

    pub fn revolution_ns(&self) -> f64 {
        60e9 / f64::from(self.rpm.max(1))
    }
}

pub struct Hdd {
    name: String,
    p: HddParams,
    a: f64,
    b: f64,
    r_in: f64,
    rev_ns: f64,
    /// Cylinder position of the head, 0 = outer edge, 1 = inner.
    head: f64,
    last_end: u64,
    last_dir: Option<iolab_core::IoDir>,
}

impl Hdd {
    pub fn new(name: &str, p: HddParams) -> Self {
        let (a, b) = p.seek_coefficients();
        let r_in = (p.inner_mbps / p.outer_mbps).clamp(0.05, 1.0);
        let rev_ns = p.revolution_ns();
        Hdd {
            name: name.to_string(),
            p,
            a,
            b,
            r_in,
            rev_ns,
            head: 0.0,
            last_end: u64::MAX,
            last_dir: None,
        }
    }

    fn radius(&self, offset: u64) -> f64 {
        let x = (offset as f64 / self.p.capacity.max(1) as f64).clamp(0.0, 1.0);
        (1.0 - x * (1.0 - self.r_in * self.r_in)).sqrt()
    }

    fn cylinder(&self, r: f64) -> f64 {
        if self.r_in >= 1.0 {
            0.0
        } else {
            (1.0 - r) / (1.0 - self.r_in)
        }
    }

    /// Seek time in ns for a stroke fraction `d`.
    pub fn seek_ns(&self, d: f64) -> f64 {
        // Closer than one track (≈ 1/500,000 of the stroke on current drives): no seek.
        if d < 2e-6 {
            return 0.0;
        }
        (self.p.track_to_track_ms + self.a * d.sqrt() + self.b * d) * 1e6
    }

    fn media_bytes_per_sec(&self, r: f64) -> f64 {
        self.p.outer_mbps * 1e6 * r
    }

    /// (positioning ns, transfer ns) if `op` started at `now`.
    fn timing(&self, op: &DevOp, now: Nanos) -> (f64, f64) {
        let r = self.radius(op.offset);
        let rate = self.media_bytes_per_sec(r);
        let transfer = xfer(op.len, rate);
        if op.offset == self.last_end && self.last_dir == Some(op.dir) {
            return (0.0, transfer);
        }
        let overhead = self.p.overhead_ms * 1e6;
        let seek = self.seek_ns((self.cylinder(r) - self.head).abs());
        let track_bytes = rate * self.rev_ns / 1e9;
        let target = (op.offset as f64 / track_bytes).fract();
        let arrive = now.0 as f64 + overhead + seek;
        let phase = (arrive / self.rev_ns).fract();
        let wait = (target - phase).rem_euclid(1.0) * self.rev_ns;
        (overhead + seek + wait, transfer)
    }
}

impl Device for Hdd {
    fn name(&self) -> &str {
        &self.name
    }
    fn capacity(&self) -> u64 {
        self.p.capacity
    }
    fn reorder_depth(&self) -> usize {
        self.p.ncq_depth.max(1)
    }
    fn position_estimate(&self, op: &DevOp, now: Nanos) -> Nanos {
        Nanos(self.timing(op, now).0 as u64)
    }
    fn service(&mut self, op: &DevOp, now: Nanos, _busy: usize) -> Nanos {
        let (pos, xf) = self.timing(op, now);
        let end = op.offset.saturating_add(op.len);
        self.head = self.cylinder(self.radius(end));
        self.last_end = end;
        self.last_dir = Some(op.dir);
        Nanos((pos + xf) as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use iolab_core::IoDir;

    #[test]
    fn seek_curve_hits_datasheet_points() {
        let d = Hdd::new("x", HddParams::sata_7200_1tb());
        assert!((d.seek_ns(1.0) / 1e6 - 16.0).abs() < 1e-9);
        // Mean over random pairs of the stroke: density 2(1 − d).
        let n = 20_000;
        let mean: f64 = (0..n)
            .map(|i| {
                let x = (i as f64 + 0.5) / n as f64;
                2.0 * (1.0 - x) * d.seek_ns(x) / 1e6 / n as f64
            })
            .sum();
        assert!((mean - 8.5).abs() < 0.01, "mean seek {mean}");
        // Short seeks are √-shaped: 1 % of the stroke costs far more than 1 % of full stroke.
        assert!(d.seek_ns(0.01) / 1e6 > 0.8 + 1.0);
    }

    #[test]
    fn sequential_continuation_streams_at_media_rate() {
        let mut d = Hdd::new("x", HddParams::sata_7200_1tb());
        let op = |o| DevOp { dir: IoDir::Read, offset: o, len: 1 << 20 };
        d.service(&op(0), Nanos::ZERO, 0);
        let t = d.service(&op(1 << 20), Nanos(50_000_000), 0).0 as f64;
        // 1 MiB at ~150 MB/s on the outer zone ≈ 7 ms.
        assert!((t / 1e6 - 7.0).abs() < 0.1, "{t}");
        // The inner zone streams at about half the outer rate.
        d.service(&op(998_000_000_000), Nanos::ZERO, 0);
        let t_in = d.service(&op(998_000_000_000 + (1 << 20)), Nanos::ZERO, 0).0 as f64;
        assert!((t_in / t - 2.0).abs() < 0.05, "{t_in} vs {t}");
    }
}
