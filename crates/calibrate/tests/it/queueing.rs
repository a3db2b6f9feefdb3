//! Issue 32 item 5: a target whose random IOPS grow with the queue depth (an HDD reordering
//! its queue, NCQ) gets a profile that carries the growth. No disk is on this machine, so the
//! sweep's read points are measured on the simulated 7.2K SATA preset (NCQ 32, the curve
//! `hdd.rs` cites) through the same job text and result path as a real sweep
//! (`sweep::point_job`, `fit::measured`), fitted by `fit::fit`, and the profile's predictions
//! at QD 1, 4, 16 and 32 are held against the drive's own.

use iolab_calibrate::fit;
use iolab_calibrate::metrics;
use iolab_calibrate::predict::predict;
use iolab_calibrate::sweep::{design_points, point_job, span};
use iolab_calibrate::target::Target;
use iolab_core::IoDir;
use iolab_model::device::hdd::HddParams;
use iolab_model::device::DeviceSpec;
use std::path::PathBuf;

/// Random 4 KiB read IOPS of `dev` at `qd` over `size` bytes (fixed seed).
fn rand4k_iops(dev: &DeviceSpec, target: &Target, qd: u32) -> f64 {
    let job = format!(
        "[q]\nfilename={}\nrw=randread\nbs=4k\niodepth={qd}\nioengine=libaio\ndirect=1\n\
         size={}\nnorandommap=1\nrandseed=7\ntime_based=1\nruntime=20s\n",
        target.path.display(),
        target.size
    );
    let parsed = iolab_job::parse_str("q", &job).unwrap();
    let r = predict(&parsed.jobs, dev).unwrap();
    metrics::of_group(&r.groups[0], IoDir::Read).iops
}

#[test]
fn a_sweep_of_a_queueing_hdd_fits_a_profile_that_queues() {
    let hdd = DeviceSpec::Hdd(HddParams::sata_7200_1tb());
    // Never opened: the simulator lays the job's file out on the simulated device.
    let target = Target {
        path: PathBuf::from("/nonexistent-iolab-test/hdd"),
        size: hdd.capacity(),
        created: false,
        block_device: false,
        writable: false,
    };
    let mut measured = Vec::new();
    for p in design_points(false, 64) {
        let job = point_job(&target, &p, 4.0, 0x5eed);
        let parsed = iolab_job::parse_str("point", &job).unwrap();
        let r = predict(&parsed.jobs, &hdd).unwrap();
        measured.push(fit::measured(p, &r, &job, span(&target, &p)).unwrap());
    }
    let profile = fit::fit("sim-hdd", target.size, &measured, 0x5eed, false);
    let fitted = DeviceSpec::Profile(Box::new(profile));
    let depths = [1, 4, 16, 32];
    let drive: Vec<f64> = depths.iter().map(|&qd| rand4k_iops(&hdd, &target, qd)).collect();
    let pred: Vec<f64> = depths.iter().map(|&qd| rand4k_iops(&fitted, &target, qd)).collect();
    println!("random 4 KiB read IOPS at QD {depths:?}: drive {drive:?}, profile {pred:?}");
    assert!(drive[3] > 2.0 * drive[0], "the drive queues: {drive:?}");
    for (i, qd) in depths.iter().enumerate() {
        let err = pred[i] / drive[i] - 1.0;
        assert!(err.abs() <= 0.15, "QD{qd}: profile {:.0} against {:.0}", pred[i], drive[i]);
    }
}
