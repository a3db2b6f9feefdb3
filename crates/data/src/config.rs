//! `DataConfig`: what a job's write buffers contain, resolved from fio's buffer options the
//! way fio resolves them (init.c `fixup_options` l.1015–1030, options.c
//! `str_buffer_pattern_cb`, io_u.c `get_io_u` l.1975–1986), plus iolab's extensions
//! `compress_content=` and `dedupe_spread=`, and the warnings for fio's traps.

use crate::verify::VerifyKind;
use serde::{Deserialize, Serialize};

/// `dedupe_mode`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DedupeMode {
    /// A duplicate is a copy of the most recent unique buffer (fio default).
    #[default]
    Repeat,
    /// A duplicate copies one of the first `dedupe_working_set_percentage` % unique buffers.
    WorkingSet,
}

/// iolab `compress_content=`: what fills the compressible part of each chunk.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CompressContent {
    /// fio without `buffer_pattern`: zero bytes (compressible only by zero suppression).
    #[default]
    Zeros,
    /// fio with `buffer_pattern`: the pattern, restarted at each chunk's compressible part.
    Pattern,
    /// iolab: dictionary words that an LZ compressor must actually match.
    Text,
}

/// What the write buffers of one job contain. Plain data; [`crate::DataGen`] runs it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DataConfig {
    /// `buffer_compress_percentage` after fio's fix-up (100 becomes `zero_buffers`).
    pub compress_percentage: u32,
    /// `buffer_compress_chunk` (0: one chunk per write, capped at the minimum write size).
    pub compress_chunk: u64,
    pub compress_content: CompressContent,
    /// `buffer_pattern` bytes (empty: none).
    pub pattern: Vec<u8>,
    pub zero_buffers: bool,
    /// Regenerate every write (`refill_buffers`, forced by compress, dedupe and verify).
    pub refill_buffers: bool,
    /// fio's default for reused buffers: stamp offset and time into each 512-byte sector.
    pub scramble_buffers: bool,
    pub dedupe_percentage: u32,
    pub dedupe_mode: DedupeMode,
    pub dedupe_working_set_percentage: u32,
    /// iolab `dedupe_spread=1`: a duplicate's twin is drawn over the whole region instead of
    /// being the previous buffer.
    pub dedupe_spread: bool,
    /// Minimum write block size (fio `min_bs[DDIR_WRITE]`): chunking and dedupe unit.
    pub min_write_bs: u64,
    /// Bytes of the job's region (`size`), when known; working-set dedupe needs it.
    pub region_size: Option<u64>,
    pub verify: VerifyKind,
    /// `verify_pattern` bytes (for `verify=pattern`).
    pub verify_pattern: Vec<u8>,
    /// `verify_interval` (0: [`crate::verify::DEFAULT_INTERVAL`]).
    pub verify_interval: u32,
    /// `verify_fatal`: stop the job at the first failure.
    pub verify_fatal: bool,
    /// Filled by the job → data mapping (`iolab_job::Job::data_config`); read with [`DataConfig::warnings`].
    pub warnings: Vec<String>,
}

impl Default for DataConfig {
    /// fio's defaults: one random buffer reused with small scrambles.
    fn default() -> Self {
        DataConfig {
            compress_percentage: 0,
            compress_chunk: 512,
            compress_content: CompressContent::Zeros,
            pattern: Vec::new(),
            zero_buffers: false,
            refill_buffers: false,
            scramble_buffers: true,
            dedupe_percentage: 0,
            dedupe_mode: DedupeMode::Repeat,
            dedupe_working_set_percentage: 5,
            dedupe_spread: false,
            min_write_bs: 4096,
            region_size: None,
            verify: VerifyKind::None,
            verify_pattern: Vec::new(),
            verify_interval: 0,
            verify_fatal: false,
            warnings: Vec::new(),
        }
    }
}

impl DataConfig {
    /// Warnings for this configuration: each names the trap and the option that avoids it.
    pub fn warnings(&self) -> Vec<String> {
        self.warnings.clone()
    }

    /// The expected-content description of a block for [`crate::verify::check`].
    pub fn verify_ctx(&self, file: u32, offset: u64, gen: u64, seed: u64) -> crate::VerifyCtx {
        let mut v = crate::VerifyCtx::new(self.verify, file, offset, gen, seed);
        v.interval = self.verify_interval;
        if !self.verify_pattern.is_empty() {
            v.pattern = Some(self.verify_pattern.clone().into());
        }
        v
    }

    /// Number of write-size blocks a working-set or spread twin is drawn from.
    pub fn working_set_blocks(&self, bs: u64) -> u64 {
        let region = self.region_size.unwrap_or(0) / bs.max(1);
        match self.dedupe_mode {
            DedupeMode::WorkingSet if !self.dedupe_spread => {
                (region * u64::from(self.dedupe_working_set_percentage) / 100).max(1)
            }
            _ => region.max(1),
        }
    }
}
