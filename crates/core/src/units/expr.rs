//! fio's `( … )` arithmetic for option values: `+ - * / % ^`, parentheses, unary minus,
//! integers, hex and floats, and unit suffixes after a number or a parenthesised group.
//!
//! Source: fio exp/expression-parser.y and .l (`evaluate_arithmetic_expression`). Kept from fio:
//! integer arithmetic while no float is involved (`(7/2)` is 3), `%` refused on floats, `^` is
//! right-associative and binds tighter than `*`, and when no suffix appears anywhere the result
//! is multiplied by the option's implied unit (so `thinktime=(10+5)` is 15 µs, `runtime=(1+1)`
//! 2 s). Changed from fio, on purpose: size suffixes follow `kb_base` and the `KiB` inversion
//! exactly as outside parentheses (fio's lexer hard-codes 1024), so a value does not change
//! meaning when wrapped in `( … )`; errors are reported instead of evaluating to 0. Also used for
//! the arithmetic fio hands to `bc` after `$ncpus` substitution.

use super::{size_mult, time_mult, KbBase};

/// How suffixes are read and what a suffix-free result is multiplied by.
#[derive(Clone, Copy, Debug)]
pub struct Context {
    kind: Kind,
    /// Multiplier for a result in which no suffix appeared.
    implied: f64,
}

#[derive(Clone, Copy, Debug)]
enum Kind {
    Plain,
    Size(KbBase),
    /// Suffixes in nanoseconds.
    Time,
}

impl Context {
    /// No suffixes allowed; the result as computed.
    pub fn plain() -> Self {
        Context { kind: Kind::Plain, implied: 1.0 }
    }
    /// Byte-size suffixes (`k`, `MiB`, …) under `kb_base`.
    pub fn size(kb: KbBase) -> Self {
        Context { kind: Kind::Size(kb), implied: 1.0 }
    }
    /// Time suffixes (`s`, `ms`, `m` = minutes …); result in nanoseconds. A suffix-free result
    /// is multiplied by `implied_ns`.
    pub fn time(implied_ns: f64) -> Self {
        Context { kind: Kind::Time, implied: implied_ns }
    }
}

/// Why an expression did not evaluate.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ExprError {
    #[error("unexpected '{found}' at offset {at}; expected {expected}")]
    Unexpected { at: usize, found: String, expected: &'static str },
    #[error("unknown unit suffix '{0}'")]
    UnknownSuffix(String),
    #[error("division by zero")]
    DivideByZero,
    #[error("'%' on a non-integer value")]
    ModuloOnFloat,
    #[error("integer overflow")]
    Overflow,
    #[error("expressions nest deeper than 64 levels")]
    TooDeep,
    /// NaN, e.g. `(-1)^0.5` or `0/0.0` (fio's expression parser yields 0 here).
    #[error("the value is not a number (NaN); expected a real result")]
    NotANumber,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Num {
    Int(i128),
    Float(f64),
}

impl Num {
    fn f(self) -> f64 {
        match self {
            Num::Int(i) => i as f64,
            Num::Float(f) => f,
        }
    }
}

const MAX_DEPTH: usize = 64;

struct Parser<'a> {
    s: &'a [u8],
    pos: usize,
    ctx: Context,
    units_specified: bool,
    depth: usize,
}

/// Evaluate `text` (with or without outer parentheses). Returns the value in the context's unit
/// (bytes, nanoseconds, or plain).
pub fn eval(text: &str, ctx: Context) -> Result<f64, ExprError> {
    let mut p = Parser { s: text.as_bytes(), pos: 0, ctx, units_specified: false, depth: 0 };
    let v = p.expr()?;
    p.skip_ws();
    if p.pos < p.s.len() {
        return Err(p.unexpected("an operator or the end"));
    }
    let v = v.f();
    let v = if p.units_specified { v } else { v * ctx.implied };
    if v.is_nan() {
        return Err(ExprError::NotANumber);
    }
    Ok(v)
}

/// Evaluate to an integer without going through `f64` when no float is involved (exact for
/// large byte counts). Floats are truncated toward zero, as fio's `ival`.
pub fn eval_int(text: &str, ctx: Context) -> Result<i128, ExprError> {
    let mut p = Parser { s: text.as_bytes(), pos: 0, ctx, units_specified: false, depth: 0 };
    let v = p.expr()?;
    p.skip_ws();
    if p.pos < p.s.len() {
        return Err(p.unexpected("an operator or the end"));
    }
    let v = if p.units_specified { v } else { mul(v, implied_num(ctx.implied))? };
    match v {
        Num::Int(i) => Ok(i),
        Num::Float(f) if f.is_nan() => Err(ExprError::NotANumber),
        Num::Float(f) => Ok(f as i128),
    }
}

fn implied_num(f: f64) -> Num {
    if f.fract() == 0.0 && f.abs() < 1e30 {
        Num::Int(f as i128)
    } else {
        Num::Float(f)
    }
}

fn mul(a: Num, b: Num) -> Result<Num, ExprError> {
    Ok(match (a, b) {
        (Num::Int(x), Num::Int(y)) => Num::Int(x.checked_mul(y).ok_or(ExprError::Overflow)?),
        _ => Num::Float(a.f() * b.f()),
    })
}

impl Parser<'_> {
    fn skip_ws(&mut self) {
        while self.pos < self.s.len() && (self.s[self.pos] == b' ' || self.s[self.pos] == b'\t') {
            self.pos += 1;
        }
    }

    fn peek(&mut self) -> Option<u8> {
        self.skip_ws();
        self.s.get(self.pos).copied()
    }

    fn unexpected(&self, expected: &'static str) -> ExprError {
        let found = match self.s.get(self.pos) {
            Some(_) => String::from_utf8_lossy(&self.s[self.pos..])
                .chars()
                .next()
                .map(String::from)
                .unwrap_or_default(),
            None => "end of value".to_string(),
        };
        ExprError::Unexpected { at: self.pos, found, expected }
    }

    fn expr(&mut self) -> Result<Num, ExprError> {
        let mut a = self.term()?;
        while let Some(op @ (b'+' | b'-')) = self.peek() {
            self.pos += 1;
            let b = self.term()?;
            a = match (a, b) {
                (Num::Int(x), Num::Int(y)) => Num::Int(
                    if op == b'+' { x.checked_add(y) } else { x.checked_sub(y) }
                        .ok_or(ExprError::Overflow)?,
                ),
                _ if op == b'+' => Num::Float(a.f() + b.f()),
                _ => Num::Float(a.f() - b.f()),
            };
        }
        Ok(a)
    }

    fn term(&mut self) -> Result<Num, ExprError> {
        let mut a = self.unary()?;
        while let Some(op @ (b'*' | b'/' | b'%')) = self.peek() {
            self.pos += 1;
            let b = self.unary()?;
            a = match op {
                b'*' => mul(a, b)?,
                b'/' => match (a, b) {
                    (_, Num::Int(0)) => return Err(ExprError::DivideByZero),
                    (Num::Int(x), Num::Int(y)) => Num::Int(x / y),
                    _ if b.f().abs() < 1e-20 => return Err(ExprError::DivideByZero),
                    _ => Num::Float(a.f() / b.f()),
                },
                _ => match (a, b) {
                    (Num::Int(_), Num::Int(0)) => return Err(ExprError::DivideByZero),
                    (Num::Int(x), Num::Int(y)) => Num::Int(x % y),
                    _ => return Err(ExprError::ModuloOnFloat),
                },
            };
        }
        Ok(a)
    }

    fn unary(&mut self) -> Result<Num, ExprError> {
        match self.peek() {
            Some(b'-') => {
                self.pos += 1;
                self.nest(|p| p.unary()).map(|v| match v {
                    Num::Int(i) => Num::Int(-i),
                    Num::Float(f) => Num::Float(-f),
                })
            }
            Some(b'+') => {
                self.pos += 1;
                self.nest(|p| p.unary())
            }
            _ => self.power(),
        }
    }

    fn nest<T>(
        &mut self,
        f: impl FnOnce(&mut Self) -> Result<T, ExprError>,
    ) -> Result<T, ExprError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(ExprError::TooDeep);
        }
        let r = f(self);
        self.depth -= 1;
        r
    }

    fn power(&mut self) -> Result<Num, ExprError> {
        let base = self.suffixed()?;
        if self.peek() != Some(b'^') {
            return Ok(base);
        }
        self.pos += 1;
        let exp = self.nest(|p| p.unary())?;
        Ok(match (base, exp) {
            (Num::Int(b), Num::Int(e)) if e >= 0 => {
                let e = u32::try_from(e).map_err(|_| ExprError::Overflow)?;
                Num::Int(b.checked_pow(e).ok_or(ExprError::Overflow)?)
            }
            _ => Num::Float(base.f().powf(exp.f())),
        })
    }

    fn suffixed(&mut self) -> Result<Num, ExprError> {
        let v = self.primary()?;
        let start = self.pos;
        while self.pos < self.s.len() && self.s[self.pos].is_ascii_alphabetic() {
            self.pos += 1;
        }
        if start == self.pos {
            return Ok(v);
        }
        let suffix = String::from_utf8_lossy(&self.s[start..self.pos]).to_ascii_lowercase();
        let m = match self.ctx.kind {
            Kind::Size(kb) => match size_mult(&suffix, kb) {
                Ok(Some(m)) => Num::Int(m as i128),
                _ => return Err(ExprError::UnknownSuffix(suffix)),
            },
            Kind::Time => match time_mult(&suffix) {
                Some(m) => Num::Int(m as i128),
                None => return Err(ExprError::UnknownSuffix(suffix)),
            },
            Kind::Plain => return Err(ExprError::UnknownSuffix(suffix)),
        };
        self.units_specified = true;
        mul(v, m)
    }

    fn primary(&mut self) -> Result<Num, ExprError> {
        match self.peek() {
            Some(b'(') => {
                self.pos += 1;
                let v = self.nest(|p| p.expr())?;
                if self.peek() != Some(b')') {
                    return Err(self.unexpected("')'"));
                }
                self.pos += 1;
                Ok(v)
            }
            Some(c) if c.is_ascii_digit() || c == b'.' => self.number(),
            _ => Err(self.unexpected("a number or '('")),
        }
    }

    fn number(&mut self) -> Result<Num, ExprError> {
        let s = self.s;
        let start = self.pos;
        if s[start..].starts_with(b"0x") || s[start..].starts_with(b"0X") {
            let mut end = start + 2;
            while end < s.len() && s[end].is_ascii_hexdigit() {
                end += 1;
            }
            let digits = std::str::from_utf8(&s[start + 2..end]).unwrap_or("");
            let v = i128::from_str_radix(digits, 16).map_err(|_| self.unexpected("hex digits"))?;
            self.pos = end;
            return Ok(Num::Int(v));
        }
        let mut end = start;
        let mut float = false;
        while end < s.len() && (s[end].is_ascii_digit() || s[end] == b'.') {
            float |= s[end] == b'.';
            end += 1;
        }
        // An exponent only when digits follow (`1e3`), so `1e` stays a suffix error.
        if end < s.len() && (s[end] == b'e' || s[end] == b'E') {
            let mut e = end + 1;
            if e < s.len() && (s[e] == b'+' || s[e] == b'-') {
                e += 1;
            }
            if e < s.len() && s[e].is_ascii_digit() {
                while e < s.len() && s[e].is_ascii_digit() {
                    e += 1;
                }
                float = true;
                end = e;
            }
        }
        let text = std::str::from_utf8(&s[start..end]).unwrap_or("");
        self.pos = end;
        if float {
            text.parse::<f64>().map(Num::Float).map_err(|_| {
                self.pos = start;
                self.unexpected("a number")
            })
        } else {
            text.parse::<i128>().map(Num::Int).map_err(|_| ExprError::Overflow)
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn plain(s: &str) -> f64 {
        eval(s, Context::plain()).unwrap()
    }

    #[test]
    fn arithmetic_follows_fio() {
        assert_eq!(plain("(8*1024)"), 8192.0);
        assert_eq!(plain("(7/2)"), 3.0); // integer division while no float is involved
        assert_eq!(plain("(7.0/2)"), 3.5);
        assert_eq!(plain("(2^10)"), 1024.0);
        assert_eq!(plain("(2^3^2)"), 512.0); // right-associative
        assert_eq!(plain("(2*3^2)"), 18.0);
        assert_eq!(plain("(1+2*3)"), 7.0);
        assert_eq!(plain("((1+2)*3)"), 9.0);
        assert_eq!(plain("(-4+10)"), 6.0);
        assert_eq!(plain("(10%4)"), 2.0);
        assert_eq!(plain("(0x10+1)"), 17.0);
        assert_eq!(plain("(1e3)"), 1000.0);
        assert_eq!(plain("4 * 2 + 1"), 9.0);
    }

    #[test]
    fn errors() {
        let e = |s| eval(s, Context::plain()).unwrap_err();
        assert_eq!(e("(1/0)"), ExprError::DivideByZero);
        assert_eq!(e("(1%0)"), ExprError::DivideByZero);
        assert_eq!(e("(1.5%2)"), ExprError::ModuloOnFloat);
        assert!(matches!(e("(1+"), ExprError::Unexpected { .. }));
        assert!(matches!(e("(1+2"), ExprError::Unexpected { .. }));
        assert!(matches!(e("(1))"), ExprError::Unexpected { .. }));
        assert_eq!(e("(4k)"), ExprError::UnknownSuffix("k".into()));
        assert_eq!(e("(2^200)"), ExprError::Overflow);
        let deep = format!("{}1{}", "(".repeat(100), ")".repeat(100));
        assert_eq!(e(&deep), ExprError::TooDeep);
    }

    #[test]
    fn suffixes_and_implied_units() {
        let sz = Context::size(KbBase::K1024);
        assert_eq!(eval("(4k*2)", sz).unwrap(), 8192.0);
        assert_eq!(eval("((1+1)m)", sz).unwrap(), 2.0 * 1048576.0);
        assert_eq!(eval("(1KiB)", sz).unwrap(), 1000.0);
        let t = Context::time(1000.0); // bare numbers in µs
        assert_eq!(eval("(10+5)", t).unwrap(), 15_000.0);
        assert_eq!(eval("(2m)", t).unwrap(), 120e9); // minutes, never mega, in a time
        assert_eq!(eval("(1s/4)", t).unwrap(), 250e6);
        assert_eq!(eval_int("(1g*3)", sz).unwrap(), 3 << 30);
    }
}
