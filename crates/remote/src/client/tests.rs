#![allow(clippy::unwrap_used)]
use super::*;

#[test]
fn host_specs_take_fios_default_port_and_refuse_bad_ports() {
    let tcp = |h: &str, p| HostSpec::Tcp { host: h.into(), port: p };
    assert_eq!("127.0.0.2".parse::<HostSpec>(), Ok(tcp("127.0.0.2", 8765)));
    assert_eq!("h:9000".parse::<HostSpec>(), Ok(tcp("h", 9000)));
    assert_eq!("[::1]:7".parse::<HostSpec>(), Ok(tcp("::1", 7)));
    assert_eq!("::1".parse::<HostSpec>(), Ok(tcp("::1", 8765)));
    assert_eq!("ssh://me@h".parse::<HostSpec>(), Ok(HostSpec::Ssh { target: "me@h".into() }));
    for bad in ["h:0", "h:65536", "h:-1", "h:", "h:x", "", ":80", "-oProxy=x", "ssh://", "ssh://-x"]
    {
        assert!(bad.parse::<HostSpec>().is_err(), "{bad} was accepted");
    }
    let e = "h:70000".parse::<HostSpec>().unwrap_err();
    assert_eq!(e, "'h:70000': the port must be a number from 1 to 65535");
}

#[test]
fn a_hostfile_line_may_add_options_for_its_host() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("hosts");
    std::fs::write(&f, "# hosts\n127.0.0.2:9 --filename=/x/a --size=1m\n\n127.0.0.3 # b\n")
        .unwrap();
    let lines = parse_hosts(f.to_str().unwrap()).unwrap();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0].spec, HostSpec::Tcp { host: "127.0.0.2".into(), port: 9 });
    assert_eq!(lines[0].extra, ["--filename=/x/a", "--size=1m"]);
    assert!(lines[1].extra.is_empty());
    std::fs::write(&f, "h1\nh2 filename=x\n").unwrap();
    let e = parse_hosts(f.to_str().unwrap()).unwrap_err().to_string();
    assert!(e.ends_with("line 2: 'filename=x' is not an --option=value"), "{e}");
    std::fs::write(&f, "# nothing\n").unwrap();
    assert!(parse_hosts(f.to_str().unwrap()).unwrap_err().to_string().contains("names no host"));
}

#[test]
fn a_list_of_hosts_is_split_on_commas() {
    let lines = parse_hosts("a,b:2").unwrap();
    assert_eq!(lines.iter().map(|l| l.spec.to_string()).collect::<Vec<_>>(), ["a:8765", "b:2"]);
    assert!(parse_hosts("a,,b").is_err());
}
