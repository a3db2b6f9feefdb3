//! Option table, part output (fio options.c). PARTIAL: being filled in.

use super::Category::*;
use super::OptionType::*;
use super::Status::*;
use super::{opt, OptionDef};

pub(super) const OPTIONS: &[OptionDef] =
    &[opt("group_reporting", Bool, Stats, Supported).help("Report a group as one", "")];
