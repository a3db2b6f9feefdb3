//! Option table, part job (fio options.c). PARTIAL: being filled in.

use super::Category::*;
use super::OptionType::*;
use super::Status::*;
use super::{opt, OptionDef};

pub(super) const OPTIONS: &[OptionDef] = &[opt("name", Str, Description, Supported)
    .help("Name of the job; starts a new job on the command line", "")];
