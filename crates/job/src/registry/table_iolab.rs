//! Option table, part iolab (fio options.c). PARTIAL: being filled in.

use super::Category::*;
use super::OptionType::*;
use super::Status::*;
use super::{opt, OptionDef};

pub(super) const OPTIONS: &[OptionDef] =
    &[opt("zipf_exact", Bool, Iolab, Supported).help("Exact Zipf", "")];
