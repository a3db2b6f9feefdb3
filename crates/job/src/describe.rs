//! `iolab parse`'s document: each job as JSON with every option's typed value, the text as
//! written and where it came from (`file:line` and section, the command-line argument, or
//! fio's default), so a job file can be checked without running it.

use serde_json::{json, Map, Value};

use crate::{registry, Job, Origin};

/// Where an option's value came from, as `iolab parse` prints it.
pub fn origin_text(o: &Origin) -> String {
    match o {
        Origin::File { file, line, .. } => format!("{file}:{line}"),
        Origin::CommandLine { index } => format!("command line (argument {})", index + 1),
        Origin::Default => "default".to_string(),
    }
}

/// The job as JSON, with `options` rewritten to `{value, raw, origin: "file:line", section}`
/// and, with `defaults`, every other option that has a fio default.
pub fn job_json(job: &Job, defaults: bool) -> Result<Value, serde_json::Error> {
    let mut v = serde_json::to_value(job)?;
    let mut options = Map::new();
    for (name, o) in &job.options {
        let mut entry = json!({ "value": o.value, "raw": o.raw, "origin": origin_text(&o.origin) });
        if let Origin::File { section, .. } = &o.origin {
            entry["section"] = json!(section);
        }
        options.insert(name.clone(), entry);
    }
    if defaults {
        for def in registry::OPTIONS.iter().filter(|d| !d.default.is_empty()) {
            if !options.contains_key(def.name) {
                let d = json!({ "value": def.default, "raw": def.default, "origin": "default" });
                options.insert(def.name.to_string(), d);
            }
        }
    }
    v["options"] = Value::Object(options);
    Ok(v)
}

/// The whole document: `{"jobs": […], "warnings": […], "data_warnings": […]}`.
pub fn document(
    parsed: &crate::Parsed,
    data_warnings: &[String],
    defaults: bool,
) -> Result<Value, serde_json::Error> {
    let jobs = parsed.jobs.iter().map(|j| job_json(j, defaults)).collect::<Result<Vec<_>, _>>()?;
    Ok(json!({ "jobs": jobs, "warnings": parsed.warnings, "data_warnings": data_warnings }))
}
