//! The table of trace formats: one line per format (name, extensions, content sniffer,
//! constructor). Adding a format is one file in `formats/` and one line here.

use crate::formats::*;
use crate::reader::{Reader, ReaderConfig, TraceReader};
use std::io::BufRead;

type Ctor = fn(Box<dyn BufRead>, &str, &ReaderConfig) -> Box<dyn TraceReader>;

/// One trace format.
pub struct FormatInfo {
    pub name: &'static str,
    pub aliases: &'static [&'static str],
    /// File-name extensions (after stripping `.zst`/`.gz`), lower case, without the dot.
    pub extensions: &'static [&'static str],
    pub binary: bool,
    pub description: &'static str,
    /// Does the start of the (decompressed) stream look like this format?
    pub sniff: fn(&[u8]) -> bool,
    pub open: Ctor,
}

impl std::fmt::Debug for FormatInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

/// All formats, in sniffing order (most specific first).
pub static FORMATS: &[FormatInfo] = &[
    FormatInfo {
        name: "cloudphysics",
        aliases: &["cloudphysics-csv", "cp"],
        extensions: &["csv"],
        binary: false,
        description: "CloudPhysics CSV `version,time,op,size,lbn` (µs, SCSI opcode hex, bytes, 512-B sectors)",
        sniff: cloudphysics::sniff,
        open: |r, name, cfg| Box::new(Reader::new(cloudphysics::CloudPhysicsCsv::new(r), name, cfg)),
    },
    FormatInfo {
        name: "fio-iolog",
        aliases: &["iolog", "fio"],
        extensions: &["iolog", "log"],
        binary: false,
        description: "fio iolog version 2 or 3 (`fio version N iolog`; v3 timestamps in µs)",
        sniff: fio_iolog::sniff,
        open: |r, name, cfg| Box::new(Reader::new(fio_iolog::FioIolog::new(r), name, cfg)),
    },
    FormatInfo {
        name: "msr",
        aliases: &["msr-cambridge"],
        extensions: &["csv"],
        binary: false,
        description: "MSR Cambridge CSV `Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime`",
        sniff: msr::sniff,
        open: |r, name, cfg| Box::new(Reader::new(msr::Msr::new(r), name, cfg)),
    },
    FormatInfo {
        name: "alibaba",
        aliases: &["alibaba-block"],
        extensions: &["csv"],
        binary: false,
        description: "Alibaba block CSV `device_id,opcode,offset,length,timestamp` (R/W, bytes, µs)",
        sniff: alibaba::sniff,
        open: |r, name, cfg| Box::new(Reader::new(alibaba::Alibaba::new(r), name, cfg)),
    },
    FormatInfo {
        name: "tencent",
        aliases: &["tencent-cbs", "cbs"],
        extensions: &["csv"],
        binary: false,
        description: "Tencent CBS CSV `Timestamp,Offset,Size,IOType,VolumeID` (s, sectors, 0/1)",
        sniff: tencent::sniff,
        open: |r, name, cfg| Box::new(Reader::new(tencent::Tencent::new(r), name, cfg)),
    },
    FormatInfo {
        name: "blkparse",
        aliases: &["blktrace"],
        extensions: &["blkparse", "blktrace"],
        binary: false,
        description: "blkparse default text output (one action, Q by default)",
        sniff: blkparse::sniff,
        open: |r, name, cfg| {
            Box::new(Reader::new(blkparse::Blkparse::new(r, cfg.blkparse_action), name, cfg))
        },
    },
    FormatInfo {
        name: "vscsi",
        aliases: &["vscsistats"],
        extensions: &["vscsi"],
        binary: true,
        description: "VMware vscsiStats binary, v1 (32 B) or v2 (40 B) records",
        sniff: vscsi::sniff,
        open: |r, name, cfg| Box::new(Reader::new(vscsi::Vscsi::new(r), name, cfg)),
    },
    FormatInfo {
        name: "oracleGeneral",
        aliases: &["oracle", "oraclegeneral", "oracleGeneralBin"],
        extensions: &["oraclegeneral", "oraclegeneralbin", "bin"],
        binary: true,
        description: "libCacheSim oracleGeneral: 24-byte LE records {u32 time, u64 obj_id, u32 size, i64 next_access_vtime}",
        sniff: oracle::sniff,
        open: |r, name, cfg| {
            let p = oracle::OracleGeneral::new(r, cfg.oracle_time_unit_ns, cfg.oracle_id_unit_bytes);
            Box::new(Reader::new(p, name, cfg))
        },
    },
    FormatInfo {
        name: "txt",
        aliases: &["libcachesim-txt", "plaintxt"],
        extensions: &["txt"],
        binary: false,
        description: "libCacheSim txt: one object id per line",
        sniff: lcs_csv::sniff_txt,
        open: |r, name, cfg| {
            Box::new(Reader::new(lcs_csv::LcsCsv::txt(r, cfg.csv.obj_id_is_num), name, cfg))
        },
    },
    FormatInfo {
        name: "csv",
        aliases: &["libcachesim-csv", "generic-csv"],
        extensions: &["csv"],
        binary: false,
        description: "libCacheSim generic CSV: time, obj_id, obj_size columns (configurable, 1-based)",
        sniff: lcs_csv::sniff_csv,
        open: |r, name, cfg| Box::new(Reader::new(lcs_csv::LcsCsv::csv(r, cfg.csv.clone()), name, cfg)),
    },
];

/// Finds a format by name or alias (case-insensitive).
pub fn find(name: &str) -> Option<&'static FormatInfo> {
    FORMATS.iter().find(|f| {
        f.name.eq_ignore_ascii_case(name) || f.aliases.iter().any(|a| a.eq_ignore_ascii_case(name))
    })
}

/// The known format names, comma-separated, for error messages and `--help`.
pub fn names() -> String {
    FORMATS.iter().map(|f| f.name).collect::<Vec<_>>().join(", ")
}
