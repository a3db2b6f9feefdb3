//! The option registry: one table of every fio option name (fio's `options.c` table and the
//! engine option tables), each with its type, default, help, category and iolab status.
//!
//! This table is the only place an option is described. It drives the job reader (typing
//! values, rejecting unknown and unsupported names, warning on ignored ones), `iolab options`,
//! and `docs/options.md`.
//!
//! OWNER: registry helper fills in `OPTIONS` (see the brief); the types below are the contract.

use serde::Serialize;

/// How a value is parsed (mirrors fio's `FIO_OPT_*` types).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum OptionType {
    /// `FIO_OPT_STR_SET`: a flag, may be written bare (`refill_buffers`).
    Bool,
    /// `FIO_OPT_INT`: a plain integer (may still take `( … )` arithmetic).
    Int,
    /// `FIO_OPT_STR_VAL` with size suffixes, under `kb_base`.
    Size,
    /// A size that may also be `N%`.
    SizeOrPercent,
    /// `FIO_OPT_STR_VAL_TIME`; `unit` is the default unit when none is written.
    Time { unit: TimeUnit },
    /// `FIO_OPT_FLOAT_LIST`, percentages and the like.
    Float,
    /// `FIO_OPT_STR`/`FIO_OPT_STR_STORE`: free text or one of `choices`.
    Str,
    /// `FIO_OPT_RANGE`: `a-b` / `a:b`, per direction.
    Range,
    /// A per-direction list `read,write,trim` of sizes (`bs`, `rate`, `blockalign`).
    SizeList,
    /// A per-direction list of integers (`rate_iops`, `percentage_random`).
    IntList,
    /// `bssplit`-style `bs/perc:bs/perc[,…]`.
    Split,
    /// Anything with its own grammar (`random_distribution`, `buffer_pattern`, …).
    Special,
    /// `FIO_OPT_DEPRECATED`: accepted and ignored by fio itself.
    Deprecated,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TimeUnit {
    Sec,
    Msec,
    Usec,
}

/// fio's option categories (`FIO_OPT_C_*` / `FIO_OPT_G_*`), simplified.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Category {
    Description,
    Files,
    Io,
    IoType,
    IoSize,
    Random,
    Rate,
    Latency,
    Buffers,
    Verify,
    Stats,
    Logging,
    Process,
    Cpu,
    Engine,
    Zone,
    Profile,
    Iolab,
}

/// What iolab does with the option.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "status", content = "reason")]
pub enum Status {
    /// iolab implements it as fio does.
    Supported,
    /// Accepted with a warning naming it and this reason; it changes nothing.
    Ignored(&'static str),
    /// Rejected with an error naming it.
    Unsupported(&'static str),
}

/// One registry entry.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct OptionDef {
    pub name: &'static str,
    pub aliases: &'static [&'static str],
    pub ty: OptionType,
    /// fio's default, as fio writes it (empty when none).
    pub default: &'static str,
    /// Allowed values for choice options (empty = free).
    pub choices: &'static [&'static str],
    pub help: &'static str,
    pub long_help: &'static str,
    pub category: Category,
    /// The ioengine(s) whose option table defines it; empty for a general option.
    pub engine: &'static [&'static str],
    pub status: Status,
}
