//! Option table: Buffer contents and verification.
//!
//! Source: fio `options.c` groups FIO_OPT_G_IO_BUF, FIO_OPT_G_VERIFY, FIO_OPT_G_TRIM; `io_u.c`
//! `fill_io_buffer`, `verify.c`, at fio f5344384. Types, defaults and choices follow fio's
//! table; the help texts are iolab's own, and each entry carries iolab's status and the reason
//! for it. Generated once from fio's tables and then edited by hand; this file is the source
//! of truth.

use super::Category::*;
use super::OptionType::*;
use super::Status::*;
use super::{opt, OptionDef};

pub(super) const OPTIONS: &[OptionDef] = &[
    opt("zero_buffers", Bool, Buffers, Supported).help(
        "Fill write buffers with zeros.",
        "All-zero data compresses and dedupes perfectly and thin-provisioned or compressing \
            devices may never store it; results then say little about real data.",
    ),
    opt("refill_buffers", Bool, Buffers, Supported).help(
        "Generate new buffer contents for every write.",
        "Every block becomes unique and incompressible. Costs CPU (in fio about 0.3 ns per \
            byte). Turned on by `verify`, by `buffer_compress_percentage` (unless 100) and by \
            `dedupe_percentage`, as in fio.",
    ),
    opt("scramble_buffers", Bool, Buffers, Supported).def("1").help(
        "Lightly change reused buffers on every write so naive dedupe fails.",
        "Default on. fio stamps the file offset and a timestamp into each 512-byte sector of \
            one reused random buffer, so every block is unique yet the stream is about 98% \
            redundant to a cross-block compressor. Keep that in mind on compressing or \
            deduplicating storage; `refill_buffers` avoids it.",
    ),
    opt("buffer_pattern", Special, Buffers, Supported).help(
        "Fill buffers with this pattern: hex (`0xdeadbeef`), \"string\", a number, 'file', \
            or a mix.",
        "Pieces can be combined (`0x00\"abc\"`). Also used as the compressible part with \
            `buffer_compress_percentage`. A value can never contain `;` or `#` in a job file \
            because fio cuts lines there.",
    ),
    opt("buffer_compress_percentage", Int, Buffers, Supported).min_val(0).max_val(100).help(
        "Make each buffer about this compressible.",
        "fio writes, per `buffer_compress_chunk`, a random part followed by zeros (or \
            `buffer_pattern`) so each 512-byte chunk is e.g. 256 random then 256 zero bytes at \
            50%. iolab follows fio's layout by default; `compress_content` chooses what fills \
            the compressible part.",
    ),
    opt("buffer_compress_chunk", Int, Buffers, Supported).def("512").help(
        "Size of each random+compressible chunk.",
        "Default 512; 0 means one chunk per block. Small chunks defeat compressors with \
            large windows less.",
    ),
    opt("dedupe_percentage", Int, Buffers, Supported).min_val(0).max_val(100).help(
        "Percentage of written blocks that repeat an earlier block.",
        "In fio's default `repeat` mode a duplicate copies the most recent unique block, so \
            duplicates sit next to their twins (see `dedupe_spread`).",
    ),
    opt("dedupe_mode", Str, Buffers, Supported)
        .def("repeat")
        .choices(&["repeat", "working_set"])
        .help(
            "How duplicates are chosen: repeat (the previous unique block) or working_set.",
            "`working_set` picks one of the first `dedupe_working_set_percentage` unique blocks \
            at random and needs an explicit size.",
        ),
    opt("dedupe_working_set_percentage", Int, Buffers, Supported)
        .def("5")
        .min_val(0)
        .max_val(100)
        .help(
            "Size of the working set for `dedupe_mode=working_set`, as a percentage of the job's \
            size.",
            "Default 5.",
        ),
    opt(
        "dedupe_global",
        Bool,
        Buffers,
        Unsupported(
            "dedupe pools are per job in iolab; use one job with numjobs and \
                        dedupe_spread instead",
        ),
    )
    .def("0")
    .help("Share the dedupe working set across jobs.", "fio 3.31+."),
    opt("verify", Str, Verify, Supported)
        .def("0")
        .choices(&[
            "0",
            "crc64",
            "crc32c",
            "crc32c-intel",
            "crc32",
            "crc16",
            "crc7",
            "xxhash",
            "md5",
            "sha1",
            "sha256",
            "sha512",
            "sha3-224",
            "sha3-256",
            "sha3-384",
            "sha3-512",
            "meta",
            "pattern",
            "null",
        ])
        .help(
            "Checksum written blocks and check them when read back.",
            "fio 3.33's kinds: crc64, crc32c (also `crc32c-intel`), crc32, crc16, crc7, xxhash, \
            md5, sha1, sha256, sha512, sha3-224/256/384/512, meta (header only), pattern and \
            null (later fio's pattern_hdr is refused, as 3.33 refuses it). Turns `refill_buffers` \
            on, as in fio. Every block carries a header with its offset and seed, so misplaced \
            writes are caught too; the header layout is iolab's (digests over 32 bytes keep \
            their first 32), so fio cannot verify iolab's data nor iolab fio's. A job that does \
            not both read and write takes each block's seed from its header, as fio does.",
        ),
    opt("do_verify", Bool, Verify, Supported)
        .def("1")
        .help("Run the read-back verify phase after writing.", "Default on when `verify` is set."),
    opt("verify_only", Bool, Verify, Supported).help(
        "Do not write; only check data written by an earlier run with the same job.",
        "Needs the same sizes, request stream and pattern as the writing run; the seed is read \
        from each block's header, as fio does.",
    ),
    opt("verify_fatal", Bool, Verify, Supported).def("0").help(
        "Stop at the first verify failure.",
        "Otherwise all mismatches are counted and reported.",
    ),
    opt("verify_pattern", Special, Verify, Supported).help(
        "Pattern written and checked for `verify=pattern`.",
        "Same grammar as `buffer_pattern`; `%o` inserts the block's offset.",
    ),
    opt("verify_interval", Int, Verify, Supported).min_val(96).help(
        "Write a verify header every N bytes of a block.",
        "As fio 3.33 (init.c `fixup_options`): at most the minimum write size (or read size, \
            for a job that reads), and a divisor of the minimum and maximum write sizes, else \
            their gcd. Unset, iolab writes one header per 4 KiB (fio: one per block). iolab's \
            header is 80 bytes, so an interval below 160 is refused (fio's minimum is 96).",
    ),
    opt(
        "verify_offset",
        Int,
        Verify,
        Unsupported("not implemented; the header is at the start of each block"),
    )
    .min_val(48)
    .help(
        "Move the verify header N bytes into the block.",
        "fio swaps the header with the data at that offset.",
    ),
    opt("verify_pattern_interval", Int, Verify, Unsupported("not implemented"))
        .def("0")
        .help("Restart the verify pattern every N bytes.", "New in fio 3.40."),
    opt(
        "verify_dump",
        Bool,
        Verify,
        Ignored("iolab reports mismatches in its result but writes no dump files"),
    )
    .def("0")
    .help("Dump good and bad block contents to files on a mismatch.", "A debugging aid."),
    opt(
        "verify_async",
        Int,
        Verify,
        Unsupported("not implemented; verification runs in the job's thread"),
    )
    .def("0")
    .help(
        "Verify in this many background threads.",
        "It changes CPU load and timing, so it is refused rather than ignored.",
    ),
    opt("verify_async_cpus", Str, Verify, Unsupported("verify_async is not implemented"))
        .help("CPUs for the async verify threads.", "See `verify_async`."),
    opt("verify_backlog", Size, Verify, Supported).min_val(0).help(
        "Verify after every N blocks written, instead of only at the end.",
        "As fio 3.33 (io_u.c `check_get_verify`): when N written blocks are unverified and the \
            last I/O done was not a read, the oldest (lowest offset without a random map) are \
            read back and checked before the job goes on; the reads count as the job's reads \
            but not toward its `size`. What is left unverified at the end is verified after the \
            writes. 0: off.",
    ),
    opt("verify_backlog_batch", Int, Verify, Supported).min_val(0).help(
        "How many blocks to verify per backlog round.",
        "Default (0): `verify_backlog`. Fewer lets the backlog grow; more verifies what there \
            is.",
    ),
    opt("experimental_verify", Bool, Verify, Unsupported("not implemented")).help(
        "fio's experimental verify path that re-generates offsets.",
        "Replaces the logged-offset verify in fio.",
    ),
    opt("verify_state_save", Bool, Verify, Ignored("iolab saves no verify state files"))
        .def("1")
        .help(
            "Save verify state when a job is stopped early.",
            "Used by fio for crash-consistency testing with `verify_state_load`.",
        ),
    opt("verify_state_load", Bool, Verify, Unsupported("not implemented")).help(
        "Load saved verify state and check only what was completed.",
        "See `verify_state_save`.",
    ),
    opt(
        "verify_write_sequence",
        Bool,
        Verify,
        Ignored("iolab's verify header has its own fields, all of which are always checked"),
    )
    .def("1")
    .help("Check the write sequence number in each verify header.", "Default on in fio."),
    opt(
        "verify_header_seed",
        Bool,
        Verify,
        Ignored("iolab's verify header has its own fields, all of which are always checked"),
    )
    .def("1")
    .help(
        "Check the seed stored in each verify header.",
        "Default on in fio; turned off for some replay cases.",
    ),
    opt(
        "verify_policy",
        Str,
        Verify,
        Unsupported("crash-consistency verification is not implemented"),
    )
    .def("completed")
    .choices(&["completed", "fsynced"])
    .help("Which writes count for verification after a crash (completed, fsynced).", "New in fio."),
    opt("verifysort", Deprecated, Verify, Ignored("deprecated in fio, which ignores it too"))
        .help("Deprecated: sort verify reads by offset.", "Kept so old job files parse."),
    opt("verifysort_nr", Deprecated, Verify, Ignored("deprecated in fio, which ignores it too"))
        .help("Deprecated: batch size for verifysort.", "Kept so old job files parse."),
    opt("trim_percentage", Int, Verify, Unsupported("trim is not implemented"))
        .def("0")
        .min_val(0)
        .max_val(100)
        .help("Trim this share of verified blocks.", "Part of fio's trim-verify."),
    opt("trim_verify_zero", Bool, Verify, Unsupported("trim is not implemented"))
        .def("1")
        .help("Check that trimmed blocks read back as zeros.", "See `trim_percentage`."),
    opt("trim_backlog", Size, Verify, Unsupported("trim is not implemented"))
        .help("Trim after this many blocks are written.", "See `trim_percentage`."),
    opt("trim_backlog_batch", Int, Verify, Unsupported("trim is not implemented"))
        .help("How many blocks to trim per backlog round.", "See `trim_percentage`."),
];
