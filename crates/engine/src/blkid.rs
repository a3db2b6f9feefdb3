//! util-linux libblkid's low-level probe (`blkid -p`, `wipefs`), loaded at run time with
//! `dlopen("libblkid.so.1")`: the signatures the system itself recognises on a device or on
//! a byte range of it (superblocks of every filesystem blkid knows, RAID/LVM/LUKS/bcache/ZFS
//! members, swap, and partition tables). API: util-linux `libblkid/src/probe.c`,
//! `superblocks/superblocks.c`, `partitions/partitions.c`; the loop over `blkid_do_probe`
//! is the one `misc-utils/wipefs.c` uses to list every signature, not just the first.
//!
//! Why dlopen and not a build-time `-sys` binding: a `-sys` crate would need libblkid-dev
//! (and clang for bindgen) on every machine that builds iolab, so `cargo run` would break on
//! a fresh Debian; the runtime library itself is part of util-linux and present almost
//! everywhere. Loading it at run time lets iolab refuse writes to block devices cleanly,
//! with a reason, on the rare system that lacks it.

use libloading::{Library, Symbol};
use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::os::fd::AsRawFd;
use std::path::Path;

/// The soname util-linux has shipped since 2009.
pub const SONAME: &str = "libblkid.so.1";

const SUBLKS_TYPE: c_int = 1 << 5;
const SUBLKS_USAGE: c_int = 1 << 7;
const SUBLKS_MAGIC: c_int = 1 << 9;
const SUBLKS_BADCSUM: c_int = 1 << 10;
const PARTS_MAGIC: c_int = 1 << 3;
/// More signatures than any device carries; bounds the `blkid_do_probe` loop.
const MAX_SIGNATURES: usize = 64;

type Probe = *mut c_void;

/// One signature: what `blkid -p` prints as `TYPE=`/`PTTYPE=` (`ext4`, `minix`, `swap`,
/// `gpt`, `dos`, `LVM2_member`, `linux_raid_member` …) and its `USAGE=` (`filesystem`,
/// `raid`, `crypto`, `other`; `partition table` for `PTTYPE`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Signature {
    pub name: String,
    pub usage: String,
}

/// The loaded library and the functions iolab calls.
pub struct Blkid {
    new_probe_from_filename: unsafe extern "C" fn(*const c_char) -> Probe,
    new_probe: unsafe extern "C" fn() -> Probe,
    set_device: unsafe extern "C" fn(Probe, c_int, i64, i64) -> c_int,
    free_probe: unsafe extern "C" fn(Probe),
    enable_superblocks: unsafe extern "C" fn(Probe, c_int) -> c_int,
    set_superblocks_flags: unsafe extern "C" fn(Probe, c_int) -> c_int,
    enable_partitions: unsafe extern "C" fn(Probe, c_int) -> c_int,
    set_partitions_flags: unsafe extern "C" fn(Probe, c_int) -> c_int,
    do_probe: unsafe extern "C" fn(Probe) -> c_int,
    lookup_value:
        unsafe extern "C" fn(Probe, *const c_char, *mut *const c_char, *mut usize) -> c_int,
    /// Keeps the function pointers above valid; dropped last.
    _lib: Library,
}

impl std::fmt::Debug for Blkid {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Blkid")
    }
}

/// Frees the probe when dropped.
struct ProbeGuard<'a>(&'a Blkid, Probe);

impl Drop for ProbeGuard<'_> {
    fn drop(&mut self) {
        // SAFETY: the probe came from blkid_new_probe* and is freed once, here.
        unsafe { (self.0.free_probe)(self.1) }
    }
}

/// A function from the library, copied out as a plain pointer (valid while `lib` lives).
///
/// # Safety
/// `T` must be the function's C signature.
unsafe fn sym<T: Copy>(lib: &Library, name: &str) -> Result<T, String> {
    // SAFETY: the caller gives the symbol's true type.
    let s: Symbol<'_, T> =
        unsafe { lib.get(name.as_bytes()) }.map_err(|e| format!("{SONAME} has no {name}: {e}"))?;
    Ok(*s)
}

impl Blkid {
    /// `dlopen` libblkid; the error says why it could not be loaded.
    pub fn load() -> Result<Blkid, String> {
        Self::load_from(SONAME)
    }

    /// `dlopen` the library by this name (tests use a missing name).
    pub fn load_from(name: &str) -> Result<Blkid, String> {
        // SAFETY: libblkid's initialisers only set up its debug mask; loading it runs no
        // code that could break this process.
        let lib = unsafe { Library::new(name) }.map_err(|e| format!("cannot load {name}: {e}"))?;
        // SAFETY: for every `sym` below, the type is the prototype in util-linux's blkid.h
        // (blkid_probe is a pointer, blkid_loff_t is int64_t).
        unsafe {
            Ok(Blkid {
                new_probe_from_filename: sym(&lib, "blkid_new_probe_from_filename")?,
                new_probe: sym(&lib, "blkid_new_probe")?,
                set_device: sym(&lib, "blkid_probe_set_device")?,
                free_probe: sym(&lib, "blkid_free_probe")?,
                enable_superblocks: sym(&lib, "blkid_probe_enable_superblocks")?,
                set_superblocks_flags: sym(&lib, "blkid_probe_set_superblocks_flags")?,
                enable_partitions: sym(&lib, "blkid_probe_enable_partitions")?,
                set_partitions_flags: sym(&lib, "blkid_probe_set_partitions_flags")?,
                do_probe: sym(&lib, "blkid_do_probe")?,
                lookup_value: sym(&lib, "blkid_probe_lookup_value")?,
                _lib: lib,
            })
        }
    }

    /// Every signature on the whole device or file at `path`.
    pub fn probe_path(&self, path: &Path) -> Result<Vec<Signature>, String> {
        let c = CString::new(path.as_os_str().as_encoded_bytes())
            .map_err(|_| "path contains a NUL byte".to_string())?;
        // SAFETY: c is a valid C string; the result is checked for NULL.
        let pr = unsafe { (self.new_probe_from_filename)(c.as_ptr()) };
        if pr.is_null() {
            return Err(format!("libblkid cannot open {}", path.display()));
        }
        self.collect(ProbeGuard(self, pr))
    }

    /// Every signature in `[offset, offset + size)` of an open device (a partition).
    pub fn probe_range(
        &self,
        dev: &std::fs::File,
        offset: u64,
        size: u64,
    ) -> Result<Vec<Signature>, String> {
        // SAFETY: no arguments; the result is checked for NULL.
        let pr = unsafe { (self.new_probe)() };
        if pr.is_null() {
            return Err("libblkid: out of memory".to_string());
        }
        let guard = ProbeGuard(self, pr);
        let (off, len) = (i64::try_from(offset), i64::try_from(size));
        let (Ok(off), Ok(len)) = (off, len) else {
            return Err(format!("range {offset}+{size} is beyond libblkid's 2^63"));
        };
        // SAFETY: pr is a live probe, the fd stays open for the probe's life (dev is
        // borrowed for this call) and libblkid does not close an fd it did not open.
        if unsafe { (self.set_device)(pr, dev.as_raw_fd(), off, len) } != 0 {
            return Err(format!("libblkid cannot probe {offset}+{size}"));
        }
        self.collect(guard)
    }

    /// Enable superblocks and partition tables, then step through every match as wipefs
    /// does (`blkid_do_probe` returns 0 per signature, 1 at the end, -1 on error).
    fn collect(&self, g: ProbeGuard<'_>) -> Result<Vec<Signature>, String> {
        let pr = g.1;
        // SAFETY: pr is a live probe for all calls below; flags are blkid.h's.
        unsafe {
            (self.enable_superblocks)(pr, 1);
            let sb = SUBLKS_TYPE | SUBLKS_USAGE | SUBLKS_MAGIC | SUBLKS_BADCSUM;
            (self.set_superblocks_flags)(pr, sb);
            (self.enable_partitions)(pr, 1);
            (self.set_partitions_flags)(pr, PARTS_MAGIC);
        }
        let mut out: Vec<Signature> = Vec::new();
        for _ in 0..MAX_SIGNATURES {
            // SAFETY: pr is live.
            match unsafe { (self.do_probe)(pr) } {
                0 => {}
                1 => break,
                _ => return Err("libblkid probe failed (read error?)".to_string()),
            }
            let sig = if let Some(t) = self.value(pr, c"TYPE") {
                Signature { name: t, usage: self.value(pr, c"USAGE").unwrap_or_default() }
            } else if let Some(t) = self.value(pr, c"PTTYPE") {
                Signature { name: t, usage: "partition table".to_string() }
            } else {
                continue;
            };
            if !out.contains(&sig) {
                out.push(sig);
            }
        }
        Ok(out)
    }

    /// One `NAME=value` of the current match, if set.
    fn value(&self, pr: Probe, name: &CStr) -> Option<String> {
        let mut data: *const c_char = std::ptr::null();
        let mut len = 0usize;
        // SAFETY: pr is live, name a C string, data/len valid out-pointers.
        let r = unsafe { (self.lookup_value)(pr, name.as_ptr(), &mut data, &mut len) };
        if r != 0 || data.is_null() {
            return None;
        }
        // SAFETY: libblkid returns a NUL-terminated string owned by the probe, valid until
        // the next probe call; it is copied at once.
        let s = unsafe { CStr::from_ptr(data) };
        Some(s.to_string_lossy().into_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn missing_library_is_an_error_not_a_crash() {
        let e = Blkid::load_from("libiolab-no-such-blkid.so.1").unwrap_err();
        assert!(e.contains("libiolab-no-such-blkid.so.1"), "{e}");
    }

    #[test]
    fn finds_swap_and_nothing_on_zeros() {
        let Ok(b) = Blkid::load() else {
            eprintln!("skip: {SONAME} not installed");
            return;
        };
        let mut f = tempfile::NamedTempFile::new().unwrap();
        let mut img = vec![0u8; 1 << 20];
        f.write_all(&img).unwrap();
        assert_eq!(b.probe_path(f.path()).unwrap(), vec![]);
        // A swap v1 header (mkswap's layout): magic at page size - 10, version 1, last page.
        img[4086..4096].copy_from_slice(b"SWAPSPACE2");
        img[1024..1028].copy_from_slice(&1u32.to_le_bytes());
        img[1028..1032].copy_from_slice(&255u32.to_le_bytes());
        f.as_file().set_len(0).unwrap();
        std::fs::write(f.path(), &img).unwrap();
        let got = b.probe_path(f.path()).unwrap();
        assert!(got.iter().any(|s| s.name == "swap"), "{got:?}");
        let whole = std::fs::File::open(f.path()).unwrap();
        let got = b.probe_range(&whole, 0, 1 << 20).unwrap();
        assert!(got.iter().any(|s| s.name == "swap"), "{got:?}");
        assert_eq!(b.probe_range(&whole, 512 << 10, 512 << 10).unwrap(), vec![]);
    }
}
