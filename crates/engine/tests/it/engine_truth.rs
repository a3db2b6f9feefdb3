//! What the engines say when they cannot start: `io_setup` beyond `fs.aio-max-nr` (fs/aio.c
//! `ioctx_alloc` answers EAGAIN) names the sysctl and its value; the io_uring probe's typed
//! reasons read as the cause (kernel.io_uring_disabled, EPERM from seccomp, ENOSYS).
#![allow(clippy::unwrap_used)]

use iolab_engine::engines::uring::{classify, UringUnavailable};
use iolab_engine::runner::{run_jobs, RunOptions};
use iolab_job::LoadOptions;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

fn fs_sysctl(name: &str) -> Option<u64> {
    std::fs::read_to_string(format!("/proc/sys/fs/{name}")).ok()?.trim().parse().ok()
}

#[test]
fn libaio_depth_beyond_aio_max_nr_names_the_sysctl() {
    let Some(max) = fs_sysctl("aio-max-nr") else {
        println!("skip: /proc/sys/fs/aio-max-nr unreadable");
        return;
    };
    let depth = (max + 1000).min(u32::MAX as u64 / 2);
    let d = tempfile::tempdir_in(".").unwrap();
    let args = vec![
        "--name=deep".to_string(),
        format!("--directory={}", d.path().display()),
        "--ioengine=libaio".into(),
        format!("--iodepth={depth}"),
        "--rw=randread".into(),
        "--size=1m".into(),
    ];
    let opts = LoadOptions { files: vec![], cmdline: args, sections: vec![] };
    let jobs = iolab_job::load_with(&opts, &iolab_job::ini::Env::from_system()).unwrap().jobs;
    let r = run_jobs(&jobs, &RunOptions::default(), Arc::new(AtomicBool::new(false)), None);
    let e = match r {
        Ok(_) => {
            println!("skip: io_setup({depth}) succeeded here (aio-max-nr {max})");
            return;
        }
        Err(e) => e.to_string(),
    };
    assert!(e.contains("ioengine=libaio: io_setup failed"), "{e}");
    assert!(e.contains(&format!("fs.aio-max-nr={max}")), "{e}");
    assert!(e.contains(&format!("iodepth={depth}")), "{e}");
}

#[test]
fn uring_probe_reasons_name_their_cause() {
    assert_eq!(classify(libc::EPERM, Some("1")), UringUnavailable::NotInGroup);
    assert_eq!(classify(libc::EPERM, Some("2")), UringUnavailable::Disabled);
    assert_eq!(classify(libc::EPERM, Some("0")), UringUnavailable::Refused);
    assert_eq!(classify(libc::ENOSYS, None), UringUnavailable::NotImplemented);
    assert_eq!(classify(libc::ENOMEM, None), UringUnavailable::Setup(libc::ENOMEM));
    assert!(UringUnavailable::Disabled.to_string().contains("kernel.io_uring_disabled=2"));
    assert!(UringUnavailable::NotInGroup.to_string().contains("kernel.io_uring_group"));
    assert!(UringUnavailable::Refused.to_string().contains("seccomp"));
    let e = UringUnavailable::Setup(libc::ENOMEM).to_string();
    assert!(e.starts_with("io_uring_setup failed: ") && e.contains("memory"), "{e}");
}
