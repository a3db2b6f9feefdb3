//! The block I/O throttle the run is under: the limits its cgroup (and the cgroup's
//! ancestors) set on the devices serving its jobs. blk-throttle holds a throttled bio above
//! the request queue until the group's budget allows it (block/blk-throttle.c
//! `throtl_charge_bio`/`throtl_pending_timer_fn`), so the device's queue stays short however
//! many I/Os the job has in flight: a depth shortfall there is the throttle's, not the
//! device's, a filesystem's or the CPU's.
//!
//! Layouts: `/proc/self/cgroup` (cgroups(7): `ID:CONTROLLERS:PATH`, `0::PATH` for v2),
//! `/proc/self/mountinfo` (proc(5): root in field 4, mount point in field 5, super options
//! after the fs type and source), cgroup v1's `blkio.throttle.{read,write}_{iops,bps}_device`
//! (`MAJ:MIN VALUE` per line, Documentation/admin-guide/cgroup-v1/blkio-controller.rst) and
//! v2's `io.max` (`MAJ:MIN rbps=… wbps=… riops=… wiops=…`, `max` for none,
//! Documentation/admin-guide/cgroup-v2.rst).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// One throttle on one device: the cgroup directory that sets it and its limits.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Throttle {
    /// Kernel name of the throttled device (`loop3`).
    pub device: String,
    /// The cgroup directory whose file sets the limits (the run's group or an ancestor).
    pub cgroup: PathBuf,
    /// `(key, value)` in io.max's names: `riops`, `wiops` (I/Os per second), `rbps`, `wbps`
    /// (bytes per second); only limits that are set.
    pub limits: Vec<(String, u64)>,
}

impl Throttle {
    /// `riops=2000 wbps=31457280`.
    pub fn describe(&self) -> String {
        let l: Vec<String> = self.limits.iter().map(|(k, v)| format!("{k}={v}")).collect();
        l.join(" ")
    }
}

/// The throttles on `devices` (kernel names) that apply to this process, read from procfs
/// and sysfs; empty where there is none or nothing could be read.
pub fn read(devices: &[String]) -> Vec<Throttle> {
    let (Ok(cg), Ok(mi)) = (
        std::fs::read_to_string("/proc/self/cgroup"),
        std::fs::read_to_string("/proc/self/mountinfo"),
    ) else {
        return Vec::new();
    };
    let dirs = group_dirs(&cg, &mi);
    let mut out = Vec::new();
    for dev in devices {
        let Ok(mm) = std::fs::read_to_string(format!("/sys/class/block/{dev}/dev")) else {
            continue;
        };
        for (dir, v1) in &dirs {
            for d in dir.ancestors() {
                let limits = if *v1 { v1_limits(d, mm.trim()) } else { v2_limits(d, mm.trim()) };
                if !limits.is_empty() {
                    out.push(Throttle { device: dev.clone(), cgroup: d.to_path_buf(), limits });
                    break;
                }
            }
        }
    }
    out
}

/// The process's blkio (v1) and unified (v2) cgroup directories: `(dir, is_v1)`.
fn group_dirs(cgroup: &str, mountinfo: &str) -> Vec<(PathBuf, bool)> {
    let mut out = Vec::new();
    for line in cgroup.lines() {
        let mut f = line.splitn(3, ':');
        let (Some(_), Some(ctrl), Some(path)) = (f.next(), f.next(), f.next()) else { continue };
        let v1 = ctrl.split(',').any(|c| c == "blkio");
        if !(v1 || ctrl.is_empty()) {
            continue;
        }
        if let Some((root, mount)) = cgroup_mount(mountinfo, v1) {
            let rel = path.strip_prefix(root.as_str()).unwrap_or(path);
            out.push((mount.join(rel.trim_start_matches('/')), v1));
        }
    }
    out
}

/// The (root, mount point) of the blkio v1 hierarchy or of the cgroup2 mount.
fn cgroup_mount(mountinfo: &str, v1: bool) -> Option<(String, PathBuf)> {
    mountinfo.lines().find_map(|line| {
        let cols: Vec<&str> = line.split(' ').collect();
        let sep = cols.iter().position(|c| *c == "-")?;
        let (fs, opts) = (*cols.get(sep + 1)?, *cols.get(sep + 3)?);
        let hit = if v1 {
            fs == "cgroup" && opts.split(',').any(|o| o == "blkio")
        } else {
            fs == "cgroup2"
        };
        hit.then(|| (cols[3].to_string(), PathBuf::from(cols[4])))
    })
}

/// cgroup v1's four throttle files in `dir` for `majmin`.
fn v1_limits(dir: &Path, majmin: &str) -> Vec<(String, u64)> {
    let files = [
        ("riops", "read_iops_device"),
        ("wiops", "write_iops_device"),
        ("rbps", "read_bps_device"),
        ("wbps", "write_bps_device"),
    ];
    let mut out = Vec::new();
    for (key, file) in files {
        let Ok(text) = std::fs::read_to_string(dir.join(format!("blkio.throttle.{file}"))) else {
            continue;
        };
        out.extend(v1_line(&text, majmin).map(|v| (key.to_string(), v)));
    }
    out
}

fn v1_line(text: &str, majmin: &str) -> Option<u64> {
    text.lines().find_map(|l| {
        let (mm, v) = l.trim().split_once(' ')?;
        (mm == majmin).then(|| v.trim().parse().ok()).flatten()
    })
}

/// cgroup v2's `io.max` in `dir` for `majmin`.
fn v2_limits(dir: &Path, majmin: &str) -> Vec<(String, u64)> {
    std::fs::read_to_string(dir.join("io.max")).map(|t| io_max(&t, majmin)).unwrap_or_default()
}

fn io_max(text: &str, majmin: &str) -> Vec<(String, u64)> {
    let Some(rest) = text.lines().find_map(|l| l.strip_prefix(majmin)?.strip_prefix(' ')) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for kv in rest.split_whitespace() {
        if let Some((k, Ok(v))) = kv.split_once('=').map(|(k, v)| (k, v.parse::<u64>())) {
            out.push((k.to_string(), v));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const MOUNTINFO: &str = "\
25 30 0:22 / /sys/fs/cgroup rw - tmpfs tmpfs rw,mode=755
33 25 0:29 / /sys/fs/cgroup/blkio rw,relatime - cgroup cgroup rw,blkio
40 25 0:36 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
41 25 0:37 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids";

    #[test]
    fn the_blkio_and_unified_groups_of_the_process() {
        let cg = "9:pids:/x\n7:blkio:/iolab-test-a-12\n0::/user.slice\n";
        assert_eq!(
            group_dirs(cg, MOUNTINFO),
            [
                (PathBuf::from("/sys/fs/cgroup/blkio/iolab-test-a-12"), true),
                (PathBuf::from("/sys/fs/cgroup/unified/user.slice"), false)
            ]
        );
        // A v1 mount of a sub-tree (a container's view): the path is relative to its root.
        let mi = "33 25 0:29 /docker/abc /sys/fs/cgroup/blkio rw - cgroup cgroup rw,blkio";
        assert_eq!(
            group_dirs("7:blkio:/docker/abc/inner\n", mi),
            [(PathBuf::from("/sys/fs/cgroup/blkio/inner"), true)]
        );
    }

    #[test]
    fn limits_of_one_device_from_either_layout() {
        assert_eq!(v1_line("7:0 2000\n7:1 5\n", "7:1"), Some(5));
        assert_eq!(v1_line("7:10 2000\n", "7:1"), None, "7:1 is not 7:10");
        let io = "7:0 rbps=max wbps=31457280 riops=2000 wiops=max\n7:1 rbps=max";
        assert_eq!(io_max(io, "7:0"), [("wbps".to_string(), 31_457_280), ("riops".into(), 2000)]);
        assert!(io_max(io, "7:1").is_empty() && io_max(io, "7:").is_empty());
        let t = Throttle { device: "loop0".into(), cgroup: "/g".into(), limits: io_max(io, "7:0") };
        assert_eq!(t.describe(), "wbps=31457280 riops=2000");
    }
}
