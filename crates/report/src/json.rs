//! An ordered JSON tree and fio's printer for it.
//!
//! fio builds its JSON with its own json.c (`json_print_object`, `json_print_value`): keys in
//! insertion order, two spaces per level, `"key" : value`, integers with `%lld`, floats with
//! `%f` (six decimals). Tools that diff fio output (and humans) expect that order, while
//! `serde_json::Map` sorts keys unless the whole workspace enables `preserve_order`; hence
//! this small tree.

/// A JSON value whose objects keep insertion order.
#[derive(Clone, Debug, PartialEq)]
pub enum J {
    Obj(Vec<(String, J)>),
    Arr(Vec<J>),
    Int(i128),
    Float(f64),
    Str(String),
    Bool(bool),
}

impl J {
    pub fn obj() -> J {
        J::Obj(Vec::new())
    }

    /// Append a pair to an object (no-op on other variants).
    pub fn put(&mut self, key: impl Into<String>, v: impl Into<J>) -> &mut J {
        if let J::Obj(pairs) = self {
            pairs.push((key.into(), v.into()));
        }
        self
    }

    /// fio's layout (json.c).
    pub fn to_fio_string(&self) -> String {
        let mut s = String::new();
        self.write_fio(&mut s, 0);
        s
    }

    /// One line, no spaces (for JSON Lines).
    pub fn to_compact_string(&self) -> String {
        let mut s = String::new();
        self.write_compact(&mut s);
        s
    }

    fn write_fio(&self, out: &mut String, level: usize) {
        match self {
            J::Obj(pairs) => {
                out.push_str("{\n");
                for (i, (k, v)) in pairs.iter().enumerate() {
                    if i > 0 {
                        out.push_str(",\n");
                    }
                    indent(out, level + 1);
                    write_str(out, k);
                    out.push_str(" : ");
                    v.write_fio(out, level + 1);
                }
                out.push('\n');
                indent(out, level);
                out.push('}');
            }
            J::Arr(items) => {
                out.push_str("[\n");
                for (i, v) in items.iter().enumerate() {
                    if i > 0 {
                        out.push_str(",\n");
                    }
                    indent(out, level + 1);
                    v.write_fio(out, level + 1);
                }
                out.push('\n');
                indent(out, level);
                out.push(']');
            }
            _ => self.write_scalar(out),
        }
    }

    fn write_compact(&self, out: &mut String) {
        match self {
            J::Obj(pairs) => {
                out.push('{');
                for (i, (k, v)) in pairs.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    write_str(out, k);
                    out.push(':');
                    v.write_compact(out);
                }
                out.push('}');
            }
            J::Arr(items) => {
                out.push('[');
                for (i, v) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    v.write_compact(out);
                }
                out.push(']');
            }
            _ => self.write_scalar(out),
        }
    }

    fn write_scalar(&self, out: &mut String) {
        use std::fmt::Write;
        match self {
            J::Int(i) => {
                let _ = write!(out, "{i}");
            }
            // JSON has no NaN/inf; fio would print "nan"/"inf" and break parsers.
            J::Float(f) if !f.is_finite() => out.push_str("0.000000"),
            J::Float(f) => {
                let _ = write!(out, "{f:.6}");
            }
            J::Str(s) => write_str(out, s),
            J::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            J::Obj(_) | J::Arr(_) => {}
        }
    }
}

fn indent(out: &mut String, level: usize) {
    for _ in 0..level {
        out.push_str("  ");
    }
}

fn write_str(out: &mut String, s: &str) {
    // serde_json's string escaping is correct and cannot fail for a &str.
    match serde_json::to_string(s) {
        Ok(q) => out.push_str(&q),
        Err(_) => out.push_str("\"\""),
    }
}

macro_rules! from_int {
    ($($t:ty),*) => {$(
        impl From<$t> for J {
            fn from(v: $t) -> J {
                J::Int(v as i128)
            }
        }
    )*};
}
from_int!(u8, u16, u32, u64, usize, i32, i64);

impl From<f64> for J {
    fn from(v: f64) -> J {
        J::Float(v)
    }
}
impl From<&str> for J {
    fn from(v: &str) -> J {
        J::Str(v.to_string())
    }
}
impl From<String> for J {
    fn from(v: String) -> J {
        J::Str(v)
    }
}
impl From<bool> for J {
    fn from(v: bool) -> J {
        J::Bool(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fio_layout() {
        let mut o = J::obj();
        o.put("fio version", "iolab-0.1.0");
        let mut inner = J::obj();
        inner.put("iops", 9232.383808).put("runtime", 2001u64);
        o.put("jobs", J::Arr(vec![inner]));
        assert_eq!(
            o.to_fio_string(),
            "{\n  \"fio version\" : \"iolab-0.1.0\",\n  \"jobs\" : [\n    {\n      \"iops\" : \
             9232.383808,\n      \"runtime\" : 2001\n    }\n  ]\n}"
        );
        assert_eq!(
            o.to_compact_string(),
            r#"{"fio version":"iolab-0.1.0","jobs":[{"iops":9232.383808,"runtime":2001}]}"#
        );
    }
}
