//! Option table: I/O submission, direction, randomness, rate and latency targets.
//!
//! Source: fio `options.c` groups FIO_OPT_G_IO_BASIC, FIO_OPT_G_IO_TYPE, FIO_OPT_G_RANDOM,
//! FIO_OPT_G_RATE, FIO_OPT_G_THINKTIME, FIO_OPT_G_LATPROF; `io_u.c`, `backend.c`,
//! `lib/zipf.c`, at fio f5344384. Types, defaults and choices follow fio's table; the help
//! texts are iolab's own, and each entry carries iolab's status and the reason for it.
//! Generated once from fio's tables and then edited by hand; this file is the source of truth.

use super::Category::*;
use super::OptionType::*;
use super::Status::*;
use super::TimeUnit::*;
use super::{opt, OptionDef};
use crate::apply as a;

pub(super) const OPTIONS: &[OptionDef] = &[
    opt("ioengine", Special, Io, Supported)
        .set(a::set_ioengine)
        .def("psync")
        .choices(&crate::engines::NAMES)
        .help(
            "How I/O is issued: io_uring, libaio, psync, sync, null, or any fio engine name.",
            "iolab implements `io_uring`, `libaio`, `psync`, `sync` and `null`; every other fio \
            engine name is accepted here and refused when the job runs, naming the engine. \
            `external:/path.so` (fio plug-ins) is refused too. Synchronous engines issue one \
            I/O at a time whatever `iodepth` says (fio caps them at 1 as well); libaio with \
            `direct=0` blocks on submission, so its real depth is about 1.",
        ),
    opt("iodepth", Int, Io, Supported).set(a::set_iodepth).def("1").min_val(1).help(
        "I/O units kept in flight per job (shared by all of the job's files).",
        "Only asynchronous engines reach depths above 1. Check the reported depth histogram: \
            the depth asked for is not always the depth reached (buffered libaio, rate limits \
            that quiesce, `thinktime_blocks`).",
    ),
    opt("iodepth_batch", Int, Io, Supported).alias(&["iodepth_batch_submit"]).def("1").help(
        "How many queued I/Os to submit at once (0 means iodepth).",
        "Default 1. Larger batches save system calls per I/O. fio commits whatever is queued \
            before each wait, so with the queue full it submits as few units as were reaped. \
            iolab does the same, except that while completions are already waiting (a reap \
            would not sleep) it holds the commit until up to this many units, at most 4, are \
            queued: the same units in the same order, fewer submissions and device \
            notifications. The held time is in slat; the submit histogram shows the batches.",
    ),
    opt("iodepth_batch_complete_min", Int, Io, Supported)
        .alias(&["iodepth_batch_complete"])
        .def("1")
        .min_val(0)
        .help(
            "Minimum completions to wait for in one reap (0 means poll without waiting).",
            "Default 1.",
        ),
    opt("iodepth_batch_complete_max", Int, Io, Supported).min_val(0).help(
        "Maximum completions to take in one reap.",
        "Defaults to `iodepth_batch_complete_min`.",
    ),
    opt("iodepth_low", Int, Io, Supported).help(
        "Refill the queue only once it has drained to this depth.",
        "Defaults to `iodepth`, i.e. refill as soon as there is room.",
    ),
    opt(
        "serialize_overlap",
        Bool,
        Io,
        Unsupported(
            "not implemented; use iodepth=1, or keep the random map on (the default) \
                        so offsets do not repeat within a pass",
        ),
    )
    .def("0")
    .help(
        "Hold back an I/O that overlaps one still in flight.",
        "Only matters for writes racing to the same blocks.",
    ),
    opt("io_submit_mode", Str, Io, Supported).def("inline").choices(&["inline"]).help(
        "Submit I/O from the job's thread (inline) or from a pool of helper threads \
            (offload).",
        "iolab submits inline only; fio's `offload` is refused by name. For open-loop rate \
            testing use `rate_process` instead.",
    ),
    opt("rw", Special, IoType, Supported)
        .set(a::set_rw)
        .alias(&["readwrite"])
        .def("read")
        .choices(&[
            "read",
            "write",
            "trim",
            "randread",
            "randwrite",
            "randtrim",
            "rw",
            "readwrite",
            "randrw",
            "trimwrite",
            "randtrimwrite",
        ])
        .help(
            "Direction and order of I/O: read, write, randread, randwrite, rw (mixed), randrw, \
            trim…",
            "Default `read`. A `:N` suffix changes the offset only every N I/Os for random \
            patterns (`randread:8`) or adds N bytes of hole after each sequential I/O \
            (`write:4k`); `rw_sequencer` says what happens in between. iolab refuses trim \
            directions at run time (no engine trims).",
        ),
    opt("rw_sequencer", Str, IoType, Supported)
        .set(a::set_rw_sequencer)
        .def("sequential")
        .choices(&["sequential", "identical"])
        .help(
            "With `rw=…:N`, whether the I/Os between new offsets are sequential or repeat the \
            same offset.",
            "`sequential` (default) or `identical`.",
        ),
    opt("rwmixread", Int, IoType, Supported).set(a::set_rwmixread).def("50").max_val(100).help(
        "Percentage of a mixed workload that are reads.",
        "Default 50. Each I/O draws the direction with a byte-count catch-up (fio \
            `set_rwmix_bytes`). If both `rwmixread` and `rwmixwrite` are given and do not add \
            up to 100, the last one wins.",
    ),
    opt("rwmixwrite", Int, IoType, Supported)
        .set(a::set_rwmixwrite)
        .def("50")
        .max_val(100)
        .help("Percentage of a mixed workload that are writes.", "See `rwmixread`."),
    opt("rwmixcycle", Deprecated, IoType, Ignored("deprecated in fio, which ignores it too"))
        .help("Deprecated rwmix cycle length.", "Kept so old job files parse."),
    opt("direct", Bool, IoType, Supported).set(a::set_direct).def("0").help(
        "Use O_DIRECT, bypassing the page cache.",
        "Buffers and sizes must then be aligned to the device's logical block size. \
            `buffered` is its inverse.",
    ),
    opt("buffered", Bool, IoType, Supported)
        .set(a::set_buffered)
        .def("1")
        .help("Use buffered I/O through the page cache (the inverse of `direct`).", "Default on."),
    opt(
        "atomic",
        Bool,
        IoType,
        Unsupported("RWF_ATOMIC writes are not implemented; drop the option"),
    )
    .def("0")
    .help(
        "Issue writes as untorn (RWF_ATOMIC) writes; implies O_DIRECT.",
        "Needs kernel 6.11+ and device support.",
    ),
    opt("sync", Str, IoType, Supported)
        .def("none")
        .choices(&["none", "0", "sync", "1", "dsync"])
        .help(
            "Open files O_SYNC (`sync`/`1`) or O_DSYNC (`dsync`).",
            "Every write then waits for stable storage. Default `none`.",
        ),
    opt("fsync", Int, IoType, Supported).def("0").help(
        "Issue an fsync after every N writes issued.",
        "0 (default) never. The sync is a separate I/O in the queue and has its own latency \
            statistics (`sync` in the JSON output), as in fio.",
    ),
    opt("fdatasync", Int, IoType, Supported).def("0").help(
        "Issue an fdatasync after every N writes issued.",
        "Like `fsync` but may skip metadata.",
    ),
    opt("write_barrier", Int, IoType, Unsupported("not implemented; use fsync=N or fdatasync=N"))
        .def("0")
        .help("Make every Nth write a barrier write.", "Only a few engines honoured it in fio."),
    opt("sync_file_range", Special, IoType, Unsupported("not implemented; use fdatasync=N"))
        .choices(&["wait_before", "write", "wait_after"])
        .help(
            "Call sync_file_range after every N writes with the given flags.",
            "Format `flags:N`, flags from wait_before, write, wait_after.",
        ),
    opt("end_fsync", Bool, IoType, Supported).def("0").help(
        "fsync each file when the job's writes are done.",
        "The time is part of the job's runtime, as in fio.",
    ),
    opt("fsync_on_close", Bool, IoType, Unsupported("not implemented; use end_fsync=1"))
        .def("0")
        .help(
            "fsync a file every time it is closed.",
            "With one open per job the effect equals `end_fsync`.",
        ),
    opt("end_syncfs", Bool, IoType, Unsupported("not implemented; use end_fsync=1"))
        .def("0")
        .help("Call syncfs(2) once at the end instead of fsync per file.", "New in fio 3.36."),
    opt("invalidate", Bool, IoType, Supported).def("1").help(
        "Drop the file's page cache before the job.",
        "Default on. Uses POSIX_FADV_DONTNEED for files (drops clean pages only) and \
            BLKFLSBUF for block devices (root only; otherwise a warning). Unlike fio, iolab \
            does not silently invalidate again when a time_based buffered job wraps around; it \
            reports every invalidation it does.",
    ),
    opt(
        "write_hint",
        Str,
        IoType,
        Unsupported("write lifetime hints are not set; drop the option"),
    )
    .choices(&["none", "short", "medium", "long", "extreme"])
    .help("Tell the kernel the expected lifetime of written data.", "fio uses F_SET_RW_HINT."),
    opt(
        "mem",
        Str,
        Io,
        Ignored(
            "iolab allocates page-aligned anonymous memory for buffers; shared-memory and \
            huge-page backings are not used",
        ),
    )
    .alias(&["iomem"])
    .def("malloc")
    .choices(&["malloc", "shm", "shmhuge", "mmap", "mmapshared", "mmaphuge", "cudamalloc"])
    .help(
        "Where I/O buffers come from: malloc, shm, shmhuge, mmap, mmaphuge, cudamalloc.",
        "It matters for CPU cost at very high IOPS, not for what the device sees.",
    ),
    opt(
        "iomem_align",
        Int,
        Io,
        Ignored(
            "iolab aligns buffers to the page size, which satisfies O_DIRECT; other alignments \
            are not applied",
        ),
    )
    .alias(&["mem_align"])
    .def("0")
    .min_val(0)
    .help("Extra alignment of I/O buffers.", "fio uses it to test misaligned buffers."),
    opt("hugepage-size", Int, Io, Ignored("huge-page buffers are not used by iolab"))
        .help("Size of a huge page for `mem=shmhuge`/`mmaphuge`.", "See `mem`."),
    opt("randrepeat", Bool, Random, Supported)
        .set(a::set_randrepeat)
        .alias(&["allrandrepeat"])
        .def("1")
        .help(
            "Seed the random generators the same way every run.",
            "Default on: the same job gives the same offsets and the same buffer contents every \
            run, so a deduplicating array can dedupe a second run against the first (use \
            `randrepeat=0` or a new `randseed`). `randseed` overrides it (fio ≥ 3.35).",
        ),
    opt("randseed", Size, Random, Supported).set(a::set_randseed).def("0x89").help(
        "Base seed for all of the job's random generators.",
        "Default 0x89. Per-clone seeds are derived from it and the clone number, as in fio \
            (`seed * thread_number + i`), so offsets match fio's for the same seed.",
    ),
    opt("norandommap", Bool, Random, Supported).set(a::set_norandommap).help(
        "Do not track which blocks were done; random offsets may repeat within a pass.",
        "Saves memory and time (≈15% more IOPS in fio's null engine). Any non-uniform \
            `random_distribution` turns it on, as in fio.",
    ),
    opt("softrandommap", Bool, Random, Supported).set(a::set_softrandommap).def("0").help(
        "Carry on without a random map if it cannot be allocated.",
        "With the map, a random pass touches every block exactly once; fio takes the next \
            free block after the drawn one when the draw hits a used block.",
    ),
    opt("random_generator", Str, Random, Supported)
        .set(a::set_random_generator)
        .def("tausworthe")
        .choices(&["tausworthe", "lfsr", "tausworthe64"])
        .help(
            "Random generator for offsets: tausworthe, tausworthe64 or lfsr.",
            "`tausworthe` (default) is fio's 32-bit combined Tausworthe (period 2^88), bit-exact \
            in iolab, so offsets match fio's. fio switches to `tausworthe64` by itself when a \
            file has more than 2^32 blocks; so does iolab. `lfsr` never repeats an offset but \
            needs a single block size.",
        ),
    opt("random_distribution", Special, Random, Supported)
        .set(a::set_random_distribution)
        .def("random")
        .choices(&["random", "zipf", "pareto", "normal", "gauss", "zoned", "zoned_abs"])
        .help(
            "Offset distribution: random, zipf:θ, pareto:h, normal:σ, zoned:…, zoned_abs:…",
            "`zipf:theta[:center]` (θ ≠ 1), `pareto:h[:center]` (0<h<1), `normal:dev[:center]` \
            (`gauss` too), `zoned:p/r%:…` and `zoned_abs:p/size:…` (integer percentages, up to \
            256 zones, per direction). fio's zipf is Gray's approximation with a 10M-term cap \
            that under-samples the tail (issue #1991); iolab reproduces it, and `zipf_exact` \
            gives exact Zipf. fio scatters hot blocks by a golden-ratio multiply which, for \
            power-of-two block counts, is a fixed stride, and each job gets its own hot set; \
            see `hot_set`. `normal` is not a contiguous hot region. fio's `sequence:` (newer \
            than 3.42) is refused.",
        ),
    opt(
        "random_sequence_stride",
        Bool,
        Random,
        Unsupported("the sequence distribution is not implemented"),
    )
    .def("0")
    .help("Stride for the `sequence` distribution.", "Newer than fio 3.42."),
    opt("percentage_random", IntList, Random, Supported)
        .set(a::set_percentage_random)
        .def("100,100,100")
        .max_val(100)
        .help(
            "Share of I/Os that are random, the rest sequential, per direction.",
            "Default 100 for random patterns.",
        ),
    opt(
        "percentage_sequential",
        Deprecated,
        Random,
        Ignored("deprecated in fio's table; write percentage_random instead"),
    )
    .help("Old inverse spelling of `percentage_random`.", "fio accepts and ignores it."),
    opt(
        "sprandom",
        Bool,
        Random,
        Unsupported(
            "not implemented; precondition with a sequential write job before the \
                        test",
        ),
    )
    .def("0")
    .help("SanDisk pseudo-random preconditioning.", "Sets `norandommap` in fio."),
    opt("spr_num_regions", Int, Random, Unsupported("sprandom is not implemented"))
        .def("100")
        .help("Number of regions for `sprandom`.", "See `sprandom`."),
    opt("spr_op", Float, Random, Unsupported("sprandom is not implemented"))
        .def("0.15")
        .help("Over-provisioning ratio for `sprandom`.", "See `sprandom`."),
    opt("spr_cs", Size, Random, Unsupported("sprandom is not implemented"))
        .def("0")
        .help("Cache size for `sprandom`.", "See `sprandom`."),
    opt("rate", SizeList, Rate, Supported).set(a::set_rate).help(
        "Bandwidth cap per job, per direction (bytes/s; suffixes follow kb_base).",
        "`rate=1m,500k` limits reads to 1 MiB/s and writes to 500 KiB/s. With a block-size \
            range the rate is reached in bytes, not I/Os.",
    ),
    opt("rate_iops", IntList, Rate, Supported).set(a::set_rate_iops).help(
        "IOPS cap per job, per direction.",
        "With a block-size range fio uses the minimum size to convert; so does iolab. \
            `rate_iops=300,100` on a mixed job issues 300 reads and 100 writes a second: a \
            direction ahead of its rate gives way to the other (fio io_u.c `rate_ddir`).",
    ),
    opt("rate_process", Str, Rate, Supported)
        .set(a::set_rate_process)
        .def("linear")
        .choices(&["linear", "poisson"])
        .help(
            "How rated I/O is spaced: linear (even) or poisson (exponential gaps).",
            "fio computes poisson gaps in whole microseconds and overshoots at high rates (+32% \
            at 300k IOPS, unbounded above 1M); iolab schedules in nanoseconds and hits the \
            rate. In linear mode fio waits for all in-flight I/O (quiesce) before sleeping, \
            which makes latency depend on iodepth; iolab keeps the queue open. `lat` counts \
            from the submission as fio's; each paced I/O's latency from its intended issue \
            time (what coordinated omission hides) is iolab's `sched_lat_ns` in the JSON's \
            `iolab` object.",
        ),
    opt(
        "rate_min",
        SizeList,
        Rate,
        Unsupported("not implemented; check the bandwidth series in the report afterwards"),
    )
    .alias(&["ratemin"])
    .help(
        "End the job if bandwidth falls below this, per direction.",
        "fio averages over `rate_cycle`.",
    ),
    opt(
        "rate_iops_min",
        IntList,
        Rate,
        Unsupported("not implemented; check the IOPS series in the report afterwards"),
    )
    .help("End the job if IOPS fall below this, per direction.", "See `rate_min`."),
    opt(
        "rate_cycle",
        Int,
        Rate,
        Ignored("only used by rate_min/rate_iops_min, which iolab refuses"),
    )
    .alias(&["ratecycle"])
    .def("1000")
    .help("Averaging window (ms) for `rate_min`/`rate_iops_min`.", "Default 1000 ms."),
    opt("rate_ignore_thinktime", Bool, Rate, Supported).def("0").help(
        "Do not catch up on the rate after a think pause.",
        "By default a rate-limited job issues what its rate allowed during a `thinktime` \
            pause right after it; with this the schedule of the paused direction moves on by \
            the pause (fio backend.c `handle_thinktime`).",
    ),
    opt("thinktime", Time { unit: Usec }, Rate, Supported).set(a::set_thinktime).def("0").help(
        "Pause this long between I/Os (microseconds by default).",
        "As fio (backend.c `handle_thinktime`): after every `thinktime_blocks` I/Os the job \
            waits for everything in flight to complete, spins `thinktime_spin`, then sleeps \
            the rest. The pause is outside every I/O's latency; a rate-limited job catches up \
            on its schedule afterwards (fio's default). `iolab sim` keeps the pause in the \
            issue schedule (from issue, not completion): a simulator has no completion time \
            before it schedules.",
    ),
    opt("thinktime_spin", Time { unit: Usec }, Rate, Supported)
        .set(a::set_thinktime_spin)
        .def("0")
        .help(
            "Busy-wait this part of `thinktime` instead of sleeping (microseconds by default).",
            "Spinning keeps a CPU busy and gives precise short pauses; more than `thinktime` \
            is cut to `thinktime` (fio init.c `fixup_options`).",
        ),
    opt("thinktime_blocks", Int, Rate, Supported).set(a::set_thinktime_blocks).def("1").help(
        "Number of I/Os between think pauses.",
        "Default 1, which also caps the effective queue depth at 1 while thinktime is set: \
            the pause first waits for every I/O in flight to complete (fio `io_u_quiesce`).",
    ),
    opt("thinktime_blocks_type", Str, Rate, Supported)
        .def("complete")
        .choices(&["complete", "issue"])
        .help(
            "Whether `thinktime_blocks` counts completed or issued I/Os.",
            "`complete` (default): a pause after N completions; `issue`: after N submissions.",
        ),
    opt("thinktime_iotime", Time { unit: Sec }, Rate, Supported).def("0").help(
        "Think after this much I/O time rather than a number of I/Os.",
        "New in fio 3.31. Seconds by default. A pause comes when `thinktime_iotime` plus \
            `thinktime` have passed since the last one began; with `thinktime_blocks` also \
            written, whichever comes first.",
    ),
    opt("thinkcycles", Int, Rate, Unsupported("not implemented; use thinktime_spin"))
        .def("0")
        .help("Spin a fixed number of CPU cycles between I/Os.", "New in fio 3.37."),
    opt(
        "max_latency",
        Time { unit: Usec },
        Latency,
        Unsupported("not implemented; read the maximum latency from the report"),
    )
    .help(
        "End the job when one I/O takes longer than this (microseconds).",
        "fio treats it as an error.",
    ),
    opt(
        "latency_target",
        Time { unit: Usec },
        Latency,
        Unsupported(
            "not implemented; run a sweep over iodepth and read the percentiles \
                        instead",
        ),
    )
    .help(
        "Find the highest queue depth whose latency stays under this target.",
        "fio re-learns the depth after `ramp_time`, which shows up as a latency spike (issue \
            #1320).",
    ),
    opt(
        "latency_window",
        Time { unit: Usec },
        Latency,
        Unsupported("latency_target is not implemented"),
    )
    .help("Window over which `latency_target` must hold.", "See `latency_target`."),
    opt("latency_percentile", Float, Latency, Unsupported("latency_target is not implemented"))
        .def("100")
        .help("Percentile of I/Os that must meet `latency_target`.", "See `latency_target`."),
    opt("latency_run", Bool, Latency, Unsupported("latency_target is not implemented"))
        .def("0")
        .help(
            "Keep adjusting the depth for `latency_target` for the whole run.",
            "See `latency_target`.",
        ),
];
