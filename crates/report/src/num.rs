//! Number and time formatting as fio prints them.
//!
//! `num2str` reimplements fio lib/num2str.c `num2str()` (divide by 1000 or 1024 until the
//! digits fit in `maxlen`, then show the remainder as decimals; fio's default `sig_figs` is 4),
//! `ctime` the C library's `ctime()` layout (`Sat Nov 21 00:28:18 2026`, here in UTC).

/// Units suffix, as fio's `enum n2s_unit`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum N2s {
    None,
    Byte,
    BytePerSec,
}

/// fio `num2str(num, maxlen, 1, pow2, units)`.
pub fn num2str(num: u64, maxlen: usize, pow2: bool, units: N2s) -> String {
    const SI: [&str; 7] = ["", "k", "M", "G", "T", "P", "E"];
    const IEC: [&str; 7] = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"];
    let prefixes = if pow2 { IEC } else { SI };
    let unit = match units {
        N2s::None => "",
        N2s::Byte => "B",
        N2s::BytePerSec => "B/s",
    };
    let thousand: u64 = if pow2 { 1024 } else { 1000 };
    let mut num = num;
    let mut post = 0usize;
    let mut modulo: Option<u64> = None;
    while post < prefixes.len() {
        if num.to_string().len() <= maxlen {
            break;
        }
        modulo = Some(num % thousand);
        num /= thousand;
        post += 1;
    }
    if post >= prefixes.len() {
        post = 0;
    }
    let Some(m) = modulo else {
        return format!("{num}{}{unit}", prefixes[post]);
    };
    let digits = num.to_string().len();
    if maxlen.saturating_sub(digits) <= 1 {
        if m >= thousand / 2 {
            num += 1;
        }
        return format!("{num}{}{unit}", prefixes[post]);
    }
    let decimals = maxlen - digits - 1;
    let frac = format!("{:.*}", decimals, m as f64 / thousand as f64);
    if frac.starts_with('1') {
        num += 1;
    }
    format!("{num}.{}{}{unit}", &frac[2..], prefixes[post])
}

/// `ctime()`-style UTC time: `Sat Nov 21 00:28:18 2026`.
pub fn ctime(unix_secs: u64) -> String {
    const DAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
    const MONTHS: [&str; 12] =
        ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
    let days = unix_secs / 86_400;
    let rem = unix_secs % 86_400;
    let (y, m, d) = civil_from_days(days as i64);
    format!(
        "{} {} {:2} {:02}:{:02}:{:02} {}",
        DAYS[(days % 7) as usize],
        MONTHS[(m - 1) as usize],
        d,
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        y
    )
}

/// Howard Hinnant's `civil_from_days` (proleptic Gregorian, days since 1970-01-01).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// Scale a latency summary to fio's display unit (stat.h `nsec_to_msec`, `nsec_to_usec`):
/// returns the unit name and the divisor.
pub fn lat_unit(min: u64, max: u64, stddev: f64) -> (&'static str, u64) {
    if min > 2_000_000 && max > 99_999_999 && stddev > 1_000_000.0 {
        ("msec", 1_000_000)
    } else if min > 2000 && max > 99_999 && stddev > 1000.0 {
        ("usec", 1000)
    } else {
        ("nsec", 1)
    }
}

/// A text progress bar for the live status line, `[#####---------------]  25%`: `frac` of
/// the job's known length done (clamped to 0..=1), `width` cells.
pub fn progress_bar(frac: f64, width: usize) -> String {
    let f = if frac.is_finite() { frac.clamp(0.0, 1.0) } else { 0.0 };
    let full = (f * width as f64).round() as usize;
    format!("[{}{}] {:>3.0}%", "#".repeat(full), "-".repeat(width - full), f * 100.0)
}

#[cfg(test)]
mod tests {

    #[test]
    fn progress_bar_cells_and_percent() {
        assert_eq!(super::progress_bar(0.25, 20), "[#####---------------]  25%");
        assert_eq!(super::progress_bar(1.7, 4), "[####] 100%");
        assert_eq!(super::progress_bar(f64::NAN, 4), "[----]   0%");
    }
    use super::*;

    #[test]
    fn num2str_like_fio() {
        // Appendix B of the notes: 75669504 bytes in 2001 ms.
        assert_eq!(num2str(75_669_504, 4, true, N2s::Byte), "72.2MiB");
        assert_eq!(num2str(75_669_504, 4, false, N2s::Byte), "75.7MB");
        assert_eq!(num2str(37_815_844, 4, true, N2s::BytePerSec), "36.1MiB/s");
        assert_eq!(num2str(37_815_844, 4, false, N2s::BytePerSec), "37.8MB/s");
        assert_eq!(num2str(9232, 4, false, N2s::None), "9232");
        assert_eq!(num2str(123_456, 4, false, N2s::None), "123k");
        assert_eq!(num2str(512, 4, true, N2s::Byte), "512B");
    }

    #[test]
    fn ctime_layout() {
        assert_eq!(ctime(1_795_220_898), "Sat Nov 21 00:28:18 2026");
        assert_eq!(ctime(0), "Thu Jan  1 00:00:00 1970");
    }
}
