//! The sim's own section parts from `iolab_sim` (iolab-model's `SimReport` as serde writes it):
//! the tiers table, per-tier read hit ratio and fill over time, predicted IOPS, device use.

use crate::chart::{downsample, fmt_num, Axis, Chart, Corner, Series, Style};
use crate::input::{num, text};
use crate::model::{Section, Table, MAX_POINTS};
use serde_json::Value;

/// Add the sim's tables and charts to `s`.
pub fn add(s: &mut Section, sim: &Value, n: usize) {
    let tiers = sim["tiers"].as_array().map(Vec::as_slice).unwrap_or(&[]);
    s.tables.push(tier_table(tiers));
    if let Some(t) = device_table(sim) {
        s.tables.push(t);
    }
    let pts = sim["series"].as_array().map(Vec::as_slice).unwrap_or(&[]);
    let per_tier = |key: &str| -> Vec<Series> {
        tiers
            .iter()
            .enumerate()
            .map(|(i, t)| Series {
                name: text(t, "/name").unwrap_or("?").to_string(),
                points: downsample(
                    &pts.iter()
                        .filter_map(|p| {
                            Some((num(p, "/t_ns")? / 1e9, num(p, &format!("/{key}/{i}"))?))
                        })
                        .collect::<Vec<_>>(),
                    MAX_POINTS,
                ),
            })
            .collect()
    };
    let mk = |id: &str, title: &str, y: &str, series| Chart {
        id: format!("i{n}-sim-{id}"),
        title: title.into(),
        x: Axis::lin("simulated time (s)"),
        y: Axis::lin(y),
        series,
        band: None,
        y_from_zero: true,
        legend: Corner::UpperLeft,
        style: Style::Lines,
    };
    s.charts.push(mk(
        "hit",
        "Read hit ratio per tier (per interval)",
        "read hit ratio",
        per_tier("read_hit_ratio"),
    ));
    s.charts.push(mk("fill", "Fill per tier", "fraction of the tier filled", per_tier("fill")));
    let iops: Vec<(f64, f64)> =
        pts.iter().filter_map(|p| Some((num(p, "/t_ns")? / 1e9, num(p, "/iops")?))).collect();
    let series = vec![Series { name: "predicted".into(), points: downsample(&iops, MAX_POINTS) }];
    s.charts.push(mk("iops", "Predicted IOPS per interval", "IOPS", series));
}

fn tier_table(tiers: &[Value]) -> Table {
    let head = [
        "tier",
        "policy",
        "size",
        "block",
        "read hit ratio",
        "fill",
        "read hits",
        "read misses",
        "evictions",
        "dirty blocks",
    ];
    let f = |t: &Value, k: &str| num(t, k).map_or("-".into(), fmt_num);
    let rows = tiers
        .iter()
        .map(|t| {
            vec![
                text(t, "/name").unwrap_or("?").to_string(),
                text(t, "/policy").unwrap_or("-").to_string(),
                num(t, "/size").map_or("-".into(), |b| format!("{} MiB", fmt_num(b / 1048576.0))),
                num(t, "/block_size")
                    .map_or("-".into(), |b| format!("{} KiB", fmt_num(b / 1024.0))),
                num(t, "/read_hit_ratio").map_or("-".into(), |r| format!("{r:.4}")),
                num(t, "/fill").map_or("-".into(), |r| format!("{r:.4}")),
                f(t, "/stats/read_hits"),
                f(t, "/stats/read_misses"),
                f(t, "/stats/evictions"),
                f(t, "/dirty_blocks"),
            ]
        })
        .collect();
    Table {
        caption: "Cache tiers (end of run)".into(),
        head: head.map(String::from).to_vec(),
        rows,
    }
}

fn device_table(sim: &Value) -> Option<Table> {
    let devs = sim["devices"].as_array()?;
    let rows: Vec<Vec<String>> = devs
        .iter()
        .map(|d| {
            vec![
                text(d, "/name").unwrap_or("?").to_string(),
                num(d, "/ops").map_or("-".into(), fmt_num),
                num(d, "/read_bytes").map_or("-".into(), |b| format!("{:.1}", b / 1048576.0)),
                num(d, "/write_bytes").map_or("-".into(), |b| format!("{:.1}", b / 1048576.0)),
                num(d, "/utilization").map_or("-".into(), |u| format!("{:.2}", u * 100.0)),
            ]
        })
        .collect();
    (!rows.is_empty()).then(|| Table {
        caption: "Modelled devices".into(),
        head: ["device", "operations", "read (MiB)", "written (MiB)", "%util"]
            .map(String::from)
            .to_vec(),
        rows,
    })
}
