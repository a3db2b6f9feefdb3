//! Fuzz target: the tier specification (`crates/model/src/tier/spec.rs`) as `sim --tier`,
//! `--backing` and `--hierarchy FILE.toml` take it. The first byte picks the form: the string
//! form (lines: tiers, the last one the backing store) or the TOML file. A spec that parses
//! and validates is built into a `Hierarchy` and given a few requests, as `sim` would. Any
//! panic, abort or allocation beyond libFuzzer's RSS limit is a bug; refused specs are fine.
#![no_main]

use iolab_core::{IoDir, IoRequest, Nanos};
use iolab_model::tier::spec::{parse_backing, parse_tier, parse_toml, validate_chain};
use iolab_model::tier::Hierarchy;
use libfuzzer_sys::fuzz_target;

/// Drives a built hierarchy with requests chosen by `seed` (reads, writes, trims, syncs).
fn drive(h: &mut Hierarchy, seed: &[u8]) {
    let cap = h.backing_spec().device.capacity();
    let mut now = Nanos::ZERO;
    for (i, w) in seed.chunks(4).take(64).enumerate() {
        let v = w.iter().fold(0u64, |a, &b| (a << 8) | u64::from(b));
        let len = (v % 64 + 1) * 4096;
        let offset =
            if cap > len { (v.wrapping_mul(0x9e37_79b9) % (cap - len)) & !4095 } else { 0 };
        let dir = [IoDir::Read, IoDir::Write, IoDir::Trim, IoDir::Sync][i % 4];
        let _ = h.submit(&IoRequest::new(dir, 0, offset, len), (v % 3) as u32, now);
        now = Nanos(now.0 + Nanos::PER_MS);
        let _ = h.tick(now, Nanos::from_millis(1));
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&sel, rest)) = data.split_first() else { return };
    let text = String::from_utf8_lossy(rest);
    let parsed = if sel & 1 == 0 {
        let lines: Vec<&str> = text.lines().collect();
        let Some((backing, tiers)) = lines.split_last() else { return };
        let tiers: Result<Vec<_>, _> =
            tiers.iter().enumerate().map(|(i, s)| parse_tier(s, i)).collect();
        match (tiers, parse_backing(backing)) {
            (Ok(t), Ok(b)) => Some((t, b)),
            (t, b) => {
                // Every refusal renders as a one-line message.
                if let Err(e) = t {
                    assert!(!e.to_string().contains('\n'), "multi-line error: {e}");
                }
                if let Err(e) = b {
                    assert!(!e.to_string().contains('\n'), "multi-line error: {e}");
                }
                None
            }
        }
    } else {
        parse_toml(&text, "fuzz.toml").ok()
    };
    let Some((tiers, backing)) = parsed else { return };
    if validate_chain(&tiers, &backing).is_err() {
        return;
    }
    if let Ok(mut h) = Hierarchy::new(tiers, backing) {
        drive(&mut h, rest);
    }
});
