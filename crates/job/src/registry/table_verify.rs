//! Option table, part verify (fio options.c). PARTIAL: being filled in.

use super::Category::*;
use super::OptionType::*;
use super::Status::*;
use super::{opt, OptionDef};

pub(super) const OPTIONS: &[OptionDef] = &[opt("verify", Str, Verify, Supported)
    .def("0")
    .help("Checksum written data and check it on read-back", "")];
