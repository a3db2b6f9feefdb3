//! Option table: Statistics, reporting and log files.
//!
//! Source: fio `options.c` groups FIO_OPT_G_STAT, FIO_OPT_G_LOG, FIO_OPT_G_IOLOG; `stat.c`,
//! `iolog.c`, `steadystate.c`, at fio f5344384. Types, defaults and choices follow fio's
//! table; the help texts are iolab's own, and each entry carries iolab's status and the reason
//! for it. Generated once from fio's tables and then edited by hand; this file is the source
//! of truth.

use super::Category::*;
use super::OptionType::*;
use super::Status::*;
use super::TimeUnit::*;
use super::{opt, OptionDef};
use crate::apply as a;

pub(super) const OPTIONS: &[OptionDef] = &[
    opt("kb_base", Str, Stats, Supported)
        .set(a::set_kb_base)
        .prio(1)
        .def("1024")
        .choices(&["1024", "1000"])
        .help(
            "Base of size suffixes: 1024 (default) or 1000; also how outputs are printed.",
            "Order matters: it only affects options parsed after it, so put it first (fio issue \
            #1740). Under 1024, `k/m/g` are powers of two and `KiB/MiB` are powers of ten \
            (fio's inverted compat meaning); under 1000 it is the other way round. `4Ki` \
            ignores the `i` (issue #1618). iolab parses exactly like fio and warns on \
            `KiB`-style and `Ki` suffixes.",
        ),
    opt("unit_base", Str, Stats, Supported)
        .prio(1)
        .def("0")
        .choices(&["0", "8", "1"])
        .help("Report throughput in bits (8), bytes (1), or auto (0).", "Affects output only."),
    opt("status_interval", Time { unit: Sec }, Stats, Supported).help(
        "Print cumulative status every interval (a command-line option in fio).",
        "In fio this is `--status-interval` on the command line, not a job option; iolab \
            also accepts it in a job file. Each dump is cumulative from the job start. With \
            JSON output fio prints concatenated documents; iolab writes JSON Lines instead.",
    ),
    opt("group_reporting", Bool, Stats, Supported).set(a::set_group_reporting).help(
        "Report each group as one, summing its jobs.",
        "As in fio, latency histograms are merged exactly; throughput is summed. fio divides \
            group I/O by the longest job's runtime (stat.c `sum_thread_stats`), so a late or \
            slow job drags the group figure down; compare the per-job figures when jobs start \
            or end at different times.",
    ),
    opt(
        "stats",
        Bool,
        Stats,
        Ignored("iolab always collects statistics; the I/O issued is the same either way"),
    )
    .def("1")
    .help("Collect statistics for this job.", "fio's `stats=0` skips accounting to save CPU."),
    opt(
        "bwavgtime",
        Int,
        Stats,
        Ignored(
            "iolab samples bandwidth per interval with its own fixed window; this setting is not \
            consulted",
        ),
    )
    .def("500")
    .help("Window (ms) for bandwidth samples.", "fio's default is 500 ms."),
    opt(
        "iopsavgtime",
        Int,
        Stats,
        Ignored(
            "iolab samples IOPS per interval with its own fixed window; this setting is not \
            consulted",
        ),
    )
    .def("500")
    .help("Window (ms) for IOPS samples.", "fio's default is 500 ms."),
    opt("clat_percentiles", Bool, Stats, Supported).def("1").help(
        "Report completion-latency percentiles.",
        "Default on. fio reports bucket midpoints, which can exceed the observed max and \
            saturate near 17 s (issues #1984, #1668). iolab records latencies in HdrHistogram \
            recorders, one per worker, merged exactly.",
    ),
    opt("lat_percentiles", Bool, Stats, Supported)
        .def("0")
        .help("Report total-latency (slat + clat) percentiles.", "Default off."),
    opt("slat_percentiles", Bool, Stats, Supported)
        .def("0")
        .help("Report submission-latency percentiles.", "Default off."),
    opt("percentile_list", Float, Stats, Supported)
        .def("1:5:10:20:30:40:50:60:70:80:90:95:99:99.5:99.9:99.95:99.99")
        .help(
            "Percentiles to report, colon separated (`50:99:99.9`).",
            "At most 20 entries, as in fio. JSON keys are formatted like fio's (`\"99.900000\"`).",
        ),
    opt(
        "significant_figures",
        Int,
        Stats,
        Ignored("iolab's text report uses its own fixed precision"),
    )
    .def("4")
    .min_val(1)
    .max_val(10)
    .help("Significant figures in normal text output.", "Affects formatting only."),
    opt("disk_util", Bool, Stats, Supported).def("1").help(
        "Report the devices' utilisation (/proc/diskstats) after the run.",
        "With `disk_util=0` in any job the report has no disk utilisation (JSON `disk_util`, \
        terse's disk fields, the text's Disk stats), as in fio.",
    ),
    opt("gtod_reduce", Bool, Stats, Supported).def("0").help(
        "Take far fewer timestamps: no clat, slat or bandwidth timing.",
        "Sets `disable_lat`, `disable_clat`, `disable_slat` and `disable_bw_measurement` and \
            turns all percentiles off (fio `str_gtod_reduce_cb`); `gtod_reduce=0` leaves them \
            as they are. Raises the per-core I/O ceiling (in fio about +36% with the null \
            engine).",
    ),
    opt("disable_lat", Bool, Stats, Supported)
        .def("0")
        .help("Do not measure total latency.", "Saves one clock read per I/O."),
    opt("disable_clat", Bool, Stats, Supported).def("0").help(
        "Do not measure completion latency.",
        "Saves clock reads per I/O; percentiles are then not available.",
    ),
    opt("disable_slat", Bool, Stats, Supported)
        .def("0")
        .help("Do not measure submission latency.", "Saves clock reads per I/O."),
    opt("disable_bw_measurement", Bool, Stats, Supported)
        .alias(&["disable_bw"])
        .def("0")
        .help("Do not sample bandwidth and IOPS over time.", "Totals are still reported."),
    opt("unified_rw_reporting", Str, Stats, Supported)
        .def("none")
        .choices(&["none", "mixed", "both", "0", "1", "2"])
        .help(
            "Report reads, writes and trims separately (none), together (mixed), or both.",
            "`0/1/2` are fio's old spellings of none/mixed/both.",
        ),
    opt("block_error_percentiles", Bool, Stats, Unsupported("trim is not implemented"))
        .def("0")
        .help("Histogram of trim block errors.", "fio records where trims failed."),
    opt("steadystate", Special, Stats, Supported)
        .set(a::set_steadystate)
        .alias(&["ss"])
        .def("iops_slope:0.01%")
        .choices(&["iops", "iops_slope", "bw", "bw_slope", "lat", "lat_slope"])
        .help(
            "Stop the job once a metric is steady: iops, iops_slope, bw, bw_slope, lat, \
            lat_slope with a limit.",
            "Format `metric:limit[%]`, e.g. `iops:2%` (maximum deviation from the mean over the \
            window) or `iops_slope:0.1%` (least-squares slope). Use with `time_based` and a \
            `runtime`, otherwise the job may end before the window fills. As in fio, the \
            reported results still cover the whole job after `ramp_time`, with the steady-state \
            window reported separately.",
        ),
    opt("steadystate_duration", Time { unit: Sec }, Stats, Supported)
        .alias(&["ss_dur"])
        .def("0")
        .help(
            "Length of the steady-state window (seconds by default); 0 disables.",
            "The window holds `ss_dur / ss_interval` samples.",
        ),
    opt("steadystate_ramp_time", Time { unit: Sec }, Stats, Supported)
        .alias(&["ss_ramp"])
        .def("0")
        .help(
            "Wait this long before collecting steady-state samples.",
            "Collection starts one interval after the ramp.",
        ),
    opt("steadystate_check_interval", Time { unit: Sec }, Stats, Supported)
        .alias(&["ss_interval"])
        .def("1")
        .help(
            "Time between steady-state samples (default 1 s).",
            "Longer intervals help slow devices whose 1 s samples never settle (fio PR #1510).",
        ),
    opt("write_bw_log", Str, Logging, Supported).help(
        "Write a bandwidth log (`NAME_bw.N.log`).",
        "Lines are `time_ms, KiB/s, ddir, bs, prio`. Without `log_avg_msec` every I/O is \
            logged. Timestamps restart after `ramp_time`, as in fio. The value is the file-name \
            prefix; written bare (or empty) the job name is used, as in fio.",
    ),
    opt("write_lat_log", Str, Logging, Supported).help(
        "Write latency logs (`NAME_slat`, `_clat`, `_lat`).",
        "Values in nanoseconds; same line format as `write_bw_log`. The value is the \
            file-name prefix; written bare (or empty) the job name is used, as in fio.",
    ),
    opt("write_iops_log", Str, Logging, Supported).help(
        "Write an IOPS log (`NAME_iops.N.log`).",
        "Without `log_avg_msec` each line is one I/O with value 1. The value is the \
            file-name prefix; written bare (or empty) the job name is used, as in fio.",
    ),
    opt("log_avg_msec", Int, Logging, Supported).def("0").help(
        "Average logged values over windows of this many milliseconds.",
        "Then bs and offset columns are 0. Percentiles computed from averaged windows are \
            wrong; read them from the report instead.",
    ),
    opt("per_job_logs", Bool, Logging, Supported).def("1").help(
        "Include the job number in log file names.",
        "With 0 the logs are `<prefix>_<type>.log`, the jobs of one prefix appended in turn, \
        as fio.",
    ),
    opt("log_entries", Int, Logging, Ignored("iolab grows logs as needed"))
        .min_val(1024)
        .max_val(1048576)
        .help("Initial size of the in-memory log.", "A fio memory tuning knob."),
    opt("log_window_value", Str, Logging, Supported)
        .alias(&["log_max_value"])
        .def("avg")
        .choices(&["avg", "0", "max", "1", "both", "2"])
        .help(
            "What a window logs with `log_avg_msec`: avg, max or both.",
            "`both` adds the window max as a column after the mean, as fio does.",
        ),
    opt("log_offset", Bool, Logging, Supported).def("0").help(
        "Add the I/O offset as a column of each log line.",
        "Per-I/O latency logs carry the offset; averaged windows and bw/iops lines log 0.",
    ),
    opt("log_prio", Bool, Logging, Supported).def("0").help(
        "Write the full priority value in the prio column.",
        "As fio 3.33: `0x%04x` of the ioprio value set by `prio`/`prioclass` (class << 13 | \
            level; 0x0000 when neither is given); without it the column is 1 for the realtime \
            class, else 0.",
    ),
    opt(
        "log_issue_time",
        Bool,
        Logging,
        Unsupported("not implemented; iolab's logs have fio's five columns"),
    )
    .def("0")
    .help("Add each I/O's issue time as a column.", "New in fio 3.37."),
    opt("log_hist_msec", Int, Logging, Supported).def("0").help(
        "Write completion-latency histograms every N ms.",
        "With `write_hist_log`: a copy of the clat histogram (fio 3.33's 1856 buckets) at the \
        first completion N ms after the previous one; 0 leaves the log empty, as in fio. Kept \
        as fio keeps it, in 32 bits: -5 is 4294967291 ms and 2^32 is 0, both an empty log.",
    ),
    opt("log_hist_coarseness", Int, Logging, Supported)
        .def("0")
        .min_val(0)
        .max_val(6)
        .help("Merge histogram bins in histogram logs (0-6).", "See `log_hist_msec`."),
    opt("write_hist_log", Str, Logging, Supported)
        .help("Write latency histogram logs.", "See `log_hist_msec`."),
    opt(
        "log_compression",
        Int,
        Logging,
        Ignored(
            "iolab keeps logs uncompressed in memory; fio's written logs are the same text \
             without it (fio 3.33, 16384 clat lines either way, same columns)",
        ),
    )
    .min_val(1024)
    .max_val(536870912)
    .help(
        "Compress in-memory logs in chunks of this size.",
        "Saves memory for very long runs in fio.",
    ),
    opt("log_compression_cpus", Str, Logging, Ignored("log compression is not used"))
        .help("CPUs for log compression.", "See `log_compression`."),
    opt("log_store_compressed", Bool, Logging, Supported).help(
        "Store logs on disk compressed.",
        "`NAME_clat.N.log.fz` and the other latency, bw and iops logs as fio writes them: zlib \
            streams of fio's binary samples, read back by `fio --inflate-log` (fio's or \
            iolab's). Refused with `write_hist_log`, whose `.fz` form is not implemented.",
    ),
    opt(
        "log_alternate_epoch",
        Bool,
        Logging,
        Unsupported(
            "not implemented; timestamps are relative to the job start (after \
                        ramp_time)",
        ),
    )
    .alias(&["log_unix_epoch"])
    .help(
        "Timestamp logs from the Unix epoch (or another clock) instead of the job start.",
        "Add the job start time from the report to convert.",
    ),
    opt(
        "log_alternate_epoch_clock_id",
        Int,
        Logging,
        Unsupported("log_alternate_epoch is not implemented"),
    )
    .help("Clock for `log_alternate_epoch`.", "See `log_alternate_epoch`."),
    opt("write_iolog", Str, Logging, Supported).help(
        "Write every I/O to an iolog file.",
        "iolab writes the job's request stream (all its clones, interleaved by their issue \
            times) as a fio iolog v3 before the run; the stream is deterministic, so it is what \
            the run issues, and paced jobs carry their issue times so fio's `read_iolog` \
            replays them at the same pace. `iolab run --write-iolog=FILE` does the same for \
            every job.",
    ),
    opt(
        "read_iolog",
        Str,
        Logging,
        Unsupported(
            "not implemented as a job option; replay a trace with `iolab replay \
                        TRACE`",
        ),
    )
    .help(
        "Replay I/O from an iolog or blktrace file instead of generating it.",
        "See `iolab trace` for supported formats.",
    ),
    opt(
        "read_iolog_chunked",
        Bool,
        Logging,
        Unsupported("read_iolog is not implemented; use `iolab replay`"),
    )
    .def("0")
    .help("Read the iolog in chunks instead of all at once.", "See `read_iolog`."),
    opt(
        "replay_no_stall",
        Bool,
        Logging,
        Unsupported("read_iolog is not implemented; use `iolab replay`"),
    )
    .def("0")
    .help("Replay as fast as possible, ignoring the trace's timing.", "See `read_iolog`."),
    opt(
        "replay_redirect",
        Str,
        Logging,
        Unsupported("read_iolog is not implemented; use `iolab replay`"),
    )
    .help("Replay all I/O onto this device.", "See `read_iolog`."),
    opt(
        "replay_scale",
        Int,
        Logging,
        Unsupported("read_iolog is not implemented; use `iolab replay`"),
    )
    .def("1")
    .help("Scale replayed offsets down by this factor.", "See `read_iolog`."),
    opt(
        "replay_align",
        Int,
        Logging,
        Unsupported("read_iolog is not implemented; use `iolab replay`"),
    )
    .help("Align replayed offsets to this size.", "See `read_iolog`."),
    opt(
        "replay_time_scale",
        Int,
        Logging,
        Unsupported("read_iolog is not implemented; use `iolab replay`"),
    )
    .def("100")
    .min_val(1)
    .help("Speed replay up or down (percent).", "See `read_iolog`."),
    opt(
        "replay_skip",
        Str,
        Logging,
        Unsupported("read_iolog is not implemented; use `iolab replay`"),
    )
    .help("Skip some I/O types when replaying.", "See `read_iolog`."),
    opt("merge_blktrace_file", Str, Logging, Unsupported("blktrace merging is not implemented"))
        .help("Merge several blktraces into this file before replay.", "See `read_iolog`."),
    opt(
        "merge_blktrace_scalars",
        Float,
        Logging,
        Unsupported("blktrace merging is not implemented"),
    )
    .help("Time scaling per merged blktrace.", "See `merge_blktrace_file`."),
    opt("merge_blktrace_iters", Float, Logging, Unsupported("blktrace merging is not implemented"))
        .help("Iterations per merged blktrace.", "See `merge_blktrace_file`."),
];
