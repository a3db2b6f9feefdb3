//! Option table, part files (fio options.c). PARTIAL: being filled in.

use super::Category::*;
use super::OptionType::*;
use super::Status::*;
use super::{opt, OptionDef};

pub(super) const OPTIONS: &[OptionDef] = &[
    opt("filename", Str, Files, Supported).help("File(s) to do I/O on, colon separated", ""),
    opt("size", SizeOrPercent, IoSize, Supported).help("Total bytes of the job's files", ""),
];
