//! iolab-data's DataConfig from a job: fio's fix-ups and errors naming the option.

use crate::common::*;
use iolab_data::{DataGen, VerifyKind};
use iolab_job::{Job, OptionValue};

#[test]
fn from_job_follows_fio_fixups() {
    let mut job = write_job();
    set(&mut job, "buffer_compress_percentage", OptionValue::Int(100));
    let c = job.data_config().unwrap();
    assert!(c.zero_buffers && c.compress_percentage == 0, "init.c: 100% becomes zero_buffers");
    let mut buf = vec![1u8; 4096];
    DataGen::new(&c, 1).fill(&mut buf, 0, 0, 0);
    assert!(buf.iter().all(|b| *b == 0));

    let mut job = Job::with_defaults("rw");
    job.rw = iolab_job::RwKind::RandRw;
    set(&mut job, "buffer_pattern", OptionValue::Str("\"ab\"".into()));
    let c = job.data_config().unwrap();
    assert!(c.refill_buffers && !c.scramble_buffers, "pattern with reads forces refill");
    let mut buf = vec![0u8; 8];
    DataGen::new(&c, 1).fill(&mut buf, 0, 0, 0);
    assert_eq!(&buf, b"abababab");

    let mut job = write_job();
    set(&mut job, "verify", OptionValue::Str("crc32c-intel".into()));
    let c = job.data_config().unwrap();
    assert_eq!(c.verify, VerifyKind::Crc32c);
    assert!(c.refill_buffers, "init.c: verify forces refill_buffers");

    let mut job = write_job();
    set(&mut job, "dedupe_percentage", OptionValue::Int(30));
    set(&mut job, "dedupe_mode", OptionValue::Str("working_set".into()));
    let e = job.data_config().unwrap_err().to_string();
    assert!(e.contains("needs an explicit size"), "{e}");
}

#[test]
fn bad_option_values_name_the_option() {
    for (name, v, want) in [
        ("buffer_pattern", OptionValue::Str("0xzz".into()), "buffer_pattern `0xzz`"),
        ("buffer_compress_percentage", OptionValue::Int(101), "buffer_compress_percentage=101"),
        ("dedupe_mode", OptionValue::Str("sometimes".into()), "repeat, working_set"),
        ("verify", OptionValue::Str("crc8".into()), "option `verify=crc8`"),
        ("compress_content", OptionValue::Str("pattern".into()), "needs buffer_pattern"),
    ] {
        let mut job = write_job();
        set(&mut job, name, v);
        let e = job.data_config().unwrap_err().to_string();
        assert!(e.contains(want), "{name}: {e}");
        assert!(!e.contains('\n'));
    }
}
