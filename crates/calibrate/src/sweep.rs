//! The calibration sweep: a fixed design of points (direction × random/sequential × block
//! size 4 KiB–1 MiB × queue depth 1–64 × small/full span, all `direct=1` through io_uring
//! with the engine's psync fallback; writes without the small span and the deep 64 KiB
//! point; one 50/50 random read/write point at QD8 beside them), each a fio job built in
//! code and run by `iolab_engine::runner::run_jobs`, so every point is a measured
//! `RunResult`. The time
//! budget is shared out among the points as they go (set-up and per-run overhead measured,
//! not guessed); a budget that cannot give each point 100 ms is refused up front. A budget
//! long enough ([`rounds`]) measures every point in up to three segments, one per round over
//! the reading points and then over the writing ones ([`schedule`]), and keeps each point's
//! median segment. After the set-up and after each segment the caller hears where the sweep
//! is ([`Progress`]: segments done of planned, the point and its IOPS, time against the
//! budget), as `iolab calibrate` shows on stderr.

use crate::error::CalibrateError;
use crate::fit::{self, Measured};
use crate::target::{self, Target};
use iolab_core::IoDir;
use iolab_engine::runner::{run_jobs, RunOptions};
use iolab_model::device::profile::DeviceProfile;
use iolab_model::device::DeviceSpec;
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Instant;

/// One point of the sweep.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Point {
    /// fio `rw=`: randread, read, randwrite, write; randrw for the mixed point (fio's
    /// default `rwmixread=50`).
    pub rw: &'static str,
    pub bs: u64,
    pub iodepth: u32,
    /// The whole target, or its first [`small_span`] bytes.
    pub full_span: bool,
    /// fio `numjobs`: threads submitting at once (2: the host's share of the work).
    pub numjobs: u32,
}

impl Point {
    pub fn dir(&self) -> IoDir {
        if self.rw.contains("write") {
            IoDir::Write
        } else {
            IoDir::Read
        }
    }
    pub fn random(&self) -> bool {
        self.rw.starts_with("rand")
    }
    /// Reads and writes at once (its figures are the reads'; the writes are as many).
    pub fn mixed(&self) -> bool {
        self.rw == "randrw" || self.rw == "rw"
    }
    pub fn label(&self) -> String {
        let span = if self.full_span { "full" } else { "small" };
        let jobs =
            if self.numjobs > 1 { format!(" numjobs={}", self.numjobs) } else { String::new() };
        format!("{} bs={} iodepth={} span={span}{jobs}", self.rw, self.bs, self.iodepth)
    }
}

const K: u64 = 1024;

/// The design for one direction (`rand`, `seq` are fio's names for it); `reads`: with the
/// small-span QD1 point (the seek curve; writes take the reads', the mixed point in its place)
/// and the deep random 64 KiB point (how mid-size transfers share the data path at depth,
/// `xfer_parallel_by_size`; writes keep the one `xfer_parallel` of their deep 1 MiB point).
fn design(rand: &'static str, seq: &'static str, max_depth: u32, reads: bool) -> Vec<Point> {
    let p = |rw, bs, iodepth: u32, full_span| Point {
        rw,
        bs,
        iodepth: iodepth.min(max_depth),
        full_span,
        numjobs: 1,
    };
    // Two threads at half the deepest depth each: the same commands in flight as the deepest
    // point, so the ratio of the two says how much one submitting thread held back.
    let two = Point { numjobs: 2, ..p(rand, 4 * K, (max_depth / 2).max(1), true) };
    let mut v = vec![
        two,
        p(rand, 4 * K, 1, false),
        p(rand, 4 * K, 1, true),
        p(rand, 64 * K, 1, true),
        p(rand, 1024 * K, 1, true),
        p(seq, 128 * K, 1, true),
        p(rand, 4 * K, 4, true),
        p(rand, 4 * K, 16, true),
        p(rand, 4 * K, 64, true),
        p(seq, 1024 * K, 16, true),
    ];
    if reads {
        v.push(p(rand, 64 * K, 8, true));
    } else {
        v.remove(1);
    }
    v
}

/// Reads and writes 50/50, 4 KiB random at QD8: how much one direction slows the other
/// (`mix_stretch`).
fn mixed_point(max_depth: u32) -> Point {
    Point { rw: "randrw", bs: 4 * K, iodepth: 8.min(max_depth), full_span: true, numjobs: 1 }
}

/// The sweep's points: the reads', and with `writable` the writes' and the mixed point.
pub fn design_points(writable: bool, max_depth: u32) -> Vec<Point> {
    let mut points = design("randread", "read", max_depth, true);
    if writable {
        // Not last: a deep 1 MiB point behind a throttle drains for up to a second past its
        // time, and the point after it must still find its share of the budget.
        points.push(mixed_point(max_depth));
        points.extend(design("randwrite", "write", max_depth, false));
    }
    points
}

/// Bytes of the small span: 1/64 of the target, at least 4 MiB.
pub fn small_span(size: u64) -> u64 {
    (size / 64).max(4 << 20).min(size) / (1 << 20) * (1 << 20)
}

/// Options of a calibration.
#[derive(Clone, Debug)]
pub struct CalibrateOptions {
    pub budget_secs: f64,
    /// Size of a file iolab creates.
    pub new_file_size: u64,
    pub allow_write: bool,
    /// `--allow-destroy`: as `iolab run`'s (a block device carrying a signature).
    pub allow_destroy: bool,
    /// Deepest queue swept (the device's limit if lower).
    pub max_depth: u32,
    pub seed: u64,
}

impl Default for CalibrateOptions {
    fn default() -> Self {
        CalibrateOptions {
            budget_secs: 60.0,
            new_file_size: 256 << 20,
            allow_write: false,
            allow_destroy: false,
            max_depth: 64,
            seed: 0x5eed,
        }
    }
}

/// A finished calibration.
#[derive(Clone, Debug)]
pub struct Calibration {
    pub target: Target,
    pub profile: DeviceProfile,
    pub measured: Vec<Measured>,
    /// Wall time of the whole calibration, set-up included, seconds.
    pub elapsed_secs: f64,
    /// Wall time to the end of the sweep's last run (set-up included; the fit after it is
    /// CPU work, which a loaded machine stretches), seconds.
    pub sweep_secs: f64,
    /// Stale scratch of killed runs found beside the target (reported, not used).
    pub notes: Vec<String>,
}

/// Checks a `--budget` value in seconds.
pub fn check_budget(secs: f64, text: &str) -> Result<(), CalibrateError> {
    if !secs.is_finite() || secs <= 0.0 || secs > 86_400.0 {
        return Err(CalibrateError::Budget {
            value: text.to_string(),
            why: "expected a time between 1s and 24h (e.g. 60s, 2m)".into(),
        });
    }
    Ok(())
}

const MIN_POINT_SECS: f64 = 0.1;

/// Where a calibration is: reported after the set-up (laying out a file iolab created) and
/// after each measured segment.
#[derive(Clone, Debug, PartialEq)]
pub struct Progress {
    /// Segments measured and planned in all (a point is measured in one to three segments;
    /// the plan shrinks when a slow machine costs the repeats).
    pub done: usize,
    pub total: usize,
    /// The segment just measured (its point's label) and its IOPS; `None` after the set-up.
    pub point: Option<(String, f64)>,
    /// Wall time since the calibration started, and its budget, seconds.
    pub elapsed_secs: f64,
    pub budget_secs: f64,
}

impl Progress {
    /// Seconds of the budget left (0 once it is spent).
    pub fn left_secs(&self) -> f64 {
        (self.budget_secs - self.elapsed_secs).max(0.0)
    }

    /// One line: `run 3/33: randread bs=4096 iodepth=1 span=full 78 IOPS; 12.3 s of the
    /// 60.0 s budget, 47.7 s left` (a run is one segment of one point).
    pub fn line(&self) -> String {
        let what = match &self.point {
            Some((label, iops)) => {
                format!("run {}/{}: {label} {iops:.0} IOPS", self.done, self.total)
            }
            None => format!("laid out the file; {} runs to go", self.total),
        };
        format!(
            "{what}; {:.1} s of the {:.1} s budget, {:.1} s left",
            self.elapsed_secs,
            self.budget_secs,
            self.left_secs()
        )
    }
}

/// Runs the sweep on `path` and fits the profile.
pub fn calibrate(path: &Path, opts: &CalibrateOptions) -> Result<Calibration, CalibrateError> {
    calibrate_with_progress(path, opts, &mut |_| {})
}

/// [`calibrate`], telling `progress` where the sweep is after the set-up and each segment.
pub fn calibrate_with_progress(
    path: &Path,
    opts: &CalibrateOptions,
    progress: &mut dyn FnMut(&Progress),
) -> Result<Calibration, CalibrateError> {
    let text = format!("{}s", opts.budget_secs);
    check_budget(opts.budget_secs, &text)?;
    let start = Instant::now();
    // `_scratch` holds a file iolab creates; dropped (removed) however this returns.
    let (t, _scratch, notes) = target::resolve(path, opts.new_file_size, opts.allow_write)?;
    // A device the write points would refuse (in use, a signature without --allow-destroy)
    // is refused before the read points run (review 2026-11-28 §10).
    if t.writable && t.block_device {
        let grant = iolab_engine::safety::WriteGrant {
            allow_destroy: opts.allow_destroy,
            allow_mounted_write: false,
        };
        iolab_engine::safety::check_block_write(&t.path, grant)?;
    }
    let points = design_points(t.writable, opts.max_depth);
    let floor = points.len() as f64 * (MIN_POINT_SECS + 0.05);
    if opts.budget_secs < floor {
        return Err(CalibrateError::Budget {
            value: text,
            why: format!("{} points need at least {floor:.1}s", points.len()),
        });
    }
    let result = run_sweep(&t, &points, opts, (start, progress));
    let sweep_secs = start.elapsed().as_secs_f64();
    if t.created {
        // Removed on every way out; a failure to remove is reported only if all else worked.
        let rm = std::fs::remove_file(&t.path);
        let measured = result?;
        rm.map_err(|e| CalibrateError::Target {
            path: t.path.display().to_string(),
            why: format!("cannot remove the calibration file: {e}"),
        })?;
        return finish(t, measured, opts, (start, sweep_secs), notes);
    }
    finish(t, result?, opts, (start, sweep_secs), notes)
}

fn finish(
    t: Target,
    measured: Vec<Measured>,
    opts: &CalibrateOptions,
    (start, sweep_secs): (Instant, f64),
    notes: Vec<String>,
) -> Result<Calibration, CalibrateError> {
    let name = t.path.display().to_string();
    let mut profile = fit::fit(&name, t.size, &measured, opts.seed, t.writable);
    profile.points = fit::errors(&profile, &measured)?;
    let elapsed_secs = start.elapsed().as_secs_f64();
    Ok(Calibration { target: t, profile, measured, elapsed_secs, sweep_secs, notes })
}

/// The most times a point is measured (as segments in separate rounds).
const MAX_ROUNDS: usize = 3;

/// The shortest segment a point is split into: below it one whole point is measured once.
const MIN_SEGMENT_SECS: f64 = 0.4;

/// How many rounds the sweep runs: each point measured once per round, as a segment of its
/// share of the budget, the rounds one after another (so a burst of neighbour load or a
/// stall lasting a few seconds hits different points' segments; reads and writes each in
/// their own rounds, see [`schedule`]); as many as give every segment [`MIN_SEGMENT_SECS`]
/// (60 s and 21 points: 3), at most [`MAX_ROUNDS`].
pub fn rounds(budget_secs: f64, points: usize) -> usize {
    let per_point = budget_secs * SWEEP_SHARE / points.max(1) as f64;
    ((per_point / (MIN_SEGMENT_SECS + 0.05)).floor() as usize).clamp(1, MAX_ROUNDS)
}

/// The share of the budget the sweep's runs get; the rest is kept for the fit, its
/// refinement and its per-point predictions.
const SWEEP_SHARE: f64 = 0.85;

fn run_sweep(
    t: &Target,
    points: &[Point],
    opts: &CalibrateOptions,
    (start, progress): (Instant, &mut dyn FnMut(&Progress)),
) -> Result<Vec<Measured>, CalibrateError> {
    let ropts = RunOptions { allow_destroy: opts.allow_destroy, ..RunOptions::default() };
    let n = points.len();
    let mut plan = schedule(points, rounds(opts.budget_secs, n));
    let mut tell = |done, total, point| {
        let elapsed_secs = start.elapsed().as_secs_f64();
        progress(&Progress { done, total, point, elapsed_secs, budget_secs: opts.budget_secs });
    };
    if t.created {
        let job = layout_job(t);
        run_one(&job, &ropts, "layout")?;
        tell(0, plan.len(), None);
    }
    let budget = opts.budget_secs * SWEEP_SHARE;
    let mut segments: Vec<Vec<Measured>> = vec![Vec::new(); n];
    let mut overhead = 0.05f64;
    let mut k = 0;
    while k < plan.len() {
        let left = budget - start.elapsed().as_secs_f64();
        let mut per = left / (plan.len() - k) as f64 - overhead;
        // Overhead beyond the plan (a deep point draining behind a throttle, a loaded
        // machine) costs the repeats, not the calibration: the points not measured yet keep
        // one segment each, the others the segments they have.
        if plan.len() > n && per < MIN_SEGMENT_SECS / 2.0 {
            let mut seen = vec![false; n];
            let rest: Vec<usize> = plan[k..]
                .iter()
                .copied()
                .filter(|&i| segments[i].is_empty() && !std::mem::replace(&mut seen[i], true))
                .collect();
            plan.truncate(k);
            plan.extend(rest);
            if k == plan.len() {
                break;
            }
            per = left / (plan.len() - k) as f64 - overhead;
        }
        if per < MIN_POINT_SECS {
            return Err(CalibrateError::Budget {
                value: format!("{}s", opts.budget_secs),
                why: format!(
                    "{:.1}s spent (set-up and earlier points); {} points left need {:.1}s more",
                    start.elapsed().as_secs_f64(),
                    plan.len() - k,
                    (plan.len() - k) as f64 * (MIN_POINT_SECS + overhead)
                ),
            });
        }
        let i = plan[k];
        let p = &points[i];
        let job = point_job(t, p, per, opts.seed);
        let t0 = Instant::now();
        let r = run_one(&job, &ropts, &p.label())?;
        overhead = (t0.elapsed().as_secs_f64() - per).max(0.0).max(overhead * 0.5);
        let m = fit::measured(*p, &r, &job, span(t, p))?;
        k += 1;
        tell(k, plan.len(), Some((p.label(), m.m.iops)));
        segments[i].push(m);
    }
    Ok(segments.into_iter().filter_map(median_segment).collect())
}

/// The order of the sweep's segments (indices into `points`): the rounds over the points that
/// only read, then the rounds over those that write (the mixed point among them), so no read
/// segment runs while the device or the host below it is still writing back what a write
/// segment left (the order of a one-round sweep, which measures all reads first).
pub fn schedule(points: &[Point], rounds: usize) -> Vec<usize> {
    let writes = |p: &Point| p.dir() == IoDir::Write || p.mixed();
    let mut plan = Vec::with_capacity(points.len() * rounds);
    for group in [false, true] {
        let idx: Vec<usize> = (0..points.len()).filter(|&i| writes(&points[i]) == group).collect();
        for _ in 0..rounds {
            plan.extend(&idx);
        }
    }
    plan
}

/// The segment whose IOPS is the median of a point's (the upper one of an even count: load
/// and stalls only slow a point down), so one disturbed segment does not decide the point.
pub fn median_segment(mut segs: Vec<Measured>) -> Option<Measured> {
    segs.sort_by(|a, b| a.m.iops.total_cmp(&b.m.iops));
    let mid = segs.len() / 2;
    segs.into_iter().nth(mid)
}

fn run_one(
    text: &str,
    ropts: &RunOptions,
    label: &str,
) -> Result<iolab_stats::RunResult, CalibrateError> {
    let parsed = iolab_job::parse_str(label, text)?;
    let stop = Arc::new(AtomicBool::new(iolab_core::stop::requested()));
    let out = run_jobs(&parsed.jobs, ropts, stop, None)?;
    if let Some(j) = out.result.jobs.iter().find(|j| j.error != 0) {
        return Err(CalibrateError::Point {
            point: label.to_string(),
            why: format!("I/O failed with errno {}", j.error),
        });
    }
    if iolab_core::stop::requested() {
        return Err(CalibrateError::Point { point: label.into(), why: "interrupted".into() });
    }
    Ok(out.result)
}

fn layout_job(t: &Target) -> String {
    format!(
        "[layout]\nfilename={}\nrw=write\nbs=1m\niodepth=4\nioengine=io_uring\ndirect=1\nsize={}\n",
        t.path.display(),
        t.size
    )
}

/// The bytes a point covers: the whole target or its small span.
pub fn span(t: &Target, p: &Point) -> u64 {
    if p.full_span {
        t.size
    } else {
        small_span(t.size)
    }
}

/// The fio job of one point, `secs` long of which a fifth is ramp.
pub fn point_job(t: &Target, p: &Point, secs: f64, seed: u64) -> String {
    let span = span(t, p);
    let ms = (secs * 1000.0).max(1.0) as u64;
    let ramp = ms / 5;
    format!(
        "[cal]\nfilename={}\nrw={}\nbs={}\niodepth={}\nioengine=io_uring\ndirect=1\nsize={}\n\
         norandommap=1\nrandseed={seed}\ntime_based=1\nruntime={}ms\nramp_time={ramp}ms\n\
         numjobs={}\n",
        t.path.display(),
        p.rw,
        p.bs,
        p.iodepth,
        span,
        ms - ramp,
        p.numjobs,
    )
}

/// The profile as a simulated device.
pub fn device(profile: &DeviceProfile) -> DeviceSpec {
    DeviceSpec::Profile(Box::new(profile.clone()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_says_the_point_its_iops_and_the_time_left_of_the_budget() {
        let p = Progress {
            done: 3,
            total: 33,
            point: Some(("randread bs=4096 iodepth=1 span=full".into(), 78.4)),
            elapsed_secs: 12.34,
            budget_secs: 60.0,
        };
        assert_eq!(
            p.line(),
            "run 3/33: randread bs=4096 iodepth=1 span=full 78 IOPS; 12.3 s of the 60.0 s \
             budget, 47.7 s left"
        );
        let late = Progress { point: None, elapsed_secs: 61.0, ..p };
        assert_eq!(late.left_secs(), 0.0);
        assert!(late.line().starts_with("laid out the file; 33 runs to go; 61.0 s"));
    }
}
