//! Option table: Files, devices, sizes, block sizes and zones.
//!
//! Source: fio `options.c` groups FIO_OPT_G_FILENAME, FIO_OPT_G_FILE, FIO_OPT_G_ZONE;
//! `filesetup.c`, `io_u.c` `get_next_buflen`, at fio f5344384. Types, defaults and choices
//! follow fio's table; the help texts are iolab's own, and each entry carries iolab's status
//! and the reason for it. Generated once from fio's tables and then edited by hand; this file
//! is the source of truth.

use super::Category::*;
use super::OptionType::*;
use super::Status::*;
use super::{opt, OptionDef};
use crate::apply as a;

pub(super) const OPTIONS: &[OptionDef] = &[
    opt("filename", Str, Files, Supported).set(a::set_filename).prio(-1).help(
        "File(s) or device(s) to do I/O on; several are separated by `:`.",
        "`\\:` is a literal colon; a leading `:` is skipped and an empty element ends the \
            list (fio's `get_next_str`). With several names, `nrfiles` is ignored and `size` is \
            split over the files unless `filesize` is set. All clones of a job share the named \
            files. `-` means stdin/stdout in fio; iolab refuses it. Writing to a block device \
            that holds a filesystem or partition table needs `--allow-destroy`.",
    ),
    opt("filetype", Str, Files, Ignored("iolab always stats each file to learn its type and size"))
        .def("none")
        .choices(&["none", "file", "block", "char"])
        .help(
            "Assume every file is of this type (file, block, char) instead of checking.",
            "A fio start-up shortcut for jobs with very many files.",
        ),
    opt("directory", Str, Files, Supported).set(a::set_directory).help(
        "Directory for the job's files; `d1:d2` hands directories to clones round-robin.",
        "If `filename` is given, only the first directory is used, as in fio. Colons are \
            escaped like in `filename`.",
    ),
    opt("filename_format", Str, Files, Supported)
        .set(a::set_filename_format)
        .prio(-1)
        .def("$jobname.$jobnum.$filenum")
        .help(
            "Pattern for generated file names (`$jobname`, `$jobnum`, `$filenum`, `$clientuid`).",
            "Lets several jobs share files, e.g. `filename_format=data.$filenum`. Directory \
            components are created. `$clientuid` is empty in iolab (there is no client/server \
            mode).",
        ),
    opt(
        "unique_filename",
        Bool,
        Files,
        Ignored("only meaningful in fio's client/server mode, which iolab does not have"),
    )
    .def("1")
    .help(
        "Prefix generated file names with the client's address in client/server mode.",
        "Has no effect on a local run in fio either.",
    ),
    opt("lockfile", Str, Files, Supported).prio(1).def("none").choices(&["none"]).help(
        "Lock files while doing I/O; iolab accepts only `none`.",
        "fio's `exclusive` and `readwrite` serialise jobs sharing a file and change the I/O \
            timing, so iolab refuses them by name rather than ignore them; give each job its \
            own file, or use one job with a higher iodepth.",
    ),
    opt("opendir", Str, Files, Unsupported("not implemented; list the files with filename=a:b:c"))
        .help(
            "Add every file found under a directory, recursively.",
            "fio's colons here must not be escaped.",
        ),
    opt("nrfiles", Int, Files, Supported).set(a::set_nrfiles).alias(&["nr_files"]).def("1").help(
        "Number of files the job's I/O is spread over.",
        "`size` is divided evenly between them unless `filesize` is given. The job's \
            `iodepth` is shared by all its files; `file_service_type` picks the file for each \
            I/O. Ignored when `filename` lists files (as in fio).",
    ),
    opt("openfiles", Int, Files, Supported).help(
        "Keep at most this many of the job's files open at once.",
        "Accepted with the file-operation engines (filecreate … dirdelete), whose operation is \
            the open and whose descriptors close at once. Refused with every other engine: \
            iolab keeps all of a job's files open, and opening and closing files changes the \
            I/O path, so a limit is refused rather than silently lifted.",
    ),
    opt("file_service_type", Special, Files, Supported)
        .set(a::set_file_service_type)
        .def("roundrobin")
        .choices(&["random", "zipf", "pareto", "normal", "gauss", "roundrobin", "sequential"])
        .help(
            "How the next file is chosen: roundrobin, sequential, random, zipf, pareto, \
            normal/gauss.",
            "A `:N` suffix issues N I/Os before switching (`random:4`). The default `roundrobin` \
            switches on every I/O. For the skewed choices fio does not hash (scramble) the file \
            index, and neither does iolab. Values for the distributions take their parameter as \
            in `random_distribution` (`zipf:1.2`).",
        ),
    opt("fallocate", Str, Files, Supported)
        .def("native")
        .choices(&["none", "native", "posix", "keep", "truncate", "0", "1"])
        .help(
            "How files are preallocated when laid out: none, native, posix, keep.",
            "`native` tries fallocate(2) and falls back to none; `posix` uses posix_fallocate; \
            `keep` uses FALLOC_FL_KEEP_SIZE; `truncate` extends with ftruncate. `0`/`1` are \
            fio's old spellings of none/posix. iolab extends every new file with ftruncate \
            (sparse) or lays it out by writing, whatever the value, and says so in a note.",
        ),
    opt(
        "fadvise_hint",
        Str,
        Files,
        Ignored(
            "iolab issues no fadvise/madvise access hints, as fio with fadvise_hint=0; readahead \
            is the kernel default",
        ),
    )
    .def("1")
    .choices(&["0", "1", "random", "sequential", "noreuse"])
    .help(
        "Issue fadvise hints (random, sequential, noreuse) matching the access pattern.",
        "By default fio tells the kernel the pattern (FADV_RANDOM for random jobs), which \
            disables readahead; buffered random-read results can therefore differ from fio's \
            defaults.",
    ),
    opt(
        "create_serialize",
        Bool,
        Files,
        Ignored("iolab lays out files before the measured phase starts, one after another"),
    )
    .def("1")
    .help("Lay files out one job at a time.", "Only affects set-up time."),
    opt(
        "create_fsync",
        Bool,
        Files,
        Ignored(
            "iolab's file setup decides whether laid-out files are synced; this flag is not \
            consulted",
        ),
    )
    .def("1")
    .help(
        "fsync files after laying them out.",
        "Only affects set-up, which happens before measurement.",
    ),
    opt("create_on_open", Bool, Files, Supported).def("0").help(
        "Create files when they are first opened for I/O instead of at set-up.",
        "With it, creation happens inside the job and its cost is part of the run.",
    ),
    opt(
        "create_only",
        Bool,
        Files,
        Unsupported(
            "not implemented; run the job with a short runtime, or make files with \
                        `iolab data`",
        ),
    )
    .def("0")
    .help(
        "Only lay files out, then exit without running I/O.",
        "fio uses it to prepare files ahead of a measurement.",
    ),
    opt("allow_file_create", Bool, Files, Supported).def("1").help(
        "Allow creating files that do not exist.",
        "With `allow_file_create=0` a missing file is an error; useful to make sure a device \
            or prepared file is used.",
    ),
    opt("allow_mounted_write", Bool, Files, Supported).def("0").help(
        "Allow writing to a device that is mounted.",
        "Off by default: iolab refuses to write to a block device in use (it or a partition \
            of it mounted, active swap, held by dm/md/bcache, or busy for `O_EXCL`), and \
            `--allow-destroy` does not change that; only `allow_mounted_write=1` does, with a \
            warning in the job's notes. Devices not in use but carrying a signature libblkid \
            recognises (filesystem, partition table, RAID/LVM/LUKS member, swap) need \
            `--allow-destroy`.",
    ),
    opt(
        "pre_read",
        Bool,
        Files,
        Unsupported(
            "not implemented; warm the cache with an earlier read job followed by \
                        stonewall",
        ),
    )
    .def("0")
    .help(
        "Read the files into the page cache before the job starts.",
        "fio's pre-read also turns `invalidate` off.",
    ),
    opt("unlink", Bool, Files, Supported).def("0").help(
        "Delete the job's files after the job.",
        "Regular files only, as fio (a device is never removed). It changes nothing that is \
        measured.",
    ),
    opt(
        "unlink_each_loop",
        Bool,
        Files,
        Ignored("iolab leaves created files in place between loops"),
    )
    .def("0")
    .help("Delete the job's files after each loop.", "In fio this forces a new layout each loop."),
    opt(
        "file_append",
        Bool,
        Files,
        Unsupported("not implemented; set offset to the file's current size instead"),
    )
    .def("0")
    .help(
        "Start I/O at the end of the file instead of at offset 0.",
        "fio appends to existing files.",
    ),
    opt(
        "fill_device",
        Bool,
        Files,
        Unsupported("not implemented; set size to the space you want to fill"),
    )
    .alias(&["fill_fs"])
    .def("0")
    .help(
        "Write until the device or filesystem is full (ENOSPC).",
        "fio treats ENOSPC as the end of the job.",
    ),
    opt("overwrite", Bool, Files, Supported).def("0").help(
        "Write over existing data: lay the file out fully before writing to it.",
        "Without it, writes into a new file allocate blocks as they go, which is slower on \
            most filesystems.",
    ),
    opt("size", SizeOrPercent, IoSize, Supported).set(a::set_size).help(
        "Total bytes of the job's I/O region (per clone), or `N%` of the file or device.",
        "Split over the job's files unless `filesize` is set. If omitted, the size of the \
            existing file or device is used. Suffixes follow `kb_base`, which must come before \
            this option (fio parses options in order): with the default kb_base=1024, `4k` is \
            4096 but `4KiB` is 4000 (fio issue #1618); iolab does what fio does and warns.",
    ),
    opt("io_size", SizeOrPercent, IoSize, Supported).set(a::set_io_size).alias(&["io_limit"]).help(
        "Bytes of I/O to do; may be less than `size` (stop early) or more (wrap around).",
        "Also accepts `N%`. fio's `io_limit` is the same option.",
    ),
    opt("filesize", Range, IoSize, Supported).set(a::set_filesize).min_val(1).help(
        "Size of each file; may be a range `a-b` (one size drawn per file).",
        "When set, `size` only acts as the default `io_size`.",
    ),
    opt("offset", SizeOrPercent, IoSize, Supported)
        .set(a::set_offset)
        .alias(&["fileoffset"])
        .def("0")
        .help(
            "Start of the job's region in each file: bytes or `N%`.",
            "A percentage is rounded down to the block size or `offset_align`. The region is \
            `[offset, offset+size)`.",
        ),
    opt(
        "offset_align",
        Int,
        IoSize,
        Unsupported("not implemented; write offset as a byte count aligned as you need"),
    )
    .def("0")
    .help(
        "Alignment for an `offset` given as a percentage.",
        "Without it fio aligns percentages to the minimum block size, which iolab does.",
    ),
    opt("offset_increment", SizeOrPercent, IoSize, Supported)
        .set(a::set_offset_increment)
        .def("0")
        .help(
            "Each clone starts at `offset + offset_increment * clone_number`.",
            "The usual way to partition one device between clones. Also accepts `N%`.",
        ),
    opt("number_ios", Size, IoSize, Supported).set(a::set_number_ios).def("0").help(
        "Stop after this many I/Os (it never extends a run).",
        "Counts per clone; with several directions the total counts.",
    ),
    opt("num_range", Int, IoSize, Unsupported("trim is not supported by iolab's engines"))
        .def("1")
        .max_val(256)
        .help(
            "Number of ranges in one trim command.",
            "Multi-range DSM trims in fio's io_uring_cmd engine.",
        ),
    opt("bs", SizeList, IoSize, Supported)
        .set(a::set_bs)
        .alias(&["blocksize"])
        .def("4096")
        .min_val(1)
        .help(
            "Block size of each I/O, per direction (`read,write,trim`).",
            "`bs=8k,32k` sets reads to 8k and writes and trims to 32k; a trailing comma \
            (`8k,32k,`) keeps the default for the rest. Default 4096. Suffixes follow \
            `kb_base`.",
        ),
    opt("ba", SizeList, IoSize, Supported).set(a::set_ba).alias(&["blockalign"]).min_val(1).help(
        "Align random offsets to this boundary, per direction.",
        "Defaults to the minimum block size. As in fio, setting it also disables the random \
            map.",
    ),
    opt("bsrange", Range, IoSize, Supported)
        .set(a::set_bsrange)
        .alias(&["blocksize_range"])
        .min_val(1)
        .help(
            "Draw each I/O's size uniformly from a range, per direction (`1k-4k,8k-16k`).",
            "Each draw is rounded down to a multiple of the range's minimum unless \
            `bs_unaligned` is set (fio `get_next_buflen`). A reversed range is swapped. As \
            fio 3.33 reads it: directions split at `,` only, the ends at the first `-`, else \
            the first `:`, and what follows an end's number and unit behind punctuation is \
            dropped (`512/25:1k:25:2k` is `512-1k`; iolab warns, fio says nothing).",
        ),
    opt("bssplit", Split, IoSize, Supported).set(a::set_bssplit).help(
        "Mix of block sizes with weights: `bs/perc:bs/perc[,…]` per direction.",
        "Order does not matter; empty percentages share what is left equally \
            (`4k/50:1k/:32k/` is 50/25/25); a total above 100 is an error; at most 64 entries \
            per direction. Sizes are chosen per I/O from a cumulative table, like fio.",
    ),
    opt("bs_unaligned", Bool, IoSize, Supported)
        .set(a::set_bs_unaligned)
        .alias(&["blocksize_unaligned"])
        .help(
            "Allow `bsrange` sizes that are not multiples of the minimum size.",
            "Incompatible with O_DIRECT on most devices (sizes must be sector multiples).",
        ),
    opt(
        "bs_is_seq_rand",
        Bool,
        IoSize,
        Unsupported("not implemented; use separate jobs for sequential and random sizes"),
    )
    .def("0")
    .help(
        "Read the two `bs` values as sequential,random instead of read,write.",
        "A fio rarity that reinterprets the per-direction `bs` list.",
    ),
    opt("zonemode", Str, Zone, Supported)
        .set(a::set_zonemode)
        .def("none")
        .choices(&["none", "strided"])
        .help(
            "Zone mode: `none`, or `strided` (I/O confined to one zone at a time).",
            "`strided` as fio 3.33's io_u.c `setup_strided_zone_mode`: `zonesize` bytes in a \
            zone of `zonerange` bytes, then the zone moves on by `zonerange` + `zoneskip`, back \
            to the job's start past the file's end; random I/O draws within the zone, its \
            random map spanning one zone. With several open files fio turns it off (iolab \
            warns). fio's `zbd` (zoned block devices) is refused.",
        ),
    opt("zonesize", Size, Zone, Supported).def("0").help(
        "Bytes to do in each zone before moving on (`zonemode=strided`).",
        "Larger than `zonerange`: the zone is gone over again; smaller: only part of it is \
            touched. Without `zonemode=strided` a `zonesize` is an error, as in fio 3.33.",
    ),
    opt("zonecapacity", Size, Zone, Unsupported("zoned block devices are not supported"))
        .def("0")
        .help("Usable capacity of each zone.", "For emulated ZBD on regular files."),
    opt("zonerange", Size, Zone, Supported)
        .def("0")
        .help("Size of one zone (`zonemode=strided`).", "0 (the default) means `zonesize`."),
    opt("zoneskip", Size, Zone, Supported).set(a::set_zoneskip).def("0").help(
        "Bytes skipped after each zone (`zonemode=strided`).",
        "A size, or `Nz`: N zones of `zonesize` (fio's zone unit). A percentage is refused \
            (fio 3.33 turns it into a skip of nearly 2^64 bytes).",
    ),
    opt("read_beyond_wp", Bool, Zone, Unsupported("zoned block devices are not supported"))
        .def("0")
        .help("Allow reads beyond a zone's write pointer.", "ZBD only."),
    opt("max_open_zones", Int, Zone, Unsupported("zoned block devices are not supported"))
        .def("0")
        .max_val(4096)
        .help("Limit of zones open for writing at once, device-wide.", "ZBD only."),
    opt("job_max_open_zones", Int, Zone, Unsupported("zoned block devices are not supported"))
        .def("0")
        .max_val(4096)
        .help("Limit of zones open for writing at once, per job.", "ZBD only."),
    opt("ignore_zone_limits", Bool, Zone, Unsupported("zoned block devices are not supported"))
        .def("0")
        .help("Ignore the device's open/active zone limits.", "ZBD only."),
    opt("zone_reset_threshold", Float, Zone, Unsupported("zoned block devices are not supported"))
        .help("Reset zones when this fraction of capacity is used.", "ZBD only."),
    opt("zone_reset_frequency", Float, Zone, Unsupported("zoned block devices are not supported"))
        .help("How often zones are reset.", "ZBD only."),
    opt(
        "recover_zbd_write_error",
        Bool,
        Zone,
        Unsupported("zoned block devices are not supported"),
    )
    .help("Continue after recovering from a write error on a sequential zone.", "ZBD only."),
    opt("write_zone_remainder", Bool, Zone, Unsupported("zoned block devices are not supported"))
        .help(
            "Write the small remainder at the end of zones with unaligned block sizes.",
            "ZBD only.",
        ),
    opt(
        "fdp",
        Bool,
        Zone,
        Unsupported("data placement directives are not supported; drop the option"),
    )
    .def("0")
    .help("Use NVMe Flexible Data Placement.", "Needs io_uring_cmd or xnvme in fio."),
    opt("dataplacement", Str, Zone, Supported)
        .alias(&["data_placement"])
        .def("none")
        .choices(&["none"])
        .help(
            "Data placement interface; iolab accepts only `none`.",
            "fio's `fdp` and `streams` (NVMe placement directives through io_uring_cmd or xnvme) \
            are refused by name.",
        ),
    opt("plid_select", Str, Zone, Unsupported("data placement directives are not supported"))
        .alias(&["fdp_pli_select"])
        .def("roundrobin")
        .choices(&["random", "roundrobin", "scheme"])
        .help("How the next placement ID is chosen.", "See `fdp`."),
    opt("plids", Str, Zone, Unsupported("data placement directives are not supported"))
        .alias(&["fdp_pli"])
        .help("Which placement IDs to use.", "See `fdp`."),
    opt("dp_scheme", Str, Zone, Unsupported("data placement directives are not supported"))
        .help("File mapping offsets to placement IDs.", "See `fdp`."),
];
