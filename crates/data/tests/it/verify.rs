//! iolab-data's verify headers (fio verify.c): corruption, misplaced, stale and torn blocks, header
//! crc and foreign seeds.

use iolab_data::{
    check, stamp, DataConfig, DataGen, FailureKind, VerifyCtx, VerifyKind, VerifyStats,
};

fn stamped(kind: VerifyKind, offset: u64, gen: u64, len: usize) -> (Vec<u8>, VerifyCtx) {
    let cfg = DataConfig { refill_buffers: true, ..DataConfig::default() };
    let mut buf = vec![0u8; len];
    DataGen::new(&cfg, 5).fill(&mut buf, 0, offset, gen);
    let mut ctx = VerifyCtx::new(kind, 0, offset, gen, 5);
    if kind == VerifyKind::Pattern {
        ctx.pattern = Some(vec![0xde, 0xad].into());
    }
    stamp(&mut buf, &ctx);
    (buf, ctx)
}

#[test]
fn verify_tells_corruption_misplaced_stale_torn_apart() {
    let kinds = [
        VerifyKind::Crc32c,
        VerifyKind::Xxhash,
        VerifyKind::Md5,
        VerifyKind::Sha256,
        VerifyKind::Pattern,
    ];
    for kind in kinds {
        let mut stats = VerifyStats::default();
        let (good, ctx) = stamped(kind, 65536, 3, 16384);
        let r = check(&good, &ctx);
        assert_eq!(r, Ok(()), "{kind:?}");
        stats.record(&r);

        let mut flipped = good.clone();
        flipped[9000] ^= 0x10;
        let f = check(&flipped, &ctx).unwrap_err();
        assert!(matches!(f.kind, FailureKind::Corruption { in_header: false, .. }), "{f}");
        if kind == VerifyKind::Pattern {
            assert_eq!(f.kind, FailureKind::Corruption { at: 9000, in_header: false });
        }
        stats.record(&Err(f));

        // The block written for offset 81920 read back at 65536: a misdirected write.
        let (other, _) = stamped(kind, 81920, 3, 16384);
        let f = check(&other, &ctx).unwrap_err();
        assert_eq!(f.kind, FailureKind::Misplaced { found_file: 0, found_offset: 81920 }, "{f}");
        assert!(f.to_string().contains("misplaced"), "{f}");
        stats.record(&Err(f));

        // Generation 2 still on the media where generation 3 was written: a lost write.
        let (old, _) = stamped(kind, 65536, 2, 16384);
        let f = check(&old, &ctx).unwrap_err();
        assert_eq!(f.kind, FailureKind::Stale { found_gen: 2 }, "{f}");
        stats.record(&Err(f));

        // First 8 KiB new, last 8 KiB old: torn at the 4 KiB interval boundary 8192.
        let mut torn = good.clone();
        torn[8192..].copy_from_slice(&old[8192..]);
        let f = check(&torn, &ctx).unwrap_err();
        assert_eq!(f.kind, FailureKind::Torn { at: 8192, gen_before: 3, gen_after: 2 }, "{f}");
        stats.record(&Err(f));

        let f = check(&vec![0u8; 16384], &ctx).unwrap_err();
        assert!(matches!(f.kind, FailureKind::BadHeader { zeros: true, .. }), "{f}");
        assert!(!f.to_string().contains('\n'));
        stats.record(&Err(f));

        assert_eq!(
            (
                stats.ok,
                stats.corruption,
                stats.misplaced,
                stats.stale,
                stats.torn,
                stats.bad_header
            ),
            (1, 1, 1, 1, 1, 1)
        );
    }
}

#[test]
fn verify_header_crc_and_foreign_seed() {
    let (good, ctx) = stamped(VerifyKind::Crc32c, 0, 1, 4096);
    let mut bad = good.clone();
    bad[20] ^= 1; // inside the header's offset field
    let f = check(&bad, &ctx).unwrap_err();
    assert_eq!(f.kind, FailureKind::Corruption { at: 0, in_header: true });
    // A digest says only which interval is wrong; the block as written names the byte.
    let mut flipped = good.clone();
    flipped[1234] ^= 1;
    let mut f = check(&flipped, &ctx).unwrap_err();
    assert_eq!(f.kind, FailureKind::Corruption { at: 0, in_header: false });
    f.locate(&flipped, &good);
    assert_eq!(f.kind, FailureKind::Corruption { at: 1234, in_header: false });
    assert!(f.to_string().contains("at block byte 1234"), "{f}");
    let mut f = check(&bad, &ctx).unwrap_err();
    f.locate(&bad, &good);
    assert_eq!(f.kind, FailureKind::Corruption { at: 20, in_header: true });
    // crc32c data checked as md5: fio's "verify type mismatch", naming both.
    let mut md5 = ctx.clone();
    md5.kind = VerifyKind::Md5;
    let f = check(&good, &md5).unwrap_err();
    assert_eq!(f.kind, FailureKind::WrongKind { at: 0, found: VerifyKind::Crc32c });
    assert!(f.to_string().contains("carries crc32c data, md5 was asked"), "{f}");
    let mut other = ctx.clone();
    other.seed = 6;
    let f = check(&good, &other).unwrap_err();
    assert!(matches!(f.kind, FailureKind::BadHeader { found_seed: Some(5), .. }), "{f}");
    // null pretends, as in fio.
    let n = VerifyCtx::new(VerifyKind::Null, 0, 0, 0, 0);
    assert_eq!(check(&[0u8; 4096], &n), Ok(()));
}
