//! Option table: I/O engine option tables.
//!
//! Source: fio `engines/*.c` (`static struct fio_option options[]`) and `engines/cmdprio.h`
//! (`CMDPRIO_OPTIONS`), at fio f5344384. Types, defaults and choices follow fio's table; the
//! help texts are iolab's own, and each entry carries iolab's status and the reason for it.
//! Generated once from fio's tables and then edited by hand; this file is the source of truth.

use super::Category::*;
use super::OptionType::*;
use super::Status::*;
use super::{opt, OptionDef};

pub(super) const OPTIONS: &[OptionDef] = &[
    opt("hipri", Bool, Engine, Supported)
        .engine(&["io_uring", "libblkio", "sg", "pvsync2", "xnvme"])
        .help(
            "Use polled completions (io_uring IORING_SETUP_IOPOLL; RWF_HIPRI for pvsync2).",
            "Needs `direct=1` and a device with poll queues (NVMe `poll_queues`); otherwise \
            io_uring fails the I/O with EOPNOTSUPP and iolab reports it. Supported for iolab's \
            io_uring engine and for pvsync2 (RWF_HIPRI); the sg, libblkio and xnvme engines do \
            not exist in iolab.",
        ),
    opt("fixedbufs", Bool, Engine, Supported).engine(&["io_uring"]).help(
        "Register I/O buffers with io_uring once (fixed buffers).",
        "Saves page pinning per I/O; most useful with `direct=1`. fio's default is 0; iolab \
        registers whenever the job does not set it (the I/O is the same, the CPU per I/O lower) \
        and notes it in the result if the kernel or `ulimit -l` refuses. `fixedbufs=1` makes a \
        refusal an error, `fixedbufs=0` turns registration off.",
    ),
    opt("registerfiles", Bool, Engine, Supported).engine(&["io_uring"]).help(
        "Register the job's files with io_uring (fixed files).",
        "Saves file reference counting per I/O. fio's default is 0; iolab registers whenever \
        the job does not set it and notes a refusal; `registerfiles=1` makes a refusal an \
        error, `registerfiles=0` turns it off.",
    ),
    opt("sqthread_poll", Bool, Engine, Supported).engine(&["io_uring", "xnvme"]).help(
        "Let a kernel thread poll the submission queue (IORING_SETUP_SQPOLL).",
        "Submissions need no system call; the kernel thread uses a CPU. Supported for \
            io_uring; xnvme does not exist in iolab.",
    ),
    opt(
        "sqthread_poll_cpu",
        Int,
        Engine,
        Ignored("iolab leaves the SQ thread's CPU to the kernel"),
    )
    .engine(&["io_uring"])
    .help("CPU for the SQPOLL kernel thread.", "Only affects placement."),
    opt(
        "nonvectored",
        Int,
        Engine,
        Ignored("iolab's io_uring engine chooses the opcode itself; this switch is not consulted"),
    )
    .def("-1")
    .engine(&["io_uring"])
    .help(
        "Use non-vectored read/write opcodes.",
        "fio uses IORING_OP_READ/WRITE when supported (-1, the default) or forces one kind.",
    ),
    opt("uncached", Int, Engine, Supported).engine(&["io_uring", "pvsync2"]).help(
        "Use uncached buffered I/O (RWF_DONTCACHE, kernel 6.14+).",
        "io_uring and pvsync2 in fio. iolab acts on it with pvsync2 (a kernel without \
        RWF_DONTCACHE fails the first I/O with EOPNOTSUPP, reported by name); other engines \
        note that they ran cached.",
    ),
    opt("nowait", Bool, Engine, Unsupported("not implemented; drop the option"))
        .engine(&["io_uring", "libaio", "pvsync2"])
        .help(
            "Issue I/O with RWF_NOWAIT (fail instead of blocking).",
            "io_uring, libaio and pvsync2 in fio.",
        ),
    opt("force_async", Int, Engine, Unsupported("not implemented; drop the option"))
        .engine(&["io_uring"])
        .help("Set IOSQE_ASYNC on every Nth request.", "Forces io-wq punting in the kernel."),
    opt(
        "readfua",
        Bool,
        Engine,
        Unsupported("passthrough commands (io_uring_cmd, sg) are not supported"),
    )
    .def("0")
    .engine(&["io_uring", "sg"])
    .help("Set force unit access on reads.", "io_uring_cmd and sg only."),
    opt(
        "writefua",
        Bool,
        Engine,
        Unsupported(
            "passthrough commands (io_uring_cmd, sg) are not supported; use \
                        sync=dsync instead",
        ),
    )
    .def("0")
    .engine(&["io_uring", "sg"])
    .help("Set force unit access on writes.", "io_uring_cmd and sg only."),
    opt("write_mode", Str, Engine, Unsupported("io_uring_cmd passthrough is not supported"))
        .def("write")
        .engine(&["io_uring"])
        .help(
            "Write command for io_uring_cmd: write, uncor, zeroes, verify, zone_append.",
            "NVMe passthrough only.",
        ),
    opt("verify_mode", Str, Engine, Unsupported("io_uring_cmd passthrough is not supported"))
        .def("read")
        .choices(&["read", "compare"])
        .engine(&["io_uring"])
        .help(
            "Read or Compare commands in the io_uring_cmd verify phase.",
            "NVMe passthrough only.",
        ),
    opt("cmd_type", Str, Engine, Unsupported("io_uring_cmd passthrough is not supported"))
        .def("nvme")
        .choices(&["nvme", "bsg"])
        .engine(&["io_uring"])
        .help("Passthrough command set for io_uring_cmd: nvme or bsg.", "See `write_mode`."),
    opt("cdb_len", Str, Engine, Unsupported("io_uring_cmd passthrough is not supported"))
        .def("0")
        .choices(&["0", "10", "16", "32"])
        .engine(&["io_uring"])
        .help("SCSI CDB length for bsg passthrough.", "See `cmd_type`."),
    opt("verify_bytchk", Str, Engine, Unsupported("io_uring_cmd passthrough is not supported"))
        .def("0")
        .choices(&["0", "1", "3"])
        .engine(&["io_uring"])
        .help("BYTCHK field for SCSI write-and-verify.", "See `cmd_type`."),
    opt("read_mode", Str, Engine, Unsupported("io_uring_cmd passthrough is not supported"))
        .def("read")
        .choices(&["read", "prefetch"])
        .engine(&["io_uring"])
        .help("SCSI read or prefetch for bsg passthrough.", "See `cmd_type`."),
    opt(
        "md_per_io_size",
        Int,
        Engine,
        Unsupported("NVMe metadata/protection information is not supported"),
    )
    .def("0")
    .engine(&["io_uring", "xnvme"])
    .help("Separate metadata buffer size per I/O.", "io_uring_cmd and xnvme."),
    opt("pi_act", Bool, Engine, Unsupported("NVMe protection information is not supported"))
        .def("1")
        .engine(&["io_uring", "xnvme"])
        .help("NVMe protection information action bit.", "See `md_per_io_size`."),
    opt("pi_chk", Str, Engine, Unsupported("NVMe protection information is not supported"))
        .engine(&["io_uring", "xnvme"])
        .help("Which protection information fields the device checks.", "See `md_per_io_size`."),
    opt("apptag", Int, Engine, Unsupported("NVMe protection information is not supported"))
        .def("0x1234")
        .engine(&["io_uring", "xnvme"])
        .help("Application tag for protection information.", "See `md_per_io_size`."),
    opt("apptag_mask", Int, Engine, Unsupported("NVMe protection information is not supported"))
        .def("0xffff")
        .engine(&["io_uring", "xnvme"])
        .help("Application tag mask.", "See `md_per_io_size`."),
    opt("deac", Bool, Engine, Unsupported("io_uring_cmd passthrough is not supported"))
        .def("0")
        .engine(&["io_uring"])
        .help("Deallocate flag on NVMe write-zeroes.", "See `write_mode`."),
    opt(
        "cmdprio_percentage",
        Int,
        Engine,
        Ignored("iolab issues all I/O at the inherited priority; per-I/O priorities are not set"),
    )
    .engine(&["io_uring", "libaio"])
    .min_val(0)
    .max_val(100)
    .help("Issue this share of I/Os at a higher priority.", "io_uring and libaio in fio."),
    opt("cmdprio_class", Int, Engine, Ignored("per-I/O priorities are not set by iolab"))
        .engine(&["io_uring", "libaio"])
        .min_val(1)
        .max_val(3)
        .help("Priority class for `cmdprio_percentage` I/Os.", "See `cmdprio_percentage`."),
    opt("cmdprio_hint", Int, Engine, Ignored("per-I/O priorities are not set by iolab"))
        .engine(&["io_uring", "libaio"])
        .min_val(0)
        .max_val(1023)
        .help("Priority hint for `cmdprio_percentage` I/Os.", "See `cmdprio_percentage`."),
    opt("cmdprio", Int, Engine, Ignored("per-I/O priorities are not set by iolab"))
        .engine(&["io_uring", "libaio"])
        .min_val(0)
        .max_val(7)
        .help("Priority level for `cmdprio_percentage` I/Os.", "See `cmdprio_percentage`."),
    opt("cmdprio_bssplit", Special, Engine, Ignored("per-I/O priorities are not set by iolab"))
        .engine(&["io_uring", "libaio"])
        .help("Priority shares per block size.", "See `cmdprio_percentage`."),
    opt("userspace_reap", Bool, Engine, Supported).engine(&["libaio"]).help(
        "Reap libaio completions from the ring in user space instead of io_getevents.",
        "Only used when `iodepth_batch_complete_min=0`, as in fio.",
    ),
    opt(
        "libaio_vectored",
        Bool,
        Engine,
        Unsupported(
            "not implemented; iolab's libaio engine issues plain pread/pwrite \
                        commands",
        ),
    )
    .engine(&["libaio"])
    .help("Use vectored libaio commands (preadv/pwritev).", "New in fio 3.36."),
    opt(
        "hipri_percentage",
        Int,
        Engine,
        Unsupported("the pvsync2 engine does not exist in iolab; use io_uring with hipri"),
    )
    .def("100")
    .engine(&["pvsync2"])
    .min_val(0)
    .max_val(100)
    .help("Share of pvsync2 I/Os with RWF_HIPRI.", "pvsync2 only."),
    opt("cpuload", Int, Engine, Supported)
        .engine(&["cpuio"])
        .min_val(1)
        .help("Percentage of CPU the cpuio engine burns.", "cpuio only."),
    opt("cpumode", Str, Engine, Supported)
        .def("noop")
        .choices(&["noop", "qsort"])
        .engine(&["cpuio"])
        .help("How cpuio burns CPU: noop or qsort.", "cpuio only."),
    opt("cpuchunks", Int, Engine, Supported)
        .def("50000")
        .engine(&["cpuio"])
        .help("Length of cpuio burn cycles (µs).", "cpuio only."),
    opt(
        "exit_on_io_done",
        Bool,
        Engine,
        Unsupported(
            "not implemented: a cpuio job runs to its own runtime; give it the I/O jobs' runtime",
        ),
    )
    .def("0")
    .engine(&["cpuio"])
    .help("End cpuio jobs when the I/O jobs finish.", "cpuio only."),
    opt("pool", Str, Engine, Unsupported("the dfs, rados and rbd engines do not exist in iolab"))
        .engine(&["dfs", "rados", "rbd"])
        .help("Storage pool name (DAOS, RADOS, RBD).", "Remote engines."),
    opt("cont", Str, Engine, Unsupported("the dfs engine does not exist in iolab"))
        .engine(&["dfs"])
        .help("DAOS container.", "dfs only."),
    opt(
        "chunk_size",
        Size,
        Engine,
        Unsupported("the dfs and libhdfs engines do not exist in iolab"),
    )
    .alias(&["chunck_size"])
    .def("0")
    .engine(&["dfs", "libhdfs"])
    .help(
        "Chunk size for DAOS or HDFS objects.",
        "fio also accepts the misspelling `chunck_size`.",
    ),
    opt("object_class", Str, Engine, Unsupported("the dfs engine does not exist in iolab"))
        .engine(&["dfs"])
        .help("DAOS object class.", "dfs only."),
    opt("svcl", Str, Engine, Unsupported("the dfs engine does not exist in iolab"))
        .engine(&["dfs"])
        .help("DAOS pool service ranks.", "dfs only."),
    opt("donorname", Str, Engine, Unsupported("the e4defrag engine does not exist in iolab"))
        .engine(&["e4defrag"])
        .help("Donor file for e4defrag.", "e4defrag only."),
    opt("inplace", Int, Engine, Unsupported("the e4defrag engine does not exist in iolab"))
        .engine(&["e4defrag"])
        .min_val(0)
        .max_val(1)
        .help("Allocate and free space inside the defrag event.", "e4defrag only."),
    opt("program", Str, Engine, Supported)
        .engine(&["exec"])
        .help("Program run by the exec engine.", "exec only."),
    opt("arguments", Str, Engine, Supported)
        .engine(&["exec"])
        .help("Arguments for the exec engine's program.", "exec only."),
    opt("grace_time", Int, Engine, Supported)
        .def("1")
        .engine(&["exec"])
        .min_val(0)
        .help("Seconds before the exec engine kills its program.", "exec only."),
    opt("std_redirect", Bool, Engine, Supported)
        .def("1")
        .engine(&["exec"])
        .help("Redirect the exec program's output to files.", "exec only."),
    opt("stat_type", Str, Engine, Supported)
        .def("stat")
        .choices(&["stat", "lstat", "statx"])
        .engine(&["filestat", "dirstat"])
        .help(
            "stat call measured by the filestat/dirstat engines: stat, lstat, statx.",
            "filestat and dirstat.",
        ),
    opt("volume", Str, Engine, Unsupported("the gfapi engines do not exist in iolab"))
        .engine(&["gfapi"])
        .help("GlusterFS volume.", "gfapi only."),
    opt("brick", Str, Engine, Unsupported("the gfapi engines do not exist in iolab"))
        .engine(&["gfapi"])
        .help("GlusterFS brick.", "gfapi only."),
    opt("single-instance", Bool, Engine, Unsupported("the gfapi engines do not exist in iolab"))
        .engine(&["gfapi"])
        .help("Use one GlusterFS instance.", "gfapi only."),
    opt("https", Str, Engine, Unsupported("the http engine does not exist in iolab"))
        .def("off")
        .choices(&["off", "on", "insecure"])
        .engine(&["http"])
        .help("Use HTTPS for the http engine: off, on, insecure.", "http (WebDAV, S3, Swift)."),
    opt("http_host", Str, Engine, Unsupported("the http engine does not exist in iolab"))
        .def("localhost")
        .engine(&["http"])
        .help("HTTP host or S3 bucket host.", "http only."),
    opt("http_user", Str, Engine, Unsupported("the http engine does not exist in iolab"))
        .engine(&["http"])
        .help("HTTP user name.", "http only."),
    opt("http_pass", Str, Engine, Unsupported("the http engine does not exist in iolab"))
        .engine(&["http"])
        .help("HTTP password.", "http only."),
    opt("http_s3_key", Str, Engine, Unsupported("the http engine does not exist in iolab"))
        .engine(&["http"])
        .help("S3 secret key.", "http only."),
    opt("http_s3_keyid", Str, Engine, Unsupported("the http engine does not exist in iolab"))
        .engine(&["http"])
        .help("S3 key ID.", "http only."),
    opt(
        "http_s3_security_token",
        Str,
        Engine,
        Unsupported("the http engine does not exist in iolab"),
    )
    .engine(&["http"])
    .help("S3 session token.", "http only."),
    opt(
        "http_swift_auth_token",
        Str,
        Engine,
        Unsupported("the http engine does not exist in iolab"),
    )
    .engine(&["http"])
    .help("OpenStack Swift token.", "http only."),
    opt("http_s3_region", Str, Engine, Unsupported("the http engine does not exist in iolab"))
        .def("us-east-1")
        .engine(&["http"])
        .help("S3 region.", "http only."),
    opt(
        "http_s3_sse_customer_key",
        Str,
        Engine,
        Unsupported("the http engine does not exist in iolab"),
    )
    .engine(&["http"])
    .help("S3 server-side encryption key.", "http only."),
    opt(
        "http_s3_sse_customer_algorithm",
        Str,
        Engine,
        Unsupported("the http engine does not exist in iolab"),
    )
    .def("AES256")
    .engine(&["http"])
    .help("S3 server-side encryption algorithm.", "http only."),
    opt(
        "http_s3_storage_class",
        Str,
        Engine,
        Unsupported("the http engine does not exist in iolab"),
    )
    .def("STANDARD")
    .engine(&["http"])
    .help("S3 storage class.", "http only."),
    opt("http_mode", Str, Engine, Unsupported("the http engine does not exist in iolab"))
        .def("webdav")
        .choices(&["webdav", "s3", "swift"])
        .engine(&["http"])
        .help("Protocol for the http engine: webdav, s3, swift.", "http only."),
    opt("http_verbose", Int, Engine, Unsupported("the http engine does not exist in iolab"))
        .def("0")
        .engine(&["http"])
        .help("libcurl verbosity.", "http only."),
    opt("http_object_mode", Str, Engine, Unsupported("the http engine does not exist in iolab"))
        .def("block")
        .choices(&["block", "range"])
        .engine(&["http"])
        .help("One object per block, or ranges of one object.", "http only."),
    opt(
        "gpu_dev_ids",
        Str,
        Engine,
        Unsupported("the libcufile and libhipfile engines do not exist in iolab"),
    )
    .engine(&["libcufile", "libhipfile"])
    .help("GPU IDs for GPUDirect Storage jobs.", "GPU engines."),
    opt("cuda_io", Str, Engine, Unsupported("the libcufile engine does not exist in iolab"))
        .def("cufile")
        .choices(&["cufile", "posix"])
        .engine(&["libcufile"])
        .help("cuFile or POSIX I/O with CUDA buffers.", "libcufile only."),
    opt("rocm_io", Str, Engine, Unsupported("the libhipfile engine does not exist in iolab"))
        .def("hipfile")
        .choices(&["hipfile", "posix"])
        .engine(&["libhipfile"])
        .help("hipFile or POSIX I/O with ROCm buffers.", "libhipfile only."),
    opt("libblkio_driver", Str, Engine, Unsupported("the libblkio engine does not exist in iolab"))
        .engine(&["libblkio"])
        .help("libblkio driver name.", "libblkio only."),
    opt("libblkio_path", Str, Engine, Unsupported("the libblkio engine does not exist in iolab"))
        .engine(&["libblkio"])
        .help("libblkio `path` property.", "libblkio only."),
    opt(
        "libblkio_pre_connect_props",
        Str,
        Engine,
        Unsupported("the libblkio engine does not exist in iolab"),
    )
    .engine(&["libblkio"])
    .help("libblkio properties set before connecting.", "libblkio only."),
    opt(
        "libblkio_num_entries",
        Int,
        Engine,
        Unsupported("the libblkio engine does not exist in iolab"),
    )
    .engine(&["libblkio"])
    .min_val(1)
    .help("libblkio `num-entries` property.", "libblkio only."),
    opt(
        "libblkio_queue_size",
        Int,
        Engine,
        Unsupported("the libblkio engine does not exist in iolab"),
    )
    .engine(&["libblkio"])
    .min_val(1)
    .help("libblkio `queue-size` property.", "libblkio only."),
    opt(
        "libblkio_pre_start_props",
        Str,
        Engine,
        Unsupported("the libblkio engine does not exist in iolab"),
    )
    .engine(&["libblkio"])
    .help("libblkio properties set before starting.", "libblkio only."),
    opt(
        "libblkio_vectored",
        Bool,
        Engine,
        Unsupported("the libblkio engine does not exist in iolab"),
    )
    .engine(&["libblkio"])
    .help("Use vectored libblkio requests.", "libblkio only."),
    opt(
        "libblkio_write_zeroes_on_trim",
        Bool,
        Engine,
        Unsupported("the libblkio engine does not exist in iolab"),
    )
    .engine(&["libblkio"])
    .help("Turn trims into write-zeroes in libblkio.", "libblkio only."),
    opt(
        "libblkio_wait_mode",
        Str,
        Engine,
        Unsupported("the libblkio engine does not exist in iolab"),
    )
    .def("block")
    .choices(&["block", "eventfd", "loop"])
    .engine(&["libblkio"])
    .help("How libblkio waits: block, eventfd, loop.", "libblkio only."),
    opt(
        "libblkio_force_enable_completion_eventfd",
        Bool,
        Engine,
        Unsupported("the libblkio engine does not exist in iolab"),
    )
    .engine(&["libblkio"])
    .help("Always enable libblkio's completion eventfd.", "libblkio only."),
    opt("namenode", Str, Engine, Unsupported("the libhdfs engine does not exist in iolab"))
        .def("localhost")
        .engine(&["libhdfs"])
        .help("HDFS namenode host.", "libhdfs only."),
    opt(
        "hostname",
        Str,
        Engine,
        Unsupported("the net, rdma and libhdfs engines do not exist in iolab"),
    )
    .def("localhost")
    .engine(&["libhdfs", "net", "rdma"])
    .help("Remote host for the net, rdma and libhdfs engines.", "Network engines."),
    opt(
        "port",
        Int,
        Engine,
        Unsupported("the net, rdma and libhdfs engines do not exist in iolab"),
    )
    .def("9000")
    .engine(&["libhdfs", "net", "rdma"])
    .min_val(1)
    .max_val(65535)
    .help("Remote port for the net, rdma and libhdfs engines.", "Network engines."),
    opt("hdfsdirectory", Str, Engine, Unsupported("the libhdfs engine does not exist in iolab"))
        .def("/")
        .engine(&["libhdfs"])
        .help("HDFS directory for chunks.", "libhdfs only."),
    opt("single_instance", Bool, Engine, Unsupported("the libhdfs engine does not exist in iolab"))
        .def("1")
        .engine(&["libhdfs"])
        .help("Use one HDFS instance.", "libhdfs only."),
    opt("hdfs_use_direct", Bool, Engine, Unsupported("the libhdfs engine does not exist in iolab"))
        .def("0")
        .engine(&["libhdfs"])
        .help("Use HDFS readDirect.", "libhdfs only."),
    opt("initiator", Str, Engine, Unsupported("the libiscsi engine does not exist in iolab"))
        .def("iqn.2019-04.org.fio:fio")
        .engine(&["libiscsi"])
        .help("iSCSI initiator name.", "libiscsi only."),
    opt("thp", Int, Engine, Unsupported("the mmap engine does not exist in iolab"))
        .engine(&["mmap"])
        .help("Use transparent huge pages for mmap I/O.", "mmap only."),
    opt("skip_bad", Bool, Engine, Unsupported("the mtd engine does not exist in iolab"))
        .def("0")
        .engine(&["mtd"])
        .help("Skip known bad blocks on MTD devices.", "mtd only."),
    opt("uri", Str, Engine, Unsupported("the nbd engine does not exist in iolab"))
        .engine(&["nbd"])
        .help("NBD URI.", "nbd only."),
    opt("protocol", Str, Engine, Unsupported("the net engine does not exist in iolab"))
        .alias(&["proto"])
        .def("tcp")
        .choices(&["tcp", "tcpv6", "udp", "udpv6", "unix", "vsock"])
        .engine(&["net"])
        .help(
            "Network protocol for the net engine: tcp, udp, unix, vsock…",
            "net only. fio also uses the alias `proto` for the rdma engine's `verb`; iolab \
            resolves `proto` to this entry.",
        ),
    opt("nodelay", Bool, Engine, Unsupported("the net engine does not exist in iolab"))
        .engine(&["net"])
        .help("TCP_NODELAY for the net engine.", "net only."),
    opt("listen", Bool, Engine, Unsupported("the net engine does not exist in iolab"))
        .engine(&["net"])
        .help("Listen for connections instead of connecting.", "net only."),
    opt("pingpong", Bool, Engine, Unsupported("the net engine does not exist in iolab"))
        .engine(&["net"])
        .help("Ping-pong requests over the network.", "net only."),
    opt("interface", Str, Engine, Unsupported("the net engine does not exist in iolab"))
        .engine(&["net"])
        .help("Network interface for multicast.", "net only."),
    opt("ttl", Int, Engine, Unsupported("the net engine does not exist in iolab"))
        .def("1")
        .engine(&["net"])
        .min_val(0)
        .help("Multicast TTL.", "net only."),
    opt("window_size", Int, Engine, Unsupported("the net engine does not exist in iolab"))
        .engine(&["net"])
        .min_val(0)
        .help("Socket buffer size.", "net only."),
    opt("mss", Int, Engine, Unsupported("the net engine does not exist in iolab"))
        .engine(&["net"])
        .min_val(0)
        .help("TCP maximum segment size.", "net only."),
    opt(
        "nfs_url",
        Str,
        Engine,
        Unsupported(
            "the nfs engine does not exist in iolab; mount the export and use a file \
                        engine",
        ),
    )
    .engine(&["nfs"])
    .help("libnfs URL.", "nfs only."),
    opt("clustername", Str, Engine, Unsupported("the rados and rbd engines do not exist in iolab"))
        .engine(&["rados", "rbd"])
        .help("Ceph cluster name.", "Ceph engines."),
    opt("clientname", Str, Engine, Unsupported("the rados and rbd engines do not exist in iolab"))
        .engine(&["rados", "rbd"])
        .help("Ceph client name.", "Ceph engines."),
    opt("conf", Str, Engine, Unsupported("the rados engine does not exist in iolab"))
        .def("/etc/ceph/ceph.conf")
        .engine(&["rados"])
        .help("Ceph configuration file.", "rados only."),
    opt("busy_poll", Bool, Engine, Unsupported("the rados and rbd engines do not exist in iolab"))
        .def("0")
        .engine(&["rados", "rbd"])
        .help("Busy-poll Ceph completions.", "Ceph engines."),
    opt("touch_objects", Bool, Engine, Unsupported("the rados engine does not exist in iolab"))
        .def("1")
        .engine(&["rados"])
        .help("Create RADOS objects at start.", "rados only."),
    opt(
        "rbdname",
        Str,
        Engine,
        Unsupported(
            "the rbd engine does not exist in iolab; map the image (rbd map) and use \
                        a block-device engine",
        ),
    )
    .engine(&["rbd"])
    .help("RBD image name.", "rbd only."),
    opt(
        "rbd_encryption_format",
        Str,
        Engine,
        Unsupported("the rbd engine does not exist in iolab"),
    )
    .engine(&["rbd"])
    .help("RBD encryption format.", "rbd only."),
    opt(
        "rbd_encryption_passphrase",
        Str,
        Engine,
        Unsupported("the rbd engine does not exist in iolab"),
    )
    .engine(&["rbd"])
    .help("RBD encryption passphrase.", "rbd only."),
    opt("bindname", Str, Engine, Unsupported("the rdma engine does not exist in iolab"))
        .engine(&["rdma"])
        .help("Local address for RDMA.", "rdma only."),
    opt("verb", Str, Engine, Unsupported("the rdma engine does not exist in iolab"))
        .def("write")
        .choices(&["write", "read", "send", "recv"])
        .engine(&["rdma"])
        .help(
            "RDMA verb: write, read, send, recv.",
            "rdma only. In fio its alias `proto` clashes with the net engine's `protocol` alias.",
        ),
    opt("sg_write_mode", Str, Engine, Unsupported("the sg engine does not exist in iolab"))
        .def("write")
        .choices(&[
            "write",
            "write_and_verify",
            "verify",
            "write_same",
            "same",
            "write_same_ndob",
            "verify_bytchk_00",
            "verify_bytchk_01",
            "verify_bytchk_11",
            "write_stream",
        ])
        .engine(&["sg"])
        .help("SCSI write command for the sg engine.", "sg only."),
    opt("stream_id", Int, Engine, Unsupported("the sg engine does not exist in iolab"))
        .def("0")
        .engine(&["sg"])
        .help("Stream ID for SCSI WRITE STREAM.", "sg only."),
    opt("dummy", Bool, Engine, Unsupported("external engines are not supported"))
        .engine(&["external"])
        .help("Example option of fio's external engine skeleton.", "skeleton_external only."),
    opt(
        "no_completion_thread",
        Bool,
        Engine,
        Unsupported("the windowsaio engine does not exist in iolab"),
    )
    .engine(&["windowsaio"])
    .help("Poll completions without a separate thread.", "windowsaio only."),
    opt("xnvme_be", Str, Engine, Unsupported("the xnvme engine does not exist in iolab"))
        .engine(&["xnvme"])
        .help("xNVMe backend.", "xnvme only."),
    opt("xnvme_mem", Str, Engine, Unsupported("the xnvme engine does not exist in iolab"))
        .engine(&["xnvme"])
        .help("xNVMe memory backend.", "xnvme only."),
    opt("xnvme_async", Str, Engine, Unsupported("the xnvme engine does not exist in iolab"))
        .engine(&["xnvme"])
        .help("xNVMe async interface.", "xnvme only."),
    opt("xnvme_sync", Str, Engine, Unsupported("the xnvme engine does not exist in iolab"))
        .engine(&["xnvme"])
        .help("xNVMe sync interface.", "xnvme only."),
    opt("xnvme_admin", Str, Engine, Unsupported("the xnvme engine does not exist in iolab"))
        .engine(&["xnvme"])
        .help("xNVMe admin interface.", "xnvme only."),
    opt("xnvme_dev_nsid", Int, Engine, Unsupported("the xnvme engine does not exist in iolab"))
        .engine(&["xnvme"])
        .help("NVMe namespace ID for xNVMe.", "xnvme only."),
    opt("xnvme_dev_subnqn", Str, Engine, Unsupported("the xnvme engine does not exist in iolab"))
        .engine(&["xnvme"])
        .help("Fabrics subsystem NQN for xNVMe.", "xnvme only."),
    opt("xnvme_iovec", Bool, Engine, Unsupported("the xnvme engine does not exist in iolab"))
        .engine(&["xnvme"])
        .help("Vectored xNVMe I/O.", "xnvme only."),
];
