//! fio's default write content (io_u.c `small_content_scramble`, l.1879): one buffer filled
//! with random data once and reused, with the 8-byte block offset written at the start of one
//! 64-byte line of each 512-byte sector (line `(tv_nsec ^ offset) & 7`) and the 16-byte
//! issue time (`tv_sec`, `tv_nsec`) at bytes 48..64 of the sector.
//!
//! The time is not the wall clock here (iolab's data are a function of seed, file, offset
//! and generation): `tv_sec` is the generation and `tv_nsec` a hash of (seed, offset, gen).
//! fio never restores the buffer, so up to 8 stale offset stamps pile up per sector; each
//! iolab block carries only its own stamp. Either way ~190 of every 4096 bytes change per
//! block and a cross-block compressor sees ~98 % redundancy.

use super::random::key_of;

pub fn scramble(buf: &mut [u8], seed: u64, offset: u64, gen: u64) {
    let nsec = key_of(&[seed, 0x5c4a_3b1e, offset, gen]) % 1_000_000_000;
    let line = (((nsec ^ offset) & 7) as usize) << 6;
    let mut boff = offset;
    for sector in buf.chunks_exact_mut(512) {
        sector[line..line + 8].copy_from_slice(&boff.to_le_bytes());
        sector[48..56].copy_from_slice(&gen.to_le_bytes());
        sector[56..64].copy_from_slice(&nsec.to_le_bytes());
        boff += 512;
    }
}
