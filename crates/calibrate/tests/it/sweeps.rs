//! Integration tests of iolab-calibrate: a calibration of a small file within a small
//! budget, the same on a loop device over tmpfs (root), determinism of fit and prediction,
//! and the profile file's strictness. Real targets come from
//! iolab-test-support (probe and skip).
#![allow(clippy::unwrap_used)]

use iolab_test_support::{or_skip, quick_tier, TmpfsLoop, Zram};

use iolab_calibrate::fit;
use iolab_calibrate::predict::predict;
use iolab_calibrate::{calibrate, CalibrateOptions};
use iolab_core::IoDir;
use iolab_model::device::profile::DeviceProfile;
use iolab_model::device::DeviceSpec;
use std::path::PathBuf;

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("iolab-cal-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The sweeps' budget here: 21 points and their set-up. Each point's overhead beyond its run
/// is ~0.05 s idle but reached ~0.5 s with another test suite on the 2 cores (load 3.8), where
/// 5-6 s ran out after 10 points; 10 s held that, but at load 8 (four compilers beside it,
/// CPU pressure 95 %) one calibration in three ran out with 3 points left ("7.5 s spent;
/// 3 points left need 1.2 s more"): 13 s holds that.
const BUDGET: f64 = 13.0;

fn small_opts(budget: f64) -> CalibrateOptions {
    CalibrateOptions { budget_secs: budget, new_file_size: 16 << 20, ..CalibrateOptions::default() }
}

#[test]
fn calibrates_a_new_file_within_its_budget_and_removes_it() {
    let Some(()) = or_skip(quick_tier("a real-I/O calibration sweep")) else { return };
    let _quiet = crate::measuring();
    let dir = scratch("file");
    let target = dir.join("cal.dat");
    let pressure = iolab_test_support::CpuPressure::start();
    let cal = calibrate(&target, &small_opts(BUDGET)).unwrap();
    // QD1 IOPS include the thread's time between commands, which a busy host's scheduler
    // sets (11k measured beside a compile where the 29 µs median alone gives 34k): the IOPS
    // checks need a quiet host; the median latency is checked either way.
    let busy = pressure.map_or(Some("no /proc/pressure/cpu".to_string()), |p| p.busy(0.25));
    crate::within_budget(&cal, BUDGET);
    assert_eq!(cal.measured.len(), 21, "11 read, 9 write points and the 50/50 one");
    assert!(cal.measured.iter().all(|m| m.m.ios > 0 && m.m.p50_us > 0.0));
    assert!(!target.exists(), "the file iolab created is removed");
    let p = &cal.profile;
    assert_eq!((p.capacity, p.points.len()), (16 << 20, 21));
    // The written profile reads back identically and predicts its own QD1 4 KiB point
    // within a factor of two on a quiet machine. Under CPU pressure the sweep's points are
    // measured on a machine that moves between them (beside two busy loops, load 9: 32 µs
    // measured, 96 µs fitted, 2026-11-29), so there the bound is the factor of four measured
    // then, which still catches a fit that lost the point (a unit slip is 1000x).
    let back = DeviceProfile::from_toml(&p.to_toml().unwrap(), "p.toml").unwrap();
    assert_eq!(&back, p);
    let qd1 =
        p.points.iter().find(|x| x.rw == "randread" && x.iodepth == 1 && x.bs == 4096).unwrap();
    let p50_ratio = qd1.predicted_p50_us / qd1.measured_p50_us;
    let within = if busy.is_none() { 0.5..2.0 } else { 0.25..4.0 };
    assert!(within.contains(&p50_ratio), "{qd1:?} (busy: {busy:?})");
    // The refinement simulates the full-span QD1 point until the profile reproduces it.
    let full = p
        .points
        .iter()
        .find(|x| x.rw == "randread" && x.iodepth == 1 && x.bs == 4096 && x.span == 16 << 20)
        .unwrap();
    match busy {
        None => {
            assert!(qd1.iops_error.abs() < 1.0, "{qd1:?}");
            assert!(full.iops_error.abs() < 0.15, "{full:?}");
        }
        Some(why) => iolab_test_support::skip(format!("QD1 IOPS checks: {why}")),
    }
    std::fs::remove_dir_all(dir).unwrap();
}

/// Long budgets measure each point in up to three segments, one per round over all the
/// points; short ones (the script's old 15 s, these tests' 10-12 s) once, as before.
#[test]
fn long_budgets_measure_each_point_in_rounds() {
    use iolab_calibrate::sweep::rounds;
    assert_eq!([rounds(5.0, 20), rounds(12.0, 20), rounds(15.0, 20)], [1, 1, 1]);
    assert_eq!([rounds(30.0, 20), rounds(45.0, 20), rounds(60.0, 20)], [2, 3, 3]);
    assert_eq!(rounds(600.0, 20), 3, "at most three");
    assert_eq!(rounds(30.0, 10), 3, "a read-only sweep has half the points");
}

/// Two rounds of the 21 points: the eleven read points twice, then the 50/50 point and the
/// nine write points twice; no read segment after a write one.
#[test]
fn rounds_measure_all_reads_before_any_write() {
    use iolab_calibrate::sweep::{design_points, schedule};
    let points = design_points(true, 64);
    let plan = schedule(&points, 2);
    let reads: Vec<usize> = (0..11).collect();
    let writes: Vec<usize> = (11..21).collect();
    assert_eq!(plan, [&reads[..], &reads[..], &writes[..], &writes[..]].concat());
    assert!(points[11].mixed() && points[12..].iter().all(|p| p.dir() == IoDir::Write));
    assert_eq!(schedule(&points, 1), (0..21).collect::<Vec<_>>(), "one round: the design's order");
}

/// A point measured 9k, 38k and 16k IOPS in three segments (a neighbour's burst of I/O in
/// one, nothing in another) is the 16k segment; of two, the faster.
#[test]
fn a_point_is_its_median_segment() {
    let seg = |iops: f64| fit::Measured {
        point: iolab_calibrate::sweep::design_points(true, 64)[12],
        span: 1 << 28,
        m: iolab_calibrate::metrics::Metrics { ios: 1000, iops, ..Default::default() },
        shape: vec![[0.0, 1.0], [1.0, 1.0]],
        job: format!("[j]\n# {iops}\n"),
    };
    let median = iolab_calibrate::sweep::median_segment;
    let pick = median(vec![seg(9e3), seg(38e3), seg(16e3)]).unwrap();
    assert_eq!((pick.m.iops, pick.job.as_str()), (16e3, "[j]\n# 16000\n"));
    assert_eq!(median(vec![seg(9e3), seg(16e3)]).unwrap().m.iops, 16e3);
    assert_eq!(median(vec![seg(9e3)]).unwrap().m.iops, 9e3);
    assert!(median(Vec::new()).is_none());
}

/// A profile with a flat 10 µs read service (4 KiB transfers negligible).
fn flat_profile() -> DeviceProfile {
    let mut p = iolab_model::device::preset_profile("sata-ssd").unwrap();
    p.read.base_us = 10.0;
    p.read.seq_base_us = 10.0;
    p.read.max_bytes_per_sec = 0.0;
    p.read.xfer_bytes_per_sec = 1e9;
    p.servers = 64;
    p.read.servers = 64;
    p
}

fn read_job(bs: &str, depth: u32) -> Vec<iolab_job::Job> {
    let text = format!(
        "[j]\nioengine=libaio\nfilename=/nonexistent\nsize=64m\nrw=randread\nbs={bs}\niodepth={depth}\n\
         number_ios=4000\nnorandommap=1\n"
    );
    iolab_job::parse_str("j", &text).unwrap().jobs
}

#[test]
fn the_threads_round_trip_is_outside_the_latency() {
    let mut p = flat_profile();
    p.read.host_idle_us = 20.0;
    let r = predict(&read_job("4k", 1), &DeviceSpec::Profile(Box::new(p))).unwrap();
    let m = iolab_calibrate::metrics::of_group(&r.groups[0], IoDir::Read);
    // A command every 20 + 10 + 4 µs, each completing 14 µs after its submission.
    assert!((m.iops * 34e-6 - 1.0).abs() < 0.03, "{m:?}");
    assert!((m.p50_us - 14.1).abs() < 1.0, "{m:?}");
}

#[test]
fn transfers_beside_others_share_the_data_path() {
    let bw = |parallel: f64| {
        let mut p = flat_profile();
        p.read.xfer_parallel = parallel;
        let r = predict(&read_job("1m", 2), &DeviceSpec::Profile(Box::new(p))).unwrap();
        iolab_calibrate::metrics::of_group(&r.groups[0], IoDir::Read).bw_bytes
    };
    // Two 1 MiB transfers at 1 GB/s each side by side, then one at a time (with 10 µs fixed).
    let (alone, shared) = (bw(0.0), bw(1.0));
    assert!((alone / 2e9 - 1.0).abs() < 0.03, "{alone}");
    assert!((shared / 1e9 - 1.0).abs() < 0.03, "{shared}");
}

#[test]
fn an_existing_file_is_read_only_without_allow_write() {
    let Some(()) = or_skip(quick_tier("a real-I/O calibration sweep")) else { return };
    let _quiet = crate::measuring();
    let dir = scratch("ro");
    let f = dir.join("data");
    std::fs::write(&f, vec![7u8; 8 << 20]).unwrap();
    // The test is about read-only, so the same budget as the other sweeps.
    let cal = calibrate(&f, &small_opts(BUDGET)).unwrap();
    assert!(cal.measured.iter().all(|m| m.point.dir() == IoDir::Read), "no write point");
    assert_eq!(cal.profile.write_cache, "not measured");
    assert_eq!(std::fs::read(&f).unwrap(), vec![7u8; 8 << 20], "the file is untouched");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn budgets_too_small_or_not_finite_are_refused() {
    let dir = scratch("budget");
    for b in [0.0, f64::NAN, 1e9, 0.5] {
        let e = calibrate(&dir.join("x"), &small_opts(b)).unwrap_err().to_string();
        assert!(e.starts_with("--budget="), "{b}: {e}");
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn fit_and_prediction_are_deterministic() {
    let Some(()) = or_skip(quick_tier("a real-I/O calibration sweep")) else { return };
    let _quiet = crate::measuring();
    let dir = scratch("det");
    let cal = calibrate(&dir.join("d.dat"), &small_opts(BUDGET)).unwrap();
    let again = fit::fit("x", cal.target.size, &cal.measured, 1, true);
    assert_eq!(again, fit::fit("x", cal.target.size, &cal.measured, 1, true));
    let jobs = iolab_job::parse_str(
        "j",
        "[j]\nioengine=libaio\nfilename=/nonexistent\nsize=16m\nrw=randrw\nbs=4k\niodepth=4\nnumber_ios=5000\n",
    )
    .unwrap()
    .jobs;
    let dev = DeviceSpec::Profile(Box::new(again));
    let (a, b) = (predict(&jobs, &dev).unwrap(), predict(&jobs, &dev).unwrap());
    assert_eq!(a.jobs[0].read.clat, b.jobs[0].read.clat);
    // One pass over the 4,096 blocks of the 16 MiB file (fio's random map ends it first).
    assert_eq!(a.jobs[0].read.total_ios + a.jobs[0].write.total_ios, 4096);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn calibrates_a_loop_device_over_tmpfs() {
    let Some(()) = or_skip(quick_tier("a real-I/O calibration sweep")) else { return };
    let _quiet = crate::measuring();
    let Some(t) = or_skip(TmpfsLoop::new(32)) else { return };
    let opts = CalibrateOptions { allow_write: true, allow_destroy: true, ..small_opts(BUDGET) };
    let cal = calibrate(t.device(), &opts).unwrap();
    crate::within_budget(&cal, BUDGET);
    assert!(cal.target.block_device && cal.profile.capacity == 32 << 20);
    // Memory behind the loop: QD1 4 KiB reads well under a millisecond.
    let qd1 = cal.profile.points.iter().find(|x| x.rw == "randread" && x.iodepth == 1).unwrap();
    assert!(qd1.measured_p50_us < 1000.0, "{qd1:?}");
}

#[test]
fn profile_files_reject_unknown_keys_with_the_line() {
    let p = iolab_model::device::preset_profile("hdd:10k").unwrap();
    let text = p.to_toml().unwrap().replacen("\ncapacity = ", "\nspeed = 3\ncapacity = ", 1);
    let line = text.lines().position(|l| l == "speed = 3").unwrap() + 1;
    let e = DeviceProfile::from_toml(&text, "x.toml").unwrap_err().to_string();
    assert!(e.contains(&format!("line {line}")) && e.contains("speed"), "{e}");
    let v2 = p.to_toml().unwrap().replacen("version = 1", "version = 2", 1);
    assert!(DeviceProfile::from_toml(&v2, "x.toml")
        .unwrap_err()
        .to_string()
        .contains("version = 2"));
}

/// Writes `mib` MiB to `dev` with `extra` job options through the engine.
fn write_through_engine(dev: &std::path::Path, mib: u64, extra: &str) {
    let text = format!(
        "[w]\nfilename={}\nrw=write\nbs=64k\nsize={mib}m\ndirect=1\nioengine=psync\n{extra}\n",
        dev.display()
    );
    let jobs = iolab_job::parse_str("w", &text).unwrap().jobs;
    let opts = iolab_engine::runner::RunOptions { allow_destroy: true, ..Default::default() };
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let out = iolab_engine::runner::run_jobs(&jobs, &opts, stop, None).unwrap();
    assert_eq!(out.result.jobs[0].write.io_bytes, mib << 20);
}

/// zram as the judge of iolab's data: `buffer_compress_percentage=50` compresses about 2:1 in
/// zram's own `mm_stat`, and `zero_buffers` pages are all stored as same-filled pages.
#[test]
fn zram_mm_stat_agrees_with_the_data_iolab_writes() {
    let Some(z) = or_skip(Zram::new(32)) else { return };
    write_through_engine(z.device(), 16, "buffer_compress_percentage=50\nrefill_buffers=1");
    let (orig, compr) = z.mm_stat().unwrap();
    let ratio = orig as f64 / compr.max(1) as f64;
    assert!((1.6..=2.6).contains(&ratio), "orig {orig} compr {compr}: ratio {ratio:.2}");
    drop(z);
    let Some(z) = or_skip(Zram::new(32)) else { return };
    write_through_engine(z.device(), 16, "zero_buffers=1");
    let s = std::fs::read_to_string(format!(
        "/sys/block/{}/mm_stat",
        z.device().file_name().unwrap().to_string_lossy()
    ))
    .unwrap();
    let same_pages: u64 = s.split_whitespace().nth(5).unwrap().parse().unwrap();
    assert_eq!(same_pages, (16 << 20) / 4096, "every zero page is same-filled: {s}");
}

/// A known device: 10 µs fixed reads and writes, transfers 2 / 20 / 800 µs at 4 KiB / 64 KiB /
/// 1 MiB (not a straight line), the fixed part 1.5 times longer at QD4 than M/M/c says, and
/// reads and writes slowing each other (`mix_stretch` 0.6).
fn known_device() -> DeviceProfile {
    let mut p = flat_profile();
    p.mix_stretch = 0.6;
    p.read.servers = 8;
    p.read.xfer_us = vec![[4096.0, 2.0], [65536.0, 20.0], [1048576.0, 800.0]];
    let depth = |d: u32, stretch: f64| iolab_model::device::profile::DepthShape {
        depth: d,
        stretch,
        shape: vec![[0.0, 1.0], [1.0, 1.0]],
        stall_rate_hz: 0.0,
        stall_us: Vec::new(),
    };
    p.read.depth_shapes = vec![depth(1, 1.0), depth(4, 1.5), depth(16, 1.0), depth(64, 1.0)];
    p.read.shape = vec![[0.0, 1.0], [1.0, 1.0]];
    p.write = p.read.clone();
    p.write.max_bytes_per_sec = 0.0;
    p
}

/// The whole sweep on a 256 MiB writable target "measured" on `truth` by the simulator
/// (0.25 s a point, seed 7).
fn known_sweep(truth: &DeviceSpec) -> Vec<fit::Measured> {
    let t = iolab_calibrate::target::Target {
        path: "/nonexistent-known".into(),
        size: 256 << 20,
        created: false,
        block_device: false,
        writable: true,
    };
    iolab_calibrate::sweep::design_points(true, 64)
        .iter()
        .map(|p| {
            let job = iolab_calibrate::sweep::point_job(&t, p, 0.25, 7);
            let jobs = iolab_job::parse_str("p", &job).unwrap().jobs;
            let r = predict(&jobs, truth).unwrap();
            fit::measured(*p, &r, &job, iolab_calibrate::sweep::span(&t, p)).unwrap()
        })
        .collect()
}

/// The sweep "measured" on the known device by the simulator, then fitted: the fit recovers
/// the per-size transfer curve, the QD4 stretch and the read/write interaction well enough
/// to predict jobs the sweep did not run.
#[test]
fn the_fit_recovers_size_depth_and_mix_terms_of_a_known_device() {
    let truth = DeviceSpec::Profile(Box::new(known_device()));
    let cap = 256u64 << 20;
    let ms = known_sweep(&truth);
    assert_eq!(ms.len(), 21, "11 read, 9 write points and the 50/50 one");
    let fitted = fit::fit("known", cap, &ms, 1, true);
    assert!((fitted.mix_stretch - 0.6).abs() < 0.2, "mix_stretch {}", fitted.mix_stretch);
    let iops = |dev: &DeviceSpec, text: &str| {
        let job = format!(
            "[j]\nioengine=libaio\nfilename=/nonexistent-known\nsize=256m\nnorandommap=1\n{text}"
        );
        let r = predict(&iolab_job::parse_str("j", &job).unwrap().jobs, dev).unwrap();
        iolab_calibrate::metrics::of_group(&r.groups[0], IoDir::Read).iops
    };
    let fitted = DeviceSpec::Profile(Box::new(fitted));
    for job in [
        // 256 KiB: between the swept sizes (a straight line through them is off by 2x here).
        "rw=randread\nbs=256k\niodepth=1\nnumber_ios=2000\n",
        // QD8: between the swept depths 4 and 16.
        "rw=randread\nbs=4k\niodepth=8\nnumber_ios=20000\n",
        // A 70/30 mix at QD4: not the sweep's 50/50 at QD8.
        "rw=randrw\nrwmixread=70\nbs=4k\niodepth=4\nnumber_ios=20000\n",
    ] {
        let (want, got) = (iops(&truth, job), iops(&fitted, job));
        assert!((got / want - 1.0).abs() < 0.1, "{job}: truth {want:.0} IOPS, fitted {got:.0}");
    }
}

/// The known device's sweep with its QD1 64 KiB read point disturbed (three times as slow, as
/// a neighbour's burst of I/O made one on a shared machine): the fitted 64 KiB transfer is
/// held to the whole time of the 128 KiB sequential point (a transfer never takes longer
/// than a command of more bytes), instead of what the disturbed point alone gives (its time
/// less the 4 KiB point's fixed part).
#[test]
fn a_disturbed_size_point_is_held_to_what_larger_points_took() {
    let truth = DeviceSpec::Profile(Box::new(known_device()));
    let cap = 256u64 << 20;
    let mut ms = known_sweep(&truth);
    let at = |ms: &[fit::Measured], rw: &str, bs: u64| {
        ms.iter().position(|m| m.point.rw == rw && m.point.bs == bs && m.point.iodepth == 1)
    };
    let i64k = at(&ms, "randread", 65536).unwrap();
    ms[i64k].m.iops /= 3.0;
    ms[i64k].m.mean_us *= 3.0;
    let slow_us = ms[i64k].m.mean_us;
    let seq = &ms[at(&ms, "read", 128 << 10).unwrap()].m;
    let seq_us = seq.mean_us.min(1e6 / seq.iops);
    let fitted = fit::fit("known", cap, &ms, 1, true);
    let knot = fitted.read.xfer_us.iter().find(|k| k[0] == 65536.0).unwrap()[1];
    assert!(knot <= seq_us * 1.001, "64 KiB transfer {knot:.1} µs, 128 KiB sequential {seq_us:.1}");
    assert!(knot < 0.8 * slow_us, "not the disturbed point's: {knot:.1} of {slow_us:.1} µs");
}

/// The known device with mid-size transfers sharing the data path far worse than large ones
/// (`xfer_parallel_by_size`: 0.6 at 64 KiB, 2 at 1 MiB), as the ext4 file on this VM's
/// virtio disk measured (64 KiB reads at QD8 about 1.2 GB/s, sequential 1 MiB at QD16 twice
/// their QD1 rate).
fn size_sharing_device() -> DeviceProfile {
    let mut p = known_device();
    p.read.xfer_parallel = 2.0;
    p.read.xfer_parallel_by_size = vec![[65536.0, 0.6], [1048576.0, 2.0]];
    p
}

/// The sweep's deep random 64 KiB point recovers the mid-size sharing beside the deep 1 MiB
/// point's, and a mid-size deep job the sweep did not run (128 KiB random reads at QD4,
/// between the two sizes and their depths) is predicted within 10 %; the one `xfer_parallel`
/// of the 1 MiB point alone predicts it more than 30 % too fast.
#[test]
fn the_fit_recovers_size_dependent_transfer_sharing() {
    let truth_profile = size_sharing_device();
    let truth = DeviceSpec::Profile(Box::new(truth_profile.clone()));
    let ms = known_sweep(&truth);
    let fitted = fit::fit("known", 256 << 20, &ms, 1, true);
    let knots = &fitted.read.xfer_parallel_by_size;
    assert_eq!(knots.len(), 2, "{knots:?}");
    assert_eq!((knots[0][0], knots[1][0]), (65536.0, 1048576.0));
    assert!((knots[0][1] / 0.6 - 1.0).abs() < 0.1, "64 KiB sharing {knots:?}");
    assert!((knots[1][1] / 2.0 - 1.0).abs() < 0.1, "1 MiB sharing {knots:?}");
    assert!(fitted.write.xfer_parallel_by_size.is_empty(), "no deep 64 KiB write point");
    let iops = |p: &DeviceProfile| {
        let job = "[j]\nioengine=libaio\nfilename=/nonexistent-known\nsize=256m\nnorandommap=1\n\
                   rw=randread\nbs=128k\niodepth=4\nnumber_ios=4000\n";
        let dev = DeviceSpec::Profile(Box::new(p.clone()));
        let r = predict(&iolab_job::parse_str("j", job).unwrap().jobs, &dev).unwrap();
        iolab_calibrate::metrics::of_group(&r.groups[0], IoDir::Read).iops
    };
    let (want, got) = (iops(&truth_profile), iops(&fitted));
    assert!((got / want - 1.0).abs() < 0.1, "truth {want:.0} IOPS, fitted {got:.0}");
    let mut one = fitted.clone();
    one.read.xfer_parallel_by_size.clear();
    let without = iops(&one);
    assert!(without / want > 1.3, "truth {want:.0} IOPS, one xfer_parallel {without:.0}");
}

/// The sweep of a device whose sharing does not depend on size, its deep 64 KiB point
/// measured 1.6 times as fast (as a moment of the host's faster data path gave some
/// calibrations of the ext4 file): the fitted 64 KiB sharing is held to the 1 MiB point's,
/// not the disturbed point's (which alone gives well over twice that).
#[test]
fn a_fast_mid_size_point_shares_no_better_than_the_large_one() {
    let mut truth = known_device();
    truth.read.xfer_parallel = 1.0;
    let truth = DeviceSpec::Profile(Box::new(truth));
    let mut ms = known_sweep(&truth);
    let i = ms
        .iter()
        .position(|m| m.point.rw == "randread" && m.point.bs == 65536 && m.point.iodepth > 1)
        .unwrap();
    ms[i].m.iops *= 1.6;
    ms[i].m.mean_us /= 1.6;
    let fitted = fit::fit("known", 256 << 20, &ms, 1, true);
    let knots = &fitted.read.xfer_parallel_by_size;
    assert_eq!(knots.len(), 2, "{knots:?}");
    assert!(knots[0][1] <= knots[1][1], "64 KiB above 1 MiB: {knots:?}");
    assert!((knots[1][1] - 1.0).abs() < 0.1, "1 MiB sharing {knots:?}");
}

/// The known device behind blk-throttle-style caps: 3000 read / 2000 write IOPS in 100 ms
/// windows, no mixing slow-down.
fn known_throttled() -> DeviceProfile {
    let mut known = known_device();
    known.mix_stretch = 0.0;
    for (d, iops) in [(&mut known.read, 3000.0), (&mut known.write, 2000.0)] {
        d.max_iops = iops;
        d.cap_window_us = 100_000.0;
    }
    known
}

/// The simulated median read latency of the job `text` (a job section's lines) on `p`.
fn read_p50(p: &DeviceProfile, text: &str) -> f64 {
    let job = format!(
        "[j]\nioengine=libaio\nfilename=/nonexistent-known\nsize=256m\nnorandommap=1\n{text}"
    );
    let dev = DeviceSpec::Profile(Box::new(p.clone()));
    let r = predict(&iolab_job::parse_str("j", &job).unwrap().jobs, &dev).unwrap();
    iolab_calibrate::metrics::of_group(&r.groups[0], IoDir::Read).p50_us
}

/// The known device behind a blkio-style throttle (3000 read / 2000 write IOPS in 100 ms
/// windows): the caps set every deep point's IOPS, so the fit moves the device's terms by
/// what the simulated median latency missed, and the medians of jobs the sweep did not run
/// (most of their commands pass a window at the device's speed) come out of the profile.
#[test]
fn behind_a_throttle_the_fit_reproduces_the_median_latency() {
    let known = known_throttled();
    let ms = known_sweep(&DeviceSpec::Profile(Box::new(known.clone())));
    let fitted = fit::fit("known-throttled", 256 << 20, &ms, 1, true);
    // A 0.25 s point spans 2.5 windows, each admitting its whole budget at once.
    assert!((fitted.read.max_iops / 3000.0 - 1.0).abs() < 0.15, "cap {}", fitted.read.max_iops);
    // (job, tolerance): behind a throttle one c serves every depth, so the truth's 1.5x
    // stretch at QD4 shows between the swept depths (its QD8 p50 comes out ~18 % low); the
    // deepest point pins c (without the median's refinement QD32 came out 16.5 % low).
    for (job, tol) in [
        ("rw=randread\nbs=4k\niodepth=8\nnumber_ios=6000\n", 0.25),
        ("rw=randread\nbs=8k\niodepth=2\nnumber_ios=6000\n", 0.1),
        ("rw=randread\nbs=4k\niodepth=32\nnumber_ios=12000\n", 0.1),
    ] {
        let (want, got) = (read_p50(&known, job), read_p50(&fitted, job));
        assert!((got / want - 1.0).abs() < tol, "{job}: truth p50 {want:.1} µs, fitted {got:.1}");
    }
}

/// The known device behind the same throttle, its transfers 2 GB/s (linear in size, as the
/// throttled fit's per-byte transfer is) and sharing the data path as one (`xfer_parallel`
/// 0.8 at every size, as the loop over a disk file on this VM shares 64 KiB reads, p ≈
/// 0.9–1.1 in its unthrottled calibrations): the deep sequential 1 MiB point sits
/// on the bandwidth cap, but the deep random 64 KiB read point's median is the device's
/// (a window's budget goes at the device's speed), so the fit's 64 KiB sharing comes from it
/// and the medians of larger commands at depth come out of the profile: sequential 64 KiB
/// at QD2 and random 128 KiB at QD4 within 15 % of the truth's, where the fit without
/// the sharing (transfers not shared) is more than 25 % low.
#[test]
fn behind_a_throttle_the_deep_64k_median_gives_the_transfer_sharing() {
    let mut known = known_throttled();
    for d in [&mut known.read, &mut known.write] {
        d.xfer_us.clear();
        d.xfer_bytes_per_sec = 2e9;
        d.xfer_parallel = 0.8;
    }
    let ms = known_sweep(&DeviceSpec::Profile(Box::new(known.clone())));
    let fitted = fit::fit("known-throttled", 256 << 20, &ms, 1, true);
    assert!(fitted.read.max_iops > 0.0, "the throttle is seen");
    let knots = fitted.read.xfer_parallel_by_size.clone();
    assert_eq!(knots.len(), 1, "{knots:?}");
    assert_eq!(knots[0][0], 65536.0);
    assert!((knots[0][1] / 0.8 - 1.0).abs() < 0.1, "64 KiB sharing {knots:?}");
    let mut unshared = fitted.clone();
    unshared.read.xfer_parallel_by_size.clear();
    for job in [
        "rw=read\nbs=64k\niodepth=2\nnumber_ios=3000\n",
        "rw=randread\nbs=128k\niodepth=4\nnumber_ios=3000\n",
    ] {
        let (want, got, without) =
            (read_p50(&known, job), read_p50(&fitted, job), read_p50(&unshared, job));
        assert!((got / want - 1.0).abs() < 0.15, "{job}: truth p50 {want:.1} µs, fitted {got:.1}");
        assert!(without / want < 0.75, "{job}: truth p50 {want:.1} µs, unshared {without:.1}");
    }
}

/// A CPU-bound device as zram on this VM measures: about 40 µs from submission to completion
/// however many commands are in service (the thread's wake-up, not work: no sharing), and
/// the submitting thread's CPU per I/O growing with the bytes, 2 / 16 / 90 µs at 4 KiB /
/// 64 KiB / 1 MiB (zram decompresses and copies in the submitting thread; its deep points ran
/// 445k IOPS at 4 KiB QD64 and 11k at 1 MiB QD16), two threads overlapping 1.6 times.
fn cpu_bound_device() -> DeviceProfile {
    let mut p = flat_profile();
    p.servers = 4096;
    p.mix_stretch = 0.0;
    p.read.servers = 4096;
    p.read.base_us = 40.0;
    p.read.seq_base_us = 40.0;
    p.read.xfer_bytes_per_sec = 1e12;
    p.read.shape = vec![[0.0, 1.0], [1.0, 1.0]];
    p.read.host_us = 2.0;
    p.read.host_parallel = 1.6;
    p.read.host_us_by_size = vec![[4096.0, 2.0], [65536.0, 16.0], [1048576.0, 90.0]];
    p.write = p.read.clone();
    p
}

/// The sweep of the CPU-bound device: the fit sees the thread's CPU holding the deep points
/// (two threads did 1.6 times one) and takes its cost per I/O at 4 KiB, 64 KiB and 1 MiB
/// from the deep points of each size, so jobs the sweep did not run whose size is not 4 KiB
/// come out within 10 % (random 8 KiB and 16 KiB at QD32, the bssplit 4k/64k/256k mix at
/// QD8, 256 KiB at QD4); the one `host_us` of the 4 KiB point (the device's sharing then
/// taking the 64 KiB point's slowness) predicts each more than 5 % fast (10–47 %; 12–40 %
/// before transfers were held to 4 times the fastest bytes the sweep moved, which gives the
/// 256 KiB job's transfers a share of its time in both profiles).
#[test]
fn the_fit_recovers_a_cpu_bound_devices_cost_per_io_by_size() {
    if std::thread::available_parallelism().map_or(1, |n| n.get()) < 2 {
        iolab_test_support::skip("one CPU: two threads cannot overlap (host_parallel ≤ cores)");
        return;
    }
    let truth = cpu_bound_device();
    let ms = known_sweep(&DeviceSpec::Profile(Box::new(truth.clone())));
    let fitted = fit::fit("known-cpu", 256 << 20, &ms, 1, true);
    let knots = fitted.read.host_us_by_size.clone();
    assert_eq!(knots.iter().map(|k| k[0]).collect::<Vec<_>>(), [4096.0, 65536.0, 1048576.0]);
    for (k, want) in knots.iter().zip([2.0, 16.0, 90.0]) {
        assert!((k[1] / want - 1.0).abs() < 0.1, "CPU per I/O {knots:?}");
    }
    let iops = |p: &DeviceProfile, text: &str| {
        let job = format!(
            "[j]\nioengine=libaio\nfilename=/nonexistent-known\nsize=256m\nnorandommap=1\n{text}"
        );
        let dev = DeviceSpec::Profile(Box::new(p.clone()));
        let r = predict(&iolab_job::parse_str("j", &job).unwrap().jobs, &dev).unwrap();
        iolab_calibrate::metrics::of_group(&r.groups[0], IoDir::Read).iops
    };
    let mut flat = fitted.clone();
    flat.read.host_us_by_size.clear();
    for job in [
        "rw=randread\nbs=8k\niodepth=32\nnumber_ios=40000\n",
        "rw=randread\nbssplit=4k/50:64k/30:256k/20\niodepth=8\nnumber_ios=20000\n",
        "rw=randread\nbs=256k\niodepth=4\nnumber_ios=4000\n",
        "rw=randread\nbs=16k\niodepth=32\nnumber_ios=40000\n",
    ] {
        let (want, got, one) = (iops(&truth, job), iops(&fitted, job), iops(&flat, job));
        assert!((got / want - 1.0).abs() < 0.1, "{job}: truth {want:.0} IOPS, fitted {got:.0}");
        println!("{job}: truth {want:.0} fitted {got:.0} one host_us {one:.0}");
        assert!(one / want > 1.05, "{job}: truth {want:.0} IOPS, one host_us {one:.0}");
    }
}

/// The newcomer review's throttled loop device (scenario 4): its I/O completed inside the
/// submit call, so every point's completion latency was the sub-µs tail of that call while
/// the total latency held the device's time, and the fit took 1.37 TB/s transfers and a
/// 0.34 µs fixed part from it. The known throttled device's sweep with each point's
/// completion latency cut to 0.3 µs that way (its total latency, IOPS and bandwidth as
/// measured): the fitted transfer moves bytes at most 4 times as fast as the sweep saw them
/// move, the QD1 4 KiB command takes at least half its measured total latency, and the
/// profile states its range and each point's latency error.
#[test]
fn a_sub_microsecond_completion_latency_fits_no_impossible_device() {
    let known = known_throttled();
    let mut ms = known_sweep(&DeviceSpec::Profile(Box::new(known)));
    for m in &mut ms {
        m.m.slat_p50_us = m.m.p50_us - 0.3;
        m.m.slat_mean_us = m.m.mean_us - 0.3;
        m.m.clat_p50_us = 0.3;
        m.m.clat_mean_us = 0.3;
    }
    let fitted = fit::fit("inline-throttled", 256 << 20, &ms, 1, true);
    for (dir, d) in [(IoDir::Read, &fitted.read), (IoDir::Write, &fitted.write)] {
        let best = fit::best_rate(&ms, dir);
        let most_bw = ms.iter().filter(|m| m.point.dir() == dir).map(|m| m.m.bw_bytes);
        assert!(best >= most_bw.fold(0.0, f64::max), "{dir:?}: best rate {best}");
        assert!(
            d.xfer_bytes_per_sec <= fit::XFER_BOUND * best * (1.0 + 1e-9),
            "{dir:?}: transfer {:.3e} B/s from a sweep whose bytes moved at most {best:.3e} B/s",
            d.xfer_bytes_per_sec
        );
        let qd1 = ms
            .iter()
            .find(|m| {
                m.point.dir() == dir
                    && m.point.random()
                    && m.point.bs == 4096
                    && m.point.iodepth == 1
                    && m.point.full_span
                    && m.point.numjobs == 1
            })
            .unwrap();
        let modelled = d.base_us + d.seek_sqrt_us * 8.0 / 15.0 + d.xfer_ns(4096) / 1e3;
        assert!(
            modelled >= 0.5 * qd1.m.p50_us - 1e-6,
            "{dir:?}: QD1 4 KiB modelled {modelled:.2} µs, measured total {:.2} µs",
            qd1.m.p50_us
        );
    }
    let read = fitted.valid.iter().find(|v| v.dir == "read").unwrap();
    assert_eq!((read.bs, read.depth), ([4096, 1 << 20], [1, 64]), "{read:?}");
    let top = ms.iter().filter(|m| m.point.dir() == IoDir::Read).map(|m| m.m.iops);
    assert_eq!(read.iops[1], top.fold(0.0, f64::max));
    let pts = fit::errors(&fitted, &ms).unwrap();
    let qd1 = pts.iter().find(|p| p.rw == "randread" && p.bs == 4096 && p.iodepth == 1).unwrap();
    let want = (qd1.predicted_p50_us - qd1.measured_p50_us) / qd1.measured_p50_us;
    assert!((qd1.p50_error - want).abs() < 1e-3, "{qd1:?}");
}

/// The known throttled device completing inside the submit call, as a loop device over
/// cached data does (the newcomer review's scenario 4): 95 % of a read's and 90 % of a
/// write's time is spent in the submit call when the command starts at once; a command a
/// window held returns from the call at once and waits after it. The sweep "measured" on it
/// carries that slat/clat split; the fit learns the split (`submit_share`) and predicts the
/// median slat, clat and total latency of jobs the sweep did not run within 15 % of the
/// truth's, where before every simulated command had slat N=0 and its clat was the total.
#[test]
fn the_fit_learns_how_much_of_a_command_the_submit_call_blocks() {
    let mut known = known_throttled();
    known.submit_share = [0.95, 0.9];
    let truth = DeviceSpec::Profile(Box::new(known));
    let ms = known_sweep(&truth);
    let qd1 = ms.iter().find(|m| {
        m.point.rw == "randread" && m.point.bs == 4096 && m.point.iodepth == 1 && m.point.full_span
    });
    let qd1 = qd1.unwrap();
    assert!(qd1.m.slat_p50_us > 5.0 * qd1.m.clat_p50_us, "the sweep shows it: {:?}", qd1.m);
    let fitted = fit::fit("inline", 256 << 20, &ms, 1, true);
    assert!((fitted.submit_share[0] - 0.95).abs() < 0.05, "{:?}", fitted.submit_share);
    assert!((fitted.submit_share[1] - 0.9).abs() < 0.05, "{:?}", fitted.submit_share);
    let fitted = DeviceSpec::Profile(Box::new(fitted));
    for (job, dir) in [
        ("rw=randread\nbs=8k\niodepth=1\nnumber_ios=3000\n", IoDir::Read),
        ("rw=randwrite\nbs=8k\niodepth=2\nnumber_ios=3000\n", IoDir::Write),
    ] {
        let text = format!(
            "[j]\nioengine=libaio\nfilename=/nonexistent-known\nsize=256m\nnorandommap=1\n{job}"
        );
        let jobs = iolab_job::parse_str("j", &text).unwrap().jobs;
        let of = |d: &DeviceSpec| {
            iolab_calibrate::metrics::of_group(&predict(&jobs, d).unwrap().groups[0], dir)
        };
        let (want, got) = (of(&truth), of(&fitted));
        for (name, w, g) in [
            ("lat p50", want.p50_us, got.p50_us),
            ("slat p50", want.slat_p50_us, got.slat_p50_us),
            ("clat p50", want.clat_p50_us, got.clat_p50_us),
        ] {
            assert!(
                w > 0.0 && (g / w - 1.0).abs() < 0.15,
                "{job}{name}: truth {w:.2}, fitted {g:.2}"
            );
        }
        assert!(got.slat_p50_us > 0.8 * got.p50_us, "{job}: {got:?}");
    }
}
