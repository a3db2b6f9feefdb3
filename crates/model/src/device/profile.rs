//! Device profiles: a device described by fitted curves instead of its mechanism, written by
//! `iolab calibrate` (crate `iolab-calibrate`) from a sweep of real I/O, or derived from the
//! HDD and SSD presets, and used by the simulator wherever a device goes (`sim --backing`,
//! `run --predict`, a tier's device).
//!
//! Model (per direction; the simplest form that fitted the sweeps of `calibrate`):
//! * **Service time** of one command, alone on the device:
//!   `S = base_us + seek_sqrt_us·√d + seek_linear_us·d + X(len)`, where `d`
//!   is the jump from the end of the previous command as a fraction of the capacity (DiskSim's
//!   3-point seek curve, Ruemmler & Wilkes 1994); a command that continues one of the last
//!   few streams (same direction, next byte) costs `seq_base_us` instead of the
//!   positioning terms (read-ahead, write merging, streaming). The transfer `X(len)` is
//!   `len / xfer_bytes_per_sec`, or with `xfer_us` the measured per-size points joined as a
//!   power law (piecewise linear in log size and log time).
//! * **Parallelism**, M/M/c style: at most `servers` commands are in service at once (the
//!   simulator's queue does the rest: 1 for a disk arm), and a command that starts while `b`
//!   others are in service has its fixed part stretched 1 + b / c times, `c` being the
//!   direction's `servers` (its internal parallelism): IOPS at depth d grow as
//!   d / (1 + (d − 1)/c) and saturate at c / S. The transfer is shared as a processor is:
//!   stretched 1 + b / `xfer_parallel` times beside b commands in service (0: not shared),
//!   or with `xfer_parallel_by_size` the value measured at the command's size (calibrate
//!   fits it at 64 KiB from a deep random point and at 1 MiB from a deep sequential one).
//!   Where the swept depths measured more (or less) than 1 + b/c, each `depth_shape` entry's
//!   `stretch` multiplies it (interpolated in log₂ depth).
//! * **Mixed directions**: a command whose last [`MIX_WINDOW`] neighbours on the device were a
//!   share `s` of the other direction has its fixed part take 1 + `mix_stretch`·s times as long (a read between
//!   writes waits for their flush and merging; fitted from the sweep's 50/50 point).
//! * **Limits**: an aggregate IOPS cap and bandwidth cap per direction, a token bucket in
//!   simulated time; with `cap_window_us` the bucket is blk-throttle's (block/blk-throttle.c
//!   `tg_within_iops_limit`: a window's budget at once, the rest held to the window's end).
//! * **Shape**: the latency distribution as empirical quantiles of `latency / mean`
//!   (piecewise linear in between), measured at QD1 (`shape`) and at each swept depth
//!   (`depth_shape`), where it is split at 8× the median into a **body**, drawn per command
//!   (the depth nearest the commands in service), and **stalls**, a process in simulated
//!   time (`stall_rate_hz`, durations from `stall_us`) that stops every command in service at
//!   once, as a host preemption or a hypervisor's flush does; so p50 comes from the body and
//!   p99 from the stalls at any depth. The draws use fixed SplitMix64 seeds: the same profile
//!   and seed give the same prediction.
//! * **Host**: `host_us`/`host_parallel` describe the submitting thread's CPU per I/O when it
//!   was the bottleneck, `host_idle_us` its round trip between a completion and the next
//!   submission when nothing else was in flight (the QD1 gap); the simulator runs them as a
//!   stage before the device ([`crate::sim::HostCpu`], via [`Profiled::host`]), outside the
//!   request's own latency as fio's clat is (the wait behind other requests' CPU is in it).
//!   With `host_us_by_size` the CPU per I/O depends on the I/O's size (straight lines
//!   between the measured sizes: a part per command, a part per byte): a CPU-bound target
//!   (zram) works in the submitting thread in proportion to the bytes.
//!
//! The file is TOML, versioned (`version = 1`; `xfer_us`, `xfer_parallel_by_size`,
//! `host_us_by_size`, `stretch` and `mix_stretch` are optional keys a version-1 file may
//! leave out, their defaults being the model without them) and strict: every table denies
//! unknown keys, and errors name the line (`toml`'s spans). `[[point]]` tables carry the sweep that produced
//! the profile with the fit's error per point (documentation; not used to predict).

use super::hdd::HddParams;
use super::ssd::SsdParams;
use super::{DevOp, Device};
use crate::error::ModelError;
use iolab_core::rand::SplitMix64;
use iolab_core::{IoDir, Nanos};
use serde::{Deserialize, Serialize};

/// The profile format's version; a file with another version is refused.
pub const PROFILE_VERSION: u32 = 1;

/// Streams remembered for sequential detection (numjobs sequential writers interleave).
const STREAMS: usize = 16;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeviceProfile {
    /// Format version, [`PROFILE_VERSION`].
    pub version: u32,
    /// What was calibrated (a path) or the preset's name.
    pub name: String,
    /// `calibrated` or `preset`.
    #[serde(default)]
    pub source: String,
    /// Bytes addressable.
    pub capacity: u64,
    /// Commands in service at once (the device's internal parallelism, M/M/c's c).
    pub servers: u32,
    /// Seed of the service-time draws.
    #[serde(default)]
    pub seed: u64,
    /// `write-back` when QD1 writes complete well before a read of the same size (a volatile
    /// cache acknowledges them), else `write-through`. Informational.
    #[serde(default)]
    pub write_cache: String,
    /// Reads and writes sharing the device: a command served while the other direction had
    /// a share `s` of the last [`MIX_WINDOW`] commands has its fixed part take
    /// 1 + `mix_stretch`·s times as long (0: no interaction beyond the commands in service; below 0: mixing is faster, as
    /// when the two directions take separate paths; fitted from a 50/50 point).
    #[serde(default)]
    pub mix_stretch: f64,
    pub read: DirProfile,
    pub write: DirProfile,
    /// What a calibrated profile was measured over, per direction: the sizes, depths and
    /// rates its predictions interpolate within (empty for a preset or a hand-written one).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub valid: Vec<ValidRange>,
    /// Per direction (read, write), the share of a command's time the submit call blocks
    /// for when the command starts at once (fio's slat over lat: about 1 where the device
    /// completes inside the submit call, as a loop device over cached data does; a few
    /// hundredths where the call only queues it). A command that waits on a cap first is
    /// submitted at once and waits after the call returned. 0 (absent): not modelled.
    #[serde(default, skip_serializing_if = "no_share")]
    pub submit_share: [f64; 2],
    /// The sweep behind the profile and the fit's error at each point.
    #[serde(default, rename = "point", skip_serializing_if = "Vec::is_empty")]
    pub points: Vec<FitPoint>,
}

/// One direction's curves.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DirProfile {
    /// Fixed cost of a random command (host path, controller, rotation), µs.
    pub base_us: f64,
    /// Fixed cost of a command continuing a stream, µs.
    pub seq_base_us: f64,
    /// Positioning cost ∝ √(jump / capacity), µs at a full-stroke jump.
    #[serde(default)]
    pub seek_sqrt_us: f64,
    /// Positioning cost ∝ jump / capacity, µs at a full-stroke jump.
    #[serde(default)]
    pub seek_linear_us: f64,
    /// Per-command transfer rate, bytes/s.
    pub xfer_bytes_per_sec: f64,
    /// Measured transfer time per command size, `[[bytes, µs], …]` (bytes rising): when
    /// present, a command of `len` bytes transfers in the power law through the two points
    /// around it (linear in log size, log time), at the first point's rate below it and the
    /// last point's above; empty: `len / xfer_bytes_per_sec`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub xfer_us: Vec<[f64; 2]>,
    /// How many commands' transfers proceed at full rate at once: a transfer started beside
    /// `b` commands in service takes 1 + b / `xfer_parallel` times as long (processor sharing
    /// of the data path; the aggregate tends to `xfer_parallel · xfer_bytes_per_sec`).
    /// 0: transfers are not shared (only the caps limit them).
    #[serde(default)]
    pub xfer_parallel: f64,
    /// The sharing measured per transfer size, `[[bytes, parallel], …]` (bytes rising,
    /// parallel > 0): when present, a command of `len` bytes shares the data path with the
    /// value linear in log₂ size between the two points around it (the nearest point's
    /// outside them) instead of `xfer_parallel` (mid-size commands at depth can share it
    /// worse than the large ones). Empty: `xfer_parallel` for every size.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub xfer_parallel_by_size: Vec<[f64; 2]>,
    /// Internal parallelism c of this direction: a command started with b others in service
    /// takes 1 + b/c times its service time.
    pub servers: u32,
    /// Aggregate bandwidth cap, bytes/s (0: none).
    #[serde(default)]
    pub max_bytes_per_sec: f64,
    /// Aggregate IOPS cap (0: none).
    #[serde(default)]
    pub max_iops: f64,
    /// Quantiles of service time / mean: `[[q, x], …]`, q rising from 0 to 1.
    pub shape: Vec<[f64; 2]>,
    /// Latency measured per queue depth (4 KiB random), split into a body and stalls; when
    /// present, a command started with `b` others in service draws from the entry whose
    /// depth is nearest `b + 1` (in log₂) instead of from `shape`.
    #[serde(default, rename = "depth_shape", skip_serializing_if = "Vec::is_empty")]
    pub depth_shapes: Vec<DepthShape>,
    /// CPU per I/O on the submitting thread, µs (0: not a bottleneck). The simulator runs it
    /// as a host stage before the device ([`crate::sim::HostCpu`]).
    #[serde(default)]
    pub host_us: f64,
    /// The submitting thread's CPU per I/O measured per size, `[[bytes, µs], …]` (bytes
    /// rising): when present, an I/O of `len` bytes costs the straight line through the two
    /// points around it (a part per command and one per byte), the first point's cost below
    /// it and the last two points' cost per byte carried on above them, instead of
    /// `host_us` (a CPU-bound target such as zram decompresses or copies in the submitting
    /// thread, so its cost grows with the bytes). Empty: `host_us` for every size.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub host_us_by_size: Vec<[f64; 2]>,
    /// How many submitting threads' CPU work overlaps (≤ the cores) when `host_us` > 0.
    #[serde(default)]
    pub host_parallel: f64,
    /// The submitting thread's time between a completion and its next submission when it
    /// had no other I/O in flight (the QD1 round trip outside the completion latency: wake-up,
    /// reap, submit), µs; with I/O in flight it overlaps and only `host_us` is serial.
    #[serde(default)]
    pub host_idle_us: f64,
    /// The caps' accounting window, µs (0: a smooth token bucket). The cgroup blkio throttle
    /// admits a window's budget at once and holds the rest to the window's end (block/
    /// blk-throttle.c `tg_within_iops_limit`, slices of `throtl_slice`), so most commands
    /// pass at device speed and a few wait up to a window.
    #[serde(default)]
    pub cap_window_us: f64,
}

/// The latency measured at one queue depth as a body and stalls. A stall (host preemption,
/// the hypervisor's I/O, a flush) stops every command in service at once for its duration,
/// so it is a process in time, not a per-command draw: stalls start `stall_rate_hz` times a
/// second of busy device time and last a duration drawn from `stall_us`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DepthShape {
    pub depth: u32,
    /// The fixed part's stretch at this depth beside the M/M/c one (1: none), interpolated
    /// in log₂ depth between entries: what the swept depth measured beyond 1 + b/c.
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub stretch: f64,
    /// Quantiles of the body's latency / mean (the commands no stall hit).
    pub shape: Vec<[f64; 2]>,
    #[serde(default)]
    pub stall_rate_hz: f64,
    /// Quantiles of stall durations, µs (`[[q, µs], …]`; empty: no stalls).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stall_us: Vec<[f64; 2]>,
}

fn no_share(s: &[f64; 2]) -> bool {
    s.iter().all(|&x| x == 0.0)
}

fn one() -> f64 {
    1.0
}

fn is_one(x: &f64) -> bool {
    *x == 1.0
}

/// The longest time a profile may give, µs (1e9: about a quarter hour per command).
const MAX_US: f64 = 1e9;
/// The highest rate a profile may give (IOPS or bytes/s).
const MAX_RATE: f64 = 1e15;

/// `write_cache`'s values: a read-only calibration writes `not measured` (an empty value
/// means the same).
const WRITE_CACHE: [&str; 4] = ["", "not measured", "write-back", "write-through"];

/// Commands remembered for [`DeviceProfile::mix_stretch`].
pub const MIX_WINDOW: usize = 8;

// `Profiled::submit` indexes the mix window with the stream ring's slot modulo MIX_WINDOW,
// which walks the last MIX_WINDOW commands only when the ring's length is a multiple of it.
const _: () = assert!(STREAMS % MIX_WINDOW == 0);

/// One sweep point: what ran, what was measured, what the profile predicts.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FitPoint {
    pub rw: String,
    pub bs: u64,
    pub iodepth: u32,
    pub span: u64,
    pub measured_iops: f64,
    pub predicted_iops: f64,
    pub measured_p50_us: f64,
    pub predicted_p50_us: f64,
    pub measured_p99_us: f64,
    pub predicted_p99_us: f64,
    /// (predicted − measured) / measured, IOPS.
    pub iops_error: f64,
    /// (predicted − measured) / measured, median and 99th percentile latency.
    #[serde(default)]
    pub p50_error: f64,
    #[serde(default)]
    pub p99_error: f64,
}

/// One direction's measured range (see [`DeviceProfile::valid`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ValidRange {
    /// `read` or `write`.
    pub dir: String,
    /// Least and largest block size swept, bytes.
    pub bs: [u64; 2],
    /// Least and most commands in flight swept.
    pub depth: [u32; 2],
    /// Least and most IOPS measured.
    pub iops: [f64; 2],
    /// Least and most bandwidth measured, bytes/s.
    pub bytes_per_sec: [f64; 2],
}

impl DeviceProfile {
    /// Reads a profile from TOML text; `path` names it in errors (with the line).
    /// Reads a device profile file (regular files only, bounded, UTF-8, strict TOML), as
    /// `iolab sim --backing=FILE.toml` and `iolab run --predict=FILE.toml` take it.
    pub fn load(path: &std::path::Path) -> Result<DeviceProfile, ModelError> {
        let shown = path.display().to_string();
        let bytes = iolab_core::input::read_bounded(path, "device profile", 4 << 20)?;
        let config = |why: &str| ModelError::Profile { path: shown.clone(), why: why.into() };
        let text = String::from_utf8(bytes).map_err(|_| config("not UTF-8 text"))?;
        if text.trim().is_empty() {
            return Err(config("empty (expected `version = 1` and the [read]/[write] tables)"));
        }
        DeviceProfile::from_toml(&text, &shown)
    }

    pub fn from_toml(text: &str, path: &str) -> Result<DeviceProfile, ModelError> {
        let p: DeviceProfile = toml::from_str(text).map_err(|e| ModelError::Config {
            path: path.to_string(),
            why: toml_error_line(text, &e),
        })?;
        p.validate().map_err(|why| ModelError::Config { path: path.to_string(), why })?;
        Ok(p)
    }

    /// The profile as TOML, with a header saying what the fields mean.
    pub fn to_toml(&self) -> Result<String, ModelError> {
        let body = toml::to_string(self).map_err(|e| ModelError::Config {
            path: self.name.clone(),
            why: format!("cannot write the profile as TOML: {e}"),
        })?;
        Ok(format!("{PROFILE_HEADER}{body}"))
    }

    /// Range checks `serde` cannot express.
    pub fn validate(&self) -> Result<(), String> {
        if self.version != PROFILE_VERSION {
            return Err(format!(
                "version = {}: this iolab reads profile version {PROFILE_VERSION}",
                self.version
            ));
        }
        if self.capacity == 0 {
            return Err("capacity = 0: expected the device's size in bytes".into());
        }
        if !(1..=65536).contains(&self.servers) {
            return Err(format!("servers = {}: expected 1 to 65536", self.servers));
        }
        if !(-0.9..=100.0).contains(&self.mix_stretch) {
            return Err(format!(
                "mix_stretch = {:?}: expected a number from -0.9 to 100",
                self.mix_stretch
            ));
        }
        if !WRITE_CACHE.contains(&self.write_cache.as_str()) {
            return Err(format!(
                "write_cache = {:?}: expected \"write-back\", \"write-through\" or \"not \
                 measured\"",
                self.write_cache
            ));
        }
        if !self.submit_share.iter().all(|s| (0.0..=1.0).contains(s)) {
            return Err(format!(
                "submit_share = {:?}: expected two shares (read, write) from 0 to 1",
                self.submit_share
            ));
        }
        self.read.validate("read")?;
        self.write.validate("write")
    }

    fn dir(&self, d: IoDir) -> &DirProfile {
        match d {
            IoDir::Write | IoDir::Trim | IoDir::Sync => &self.write,
            IoDir::Read => &self.read,
        }
    }

    /// Mean service time (ns) of a command alone on the device: `jump` is the positioning
    /// distance as a capacity fraction, `None` for a stream continuation.
    pub fn mean_service_ns(&self, dir: IoDir, len: u64, jump: Option<f64>) -> f64 {
        let p = self.dir(dir);
        let fixed = match jump {
            None => p.seq_base_us,
            Some(d) => {
                let d = d.clamp(0.0, 1.0);
                p.base_us + p.seek_sqrt_us * d.sqrt() + p.seek_linear_us * d
            }
        };
        fixed * 1e3 + p.xfer_ns(len)
    }

    /// The 7,200/10,000/15,000 RPM presets as profiles: overhead + track-to-track + half a
    /// turn as the base, the preset's seek curve as the √ and linear terms, the mean of the
    /// outer and inner media rates; the shape is a uniform rotational delay over a turn on
    /// top of the fixed part over a 1 GB span. A preset that reorders its queue (`ncq_depth`
    /// above 1) holds that many commands in service, sharing the one data path, their fixed
    /// part stretched per depth so that random 4 KiB reads reach the preset's own queueing
    /// curve ([`queue_stretches`]); with `ncq=1`, one command at a time.
    pub fn from_hdd(name: &str, p: &HddParams) -> DeviceProfile {
        let (a, b) = p.seek_coefficients();
        let rev_us = p.revolution_ns() / 1e3;
        let fixed_us = (p.overhead_ms + p.track_to_track_ms) * 1e3;
        let base_us = fixed_us + rev_us / 2.0;
        let rate = (p.outer_mbps + p.inner_mbps) / 2.0 * 1e6;
        let shape: Vec<[f64; 2]> = (0..=10)
            .map(|i| {
                let q = f64::from(i) / 10.0;
                [q, (fixed_us + q * rev_us) / base_us]
            })
            .collect();
        // Command queueing: up to `ncq_depth` commands in service, the fixed part stretched
        // per depth to the drive's reordering gain, transfers sharing the one head.
        let depth_shapes = queue_stretches(p, rate, &shape);
        let queued = !depth_shapes.is_empty();
        let dir = DirProfile {
            base_us,
            seq_base_us: 0.0,
            seek_sqrt_us: a * 1e3,
            seek_linear_us: b * 1e3,
            xfer_bytes_per_sec: rate,
            xfer_us: Vec::new(),
            xfer_parallel: if queued { 1.0 } else { 0.0 },
            xfer_parallel_by_size: Vec::new(),
            servers: if queued { 65536 } else { 1 },
            max_bytes_per_sec: 0.0,
            max_iops: 0.0,
            shape,
            depth_shapes,
            host_us: 0.0,
            host_us_by_size: Vec::new(),
            host_parallel: 0.0,
            host_idle_us: 0.0,
            cap_window_us: 0.0,
        };
        DeviceProfile {
            version: PROFILE_VERSION,
            name: name.to_string(),
            source: "preset".into(),
            capacity: p.capacity,
            servers: p.ncq_depth.clamp(1, 65536) as u32,
            seed: 0,
            write_cache: "write-through".into(),
            mix_stretch: 0.0,
            read: dir.clone(),
            write: dir,
            valid: Vec::new(),
            submit_share: [0.0; 2],
            points: Vec::new(),
        }
    }

    /// The flash presets as profiles: the datasheet latency as the base, `channels` servers,
    /// the bandwidth as the aggregate cap and per-command rate, a constant service time.
    pub fn from_ssd(name: &str, p: &SsdParams) -> DeviceProfile {
        let dir = |lat: f64, bw: f64| DirProfile {
            base_us: lat,
            seq_base_us: lat,
            seek_sqrt_us: 0.0,
            seek_linear_us: 0.0,
            xfer_bytes_per_sec: bw,
            xfer_us: Vec::new(),
            xfer_parallel: 0.0,
            xfer_parallel_by_size: Vec::new(),
            servers: p.channels.clamp(1, 65536) as u32,
            max_bytes_per_sec: bw,
            max_iops: 0.0,
            shape: vec![[0.0, 1.0], [1.0, 1.0]],
            depth_shapes: Vec::new(),
            host_us: 0.0,
            host_us_by_size: Vec::new(),
            host_parallel: 0.0,
            host_idle_us: 0.0,
            cap_window_us: 0.0,
        };
        DeviceProfile {
            version: PROFILE_VERSION,
            name: name.to_string(),
            source: "preset".into(),
            capacity: p.capacity,
            servers: p.channels.clamp(1, 65536) as u32,
            seed: 0,
            write_cache: "write-back".into(),
            mix_stretch: 0.0,
            read: dir(p.read_latency_us, p.read_bytes_per_sec),
            write: dir(p.write_latency_us, p.write_bytes_per_sec),
            valid: Vec::new(),
            submit_share: [0.0; 2],
            points: Vec::new(),
        }
    }
}

impl DirProfile {
    fn validate(&self, dir: &str) -> Result<(), String> {
        // Each key's range: (name, value, lowest, highest, zero also allowed). A time is at
        // most 1e9 µs (a quarter hour per command), a rate at most 1e15/s; a cap is 0 (none)
        // or a real rate, so 1e-300 cannot overflow the cap's interval into "no cap".
        let ranges = [
            ("base_us", self.base_us, 0.0, MAX_US, true),
            ("seq_base_us", self.seq_base_us, 0.0, MAX_US, true),
            ("seek_sqrt_us", self.seek_sqrt_us, 0.0, MAX_US, true),
            ("seek_linear_us", self.seek_linear_us, 0.0, MAX_US, true),
            ("xfer_bytes_per_sec", self.xfer_bytes_per_sec, 1.0, MAX_RATE, false),
            ("max_bytes_per_sec", self.max_bytes_per_sec, 1.0, MAX_RATE, true),
            ("max_iops", self.max_iops, 1e-3, MAX_RATE, true),
            ("host_us", self.host_us, 0.0, MAX_US, true),
            ("host_parallel", self.host_parallel, 0.0, 65536.0, true),
            ("host_idle_us", self.host_idle_us, 0.0, MAX_US, true),
            ("xfer_parallel", self.xfer_parallel, 0.0, 1e6, true),
            ("cap_window_us", self.cap_window_us, 0.0, MAX_US, true),
        ];
        for (k, v, lo, hi, zero) in ranges {
            if !((lo..=hi).contains(&v) || (zero && v == 0.0)) {
                let z = if zero && lo > 0.0 { "0 or " } else { "" };
                return Err(format!("[{dir}] {k} = {v:e}: expected {z}{lo:e} to {hi:e}"));
            }
        }
        if !(1..=65536).contains(&self.servers) {
            return Err(format!("[{dir}] servers = {}: expected 1 to 65536", self.servers));
        }
        check_shape(dir, &self.shape)?;
        check_by_size(dir, "xfer_us", "µs", MAX_US, &self.xfer_us)?;
        check_by_size(dir, "xfer_parallel_by_size", "parallel", 1e6, &self.xfer_parallel_by_size)?;
        check_by_size(dir, "host_us_by_size", "µs", 1e9, &self.host_us_by_size)?;
        for d in &self.depth_shapes {
            if d.depth == 0 {
                return Err(format!("[[{dir}.depth_shape]] depth = 0: expected a depth ≥ 1"));
            }
            if !(d.stretch > 0.0 && d.stretch <= 1e3) {
                return Err(format!(
                    "[[{dir}.depth_shape]] depth = {} stretch = {:?}: expected a number above 0, \
                     at most 1000",
                    d.depth, d.stretch
                ));
            }
            let name = format!("{dir}.depth_shape depth={}", d.depth);
            check_shape(&name, &d.shape)?;
            if !(0.0..=1e6).contains(&d.stall_rate_hz) {
                return Err(format!("[{name}] stall_rate_hz: expected 0 to 1e6"));
            }
            if !d.stall_us.is_empty() {
                check_shape(&format!("{name} stall_us"), &d.stall_us)?;
            }
        }
        Ok(())
    }

    /// The measured depth nearest a command started beside `busy` others.
    fn depth_at(&self, busy: usize) -> Option<&DepthShape> {
        let want = ((busy + 1) as f64).log2();
        self.depth_shapes.iter().min_by(|a, b| {
            let da = (f64::from(a.depth).log2() - want).abs();
            let db = (f64::from(b.depth).log2() - want).abs();
            da.total_cmp(&db)
        })
    }

    /// The fixed part's stretch measured beside `busy` others (see [`DepthShape::stretch`]):
    /// linear in log₂ depth between the entries around `busy + 1`, the nearest outside them.
    fn stretch_at(&self, busy: usize) -> f64 {
        let pts = self.depth_shapes.iter().map(|d| (f64::from(d.depth).log2(), d.stretch));
        interp_nearest(pts, ((busy + 1) as f64).log2()).unwrap_or(1.0)
    }

    /// Transfer time (ns) of a command of `len` bytes alone (see [`DirProfile::xfer_us`]).
    pub fn xfer_ns(&self, len: u64) -> f64 {
        let at_rate = len as f64 / self.xfer_bytes_per_sec * 1e9;
        let k = &self.xfer_us;
        let (Some(first), Some(last)) = (k.first(), k.last()) else { return at_rate };
        let len = len as f64;
        if len <= first[0] {
            return first[1] * 1e3 * len / first[0];
        }
        if len >= last[0] {
            return last[1] * 1e3 * len / last[0];
        }
        for w in k.windows(2) {
            let ([b0, u0], [b1, u1]) = (w[0], w[1]);
            if len <= b1 {
                let f = (len / b0).ln() / (b1 / b0).ln();
                return (u0.ln() + f * (u1 / u0).ln()).exp() * 1e3;
            }
        }
        at_rate
    }

    /// How many transfers of `len` bytes share the data path at full rate (see
    /// [`DirProfile::xfer_parallel_by_size`]; 0: not shared).
    pub fn xfer_parallel_at(&self, len: u64) -> f64 {
        let pts = self.xfer_parallel_by_size.iter().map(|k| (k[0].log2(), k[1]));
        interp_nearest(pts, (len.max(1) as f64).log2()).unwrap_or(self.xfer_parallel)
    }

    /// The body shape for a command started beside `busy` others.
    fn shape_at(&self, busy: usize) -> &[[f64; 2]] {
        self.depth_at(busy).map_or(&self.shape, |d| &d.shape)
    }
}

/// Mean of a shape's quantile function (trapezoids), to normalise draws to mean 1.
fn shape_mean(shape: &[[f64; 2]]) -> f64 {
    let m: f64 = shape.windows(2).map(|w| (w[1][0] - w[0][0]) * (w[0][1] + w[1][1]) / 2.0).sum();
    if m > 0.0 {
        m
    } else {
        1.0
    }
}

/// A shape's quantile function at `u` in [0, 1].
fn quantile(shape: &[[f64; 2]], u: f64) -> f64 {
    for w in shape.windows(2) {
        let ([q0, x0], [q1, x1]) = (w[0], w[1]);
        if u <= q1 {
            let f = if q1 > q0 { (u - q0) / (q1 - q0) } else { 1.0 };
            return x0 + f * (x1 - x0);
        }
    }
    shape.last().map_or(1.0, |p| p[1])
}

/// A per-size table of a direction (`[[bytes, value], …]`): at most 64 pairs, bytes ≥ 1 and
/// rising, each value finite, above 0 and at most `max`.
fn check_by_size(dir: &str, key: &str, unit: &str, max: f64, k: &[[f64; 2]]) -> Result<(), String> {
    let ok = k
        .iter()
        .all(|p| p[0].is_finite() && p[0] >= 1.0 && p[1].is_finite() && p[1] > 0.0 && p[1] <= max)
        && k.windows(2).all(|w| w[1][0] > w[0][0]);
    if ok && k.len() <= 64 {
        return Ok(());
    }
    let most = if max < f64::MAX { format!(" and at most {max:e}") } else { String::new() };
    Err(format!(
        "[{dir}] {key}: expected at most 64 [bytes, {unit}] pairs, bytes ≥ 1 and rising, \
         {unit} finite, above 0{most}"
    ))
}

/// `y` at `x`, linear between the points around it and the nearest point's outside them
/// (`None` without points); the points in any order.
pub fn interp_nearest(pts: impl IntoIterator<Item = (f64, f64)>, x: f64) -> Option<f64> {
    let mut lo: Option<(f64, f64)> = None;
    let mut hi: Option<(f64, f64)> = None;
    for (px, py) in pts {
        if px <= x && lo.is_none_or(|(l, _)| px > l) {
            lo = Some((px, py));
        }
        if px >= x && hi.is_none_or(|(h, _)| px < h) {
            hi = Some((px, py));
        }
    }
    match (lo, hi) {
        (Some((x0, y0)), Some((x1, y1))) if x1 > x0 => Some(y0 + (x - x0) / (x1 - x0) * (y1 - y0)),
        (Some((_, y)), _) | (None, Some((_, y))) => Some(y),
        (None, None) => None,
    }
}

/// The submitting thread's CPU (ns) for an I/O of `len` bytes: `knots` (`[[bytes, µs], …]`,
/// see [`DirProfile::host_us_by_size`]) joined by straight lines (a part per command and a
/// part per byte between each two sizes), the first point's cost below it and the last
/// segment's cost per byte carried on above it; `flat_ns` without knots.
pub fn host_ns_at(knots: &[[f64; 2]], flat_ns: f64, len: u64) -> f64 {
    let Some(first) = knots.first() else { return flat_ns };
    let len = len as f64;
    if len <= first[0] {
        return first[1] * 1e3;
    }
    let seg = knots.windows(2).find(|w| len <= w[1][0]).or_else(|| knots.windows(2).last());
    let Some(w) = seg else { return first[1] * 1e3 };
    let ([b0, u0], [b1, u1]) = (w[0], w[1]);
    let slope = ((u1 - u0) / (b1 - b0)).max(0.0);
    (u0 + slope * (len - b0)) * 1e3
}

fn check_shape(dir: &str, shape: &[[f64; 2]]) -> Result<(), String> {
    let bad = |why: &str| Err(format!("[{dir}] shape: {why}"));
    if shape.len() < 2 {
        return bad("expected at least two [quantile, ratio] pairs, from q = 0 to q = 1");
    }
    if shape.first().map(|p| p[0]) != Some(0.0) || shape.last().map(|p| p[0]) != Some(1.0) {
        return bad("the quantiles must start at 0 and end at 1");
    }
    for w in shape.windows(2) {
        if !(w[1][0] >= w[0][0] && w[1][1] >= w[0][1]) {
            return bad("quantiles and ratios must not decrease");
        }
    }
    if shape.iter().any(|p| !(0.0..=MAX_US).contains(&p[1]) || !p[0].is_finite()) {
        return bad("ratios must be from 0 to 1e9");
    }
    Ok(())
}

/// `toml`'s message reduced to one line that starts with the line number.
fn toml_error_line(text: &str, e: &toml::de::Error) -> String {
    let msg = e.message().lines().next().unwrap_or("bad TOML").to_string();
    match e.span() {
        Some(s) => {
            let line = text.get(..s.start).map_or(1, |t| t.matches('\n').count() + 1);
            format!("line {line}: {msg}")
        }
        None => msg,
    }
}

const PROFILE_HEADER: &str = "\
# iolab device profile (format version 1; see crates/model/src/device/profile.rs).
# Service time of one command alone: base_us + seek_sqrt_us*sqrt(d) + seek_linear_us*d
# + len/xfer_bytes_per_sec (d = jump / capacity), or seq_base_us + len/xfer_bytes_per_sec for
# a stream continuation; the fixed part stretched 1 + b/servers beside b commands in service,
# the transfer 1 + b/xfer_parallel (0 = not shared);
# aggregate caps max_iops / max_bytes_per_sec (0 = none; cap_window_us > 0: blk-throttle's
# windows); latency drawn from `shape` (QD1) or [[*.depth_shape]] (per depth: body quantiles
# of latency/mean, stalls as a rate in time with durations in us); host_us / host_parallel:
# the submitting thread's CPU per I/O when it was the bottleneck, host_idle_us its QD1 round
# trip outside the latency. Optional: xfer_us = [[bytes, us], ...] the transfer time per
# size (power law between points), depth_shape.stretch the fixed part's measured stretch at
# that depth (log2-interpolated), mix_stretch the slow-down 1 + mix_stretch*s of a command
# whose last 8 neighbours were a share s of the other direction, xfer_parallel_by_size =
# [[bytes, parallel], ...] xfer_parallel per transfer size (linear in log2 size between
# points, the nearest outside; replaces xfer_parallel when present), host_us_by_size =
# [[bytes, us], ...] the submitting thread's CPU per I/O per size (straight lines between
# points, the first's below, the last line carried on above; replaces host_us when present).
# [[point]]: the sweep and the fit's error at each point.
";

/// A [`DeviceProfile`] as a simulated device.
pub struct Profiled {
    name: String,
    p: DeviceProfile,
    rng: SplitMix64,
    last_pos: u64,
    /// End offsets (and direction) of recent commands, for stream detection.
    ends: [(u64, bool); STREAMS],
    next_slot: usize,
    /// Direction (write?) of the last [`MIX_WINDOW`] commands, for `mix_stretch`.
    recent: [Option<bool>; MIX_WINDOW],
    /// Simulated time at which each direction's token bucket admits the next command.
    bucket: [f64; 2],
    /// The current or next stall: start and duration, ns; and its own random stream.
    stall: (f64, f64),
    stall_rng: SplitMix64,
    /// What the submit call blocked for in the last command served (ns; `submit_share`).
    last_block: f64,
}

impl Profiled {
    pub fn new(name: &str, p: DeviceProfile) -> Self {
        let rng = SplitMix64(p.seed ^ 0x10_1ab_ca1);
        let p_seed_stall = p.seed ^ 0x057a_11ed;
        Profiled {
            name: name.to_string(),
            p,
            rng,
            last_pos: 0,
            ends: [(u64::MAX, false); STREAMS],
            next_slot: 0,
            recent: [None; MIX_WINDOW],
            bucket: [0.0; 2],
            stall: (f64::NEG_INFINITY, 0.0),
            stall_rng: SplitMix64(p_seed_stall),
            last_block: 0.0,
        }
    }

    /// A command that would take `fast` ns from `now` on a quiet device, with the stalls of
    /// its direction and depth: one under way delays its start, one that starts while it is
    /// in service delays its end by the stall's length.
    fn with_stalls(&mut self, dir: IoDir, busy: usize, now: f64, fast: f64) -> f64 {
        let Some(d) = self.p.dir(dir).depth_at(busy) else { return fast };
        if d.stall_rate_hz <= 0.0 || d.stall_us.is_empty() {
            return fast;
        }
        let (rate, dist) = (d.stall_rate_hz, d.stall_us.clone());
        while self.stall.0 + self.stall.1 <= now {
            let gap = -(1.0 - self.stall_rng.next_f64()).ln() / rate * 1e9;
            // Long idle (or the first command): the process restarts from now.
            let last = self.stall.0 + self.stall.1;
            let from = if now - last < 100.0 / rate * 1e9 { last } else { now };
            self.stall = (from + gap, quantile(&dist, self.stall_rng.next_f64()) * 1e3);
        }
        let (s0, len) = self.stall;
        let start = if now >= s0 { s0 + len } else { now };
        let mut end = start + fast;
        if s0 > start && s0 < end {
            end += len;
        }
        end - now
    }

    /// The other direction's share of the last [`MIX_WINDOW`] commands.
    fn other_share(&self, dir: IoDir) -> f64 {
        let w = dir != IoDir::Read;
        let seen = self.recent.iter().flatten().count();
        if seen == 0 {
            return 0.0;
        }
        self.recent.iter().flatten().filter(|&&d| d != w).count() as f64 / seen as f64
    }

    fn continues_stream(&self, op: &DevOp) -> bool {
        let w = op.dir != IoDir::Read;
        self.ends.iter().any(|&(e, dw)| e == op.offset && dw == w)
    }

    /// Delay before the direction's caps admit `op` at `now` (ns), and the bucket moved on.
    /// Without a window the caps space commands evenly; with one (the blkio throttle) a
    /// window's budget goes at once: `bucket` is the budget used, in ns of the cap's time,
    /// and never lags the start of the current window (unused budget is not carried over).
    fn admit(&mut self, op: &DevOp, now: f64) -> f64 {
        let i = usize::from(op.dir != IoDir::Read);
        let p = self.p.dir(op.dir);
        let mut cost = 0.0f64;
        if p.max_iops > 0.0 {
            cost = cost.max(1e9 / p.max_iops);
        }
        if p.max_bytes_per_sec > 0.0 {
            cost = cost.max(op.len as f64 / p.max_bytes_per_sec * 1e9);
        }
        if cost == 0.0 {
            return 0.0;
        }
        let win = p.cap_window_us * 1e3;
        if win <= 0.0 {
            let start = self.bucket[i].max(now);
            self.bucket[i] = start + cost;
            return start - now;
        }
        let used = self.bucket[i].max((now / win).floor() * win) + cost;
        self.bucket[i] = used;
        // Budget up to the end of window k is (k + 1)·win: the command goes in the first
        // window whose end covers what has been used.
        let at = ((used / win).ceil() - 1.0).max(0.0) * win;
        (at - now).max(0.0)
    }

    /// The host stage the simulator runs before this device (`None` when no direction has
    /// one): [`DirProfile::host_us`] per direction, the smaller overlap of the two.
    pub fn host(p: &DeviceProfile) -> Option<crate::sim::HostCpu> {
        let cpu = |d: &DirProfile| d.host_us > 0.0 || !d.host_us_by_size.is_empty();
        let none = |d: &DirProfile| !cpu(d) && d.host_idle_us <= 0.0;
        if none(&p.read) && none(&p.write) {
            return None;
        }
        let par = [&p.read, &p.write]
            .iter()
            .filter(|d| cpu(d))
            .map(|d| d.host_parallel.max(1.0))
            .fold(f64::INFINITY, f64::min);
        Some(crate::sim::HostCpu {
            per_io_ns: [p.read.host_us * 1e3, p.write.host_us * 1e3],
            by_size_us: [p.read.host_us_by_size.clone(), p.write.host_us_by_size.clone()],
            idle_ns: [p.read.host_idle_us * 1e3, p.write.host_idle_us * 1e3],
            parallel: if par.is_finite() { par } else { 1.0 },
        })
    }
}

impl Device for Profiled {
    fn name(&self) -> &str {
        &self.name
    }
    fn capacity(&self) -> u64 {
        self.p.capacity
    }
    fn servers(&self) -> usize {
        self.p.servers.max(1) as usize
    }
    fn service(&mut self, op: &DevOp, now: Nanos, busy: usize) -> Nanos {
        let jump = if self.continues_stream(op) {
            None
        } else {
            Some(op.offset.abs_diff(self.last_pos) as f64 / self.p.capacity.max(1) as f64)
        };
        let dp = self.p.dir(op.dir);
        let alone = dp.xfer_ns(op.len);
        let fixed = self.p.mean_service_ns(op.dir, op.len, jump) - alone;
        let parallel = dp.xfer_parallel_at(op.len);
        let xfer = if parallel > 0.0 { alone * (1.0 + busy as f64 / parallel) } else { alone };
        // Delays measured at this depth (interrupts, preemption, rotation, queueing) scale
        // the fixed part, which the commands in service stretch; the transfer is shared
        // among them by `xfer_parallel` (and the caps).
        let shape = dp.shape_at(busy);
        let draw = quantile(shape, self.rng.next_f64()) / shape_mean(shape);
        let stretch = (1.0 + busy as f64 / f64::from(dp.servers.max(1))) * dp.stretch_at(busy);
        let mix = 1.0 + self.p.mix_stretch * self.other_share(op.dir);
        let svc = self.with_stalls(op.dir, busy, now.0 as f64, fixed * draw * stretch * mix + xfer);
        let wait = self.admit(op, now.0 as f64);
        // The submit call does the part of the service the caps did not hold back (a command
        // held by a window returns from the call at once and is served after it).
        let share = self.p.submit_share[usize::from(op.dir != IoDir::Read)];
        self.last_block = share * (svc - wait).max(0.0);
        let end = op.offset.saturating_add(op.len);
        self.last_pos = end;
        self.ends[self.next_slot] = (end, op.dir != IoDir::Read);
        self.next_slot = (self.next_slot + 1) % STREAMS;
        self.recent[self.next_slot % MIX_WINDOW] = Some(op.dir != IoDir::Read);
        // The caps and the service run side by side: a command completes when its service
        // is done and the bucket has let it through (a QD1 service time fitted on a capped
        // device already holds the cap; adding them would count it twice).
        Nanos(wait.max(svc).max(0.0) as u64)
    }
    fn submit_block(&self) -> Option<Nanos> {
        (self.p.submit_share.iter().any(|&s| s > 0.0)).then_some(Nanos(self.last_block as u64))
    }
}

/// An HDD preset's command queueing as per-depth stretches of the profile's fixed part:
/// with `d` commands in service each takes `F·s(d) + X·d` (its transfer shared with the
/// others), so the drive's random 4 KiB IOPS at depth `d`, `I(d)`
/// ([`super::hdd::queued_read_iops`]), needs `s(d) = (d/I(d) − X·d) / (1/I(1) − X)`, `X` the
/// 4 KiB transfer; at depths 1, 2, 4, … and `ncq_depth`, each with the QD1 `shape`. None for
/// a drive that does not reorder.
fn queue_stretches(p: &HddParams, rate: f64, shape: &[[f64; 2]]) -> Vec<DepthShape> {
    let ncq = p.ncq_depth.clamp(1, 65536);
    if ncq == 1 {
        return Vec::new();
    }
    let x = 4096.0 / rate.max(1.0);
    let mut depths: Vec<usize> = (0..17).map(|k| 1usize << k).take_while(|&d| d < ncq).collect();
    depths.push(ncq);
    let iops = |d| super::hdd::queued_read_iops(p, d, 2000);
    let one = iops(1);
    let unit = (1.0 / one - x).max(1e-9);
    depths
        .iter()
        .map(|&d| {
            let n = d as f64;
            let stretch =
                if d == 1 { 1.0 } else { ((n / iops(d) - x * n) / unit).clamp(1e-3, 1e3) };
            DepthShape {
                depth: d as u32,
                stretch,
                shape: shape.to_vec(),
                stall_rate_hz: 0.0,
                stall_us: Vec::new(),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn round_trip_and_unknown_key_names_line() {
        let p = DeviceProfile::from_hdd("hdd-7200", &HddParams::sata_7200_1tb());
        let text = p.to_toml().unwrap();
        assert_eq!(DeviceProfile::from_toml(&text, "p.toml").unwrap(), p);
        let bad = text.replacen("[read]\n", "[read]\nbogus = 1\n", 1);
        let line = bad.lines().position(|l| l == "bogus = 1").unwrap() + 1;
        let e = DeviceProfile::from_toml(&bad, "p.toml").unwrap_err().to_string();
        assert!(e.contains(&format!("line {line}")) && e.contains("bogus"), "{e}");
    }

    #[test]
    fn hand_edited_values_beyond_any_device_are_refused_by_key() {
        let text = DeviceProfile::from_ssd("s", &SsdParams::sata()).to_toml().unwrap();
        let edit = |key: &str, to: &str| {
            let mut out = String::new();
            let mut done = false;
            for l in text.lines() {
                if !done && l.split('=').next().is_some_and(|k| k.trim() == key) {
                    out.push_str(&format!("{key} = {to}\n"));
                    done = true;
                } else {
                    out.push_str(l);
                    out.push('\n');
                }
            }
            assert!(done, "{key} not in the profile");
            DeviceProfile::from_toml(&out, "p.toml").map(|_| ()).map_err(|e| e.to_string())
        };
        let e = edit("base_us", "1e300").unwrap_err();
        assert!(e.contains("[read] base_us = 1e300: expected 0e0 to 1e9"), "{e}");
        let e = edit("max_iops", "1e-300").unwrap_err();
        assert!(e.contains("[read] max_iops = 1e-300: expected 0 or 1e-3 to 1e15"), "{e}");
        let e = edit("write_cache", "\"bogus\"").unwrap_err();
        assert!(e.contains("write_cache = \"bogus\": expected"), "{e}");
        // What a read-only calibration writes (`fit`): its profile must load for --predict.
        edit("write_cache", "\"not measured\"").unwrap();
        let e = edit("xfer_bytes_per_sec", "1e-300").unwrap_err();
        assert!(e.contains("[read] xfer_bytes_per_sec = 1e-300"), "{e}");
        let e = edit("host_idle_us", "-1").unwrap_err();
        assert!(e.contains("[read] host_idle_us = -1e0"), "{e}");
        edit("max_iops", "0").unwrap();
        edit("base_us", "1e9").unwrap();
    }

    #[test]
    fn draws_keep_the_mean_and_the_shape() {
        let mut p = DeviceProfile::from_ssd("s", &SsdParams::sata());
        p.read.shape = vec![[0.0, 0.5], [0.5, 1.0], [0.99, 2.0], [1.0, 4.0]];
        // Every command starts at time 0 here: no cap, or the bucket would queue them.
        p.read.max_bytes_per_sec = 0.0;
        // The shape scales the fixed part only; make the transfer negligible here.
        p.read.xfer_bytes_per_sec = 1e15;
        let mut d = Profiled::new("s", p);
        let op = DevOp { dir: IoDir::Read, offset: 1 << 30, len: 4096 };
        let mut v: Vec<f64> = (0..20_000)
            .map(|i| {
                d.service(&DevOp { offset: op.offset + (i % 7) * 8192, ..op }, Nanos::ZERO, 0).0
                    as f64
            })
            .collect();
        let mean = v.iter().sum::<f64>() / v.len() as f64;
        assert!((mean / 85_000.0 - 1.0).abs() < 0.02, "{mean}");
        v.sort_by(f64::total_cmp);
        let (p50, p99) = (v[10_000], v[19_800]);
        assert!((p99 / p50 - 2.0).abs() < 0.05, "{p50} {p99}");
    }

    #[test]
    fn transfers_follow_the_measured_sizes_as_a_power_law() {
        let mut p = DeviceProfile::from_ssd("s", &SsdParams::sata()).read;
        p.xfer_us = vec![[4096.0, 2.0], [65536.0, 20.0], [1048576.0, 800.0]];
        // On the points, between them (256 KiB: 20·40^0.5 µs), below and above them.
        assert!((p.xfer_ns(65536) - 20_000.0).abs() < 1e-6);
        assert!((p.xfer_ns(262_144) - 20_000.0 * 40f64.sqrt()).abs() < 1e-3);
        assert!((p.xfer_ns(2048) - 1_000.0).abs() < 1e-6);
        assert!((p.xfer_ns(4 << 20) - 3_200_000.0).abs() < 1e-3);
        p.xfer_us.clear();
        assert!((p.xfer_ns(4096) - 4096.0 / p.xfer_bytes_per_sec * 1e9).abs() < 1e-9);
    }

    #[test]
    fn transfer_sharing_follows_the_measured_sizes() {
        let mut p = DeviceProfile::from_ssd("s", &SsdParams::sata());
        p.read.xfer_parallel = 2.0;
        assert_eq!(p.read.xfer_parallel_at(65536), 2.0, "no per-size points: the one value");
        p.read.xfer_parallel_by_size = vec![[65536.0, 0.5], [1048576.0, 2.5]];
        // On the points, between them (256 KiB: half-way in log2 size), outside them.
        assert_eq!(p.read.xfer_parallel_at(65536), 0.5);
        assert!((p.read.xfer_parallel_at(262_144) - 1.5).abs() < 1e-12);
        assert_eq!((p.read.xfer_parallel_at(4096), p.read.xfer_parallel_at(4 << 20)), (0.5, 2.5));
        // Two 64 KiB transfers side by side: the second takes 1 + 1/0.5 times as long.
        p.read.max_bytes_per_sec = 0.0;
        p.read.base_us = 0.0;
        p.read.xfer_bytes_per_sec = 65536.0 / 20e-6;
        let mut d = Profiled::new("s", p.clone());
        let op = DevOp { dir: IoDir::Read, offset: 1 << 30, len: 65536 };
        assert_eq!(d.service(&op, Nanos::ZERO, 1).0, 60_000);
        // Read back from TOML: the same profile; an old profile without the key loads.
        let text = p.to_toml().unwrap();
        assert!(text.contains("xfer_parallel_by_size = [[65536.0, 0.5], [1048576.0, 2.5]]"));
        assert_eq!(DeviceProfile::from_toml(&text, "p.toml").unwrap(), p);
        let old = text.replace("xfer_parallel_by_size = [[65536.0, 0.5], [1048576.0, 2.5]]\n", "");
        let back = DeviceProfile::from_toml(&old, "p.toml").unwrap();
        assert_eq!(back.read.xfer_parallel_at(65536), 2.0);
    }

    #[test]
    fn host_cost_follows_the_measured_sizes() {
        let mut p = DeviceProfile::from_ssd("s", &SsdParams::sata());
        p.read.host_us = 3.0;
        assert_eq!(Profiled::host(&p).unwrap().cost_ns(0, 1 << 20), 3_000.0, "no knots: host_us");
        p.read.host_us_by_size = vec![[4096.0, 2.0], [65536.0, 32.0], [1048576.0, 64.0]];
        let h = Profiled::host(&p).unwrap();
        // The first point's cost below it, straight lines between (8 KiB: 2 + 30·4/60 µs;
        // 256 KiB: 32 + 32·192/960), the last line carried on above (2 MiB: 64 + 32·1024/960);
        // writes keep their flat host_us (0).
        assert_eq!((h.cost_ns(0, 512), h.cost_ns(0, 4096)), (2_000.0, 2_000.0));
        assert!((h.cost_ns(0, 8192) - 4_000.0).abs() < 1e-6);
        assert!((h.cost_ns(0, 262_144) - 38_400.0).abs() < 1e-6);
        assert!((h.cost_ns(0, 2 << 20) - (64.0 + 32.0 * 1024.0 / 960.0) * 1e3).abs() < 1e-6);
        assert_eq!(h.cost_ns(1, 4096), 0.0);
        // Read back from TOML: the same profile; a profile without the key loads.
        let text = p.to_toml().unwrap();
        assert!(text.contains("host_us_by_size = [[4096.0, 2.0], [65536.0, 32.0]"), "{text}");
        assert_eq!(DeviceProfile::from_toml(&text, "p.toml").unwrap(), p);
        p.read.host_us_by_size.clear();
        assert!(!p.to_toml().unwrap().lines().any(|l| l.starts_with("host_us_by_size")));
    }

    #[test]
    fn depth_stretch_is_interpolated_in_log_depth() {
        let mut p = DeviceProfile::from_ssd("s", &SsdParams::sata()).read;
        let d = |depth: u32, stretch: f64| DepthShape {
            depth,
            stretch,
            shape: vec![[0.0, 1.0], [1.0, 1.0]],
            stall_rate_hz: 0.0,
            stall_us: Vec::new(),
        };
        assert_eq!(p.stretch_at(7), 1.0, "no entries: no stretch");
        p.depth_shapes = vec![d(1, 1.0), d(4, 2.0), d(16, 1.0)];
        assert!((p.stretch_at(7) - 1.5).abs() < 1e-12, "QD8: half-way from 4 to 16 in log2");
        assert!((p.stretch_at(1) - 1.5).abs() < 1e-12, "QD2: half-way from 1 to 4");
        assert_eq!((p.stretch_at(3), p.stretch_at(1000)), (2.0, 1.0));
    }

    #[test]
    fn reads_among_writes_take_mix_stretch_longer() {
        let mut p = DeviceProfile::from_ssd("s", &SsdParams::sata());
        p.read.max_bytes_per_sec = 0.0;
        p.write.max_bytes_per_sec = 0.0;
        p.read.xfer_bytes_per_sec = 1e15;
        p.mix_stretch = 0.5;
        let mut d = Profiled::new("s", p);
        let at = |off: u64, dir| DevOp { dir, offset: off << 20, len: 4096 };
        let alone = d.service(&at(1, IoDir::Read), Nanos::ZERO, 0).0 as f64;
        for i in 0..MIX_WINDOW as u64 {
            let dir = if i % 2 == 0 { IoDir::Write } else { IoDir::Read };
            d.service(&at(10 + i, dir), Nanos::ZERO, 0);
        }
        // The last 8 commands: 4 writes, 4 reads (the first read fell out of the window).
        let mixed = d.service(&at(40, IoDir::Read), Nanos::ZERO, 0).0 as f64;
        assert!((mixed / alone - 1.25).abs() < 0.01, "{alone} {mixed}");
    }

    #[test]
    fn new_keys_are_range_checked() {
        let p = DeviceProfile::from_ssd("s", &SsdParams::sata());
        let text = p.to_toml().unwrap();
        let by_size = |v: &str| {
            text.replacen("[write]\n", &format!("[write]\nxfer_parallel_by_size = {v}\n"), 1)
        };
        let host =
            |v: &str| text.replacen("[read]\n", &format!("[read]\nhost_us_by_size = {v}\n"), 1);
        for (bad, key) in [
            (text.replacen("servers = ", "mix_stretch = nan\nservers = ", 1), "mix_stretch"),
            (text.replacen("servers = ", "mix_stretch = -1\nservers = ", 1), "mix_stretch"),
            (text.replacen("servers = ", "mix_stretch = 1e300\nservers = ", 1), "mix_stretch"),
            (
                text.replacen("[read]\n", "[read]\nxfer_us = [[65536.0, 2.0], [4096.0, 3.0]]\n", 1),
                "xfer_us",
            ),
            (text.replacen("[read]\n", "[read]\nxfer_us = [[4096.0, -2.0]]\n", 1), "xfer_us"),
            (text.replacen("[read]\n", "[read]\nxfer_us = [[4096.0, nan]]\n", 1), "xfer_us"),
            (by_size("[[65536.0, nan]]"), "xfer_parallel_by_size"),
            (by_size("[[65536.0, inf]]"), "xfer_parallel_by_size"),
            (by_size("[[65536.0, -1.0]]"), "xfer_parallel_by_size"),
            (by_size("[[65536.0, 0.0]]"), "xfer_parallel_by_size"),
            (by_size("[[1048576.0, 2.0], [65536.0, 1.0]]"), "xfer_parallel_by_size"),
            (by_size("[[nan, 2.0]]"), "xfer_parallel_by_size"),
            (host("[[4096.0, nan]]"), "host_us_by_size"),
            (host("[[4096.0, 0.0]]"), "host_us_by_size"),
            (host("[[4096.0, 1e300]]"), "host_us_by_size"),
            (host("[[65536.0, 9.0], [4096.0, 2.0]]"), "host_us_by_size"),
        ] {
            let e = DeviceProfile::from_toml(&bad, "p.toml").unwrap_err().to_string();
            assert!(e.contains(key) && e.contains("p.toml"), "{e}");
        }
    }
}
