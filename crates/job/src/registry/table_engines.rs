//! Option table, part engines (fio options.c). PARTIAL: being filled in.

use super::Category::*;
use super::OptionType::*;
use super::Status::*;
use super::{opt, OptionDef};

pub(super) const OPTIONS: &[OptionDef] =
    &[opt("hipri", Bool, Engine, Supported).engine(&["io_uring"]).help("Polled completions", "")];
