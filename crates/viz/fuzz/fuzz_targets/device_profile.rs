//! Fuzz the device-profile reader (`sim --backing`, `run --predict`): arbitrary bytes as
//! profile TOML; a profile that is accepted is then asked for service times of a few commands
//! at several depths, which must be finite and come back (no value the range checks let
//! through may turn into an endless or infinite prediction).
#![no_main]
use iolab_core::{IoDir, Nanos};
use iolab_model::device::profile::{DeviceProfile, Profiled};
use iolab_model::device::{DevOp, Device};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(p) = DeviceProfile::from_toml(text, "fuzz.toml") else { return };
    let cap = p.capacity;
    let mut d = Profiled::new("fuzz", p);
    for (i, dir) in [IoDir::Read, IoDir::Write, IoDir::Read, IoDir::Write].into_iter().enumerate() {
        let op =
            DevOp { dir, offset: (cap / 3).wrapping_mul(i as u64) % cap.max(1), len: 4096 << i };
        let _ = d.service(&op, Nanos(i as u64 * 1000), i * 7);
    }
});
