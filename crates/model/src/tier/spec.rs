//! Tier and backing-store descriptions: plain data read from `--tier`/`--backing` strings or
//! a TOML file, validated into [`TierSpec`] / [`BackingSpec`] before anything runs.
//!
//! String form: `KIND:SIZE[:POLICY[:WRITE]][:key=value…]`, e.g. `ram:1GiB:lru`,
//! `ssd:4GiB:smq:writeback:block=256KiB`, and for the backing store `hdd:7200[:SIZE]`.
//! Sizes use IEC/SI units as written (`GiB` = 2^30, `GB`/`G` = 10^9): iolab's core `parse_size`
//! with `kb_base=1000`, where fio's own `KiB` trap does not arise.
//!
//! Keys: `block` (cache block / record size), `preset` (device preset), `dirty_ratio`,
//! `flush_rate` (bytes/s), `battery` (true: battery/flash-backed, fsync need not flush),
//! `metadata_only` (ZFS primarycache=metadata), `sequential_cutoff` (bcache, default off; 4MiB
//! is bcache's default), `migration_threshold` (dm-cache, bytes in flight, 1MiB in the
//! kernel), `fill=evict` with `feed_max`, `feed_boost`, `feed_interval_ms` (ZFS L2ARC: fed from
//! the evictions of the tier above, l2arc_write_max 8 MiB + l2arc_write_boost 8 MiB per 1 s).

use crate::device::{self, DeviceSpec};
use crate::error::ModelError;
use crate::policy;
use iolab_core::units::{parse_size, KbBase};
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum WriteMode {
    WriteThrough,
    WriteBack,
    WriteAround,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Fill {
    /// Insert blocks that miss here (page cache, dm-cache, bcache).
    Miss,
    /// Insert only blocks evicted from the tier above (ZFS L2ARC, a victim cache).
    Evict,
}

/// A validated cache tier.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TierSpec {
    pub name: String,
    pub device: DeviceSpec,
    pub size: u64,
    pub policy: String,
    pub block_size: u64,
    pub write: WriteMode,
    pub dirty_ratio: f64,
    pub flush_bytes_per_sec: Option<f64>,
    pub battery_backed: bool,
    pub metadata_only: bool,
    pub sequential_cutoff: Option<u64>,
    pub migration_threshold: Option<u64>,
    pub fill: Fill,
    pub feed_max: u64,
    pub feed_boost: u64,
    pub feed_interval_ns: u64,
}

impl TierSpec {
    pub fn blocks(&self) -> usize {
        (self.size / self.block_size.max(1)) as usize
    }
}

/// The device under the last tier.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BackingSpec {
    pub name: String,
    pub device: DeviceSpec,
    /// Never-written blocks read as zeros without device I/O (thin LV, sparse file, ZFS hole).
    pub sparse: bool,
}

fn size(value: &str, spec: &str) -> Result<u64, ModelError> {
    let bad =
        |why: String| ModelError::BadSize { value: value.to_string(), spec: spec.to_string(), why };
    if value.trim_start().starts_with('-') {
        return Err(bad("sizes cannot be negative".into()));
    }
    let v = parse_size(value, KbBase::K1000).map_err(|e| bad(e.to_string()))?;
    if v == 0 {
        return Err(bad("must be greater than zero".into()));
    }
    Ok(v)
}

fn float(name: &str, value: &str, lo: f64, hi: f64) -> Result<f64, ModelError> {
    let v: f64 = value.parse().map_err(|_| ModelError::BadParam {
        name: name.into(),
        value: value.into(),
        why: "expected a number".into(),
    })?;
    if !(lo..=hi).contains(&v) {
        return Err(ModelError::BadParam {
            name: name.into(),
            value: value.into(),
            why: format!("expected {lo} to {hi}"),
        });
    }
    Ok(v)
}

fn boolean(name: &str, value: &str) -> Result<bool, ModelError> {
    match value {
        "1" | "true" | "yes" | "on" => Ok(true),
        "0" | "false" | "no" | "off" => Ok(false),
        _ => Err(ModelError::BadParam {
            name: name.into(),
            value: value.into(),
            why: "expected true or false".into(),
        }),
    }
}

/// The default device for a tier kind word (`ram`, `ssd`, `nvme`, `hdd`, or any preset name).
fn kind_device(kind: &str, spec: &str) -> Result<DeviceSpec, ModelError> {
    match kind {
        "ram" | "dram" | "memory" => device::preset("ram"),
        "ssd" | "sata-ssd" => device::preset("sata-ssd"),
        "nvme" => device::preset("nvme"),
        "hdd" => device::preset("hdd-7200"),
        other => device::preset(other).map_err(|_| ModelError::UnknownTier {
            name: other.to_string(),
            spec: spec.to_string(),
        }),
    }
}

/// Smallest cache block: one 512-byte sector, the unit block traces count in.
pub const MIN_BLOCK: u64 = 512;

/// Parses `KIND:SIZE[:POLICY[:WRITE]][:key=value…]`; `index` names unnamed tiers.
pub fn parse_tier(spec: &str, index: usize) -> Result<TierSpec, ModelError> {
    let parts: Vec<&str> = spec.split(':').map(str::trim).collect();
    let (positional, keyed): (Vec<&str>, Vec<&str>) = parts.iter().partition(|p| !p.contains('='));
    let kind = positional.first().copied().unwrap_or("").to_ascii_lowercase();
    if kind.is_empty() {
        return Err(ModelError::BadTierSpec { spec: spec.into(), why: "empty tier kind".into() });
    }
    let mut device = kind_device(&kind, spec)?;
    let size_s = positional.get(1).ok_or_else(|| ModelError::BadTierSpec {
        spec: spec.into(),
        why: "missing size (e.g. ram:1GiB:lru)".into(),
    })?;
    let bytes = size(size_s, spec)?;
    let policy_name = positional.get(2).copied().unwrap_or("lru");
    let policy = policy::lookup(policy_name)?.name.to_string();
    let write = match positional.get(3) {
        None => WriteMode::WriteThrough,
        Some(w) => write_mode(w, spec)?,
    };
    if positional.len() > 4 {
        return Err(ModelError::BadTierSpec {
            spec: spec.into(),
            why: format!("unexpected `{}` (options are key=value)", positional[4]),
        });
    }
    let mut t = kind_defaults(&kind, index, bytes, policy, write);
    for kv in keyed {
        let (k, v) = kv.split_once('=').unwrap_or((kv, ""));
        if k == "preset" {
            device = device::preset(v)?;
        } else {
            set_option(&mut t, k, v, spec)?;
        }
    }
    check_block_size(&t, spec)?;
    t.device = device.with_capacity(bytes);
    Ok(t)
}

/// The write policy word (`writethrough`/`wt`, `writeback`/`wb`, `writearound`/`wa`).
fn write_mode(word: &str, spec: &str) -> Result<WriteMode, ModelError> {
    let w = word.to_ascii_lowercase();
    Ok(match w.as_str() {
        "writethrough" | "wt" | "write-through" => WriteMode::WriteThrough,
        "writeback" | "wb" | "write-back" => WriteMode::WriteBack,
        "writearound" | "wa" | "write-around" => WriteMode::WriteAround,
        _ => return Err(ModelError::UnknownWritePolicy { name: w, spec: spec.into() }),
    })
}

/// A tier of `kind` with every option at its default (the device is set by the caller).
fn kind_defaults(
    kind: &str,
    index: usize,
    bytes: u64,
    policy: String,
    write: WriteMode,
) -> TierSpec {
    TierSpec {
        name: format!("{kind}{index}"),
        device: DeviceSpec::Ram(Default::default()),
        size: bytes,
        policy,
        block_size: 4096,
        write,
        // Linux vm.dirty_ratio for a page cache; SSD caches (dm-cache, bcache) do not throttle
        // writers on dirtiness: they write back when a dirty block must be evicted.
        dirty_ratio: if kind == "ram" { 0.2 } else { 1.0 },
        flush_bytes_per_sec: None,
        battery_backed: kind != "ram",
        metadata_only: false,
        sequential_cutoff: None,
        migration_threshold: None,
        fill: Fill::Miss,
        feed_max: 8 << 20,
        feed_boost: 8 << 20,
        feed_interval_ns: 1_000_000_000,
    }
}

/// Every `key=value` tier option with what it sets, for `iolab sim --help` and the
/// unknown-key error (the match in `set_option` is the parser; a test keeps the two in step).
pub const TIER_KEYS: &[(&str, &str)] = &[
    ("preset", "the tier's device: a preset name (`iolab sim --list`)"),
    ("block", "cache block size (also block_size, recordsize); default 4KiB"),
    ("name", "the tier's name in the output"),
    ("dirty_ratio", "share of the tier that may be dirty before writers wait (0-1; ram 0.2)"),
    ("flush_rate", "background write-back rate in bytes/s (e.g. 100MiB)"),
    ("battery", "dirty data survives power loss (also battery_backed; default on but ram)"),
    ("metadata_only", "cache only metadata, as ZFS primarycache=metadata"),
    ("sequential_cutoff", "bypass the tier for sequential runs longer than this (bcache)"),
    ("migration_threshold", "promotion budget per period in bytes (dm-cache)"),
    ("fill", "when a block enters the tier: miss or evict (a victim cache)"),
    ("feed_max", "ZFS L2ARC feed: bytes written per interval (l2arc_write_max)"),
    ("feed_boost", "ZFS L2ARC feed: extra bytes while warming (l2arc_write_boost)"),
    ("feed_interval_ms", "ZFS L2ARC feed interval in ms (l2arc_feed_secs)"),
];

/// The tier keys as one comma-separated list, for error messages.
pub fn tier_key_names() -> String {
    TIER_KEYS.iter().map(|(k, _)| *k).collect::<Vec<_>>().join(", ")
}

/// One `key=value` tier option (all but `preset`, which picks the device).
fn set_option(t: &mut TierSpec, k: &str, v: &str, spec: &str) -> Result<(), ModelError> {
    let bad = |why: &str| ModelError::BadParam { name: k.into(), value: v.into(), why: why.into() };
    match k {
        "block" | "block_size" | "recordsize" => t.block_size = size(v, spec)?,
        "name" => t.name = v.to_string(),
        "dirty_ratio" => t.dirty_ratio = float(k, v, 0.0, 1.0)?,
        "flush_rate" => t.flush_bytes_per_sec = Some(size(v, spec)? as f64),
        "battery" | "battery_backed" => t.battery_backed = boolean(k, v)?,
        "metadata_only" => t.metadata_only = boolean(k, v)?,
        "sequential_cutoff" => t.sequential_cutoff = Some(size(v, spec)?),
        "migration_threshold" => t.migration_threshold = Some(size(v, spec)?),
        "fill" => {
            t.fill = match v {
                "miss" => Fill::Miss,
                "evict" => Fill::Evict,
                _ => return Err(bad("expected miss or evict")),
            }
        }
        "feed_max" => t.feed_max = size(v, spec)?,
        "feed_boost" => t.feed_boost = if v.trim() == "0" { 0 } else { size(v, spec)? },
        "feed_interval_ms" => t.feed_interval_ns = (float(k, v, 1.0, 1e7)? * 1e6) as u64,
        _ => return Err(bad(&format!("unknown tier option; known: {}", tier_key_names()))),
    }
    Ok(())
}

/// A cache block is at least a sector and at most the tier.
fn check_block_size(t: &TierSpec, spec: &str) -> Result<(), ModelError> {
    if t.block_size < MIN_BLOCK {
        // A 3-byte block made one 256 KiB request walk 87,000 blocks (25 s per fuzz input).
        return Err(ModelError::BadTierSpec {
            spec: spec.into(),
            why: format!(
                "block size {} is below {MIN_BLOCK} bytes (a sector); cache blocks are 512 B or \
                 more, e.g. block=4KiB",
                t.block_size
            ),
        });
    }
    if t.block_size > t.size {
        return Err(ModelError::BadTierSpec {
            spec: spec.into(),
            why: format!("block size {} exceeds the tier size {}", t.block_size, t.size),
        });
    }
    Ok(())
}

/// `--backing`: a device spec ([`parse_backing`]: `hdd:7200`), or a device profile file (a
/// path: `*.toml` or containing `/`; written by `iolab calibrate`).
pub fn parse_backing_or_profile(arg: &str) -> Result<BackingSpec, ModelError> {
    if !arg.ends_with(".toml") && !arg.contains('/') {
        return parse_backing(arg);
    }
    let profile = device::profile::DeviceProfile::load(std::path::Path::new(arg))?;
    Ok(BackingSpec {
        name: "profile".into(),
        device: DeviceSpec::Profile(Box::new(profile)),
        sparse: false,
    })
}

/// Parses `KIND[:PRESET][:SIZE][:sparse][:ncq=N]` for the backing store (`hdd:7200`,
/// `hdd:10k:600GB`, `nvme:2TB`, `hdd:7200:ncq=32`).
pub fn parse_backing(spec: &str) -> Result<BackingSpec, ModelError> {
    let parts: Vec<&str> = spec.split(':').map(str::trim).collect();
    let kind = parts.first().copied().unwrap_or("").to_ascii_lowercase();
    if kind == "profile" {
        // `profile:PRESET`: a preset in the profile form `iolab calibrate` writes.
        let name = parts.get(1).copied().unwrap_or("");
        let p = device::preset_profile(name)?;
        return Ok(BackingSpec {
            name: kind,
            device: DeviceSpec::Profile(Box::new(p)),
            sparse: false,
        });
    }
    let mut device = kind_device(&kind, spec)?;
    let mut sparse = false;
    let mut ncq = None;
    for p in &parts[1..] {
        let pl = p.to_ascii_lowercase();
        if pl == "sparse" {
            sparse = true;
        } else if let Some(v) = pl.strip_prefix("ncq=") {
            ncq = Some(ncq_depth(v, spec)?);
        } else if pl.starts_with(|c: char| c.is_ascii_digit() || c == '-')
            && size(p, spec).is_ok_and(|b| b >= 1 << 20)
        {
            device = device.with_capacity(size(p, spec)?);
        } else if pl.starts_with('-') {
            size(p, spec)?;
        } else {
            let name =
                if kind == "hdd" && !pl.starts_with("hdd") { format!("hdd-{pl}") } else { pl };
            device = device::preset(&name).map_err(|_| ModelError::UnknownPreset {
                name: p.to_string(),
                known: device::PRESETS.iter().map(|p| p.name).collect::<Vec<_>>().join(", "),
            })?;
        }
    }
    if let Some(n) = ncq {
        match &mut device {
            DeviceSpec::Hdd(h) => h.ncq_depth = n,
            _ => {
                return Err(ModelError::BadParam {
                    name: "ncq".into(),
                    value: n.to_string(),
                    why: format!(
                        "command queueing is modelled for hdd backings, not in `{}`",
                        spec.escape_default()
                    ),
                })
            }
        }
    }
    Ok(BackingSpec { name: kind, device, sparse })
}

/// `ncq=N`: how many queued commands an HDD may reorder (SATA NCQ 32, SAS TCQ up to 256).
fn ncq_depth(v: &str, spec: &str) -> Result<usize, ModelError> {
    match v.parse::<usize>() {
        Ok(n) if (1..=256).contains(&n) => Ok(n),
        _ => Err(ModelError::BadParam {
            name: "ncq".into(),
            value: v.escape_default().to_string(),
            why: format!(
                "expected 1 (no reordering) to 256 queued commands in `{}`",
                spec.escape_default()
            ),
        }),
    }
}

/// Rejects a chain whose cache is larger than what it caches.
pub fn validate_chain(tiers: &[TierSpec], backing: &BackingSpec) -> Result<(), ModelError> {
    let cap = backing.device.capacity();
    for t in tiers {
        if t.size > cap {
            return Err(ModelError::CacheLargerThanBacking {
                tier: t.name.clone(),
                cache_bytes: t.size,
                backing_bytes: cap,
            });
        }
    }
    Ok(())
}

/// The TOML form of a hierarchy: `[[tier]]` tables with the same keys as the string form
/// (plus `kind`, `size`, `policy`, `write`) and one `[backing]` table with `spec`.
#[derive(Debug, Deserialize)]
struct HierarchyFile {
    #[serde(default)]
    tier: Vec<toml::Table>,
    backing: toml::Table,
}

/// Parses a TOML hierarchy file's contents (`path` names it in errors).
pub fn parse_toml(text: &str, path: &str) -> Result<(Vec<TierSpec>, BackingSpec), ModelError> {
    let cfg = |why: String| ModelError::Config { path: path.to_string(), why };
    let f: HierarchyFile = toml::from_str(text).map_err(|e| cfg(e.message().to_string()))?;
    let mut tiers = Vec::new();
    for (i, t) in f.tier.iter().enumerate() {
        let get =
            |k: &str| t.get(k).map(|v| v.as_str().map_or_else(|| v.to_string(), String::from));
        let kind = get("kind").ok_or_else(|| cfg(format!("tier {} has no `kind`", i + 1)))?;
        let sz = get("size").ok_or_else(|| cfg(format!("tier {} has no `size`", i + 1)))?;
        let mut s = format!("{kind}:{sz}:{}", get("policy").unwrap_or_else(|| "lru".into()));
        s.push(':');
        s.push_str(&get("write").unwrap_or_else(|| "writethrough".into()));
        for (k, v) in t {
            if !matches!(k.as_str(), "kind" | "size" | "policy" | "write") {
                let v = v.as_str().map_or_else(|| v.to_string(), String::from);
                s.push_str(&format!(":{k}={v}"));
            }
        }
        tiers.push(parse_tier(&s, i)?);
    }
    let b = f.backing.get("spec").and_then(|v| v.as_str()).ok_or_else(|| {
        cfg("[backing] needs `spec = \"hdd:7200\"` (kind, preset, size)".to_string())
    })?;
    let backing = parse_backing(b)?;
    validate_chain(&tiers, &backing)?;
    Ok((tiers, backing))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_tier_strings() {
        let t =
            parse_tier("ssd:4GiB:smq:writeback:block=256KiB:migration_threshold=1MiB", 1).unwrap();
        assert_eq!(t.size, 4 << 30);
        assert_eq!(t.policy, "smq");
        assert_eq!(t.write, WriteMode::WriteBack);
        assert_eq!(t.block_size, 256 << 10);
        assert_eq!(t.migration_threshold, Some(1 << 20));
        assert_eq!(t.blocks(), 16384);
        let b = parse_backing("hdd:10k:600GB").unwrap();
        assert_eq!(b.device.capacity(), 600_000_000_000);
    }

    /// Regression for the tier_spec fuzz target's slow unit (25 s): `block=003` on a 7 GiB
    /// write-back SSD made every 256 KiB request walk 87,000 three-byte blocks.
    #[test]
    fn fuzz_tier_spec_slow_unit_block_below_a_sector_is_refused() {
        for b in ["003", "1", "511"] {
            let e = parse_tier(&format!("ssd:7GiB:smq:writeback:block={b}"), 1).unwrap_err();
            let m = e.to_string();
            assert!(m.contains("below 512 bytes") && !m.contains('\n'), "{m}");
        }
        assert_eq!(parse_tier("ssd:7GiB:smq:block=512", 1).unwrap().block_size, 512);
    }

    #[test]
    fn one_line_errors_name_the_value() {
        let e = |s: &str| parse_tier(s, 0).unwrap_err().to_string();
        assert!(e("ram:1GiB:lur").contains("`lur`"));
        assert!(e("tape:1GiB").contains("`tape`"));
        assert!(e("ram:-5GiB").contains("`-5GiB`"));
        assert!(e("ram:1GiB:lru:writesometimes").contains("`writesometimes`"));
        assert!(parse_backing("hdd:5400rpm").unwrap_err().to_string().contains("`5400rpm`"));
        let q = parse_backing("hdd:10k:ncq=64").unwrap();
        assert!(matches!(q.device, DeviceSpec::Hdd(h) if h.ncq_depth == 64 && h.rpm == 10_000));
        // The presets queue as their interface does: SATA NCQ 32, SAS TCQ 254; ncq=1 is off.
        let ncq = |s| match parse_backing(s).unwrap().device {
            DeviceSpec::Hdd(h) => h.ncq_depth,
            _ => 0,
        };
        assert_eq!([ncq("hdd:7200"), ncq("hdd:10k"), ncq("hdd:7200:ncq=1")], [32, 254, 1]);
        for bad in ["hdd:ncq=0", "hdd:ncq=257", "hdd:ncq=x", "nvme:ncq=8"] {
            assert!(parse_backing(bad).unwrap_err().to_string().contains("`ncq`"), "{bad}");
        }
        let big = parse_tier("ram:2TB", 0).unwrap();
        let err = validate_chain(&[big], &parse_backing("hdd:7200").unwrap()).unwrap_err();
        assert!(err.to_string().contains("larger than the backing store"), "{err}");
        for msg in [e("ram:1GiB:lur"), err.to_string()] {
            assert!(!msg.contains('\n'));
        }
    }

    #[test]
    fn toml_form() {
        let text = r#"
            [[tier]]
            kind = "ram"
            size = "1GiB"
            policy = "lru"
            [[tier]]
            kind = "nvme"
            size = "8GiB"
            policy = "s3fifo"
            write = "writeback"
            block = "64KiB"
            [backing]
            spec = "hdd:7200"
        "#;
        let (t, b) = parse_toml(text, "h.toml").unwrap();
        assert_eq!(t.len(), 2);
        assert_eq!(t[1].block_size, 64 << 10);
        assert_eq!(b.device.kind(), "hdd");
        let e = parse_toml("[backing]\n", "h.toml").unwrap_err().to_string();
        assert!(e.starts_with("hierarchy config h.toml"), "{e}");
    }

    #[test]
    fn every_listed_tier_key_parses_and_an_unknown_key_lists_them() {
        let value = |k: &str| match k {
            "preset" => "nvme",
            "name" => "fast",
            "dirty_ratio" => "0.5",
            "battery" | "metadata_only" => "1",
            "fill" => "evict",
            "feed_interval_ms" => "100",
            _ => "64KiB",
        };
        for (k, _) in TIER_KEYS {
            let spec = format!("ssd:1GiB:lru:writeback:{k}={}", value(k));
            assert!(parse_tier(&spec, 1).is_ok(), "{spec}: {:?}", parse_tier(&spec, 1));
        }
        let e = parse_tier("ssd:1GiB:lru:battry=1", 1).unwrap_err().to_string();
        for (k, _) in TIER_KEYS {
            assert!(e.contains(k), "{e} lacks {k}");
        }
        assert!(e.contains("battry") && !e.contains('\n'), "{e}");
    }
}
