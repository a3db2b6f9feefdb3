//! `JobError`: what was wrong with a job file or command line, where, and what was expected.
//!
//! `Display` is one line, `file:line: what was wrong; expected …`, like a compiler message, so
//! an editor can jump to it. Each kind carries its context as fields (no string-only variants).

use iolab_core::units::{quote as q, UnitError};
use std::fmt;

/// Where in the input an error or warning points.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Location {
    /// A line of a job file (1-based).
    File { file: String, line: u32 },
    /// The `index`-th argument of the command line (0-based among the fio-style arguments).
    CommandLine { index: u32 },
    /// A job file as a whole (it could not be read).
    Path { file: String },
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Location::File { file, line } => write!(f, "{}:{line}", q(file)),
            Location::CommandLine { index } => write!(f, "command line (argument {})", index + 1),
            Location::Path { file } => write!(f, "{}", q(file)),
        }
    }
}

/// One bad thing in a job file or on the command line.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{location}: {kind}")]
pub struct JobError {
    pub location: Location,
    pub kind: JobErrorKind,
}

impl JobError {
    pub fn new(location: Location, kind: JobErrorKind) -> Self {
        JobError { location, kind }
    }
}

/// What was wrong.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum JobErrorKind {
    #[error("cannot read job file: {}", q(message))]
    Read { message: String },
    #[error("job file is not UTF-8 text; expected a text file")]
    NotText,
    #[error(
        "option '{}' outside of a [section]; expected a [job] or [global] line first",
        q(option)
    )]
    OutsideSection { option: String },
    #[error(
        "bad section header '{}'; expected [name] with a name of 1 to 255 characters",
        q(text)
    )]
    BadSection { text: String },
    #[error(
        "included file '{}' contains a [section]; expected only options in an include",
        q(path)
    )]
    SectionInInclude { path: String },
    #[error("include '{}' nests deeper than {depth} levels; expected no include loop", q(path))]
    IncludeDepth { path: String, depth: u32 },
    #[error("cannot read included file '{}': {}", q(path), q(message))]
    Include { path: String, message: String },
    #[error("unknown option '{}'; {}", q(name), suggestion.as_ref()
        .map(|s| format!("did you mean '{s}'?"))
        .unwrap_or_else(|| "expected an option listed by `iolab options`".to_string()))]
    UnknownOption { name: String, suggestion: Option<String> },
    #[error("option '{}' is not supported by iolab: {reason}", q(name))]
    Unsupported { name: String, reason: String },
    #[error("option '{}' needs a value; expected {}=<value>", q(name), q(name))]
    MissingValue { name: String },
    #[error("option '{}': {source}", q(name))]
    Unit { name: String, source: Box<UnitError> },
    #[error("option '{}': bad value '{}'; expected {expected}", q(name), q(value))]
    BadValue { name: String, value: String, expected: String },
    #[error("option '{name}': {value} is out of range; expected {}", range_text(*min, *max))]
    OutOfRange { name: String, value: i64, min: Option<i64>, max: Option<i64> },
    #[error("option '{}': {what} shares add up to {total}%; expected at most 100%", q(name))]
    SplitOver100 { name: String, what: &'static str, total: u32 },
    #[error("option '{}': {count} entries for one direction; expected at most {max}", q(name))]
    TooManySplits { name: String, count: usize, max: usize },
    #[error(
        "wait_for='{}' names no earlier job; expected the name of a job defined above",
        q(target)
    )]
    WaitForUnknown { target: String },
    #[error("wait_for='{}' names {count} jobs; expected a unique job name", q(target))]
    WaitForAmbiguous { target: String, count: usize },
    #[error("'{}' in ${{…}} or $keyword: {}", q(value), q(message))]
    Substitution { value: String, message: String },
    #[error("bad command-line argument '{}'; expected --option=value or --option", q(arg))]
    BadArgument { arg: String },
    #[error("--section={} matches no job; expected one of: {available}", q(name))]
    NoSuchSection { name: String, available: String },
    #[error(
        "maximum number of jobs reached: {total} jobs (numjobs summed over all sections); \
         expected at most {max}, fio's limit (REAL_MAX_JOBS, --max-jobs)"
    )]
    TooManyJobs { total: u64, max: u32 },
    /// A check across the job's options (`check::runnable`) failed; `message` names the
    /// option (the buffer and verify options' own grammar lives in `iolab_data`).
    #[error("job '{}': {message}", q(job))]
    Data { job: String, message: String },
    #[error("no jobs defined; expected at least one [job] section or --name=")]
    NoJobs,
}

fn range_text(min: Option<i64>, max: Option<i64>) -> String {
    match (min, max) {
        (Some(a), Some(b)) => format!("{a} to {b}"),
        (Some(a), None) => format!("at least {a}"),
        (None, Some(b)) => format!("at most {b}"),
        (None, None) => "a valid number".to_string(),
    }
}
