//! Device timing models: a mechanical disk ([`hdd::Hdd`]), a flash device ([`ssd::Ssd`]) and
//! memory ([`ram::Ram`]) behind one [`Device`] trait, plus named presets calibrated from
//! datasheets (sources beside each preset).
//!
//! A device answers one question: if this operation starts now, how long does it take? The
//! discrete-event simulator (`crate::sim`) owns the queue; it asks [`Device::position_estimate`]
//! to reorder up to [`Device::reorder_depth`] queued commands (NCQ/TCQ shortest positioning
//! time first) and runs up to [`Device::servers`] of them at once (flash channels).

pub mod hdd;
pub mod profile;
pub mod ram;
pub mod ssd;

use crate::error::ModelError;
use iolab_core::{IoDir, Nanos};
use serde::{Deserialize, Serialize};

/// One command as a device sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DevOp {
    pub dir: IoDir,
    pub offset: u64,
    pub len: u64,
}

pub trait Device {
    fn name(&self) -> &str;
    /// Bytes addressable.
    fn capacity(&self) -> u64;
    /// Commands serviced concurrently.
    fn servers(&self) -> usize {
        1
    }
    /// Queued commands the device may choose among (1: strictly in order).
    fn reorder_depth(&self) -> usize {
        1
    }
    /// Time before data would start to move if `op` started at `now` (seek + rotation).
    fn position_estimate(&self, _op: &DevOp, _now: Nanos) -> Nanos {
        Nanos::ZERO
    }
    /// Service time of `op` started at `now` while `busy` other commands are in service;
    /// moves the device's state (head, wear) on.
    fn service(&mut self, op: &DevOp, now: Nanos, busy: usize) -> Nanos;
    /// How much of the command [`Device::service`] last gave the submit call blocks for (a
    /// loop device completes inside it; fio's slat), when the model says; `None`: not
    /// modelled (the simulator then reports no submission latency).
    fn submit_block(&self) -> Option<Nanos> {
        None
    }
}

/// A device description: plain data (TOML/JSON), turned into a [`Device`] by [`DeviceSpec::build`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum DeviceSpec {
    Hdd(hdd::HddParams),
    Ssd(ssd::SsdParams),
    Ram(ram::RamParams),
    /// A calibrated or preset-derived [`profile::DeviceProfile`].
    Profile(Box<profile::DeviceProfile>),
}

impl DeviceSpec {
    pub fn capacity(&self) -> u64 {
        match self {
            DeviceSpec::Hdd(p) => p.capacity,
            DeviceSpec::Ssd(p) => p.capacity,
            DeviceSpec::Ram(p) => p.capacity,
            DeviceSpec::Profile(p) => p.capacity,
        }
    }

    pub fn with_capacity(mut self, bytes: u64) -> Self {
        match &mut self {
            DeviceSpec::Hdd(p) => p.capacity = bytes,
            DeviceSpec::Ssd(p) => p.capacity = bytes,
            DeviceSpec::Ram(p) => p.capacity = bytes,
            DeviceSpec::Profile(p) => p.capacity = bytes,
        }
        self
    }

    pub fn kind(&self) -> &'static str {
        match self {
            DeviceSpec::Hdd(_) => "hdd",
            DeviceSpec::Ssd(_) => "ssd",
            DeviceSpec::Ram(_) => "ram",
            DeviceSpec::Profile(_) => "profile",
        }
    }

    pub fn build(&self, name: &str) -> Box<dyn Device> {
        match self {
            DeviceSpec::Hdd(p) => Box::new(hdd::Hdd::new(name, p.clone())),
            DeviceSpec::Ssd(p) => Box::new(ssd::Ssd::new(name, p.clone())),
            DeviceSpec::Ram(p) => Box::new(ram::Ram::new(name, p.clone())),
            DeviceSpec::Profile(p) => Box::new(profile::Profiled::new(name, (**p).clone())),
        }
    }
}

/// One preset row.
pub struct Preset {
    pub name: &'static str,
    pub aliases: &'static [&'static str],
    pub about: &'static str,
    pub spec: fn() -> DeviceSpec,
}

pub static PRESETS: &[Preset] = &[
    Preset {
        name: "hdd-7200",
        aliases: &["7200", "7.2k", "nl-sata"],
        about: "1 TB 7,200 RPM SATA (WD RE4 / HGST A7K1000 class): 8.5 ms avg seek, NCQ 32",
        spec: || DeviceSpec::Hdd(hdd::HddParams::sata_7200_1tb()),
    },
    Preset {
        name: "hdd-7200-sas",
        aliases: &["nl-sas", "7200-sas"],
        about: "4 TB 7,200 RPM NL-SAS (HGST Ultrastar 7K4000): 8.2 ms avg seek, TCQ 254",
        spec: || DeviceSpec::Hdd(hdd::HddParams::nl_sas_7200_4tb()),
    },
    Preset {
        name: "hdd-10k",
        aliases: &["10k", "10000", "sas-10k"],
        about: "1.2 TB 10,000 RPM SAS (Savvio / Enterprise Performance 10K class): 4.0 ms avg seek, TCQ 254",
        spec: || DeviceSpec::Hdd(hdd::HddParams::sas_10k_1200g()),
    },
    Preset {
        name: "hdd-15k",
        aliases: &["15k", "15000", "sas-15k"],
        about: "450 GB 15,000 RPM SAS (Hitachi Ultrastar 15K450): 3.3 ms avg seek, TCQ 254",
        spec: || DeviceSpec::Hdd(hdd::HddParams::sas_15k_450g()),
    },
    Preset {
        name: "sata-ssd",
        aliases: &["ssd"],
        about: "SATA TLC SSD (Intel S3610 class): 85 µs read, 550/500 MB/s, ~90K IOPS",
        spec: || DeviceSpec::Ssd(ssd::SsdParams::sata()),
    },
    Preset {
        name: "nvme",
        aliases: &["nvme-ssd"],
        about: "NVMe TLC (Intel DC P4500): 85 µs random read, 20 µs write, 3.2/1.8 GB/s",
        spec: || DeviceSpec::Ssd(ssd::SsdParams::nvme()),
    },
    Preset {
        name: "ram",
        aliases: &["dram", "memory"],
        about: "DRAM page cache: 0.2 µs + 10 GB/s copy",
        spec: || DeviceSpec::Ram(ram::RamParams::default()),
    },
];

/// Looks a preset up by name or alias; `kind` (hdd/ssd/ram) may prefix it (`hdd:7200`).
pub fn preset(name: &str) -> Result<DeviceSpec, ModelError> {
    let n = name.to_ascii_lowercase();
    let hit = PRESETS
        .iter()
        .find(|p| p.name == n || p.aliases.contains(&n.as_str()) || format!("hdd-{n}") == p.name);
    hit.map(|p| (p.spec)()).ok_or_else(|| ModelError::UnknownPreset {
        name: name.to_string(),
        known: PRESETS.iter().map(|p| p.name).collect::<Vec<_>>().join(", "),
    })
}

/// Transfer time of `bytes` at `bytes_per_sec`.
#[inline]
pub(crate) fn xfer(bytes: u64, bytes_per_sec: f64) -> f64 {
    bytes as f64 / bytes_per_sec * 1e9
}

/// A preset (name or alias) expressed as a [`profile::DeviceProfile`] of the same form a
/// calibration writes; `ram` has no profile form.
pub fn preset_profile(name: &str) -> Result<profile::DeviceProfile, ModelError> {
    let n = name.strip_prefix("hdd:").map_or(name.to_string(), |r| format!("hdd-{r}"));
    match preset(&n)? {
        DeviceSpec::Hdd(p) => Ok(profile::DeviceProfile::from_hdd(&n, &p)),
        DeviceSpec::Ssd(p) => Ok(profile::DeviceProfile::from_ssd(&n, &p)),
        DeviceSpec::Profile(p) => Ok(*p),
        DeviceSpec::Ram(_) => Err(ModelError::BadParam {
            name: "preset".into(),
            value: name.into(),
            why: "memory has no device profile (expected an hdd or ssd preset)".into(),
        }),
    }
}
