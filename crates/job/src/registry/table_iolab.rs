//! Option table: iolab extensions (not in fio).
//!
//! Source: iolab itself; see notes/fio-behaviour.md §7 for why each exists, at fio f5344384.
//! Types, defaults and choices follow fio's table; the help texts are iolab's own, and each
//! entry carries iolab's status and the reason for it. Generated once from fio's tables and
//! then edited by hand; this file is the source of truth.

use super::Category::*;
use super::OptionType::*;
use super::Status::*;
use super::{opt, OptionDef};
use crate::apply as a;

pub(super) const OPTIONS: &[OptionDef] = &[
    opt("zipf_exact", Bool, Iolab, Supported).set(a::set_zipf_exact).def("0").help(
        "Draw zipf ranks exactly (rejection-inversion) instead of with fio's approximation.",
        "fio's zipf uses Gray et al.'s approximate inverse with a 32-bit uniform and a \
            10M-term cap, which under-samples the tail by about 27% at large sample counts (fio \
            issue #1991). With `zipf_exact=1` iolab draws ranks with Hörmann and Derflinger's \
            rejection-inversion, exact for any n; the scramble of ranks to blocks is unchanged.",
    ),
    opt("hot_set", Str, Iolab, Supported)
        .set(a::set_hot_set)
        .def("per_job")
        .choices(&["per_job", "shared"])
        .help(
            "Whether clones of a job share one hot set (shared) or each get their own (per_job, \
            fio's way).",
            "fio gives each job a different scramble offset for zipf/pareto/normal, so two jobs \
            on one file have disjoint hot sets. `shared` uses one offset for all clones, as an \
            application with one hot set would.",
        ),
    opt("dedupe_spread", Bool, Iolab, Supported).def("0").help(
        "Spread duplicates over a working set instead of repeating the previous block.",
        "fio's default dedupe (`dedupe_mode=repeat`) puts each duplicate next to its twin, \
            which any compressor with a small window also catches. With `dedupe_spread=1` \
            duplicates are drawn from a pool of earlier unique blocks.",
    ),
    opt("compress_content", Str, Iolab, Supported)
        .def("zeros")
        .choices(&["zeros", "text", "pattern"])
        .help(
            "What fills the compressible part of each chunk: zeros (fio), text-like data, or \
            buffer_pattern.",
            "fio fills it with zeros or `buffer_pattern`, which compress far better than real \
            data and are caught by zero-detection. `text` fills it with LZ-compressible \
            text-like bytes so the ratio comes from content rather than zero runs.",
        ),
    opt("iolab_fio_seeds", Str, Iolab, Supported)
        .def("current")
        .choices(&["current", "3.33", "3.34"])
        .help(
            "Which fio's random seeds to reproduce: current (fio 3.35 and later) or 3.33 (also \
            3.34).",
            "fio 3.35 changed the seeding (#1502): with `randrepeat=1`, 3.33 and 3.34 seed block \
            offsets from `FIO_RANDSEED · thread_number` whatever `randseed` says, and seed \
            zipf/pareto/normal per file with `jhash(filename) · thread_number`. With \
            `iolab_fio_seeds=3.33` iolab issues the offsets those versions issue (Debian 12 and \
            Ubuntu 22.04 ship 3.33); the command-line flag `--fio-seeds=3.33` sets it for every \
            job.",
        ),
];
