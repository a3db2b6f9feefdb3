//! Result files as JSON values, and what kind of result each is.
//!
//! Kinds, told apart by their keys: a run (fio's `--output-format=json`/`json+` layout,
//! fio-3.33 stat.c `show_thread_status_json`: `jobs[]`; iolab's run adds `iolab_disk_series`,
//! `iolab_advice`, its sim adds `iolab_sim`), optionally followed in the same file by iolab's
//! JSON Lines intervals (`--output-format=json+,jsonl`: `{"time_ms","job","jobidx",…}`); a
//! file of JSON Lines alone; `iolab mrc --json` (`points[]` of `cache_entries`/`miss_ratio`;
//! with `--policy`, a `policy` key, and an array of such documents for several policies);
//! `iolab sim --object-level --output-format=json` (an array of `policy`/`cache_size`/
//! `miss_ratio`); `iolab fill --json` (`entries`, `table[]` of `passes`/`filled_fraction`);
//! `iolab trace stat --json` (`footprint_blocks`, `streams`); `iolab compare
//! --output-format=json` (`files[]`, `rows[]`); a device profile of `iolab calibrate` as JSON
//! (`version`, `servers`, `read`, `write`, `point[]`).

use crate::VizError;
use serde_json::Value;
use std::path::Path;

/// One result file: its label (the file name) and every JSON value in it, in order.
#[derive(Clone, Debug)]
pub struct Input {
    pub label: String,
    pub values: Vec<Value>,
}

/// What a result file holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// fio/iolab run or sim document (with any JSON Lines intervals after it).
    Run,
    /// JSON Lines intervals only.
    Intervals,
    /// `iolab mrc --json`.
    Mrc,
    /// `iolab sim --object-level` miss ratios per policy and size.
    PolicyMrc,
    /// `iolab fill --json`.
    Fill,
    /// `iolab trace stat --json`.
    TraceStat,
    /// `iolab compare --output-format=json`.
    Compare,
    /// A device profile (`iolab calibrate`) as JSON.
    Profile,
}

impl Input {
    /// Parse `text` (one JSON document, or several back to back, or JSON Lines).
    pub fn parse(label: &str, text: &str) -> Result<Input, VizError> {
        let bad = |what: String| VizError::Input { path: label.to_string(), what };
        let mut values = Vec::new();
        let mut stream = serde_json::Deserializer::from_str(text).into_iter::<Value>();
        for v in stream.by_ref() {
            match v {
                Ok(v) => values.push(v),
                Err(e) => {
                    return Err(bad(format!(
                        "line {} column {}: not JSON ({}); expected a JSON result of iolab \
                         run/sim/mrc/fill or fio",
                        e.line(),
                        e.column(),
                        first_words(&e.to_string())
                    )))
                }
            }
        }
        if values.is_empty() {
            return Err(bad("empty: expected a JSON result".into()));
        }
        for (i, v) in values.iter().enumerate() {
            check_range(v).map_err(|what| bad(format!("value {}{what}", i + 1)))?;
        }
        let input = Input { label: label.to_string(), values };
        input.kind()?;
        Ok(input)
    }

    /// Read and parse the file at `path`.
    pub fn read(path: &Path) -> Result<Input, VizError> {
        let bytes = std::fs::read(path)
            .map_err(|source| VizError::Io { path: path.display().to_string(), source })?;
        Input::from_bytes(path, &bytes)
    }

    /// Parse the bytes read from `path` (errors name the path, the label is its file name).
    pub fn from_bytes(path: &Path, bytes: &[u8]) -> Result<Input, VizError> {
        let label = path.display().to_string();
        let text = std::str::from_utf8(bytes).map_err(|e| VizError::Input {
            path: label.clone(),
            what: format!("byte {}: not UTF-8 text; expected a JSON result", e.valid_up_to()),
        })?;
        let short = path.file_name().map_or(label.clone(), |n| n.to_string_lossy().into_owned());
        let mut input = Input::parse(&label, text)?;
        input.label = short;
        Ok(input)
    }

    /// The kind, from the first value's keys.
    pub fn kind(&self) -> Result<Kind, VizError> {
        let first = &self.values[0];
        let has = |k: &str| first.get(k).is_some();
        let kind = if (has("jobs") && first["jobs"].is_array())
            || (has("client_stats") && first["client_stats"].is_array())
        {
            Kind::Run
        } else if has("time_ms") && has("job") {
            Kind::Intervals
        } else if has("points") && first["points"].is_array() {
            Kind::Mrc
        } else if has("table") && has("entries") {
            Kind::Fill
        } else if has("footprint_blocks") && has("streams") {
            Kind::TraceStat
        } else if has("rows") && has("files") && first["rows"].is_array() {
            Kind::Compare
        } else if has("servers") && has("read") && has("write") && has("version") {
            Kind::Profile
        } else if first.as_array().is_some_and(|a| {
            !a.is_empty() && a.iter().all(|d| d.get("points").is_some_and(Value::is_array))
        }) {
            // `iolab mrc --policy=A,B --json`: one curve document per policy.
            Kind::Mrc
        } else if first.as_array().is_some_and(|a| {
            !a.is_empty()
                && a.iter().all(|p| p.get("policy").is_some() && p.get("miss_ratio").is_some())
        }) {
            Kind::PolicyMrc
        } else {
            return Err(VizError::Input {
                path: self.label.clone(),
                what: format!(
                    "not a result iolab can draw (keys: {}); expected fio/iolab run or sim JSON \
                     (`jobs`), JSON Lines intervals, `iolab mrc --json` (`points`), `iolab \
                     sim --object-level` JSON, `iolab fill --json` (`table`), `iolab trace stat \
                     --json`, `iolab compare --output-format=json` or a device profile",
                    keys(first)
                ),
            });
        };
        Ok(kind)
    }

    /// The run document: the last value with `jobs` (fio `--status-interval` with JSON output
    /// prints a cumulative document per interval; the last one is the final result).
    pub fn doc(&self) -> &Value {
        let mut runs = self.values.iter().filter(|v| {
            v.get("jobs").or_else(|| v.get("client_stats")).is_some_and(Value::is_array)
        });
        runs.next_back().unwrap_or(&self.values[0])
    }

    /// The JSON Lines interval objects in this file.
    pub fn intervals(&self) -> impl Iterator<Item = &Value> {
        self.values.iter().filter(|v| v.get("time_ms").is_some() && v.get("job").is_some())
    }
}

/// The largest magnitude a number in a result may have: above 2^64 (byte counters), below
/// anything whose ranges and sums overflow when drawn (`1e308` IOPS would).
pub const MAX_ABS: f64 = 1e21;

/// `Err(" at `/jobs/0/read/iops`: 1e308 is beyond …")` for the first number in `v` whose
/// magnitude exceeds [`MAX_ABS`] (what `compare` and the report refuse before using any).
pub fn check_range(v: &Value) -> Result<(), String> {
    match out_of_range(v, &mut String::new()) {
        Some((at, n)) => {
            Err(format!(" at `{at}`: {n:e} is beyond any measurable quantity (|x| <= {MAX_ABS:e})"))
        }
        None => Ok(()),
    }
}

/// The JSON pointer and value of the first number whose magnitude exceeds [`MAX_ABS`] (fio
/// writes some numbers as strings; those are checked too). `at` is scratch for the path.
fn out_of_range(v: &Value, at: &mut String) -> Option<(String, f64)> {
    let bad = |n: f64| n.is_nan() || n.abs() > MAX_ABS;
    match v {
        Value::Number(n) => n.as_f64().filter(|&n| bad(n)).map(|n| (at.clone(), n)),
        Value::String(s) => match s.trim().parse::<f64>() {
            Ok(n) if n.is_finite() && bad(n) => Some((at.clone(), n)),
            _ => None,
        },
        Value::Array(a) => a.iter().enumerate().find_map(|(i, x)| nested(x, at, &i.to_string())),
        Value::Object(m) => m.iter().find_map(|(k, x)| nested(x, at, k)),
        _ => None,
    }
}

fn nested(v: &Value, at: &mut String, key: &str) -> Option<(String, f64)> {
    let len = at.len();
    at.push('/');
    at.push_str(&key.replace('~', "~0").replace('/', "~1"));
    let found = out_of_range(v, at);
    at.truncate(len);
    found
}

fn first_words(s: &str) -> String {
    s.chars().take(100).collect()
}

fn keys(v: &Value) -> String {
    match v {
        Value::Object(m) => {
            let k: Vec<&str> = m.keys().take(6).map(String::as_str).collect();
            first_words(&k.join(", "))
        }
        Value::Array(_) => "an array".into(),
        _ => "a scalar".into(),
    }
}

/// A number at a JSON pointer (numbers, or strings holding one, as fio writes some).
pub fn num(v: &Value, ptr: &str) -> Option<f64> {
    match v.pointer(ptr)? {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// A string at a JSON pointer.
pub fn text<'a>(v: &'a Value, ptr: &str) -> Option<&'a str> {
    v.pointer(ptr)?.as_str()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_document_followed_by_json_lines_is_one_run() {
        let t = "{\"fio version\":\"iolab-0.1.0\",\"jobs\":[]}\n{\"time_ms\":500,\"job\":\"a\"}\n\
                 {\"time_ms\":1000,\"job\":\"a\"}\n";
        let i = Input::parse("x.json", t).unwrap();
        assert_eq!(i.kind().unwrap(), Kind::Run);
        assert_eq!(i.intervals().count(), 2);
    }

    #[test]
    fn fio_status_interval_documents_use_the_last() {
        let t = "{\"jobs\":[],\"time\":\"1\"}\n{\"jobs\":[],\"time\":\"2\"}\n";
        let i = Input::parse("fio.json", t).unwrap();
        assert_eq!(i.doc()["time"], "2");
    }

    #[test]
    fn each_kind_is_recognised() {
        let k = |t: &str| Input::parse("f", t).unwrap().kind().unwrap();
        assert_eq!(k("{\"points\":[],\"method\":\"exact\"}"), Kind::Mrc);
        assert_eq!(k("{\"entries\":10,\"table\":[]}"), Kind::Fill);
        assert_eq!(
            k("[{\"policy\":\"lru\",\"cache_size\":1,\"miss_ratio\":0.5}]"),
            Kind::PolicyMrc
        );
        assert_eq!(k("{\"time_ms\":1,\"job\":\"a\"}"), Kind::Intervals);
        assert_eq!(k("{\"footprint_blocks\":1,\"streams\":{}}"), Kind::TraceStat);
        assert_eq!(k("{\"files\":[],\"rows\":[]}"), Kind::Compare);
        assert_eq!(k("{\"version\":1,\"servers\":4,\"read\":{},\"write\":{}}"), Kind::Profile);
    }

    #[test]
    fn numbers_beyond_any_measurement_are_refused_with_their_place() {
        let t = "{\"time_ms\":500,\"job\":\"a\",\"read\":{\"iops\":1}}\n\
                 {\"time_ms\":1000,\"job\":\"a\",\"read\":{\"iops\":-1e308}}\n";
        let e = Input::parse("i.jsonl", t).unwrap_err().to_string();
        assert_eq!(
            e,
            "i.jsonl: value 2 at `/read/iops`: -1e308 is beyond any measurable quantity \
             (|x| <= 1e21)"
        );
        let t = "{\"jobs\":[{\"read\":{\"clat_ns\":{\"mean\":\"1e300\"}}}]}";
        let e = Input::parse("r.json", t).unwrap_err().to_string();
        assert!(e.contains("at `/jobs/0/read/clat_ns/mean`: 1e300"), "{e}");
        // u64 byte counters are in range.
        assert!(Input::parse("r.json", "{\"jobs\":[{\"io_bytes\":18446744073709551615}]}").is_ok());
    }

    #[test]
    fn bad_input_names_the_file_and_what_was_expected() {
        let e = Input::parse("r.json", "{\"jobs\": [1,").unwrap_err().to_string();
        assert!(e.starts_with("r.json: line 1 column 12: not JSON"), "{e}");
        let e = Input::parse("r.json", "{\"foo\": 1}").unwrap_err().to_string();
        assert!(e.starts_with("r.json: not a result iolab can draw (keys: foo)"), "{e}");
        let e = Input::parse("r.json", "  ").unwrap_err().to_string();
        assert_eq!(e, "r.json: empty: expected a JSON result");
    }
}
