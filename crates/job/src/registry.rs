//! The option registry: one table of every fio option name (fio's `options.c` table and the
//! engine option tables), each with its aliases, type, default, parse priority, help,
//! category, iolab status and the function that applies it to the typed [`Job`].
//!
//! This table is the only place an option is described. It drives the job reader (typing
//! values, rejecting unknown and unsupported names, warning on ignored ones, setting typed
//! fields), the defaults of [`Job`]'s typed accessors, `iolab options`, and
//! `docs/options.md`. Adding a fio option is one entry here (plus, when it sets a typed
//! field, its setter in `apply.rs` named by the entry).
//!
//! Sources: fio `options.c` (`struct fio_option fio_options[]`), the engine tables
//! (`engines/*.c`, `static struct fio_option options[]`, and the `CMDPRIO_OPTIONS` macro in
//! `engines/cmdprio.h`) at fio f5344384, and fio's `parse.c` (`string_distance`,
//! `string_distance_ok`) for "did you mean". Help texts are written for iolab, not copied.
//!
//! The table lives in `registry/table_*.rs`, one file per fio source area; they are joined
//! at compile time into [`OPTIONS`]. `crates/job/tools/fio_option_names.sh` lists fio's
//! names; a test asserts each one resolves through [`lookup`].

use crate::error::JobErrorKind;
use crate::spec::Job;
use serde::Serialize;

mod markdown;
pub mod paths;
mod table_engines;
mod table_files;
mod table_io;
mod table_iolab;
mod table_job;
mod table_output;
mod table_verify;
mod text;

pub use markdown::markdown;
pub use text::{describe, listing, listing_where, StatusFilter};

/// How a value is parsed (mirrors fio's `FIO_OPT_*` types).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum OptionType {
    /// `FIO_OPT_STR_SET`: a flag, may be written bare (`refill_buffers`).
    Bool,
    /// `FIO_OPT_INT`: an integer. fio parses it like a size (`parse.c` `check_str_bytes`),
    /// so `k/m/g` suffixes under `kb_base` and `( … )` arithmetic are accepted here too
    /// (`buffer_compress_chunk=4k`); `min`/`max` bound it.
    Int,
    /// `FIO_OPT_STR_VAL` with size suffixes, under `kb_base`.
    Size,
    /// A size that may also be `N%` (fio's `FIO_OPT_STR_VAL_ZONE`, which also takes `Nz`
    /// zones in zoned mode; iolab has no zones).
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

/// Applies an option's value (as written; `None` for a bare flag) to the typed [`Job`] with
/// the option's own fio grammar and checks, pushing warnings about fio's traps.
pub type Setter = fn(&mut Job, Option<&str>, &mut Vec<String>) -> Result<(), JobErrorKind>;

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
    /// Smallest accepted number, fio's `.minval` (numeric options only).
    pub min: Option<i64>,
    /// Largest accepted number, fio's `.maxval` (numeric options only).
    pub max: Option<i64>,
    /// fio's `.prio`: within one job-file section options are parsed by descending priority
    /// (parse.c `sort_options`), so `kb_base` (1) acts before the sizes and `filename` (-1)
    /// after `directory`.
    pub prio: i8,
    /// How the option sets its typed [`Job`] field; `None` for an option whose typed value in
    /// [`Job::options`] is all its consumers read (through [`Job`]'s typed accessors).
    #[serde(skip)]
    pub set: Option<Setter>,
}

impl Category {
    /// Every category, in the order `iolab options` and `docs/options.md` list them.
    pub const ALL: &'static [Category] = &[
        Category::Description,
        Category::Files,
        Category::Io,
        Category::IoType,
        Category::IoSize,
        Category::Random,
        Category::Rate,
        Category::Latency,
        Category::Buffers,
        Category::Verify,
        Category::Stats,
        Category::Logging,
        Category::Process,
        Category::Cpu,
        Category::Engine,
        Category::Zone,
        Category::Profile,
        Category::Iolab,
    ];

    /// A heading for listings.
    pub fn title(self) -> &'static str {
        match self {
            Category::Description => "Job description and ordering",
            Category::Files => "Files and devices",
            Category::Io => "I/O submission and caching",
            Category::IoType => "I/O type (rw, mixes, syncs)",
            Category::IoSize => "Sizes, block sizes and run length",
            Category::Random => "Randomness and distributions",
            Category::Rate => "Rate limits and think time",
            Category::Latency => "Latency targets",
            Category::Buffers => "Buffer contents",
            Category::Verify => "Verification",
            Category::Stats => "Statistics and reporting",
            Category::Logging => "Log files and I/O logs",
            Category::Process => "Processes, threads and job control",
            Category::Cpu => "CPU, NUMA and scheduling",
            Category::Engine => "I/O engines and their options",
            Category::Zone => "Zoned block devices",
            Category::Profile => "Profiles and plug-ins",
            Category::Iolab => "iolab extensions",
        }
    }
}

impl Status {
    /// A one-character marker for listings: `+` supported, `~` ignored, `-` unsupported.
    pub fn marker(self) -> char {
        match self {
            Status::Supported => '+',
            Status::Ignored(_) => '~',
            Status::Unsupported(_) => '-',
        }
    }

    /// The reason for `Ignored`/`Unsupported`, `None` for `Supported`.
    pub fn reason(self) -> Option<&'static str> {
        match self {
            Status::Supported => None,
            Status::Ignored(r) | Status::Unsupported(r) => Some(r),
        }
    }

    /// A word for listings.
    pub fn word(self) -> &'static str {
        match self {
            Status::Supported => "supported",
            Status::Ignored(_) => "ignored",
            Status::Unsupported(_) => "unsupported",
        }
    }
}

/// Start an entry; the builder methods below fill in the rest (all `const`, so the whole
/// table is built at compile time).
pub const fn opt(
    name: &'static str,
    ty: OptionType,
    category: Category,
    status: Status,
) -> OptionDef {
    OptionDef {
        name,
        aliases: &[],
        ty,
        default: "",
        choices: &[],
        help: "",
        long_help: "",
        category,
        engine: &[],
        status,
        min: None,
        max: None,
        prio: 0,
        set: None,
    }
}

impl OptionDef {
    pub const fn alias(mut self, aliases: &'static [&'static str]) -> Self {
        self.aliases = aliases;
        self
    }
    pub const fn def(mut self, default: &'static str) -> Self {
        self.default = default;
        self
    }
    pub const fn choices(mut self, choices: &'static [&'static str]) -> Self {
        self.choices = choices;
        self
    }
    pub const fn engine(mut self, engine: &'static [&'static str]) -> Self {
        self.engine = engine;
        self
    }
    pub const fn min_val(mut self, min: i64) -> Self {
        self.min = Some(min);
        self
    }
    pub const fn max_val(mut self, max: i64) -> Self {
        self.max = Some(max);
        self
    }
    pub const fn prio(mut self, prio: i8) -> Self {
        self.prio = prio;
        self
    }
    /// The function that applies the option to the typed [`Job`].
    pub const fn set(mut self, set: Setter) -> Self {
        self.set = Some(set);
        self
    }
    /// One-line help and the long help.
    pub const fn help(mut self, help: &'static str, long_help: &'static str) -> Self {
        self.help = help;
        self.long_help = long_help;
        self
    }

    /// Whether `raw` (a value as written) only restates fio's default, or switches the
    /// option off: then even an `Unsupported` option changes nothing, and a reader may warn
    /// instead of refusing (fio job files generated by tools often spell out defaults such
    /// as `verify_async=0` or `atomic=0`).
    pub fn is_inert(&self, raw: &str) -> bool {
        let v = raw.trim();
        if !self.default.is_empty() && v.eq_ignore_ascii_case(self.default) {
            return true;
        }
        let off_by_default = self.default.is_empty() || self.default == "0";
        match self.ty {
            OptionType::Bool => {
                off_by_default
                    && ["0", "false", "off", "no"].iter().any(|f| v.eq_ignore_ascii_case(f))
            }
            OptionType::Int
            | OptionType::Size
            | OptionType::SizeOrPercent
            | OptionType::Time { .. }
            | OptionType::Float => off_by_default && v.bytes().all(|b| b == b'0'),
            _ => false,
        }
    }

    /// Whether `name` is this option's name or one of its aliases (exact, like fio).
    pub fn answers_to(&self, name: &str) -> bool {
        self.name == name || self.aliases.contains(&name)
    }
}

const PARTS: &[&[OptionDef]] = &[
    table_job::OPTIONS,
    table_files::OPTIONS,
    table_io::OPTIONS,
    table_verify::OPTIONS,
    table_output::OPTIONS,
    table_engines::OPTIONS,
    table_iolab::OPTIONS,
];

const fn total_len(parts: &[&[OptionDef]]) -> usize {
    let mut n = 0;
    let mut i = 0;
    while i < parts.len() {
        n += parts[i].len();
        i += 1;
    }
    n
}

const fn concat<const N: usize>(parts: &[&[OptionDef]]) -> [OptionDef; N] {
    let mut out = [opt("", OptionType::Bool, Category::Iolab, Status::Supported); N];
    let mut k = 0;
    let mut i = 0;
    while i < parts.len() {
        let mut j = 0;
        while j < parts[i].len() {
            out[k] = parts[i][j];
            k += 1;
            j += 1;
        }
        i += 1;
    }
    out
}

const ALL_LEN: usize = total_len(PARTS);
static ALL: [OptionDef; ALL_LEN] = concat::<ALL_LEN>(PARTS);

/// Every option iolab knows: all of fio's general and engine options plus iolab's own.
pub static OPTIONS: &[OptionDef] = &ALL;

/// The entry for `name`, by canonical name or alias. Exact match, as fio does it.
pub fn lookup(name: &str) -> Option<&'static OptionDef> {
    OPTIONS.iter().find(|o| o.answers_to(name))
}

/// The closest known name (canonical or alias) to an unknown `name`, for "did you mean".
///
/// Like fio (`parse.c` `string_distance_ok`), a suggestion is only made when the edit
/// distance is at most half the length of what was typed, rounded up.
pub fn nearest(name: &str) -> Option<&'static str> {
    let lower = name.to_ascii_lowercase();
    let mut best: Option<(usize, &'static str)> = None;
    for o in OPTIONS {
        for cand in std::iter::once(&o.name).chain(o.aliases.iter()) {
            let d = edit_distance(&lower, cand);
            if best.is_none_or(|(bd, _)| d < bd) {
                best = Some((d, cand));
            }
        }
    }
    let limit = lower.len().div_ceil(2);
    best.filter(|&(d, _)| d <= limit).map(|(_, n)| n)
}

/// The registry grouped by category, in [`Category::ALL`] order; table order inside a
/// category. Categories with no entry are left out.
pub fn by_category() -> Vec<(Category, Vec<&'static OptionDef>)> {
    Category::ALL
        .iter()
        .map(|&c| (c, OPTIONS.iter().filter(|o| o.category == c).collect::<Vec<_>>()))
        .filter(|(_, v)| !v.is_empty())
        .collect()
}

/// Levenshtein distance over bytes (option names are ASCII).
pub fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, &ca) in a.iter().enumerate() {
        cur[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != cb);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_across_names_and_aliases() {
        let mut seen = std::collections::BTreeSet::new();
        for o in OPTIONS {
            for n in std::iter::once(&o.name).chain(o.aliases.iter()) {
                assert!(seen.insert(*n), "duplicate option name {n}");
            }
        }
    }

    #[test]
    fn lookup_by_name_and_alias() {
        assert_eq!(lookup("bs").unwrap().name, "bs");
        assert_eq!(lookup("blocksize").unwrap().name, "bs");
        assert_eq!(lookup("readwrite").unwrap().name, "rw");
        assert!(lookup("BS").is_none(), "fio matches names exactly");
        assert!(lookup("no_such_option").is_none());
    }

    #[test]
    fn nearest_suggests_within_half_the_length() {
        assert_eq!(nearest("iodepht"), Some("iodepth"));
        assert_eq!(nearest("ioengin"), Some("ioengine"));
        assert_eq!(nearest("zzzzzzzzzzzzzzzzzzzz"), None);
    }

    #[test]
    fn inert_values_of_unsupported_options() {
        let o = |n| lookup(n).unwrap();
        assert!(o("verify_async").is_inert("0"));
        assert!(!o("verify_async").is_inert("2"));
        assert!(o("atomic").is_inert("0"));
        assert!(!o("atomic").is_inert("1"));
        assert!(!o("atomic").is_inert(""), "a bare flag switches it on");
        assert!(o("fill_device").is_inert("false"));
        assert!(o("max_latency").is_inert("0"));
        assert!(o("rate_cycle").is_inert("1000"), "restates fio's default");
        assert!(!o("rate_min").is_inert("1m"));
        assert!(!o("read_iolog").is_inert("trace.log"));
    }

    #[test]
    fn edit_distance_basics() {
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("bs", "bs"), 0);
    }

    #[test]
    fn by_category_covers_every_entry_once() {
        let n: usize = by_category().iter().map(|(_, v)| v.len()).sum();
        assert_eq!(n, OPTIONS.len());
    }
}
