//! What is known of each `ioengine=` before one runs: one row per fio engine name (fio 3.33's
//! `ioengine` choices, in fio's order), with fio's `struct ioengine_ops` `.flags` model
//! (ioengines.h: `FIO_SYNCIO`, `FIO_DISKLESSIO`, `FIO_NOIO`) and iolab's refusal where it does
//! not run the engine. The registry's `ioengine` choices, the engine crate's constructor table
//! (`iolab_engine::engines::ENGINES`, keyed into this one by name and checked against it by a
//! test), the runner, `replay`, the typed accessors and the advice all read these rows; no
//! other list of engines exists.

/// fio's `FIO_SYNCIO`: the engine completes each I/O before it queues the next, so a job has
/// one I/O in flight whatever `iodepth` says (fio caps it at 1).
pub const SYNC: u8 = 1;
/// fio's `FIO_DISKLESSIO`: the engine opens no target file; nothing is laid out.
pub const DISKLESS: u8 = 1 << 1;
/// No data moves (fio's `FIO_NOIO` and the engines that only allocate, truncate or operate
/// on files): there is no write-then-read-back round trip and no buffer contents to verify.
pub const NO_DATA: u8 = 1 << 2;
/// The file-operation engines (fio engines/fileoperations.c): each I/O is a create, stat or
/// delete done when the file is opened, so `create_on_open` is what they do anyway.
pub const FILE_OPS: u8 = 1 << 3;
/// `iodepth` I/Os are queued inside the kernel at once (libaio with `direct=1`, io_uring):
/// the device should see nearly all of them, which the advice may assume.
pub const KERNEL_QUEUE: u8 = 1 << 4;

/// One engine name and what is known of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EngineFacts {
    pub name: &'static str,
    /// [`SYNC`], [`DISKLESS`], [`NO_DATA`], [`FILE_OPS`], [`KERNEL_QUEUE`] or'ed.
    pub flags: u8,
    /// `Some(reason)`: iolab refuses the engine, saying why; `None`: the engine runs.
    pub refused: Option<&'static str>,
}

impl EngineFacts {
    /// Whether the row carries every bit of `flag`.
    pub const fn is(&self, flag: u8) -> bool {
        self.flags & flag == flag
    }
}

const fn runs(name: &'static str, flags: u8) -> EngineFacts {
    EngineFacts { name, flags, refused: None }
}

const fn refused(name: &'static str, why: &'static str) -> EngineFacts {
    EngineFacts { name, flags: 0, refused: Some(why) }
}

const NET: &str = "network I/O is outside iolab (it measures storage)";
const PMDK: &str = "PMDK is not linked into iolab";
const FILEOP: u8 = SYNC | NO_DATA | FILE_OPS;

/// Every engine name fio 3.33 accepts, in its order.
pub const ENGINES: &[EngineFacts] = &[
    runs("sync", SYNC),
    runs("psync", SYNC),
    runs("vsync", SYNC),
    runs("pvsync", SYNC),
    runs("pvsync2", SYNC),
    runs("libaio", KERNEL_QUEUE),
    runs("io_uring", KERNEL_QUEUE),
    refused("io_uring_cmd", "NVMe passthrough (uring_cmd on /dev/ngXnY) is not implemented"),
    runs("posixaio", 0),
    refused("solarisaio", "Solaris only"),
    refused("windowsaio", "Windows only"),
    refused("rbd", "Ceph RBD is not linked into iolab"),
    refused("rados", "Ceph is not linked into iolab"),
    runs("mmap", SYNC),
    runs("splice", SYNC),
    refused("netsplice", NET),
    refused("sg", "SCSI generic passthrough (SG_IO) is not implemented"),
    runs("null", DISKLESS | NO_DATA),
    refused("net", NET),
    runs("cpuio", SYNC | DISKLESS | NO_DATA),
    refused("rdma", "RDMA is outside iolab (it measures storage)"),
    refused("e4defrag", "EXT4_IOC_MOVE_EXT defragmentation is not implemented"),
    runs("falloc", SYNC | NO_DATA),
    runs("ftruncate", SYNC | NO_DATA),
    refused("gfapi", "GlusterFS is not linked into iolab"),
    refused("gfapi_async", "GlusterFS is not linked into iolab"),
    refused("libhdfs", "HDFS is not linked into iolab"),
    refused("ime_psync", "DDN IME is not linked into iolab"),
    refused("ime_psyncv", "DDN IME is not linked into iolab"),
    refused("ime_aio", "DDN IME is not linked into iolab"),
    refused("dev-dax", PMDK),
    runs("filecreate", FILEOP | DISKLESS),
    runs("filestat", FILEOP),
    runs("filedelete", FILEOP),
    runs("dircreate", FILEOP | DISKLESS),
    runs("dirstat", FILEOP | DISKLESS),
    runs("dirdelete", FILEOP | DISKLESS),
    refused("external", "external engine plugins are not loaded"),
    refused("libpmem", PMDK),
    refused("libzbc", "libzbc is not linked into iolab"),
    refused("libiscsi", "iSCSI is not linked into iolab"),
    refused("libblkio", "libblkio is not linked into iolab"),
    refused("libcufile", "GPUDirect Storage (cuFile) is not linked into iolab"),
    refused("libhipfile", "ROCm hipFile is not linked into iolab"),
    refused("mtd", "MTD flash devices are not supported"),
    refused("page_fault", "not implemented (ioengine=mmap maps the file)"),
    runs("exec", SYNC | DISKLESS | NO_DATA),
    refused("http", "HTTP/S3 object I/O is not implemented"),
    refused("nbd", "NBD client I/O is not implemented"),
    refused("dfs", "DAOS is not linked into iolab"),
    refused("nfs", "libnfs is not linked into iolab"),
    refused("xnvme", "xNVMe is not linked into iolab"),
];

/// The names of [`ENGINES`], in order: the registry's `ioengine` choices.
pub const NAMES: [&str; ENGINES.len()] = {
    let mut out = [""; ENGINES.len()];
    let mut i = 0;
    while i < ENGINES.len() {
        out[i] = ENGINES[i].name;
        i += 1;
    }
    out
};

/// The row of `ioengine=name`, if fio knows the name.
pub fn facts(name: &str) -> Option<&'static EngineFacts> {
    ENGINES.iter().find(|e| e.name == name)
}

/// Whether `name` is an engine whose row carries `flag` (an unknown name carries none).
pub fn has(name: &str, flag: u8) -> bool {
    facts(name).is_some_and(|e| e.is(flag))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_row_per_name_and_facts_that_hold_together() {
        let mut names: Vec<&str> = NAMES.to_vec();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), ENGINES.len(), "a name has two rows");
        assert_eq!(NAMES.len(), 52, "fio 3.33 accepts 52 ioengine names");
        for e in ENGINES {
            assert!(e.refused.is_none() || e.flags == 0, "{}: a refused row has no facts", e.name);
            assert!(!(e.is(SYNC) && e.is(KERNEL_QUEUE)), "{}: sync and queued", e.name);
            assert!(!e.is(FILE_OPS) || e.is(NO_DATA), "{}: file ops move data", e.name);
        }
    }

    #[test]
    fn what_the_advice_and_the_runner_read() {
        // The engines the advice's old lists left out: mmap and splice are synchronous,
        // posixaio is not (glibc's threads), and none of them queues in the kernel.
        assert!(has("mmap", SYNC) && has("splice", SYNC) && !has("posixaio", SYNC));
        assert!(!has("posixaio", KERNEL_QUEUE) && has("io_uring", KERNEL_QUEUE));
        assert!(has("null", DISKLESS) && !has("filestat", DISKLESS) && has("filestat", FILE_OPS));
        assert_eq!(facts("rbd").and_then(|e| e.refused), Some("Ceph RBD is not linked into iolab"));
        assert!(facts("nosuch").is_none() && !has("nosuch", 0));
    }
}
