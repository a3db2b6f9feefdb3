//! fio's `zonemode=strided`: I/O confined to one zone at a time.
//!
//! Source: fio 3.33 io_u.c `setup_strided_zone_mode` (called by `fill_io_u` before each read
//! or write is given its offset; `td->zone_bytes` grows by every I/O's length after it),
//! io_u.c `last_block` and filesetup.c `init_random_map` (random offsets, the random map and
//! the LFSR span one `zonerange`), init.c `fixup_options` (one file only; `zonerange`
//! defaults to `zonesize`), libfio.c `reset_io_counters` (a new loop starts at the job's start
//! with no zone bytes). The zone's start is fio's `f->file_offset`, which offsets are relative
//! to; here it is the file's `start`.

use iolab_job::StridedZones;

/// The zone state of a strided job's one file.
#[derive(Clone, Debug)]
pub(crate) struct Strided {
    zones: StridedZones,
    /// fio `td->zone_bytes`: bytes done in the current zone.
    bytes: u64,
    /// fio `get_start_offset`: where the first zone starts and a wrap returns to.
    home: u64,
}

impl Strided {
    pub(crate) fn new(zones: StridedZones, home: u64) -> Self {
        Strided { zones, bytes: 0, home }
    }

    /// The zone's width: what random offsets and the random map span (`last_block`).
    pub(crate) fn range(&self) -> u64 {
        self.zones.range
    }

    /// `setup_strided_zone_mode` for direction `d` of the file whose zone starts at `start`
    /// (moved here) and whose last positions are `last_pos`: the next zone once `zonesize`
    /// bytes were done (back to the start past `file_size`), the zone again from its start
    /// once the last I/O ended past it. True when the file's random map, LFSR and positions
    /// are to be reset (`fio_file_reset`), at every `zonerange` bytes.
    pub(crate) fn before_io(
        &mut self,
        start: &mut u64,
        last_pos: &mut [u64; 3],
        d: usize,
        file_size: u64,
    ) -> bool {
        let z = self.zones;
        if self.bytes >= z.size {
            self.bytes = 0;
            // fio's sum wraps at 2^64 (a skip near 2^64 moves backwards); iolab saturates,
            // which ends past the file and wraps to the start.
            *start = start.saturating_add(z.range).saturating_add(z.skip);
            if *start >= file_size {
                *start = self.home;
            }
            last_pos[d] = *start;
        }
        if last_pos[d] >= start.saturating_add(z.range) {
            last_pos[d] = *start;
        }
        self.bytes % z.range == 0
    }

    /// One I/O of `len` bytes done in the zone.
    pub(crate) fn account(&mut self, len: u64) {
        self.bytes = self.bytes.saturating_add(len);
    }

    /// A new loop: the first zone again (`reset_io_counters`).
    pub(crate) fn restart(&mut self, start: &mut u64) {
        self.bytes = 0;
        *start = self.home;
    }
}
