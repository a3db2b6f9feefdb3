//! `ARCHITECTURE.md`'s crate map against the code: its dependency list ("- `engine` →
//! `core`, `job`, …") must name, for every crate under `crates/`, exactly the iolab crates
//! its `Cargo.toml` lists under `[dependencies]`, so the map cannot drift from the graph.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

type Graph = BTreeMap<String, BTreeSet<String>>;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Each crate's iolab dependencies from its `Cargo.toml` (`iolab-x` → `x`).
fn from_manifests(root: &Path) -> Graph {
    let mut g = Graph::new();
    for entry in std::fs::read_dir(root.join("crates")).unwrap() {
        let manifest = entry.unwrap().path().join("Cargo.toml");
        let Ok(text) = std::fs::read_to_string(&manifest) else { continue };
        let doc: toml::Table = text.parse().unwrap();
        let name = doc["package"]["name"].as_str().unwrap();
        let deps = doc.get("dependencies").and_then(|d| d.as_table());
        let iolab =
            deps.into_iter().flat_map(|d| d.keys()).filter_map(|k| k.strip_prefix("iolab-"));
        g.insert(name.trim_start_matches("iolab-").into(), iolab.map(String::from).collect());
    }
    g
}

/// The list in `ARCHITECTURE.md`: "- `a` → `b`, `c` (why)" or "- `a` → none (why)".
fn from_map(text: &str) -> Graph {
    let mut g = Graph::new();
    for line in text.lines() {
        let Some((head, tail)) = line.strip_prefix("- `").and_then(|l| l.split_once("` → "))
        else {
            continue;
        };
        let names = tail.split(" (").next().unwrap_or("");
        let deps = names.split(", ").filter_map(|n| n.strip_prefix('`')?.strip_suffix('`'));
        let prev = g.insert(head.to_string(), deps.map(String::from).collect());
        assert!(prev.is_none(), "ARCHITECTURE.md lists `{head}` twice");
    }
    g
}

#[test]
fn the_crate_map_lists_every_crates_real_dependencies() {
    let root = root();
    let real = from_manifests(&root);
    let map = from_map(&std::fs::read_to_string(root.join("ARCHITECTURE.md")).unwrap());
    assert!(real.len() >= 15 && real.contains_key("run"), "crates found: {real:?}");
    let mut wrong = Vec::new();
    for name in real.keys().chain(map.keys()).collect::<BTreeSet<_>>() {
        let (code, drawn) = (real.get(name), map.get(name));
        if code != drawn {
            wrong.push(format!("`{name}`: Cargo.toml {code:?}, ARCHITECTURE.md {drawn:?}"));
        }
    }
    assert!(wrong.is_empty(), "the crate map disagrees with the code:\n{}", wrong.join("\n"));
}

#[test]
fn the_map_parser_reads_names_and_not_the_reasons() {
    let g = from_map("- `a` → none (reads JSON)\n- `b` → `a`, `c` (`d` is a reason)\ntext");
    assert_eq!(g["a"], BTreeSet::new());
    assert_eq!(g["b"], ["a", "c"].into_iter().map(String::from).collect());
    assert_eq!(g.len(), 2);
}

#[test]
fn the_map_points_only_inside_the_repository() {
    let text = std::fs::read_to_string(root().join("ARCHITECTURE.md")).unwrap();
    assert!(!text.contains("../"), "ARCHITECTURE.md points outside the repository");
}
