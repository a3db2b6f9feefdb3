//! The job options that name paths, each with the intent it is declared under to the gate
//! (`iolab_core::gate`): targets (read or written as `rw` says), inputs read while the job
//! file is loaded or run, outputs written. With the command-line flags (walked from clap by
//! the cli), this is the source of `docs/paths.md` and of the test that points every entry at
//! a block device or a missing `/dev` name. A test asserts every option whose name suggests a
//! path is either here or in [`NOT_PATHS`] with the reason, so a new path option cannot slip
//! past the gate undeclared.

use iolab_core::gate::Intent;

/// A job option that names a path.
#[derive(Clone, Copy, Debug)]
pub struct PathOption {
    pub name: &'static str,
    pub intent: Intent,
    /// What the path is, for the table.
    pub what: &'static str,
}

const fn p(name: &'static str, intent: Intent, what: &'static str) -> PathOption {
    PathOption { name, intent, what }
}

/// Every path-taking job option.
pub const PATH_OPTIONS: &[PathOption] = &[
    p("filename", Intent::Target, "the files or devices the job does I/O on"),
    p("directory", Intent::Target, "where the job's files are created"),
    p("filename_format", Intent::Target, "generated file names (directories created)"),
    p("opendir", Intent::Target, "a directory of files to use (refused: not implemented)"),
    p("include", Intent::Input, "another job file merged in"),
    p("read_iolog", Intent::Input, "an iolog to replay (refused: use `iolab replay`)"),
    p("replay_redirect", Intent::Target, "the device replayed onto (refused with read_iolog)"),
    p("buffer_pattern", Intent::Input, "a quoted 'file' part: the pattern's bytes"),
    p("verify_pattern", Intent::Input, "a quoted 'file' part: the pattern's bytes"),
    p("write_iolog", Intent::Output, "the iolog of the job's I/O"),
    p("write_bw_log", Intent::Output, "prefix of the bandwidth logs"),
    p("write_lat_log", Intent::Output, "prefix of the latency logs"),
    p("write_iops_log", Intent::Output, "prefix of the IOPS logs"),
    p("write_hist_log", Intent::Output, "prefix of the histogram logs"),
    p("merge_blktrace_file", Intent::Output, "merged blktrace (refused: not implemented)"),
    p("libblkio_path", Intent::Target, "libblkio engine device (refused: no such engine)"),
    p("hdfsdirectory", Intent::Target, "libhdfs engine directory (refused: no such engine)"),
    p("dir", Intent::Target, "tiobench profile directory (ignored: profile not run)"),
];

/// Options whose names suggest a path but that take none, and why.
pub const NOT_PATHS: &[(&str, &str)] = &[
    ("filetype", "a file type (none, file, block, char)"),
    ("unique_filename", "a flag"),
    ("lockfile", "a locking mode"),
    ("file_service_type", "a file selection policy"),
    ("file_append", "a flag"),
    ("fill_device", "a flag"),
    ("create_on_open", "a flag"),
    ("fsync_on_close", "a flag"),
    ("verify_state_save", "a flag (no state file is written)"),
    ("verify_state_load", "a flag (refused)"),
    ("log_avg_msec", "a time"),
    ("log_window_value", "which statistic a log window records (avg, max, both)"),
    ("log_compression_cpus", "a CPU list"),
    ("sync_file_range", "flags and a count (refused)"),
    ("profile", "the name of one of fio's built-in profiles (refused)"),
];
