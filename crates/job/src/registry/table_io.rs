//! Option table, part io (fio options.c). PARTIAL: being filled in.

use super::Category::*;
use super::OptionType::*;
use super::Status::*;
use super::{opt, OptionDef};

pub(super) const OPTIONS: &[OptionDef] = &[
    opt("rw", Str, IoType, Supported).alias(&["readwrite"]).def("read").help("I/O pattern", ""),
    opt("bs", SizeList, IoSize, Supported)
        .alias(&["blocksize"])
        .def("4096")
        .help("Block size per direction", ""),
    opt("iodepth", Int, Io, Supported).def("1").help("I/O units kept in flight per job", ""),
    opt("ioengine", Str, Io, Supported).def("psync").help("How I/O is issued", ""),
];
