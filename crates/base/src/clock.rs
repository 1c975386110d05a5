//! Time as an input: timestamps, their RFC 3339 text form, and the clocks the core is given.
//!
//! The core never reads the wall clock. Every operation that needs "now" (publish stamps,
//! search decay, relative `since` arguments) asks the [`Clock`] it was constructed with.
//! Production uses [`SystemClock`]; tests pin time with [`FixedClock`]; the scenario runner
//! moves time for many server processes at once through [`FileClock`].
//!
//! Timestamps are whole seconds since the Unix epoch, as in the seed ledger
//! (`2026-11-25T10:30:00Z`). Parsing accepts fractional seconds and numeric offsets so
//! that foreign ledgers load; formatting always writes the canonical UTC `Z` form.

/// The name, under a project's `.agents/`, of the clock file a scenario moves time with:
/// the only clock file that moves writes too (see `cli`'s memory opening), so no setting
/// in an agent's MCP config can date its writes.
pub const SCENARIO_CLOCK: &str = ".scenario-clock";

use std::fmt;
use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::{AtomicI64, Ordering};

/// Seconds since 1970-01-01T00:00:00Z.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
pub struct Timestamp(pub i64);

impl Timestamp {
    /// Hours elapsed from `self` to `now`, never negative (an entry stamped in the future of
    /// the server's clock counts as brand new rather than getting a decay above 1).
    pub fn age_hours(self, now: Timestamp) -> f64 {
        (now.0 - self.0).max(0) as f64 / 3600.0
    }

    /// Canonical RFC 3339 text: `YYYY-MM-DDTHH:MM:SSZ`.
    pub fn to_rfc3339(self) -> String {
        let days = self.0.div_euclid(86_400);
        let secs = self.0.rem_euclid(86_400);
        let (y, m, d) = civil_from_days(days);
        format!(
            "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
            secs / 3600,
            (secs / 60) % 60,
            secs % 60
        )
    }

    /// True if `text` is exactly the canonical form of `self` (checked without allocating).
    pub fn is_canonical(self, text: &str) -> bool {
        text.len() == 20
            && parse_rfc3339(text) == Ok(self)
            && text.ends_with('Z')
            && text.as_bytes()[10] == b'T'
    }

    /// The date part only (`YYYY-MM-DD`), for compact human output.
    pub fn date(self) -> String {
        crate::text::prefix(&self.to_rfc3339(), 10).to_string()
    }
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_rfc3339())
    }
}

/// Why a piece of text is not a time.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{text}` is not a time: {why}")]
pub struct TimeError {
    /// The rejected text.
    pub text: String,
    /// What was wrong with it.
    pub why: &'static str,
}

fn err(text: &str, why: &'static str) -> TimeError {
    TimeError {
        text: text.chars().take(64).collect(),
        why,
    }
}

/// Parses RFC 3339 (`2026-11-25T10:30:00Z`, `…T10:30:00.123+02:00`, `t`/space separator).
/// Fractional seconds are dropped (the ledger has seconds precision).
pub fn parse_rfc3339(text: &str) -> Result<Timestamp, TimeError> {
    let b = text.as_bytes();
    if b.len() < 20 {
        return Err(err(text, "expected YYYY-MM-DDTHH:MM:SSZ"));
    }
    let days = parse_date(text, &b[..10])?;
    if !matches!(b[10], b'T' | b't' | b' ') {
        return Err(err(text, "expected `T` between date and time"));
    }
    let hh = digits(text, &b[11..13])?;
    let mm = digits(text, &b[14..16])?;
    let ss = digits(text, &b[17..19])?;
    if b[13] != b':' || b[16] != b':' {
        return Err(err(text, "expected HH:MM:SS"));
    }
    if hh > 23 || mm > 59 || ss > 60 {
        return Err(err(text, "hour, minute or second out of range"));
    }
    let mut rest = &b[19..];
    if rest.first() == Some(&b'.') {
        let n = rest[1..].iter().take_while(|c| c.is_ascii_digit()).count();
        if n == 0 {
            return Err(err(text, "expected digits after `.`"));
        }
        rest = &rest[1 + n..];
    }
    let offset = match rest {
        [b'Z' | b'z'] => 0,
        [sign @ (b'+' | b'-'), h1, h2, b':', m1, m2] => {
            let oh = digits(text, &[*h1, *h2])?;
            let om = digits(text, &[*m1, *m2])?;
            if oh > 23 || om > 59 {
                return Err(err(text, "offset out of range"));
            }
            let o = oh * 3600 + om * 60;
            if *sign == b'+' { o } else { -o }
        }
        _ => {
            return Err(err(
                text,
                "expected `Z` or an offset like +02:00 at the end",
            ));
        }
    };
    let secs = days * 86_400 + hh * 3600 + mm * 60 + ss.min(59);
    Ok(Timestamp(secs - offset))
}

fn parse_date(text: &str, b: &[u8]) -> Result<i64, TimeError> {
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return Err(err(text, "expected a date YYYY-MM-DD"));
    }
    let y = digits(text, &b[..4])?;
    let m = digits(text, &b[5..7])?;
    let d = digits(text, &b[8..10])?;
    if !(1..=12).contains(&m) || d < 1 || d > days_in_month(y, m) {
        return Err(err(text, "month or day out of range"));
    }
    Ok(days_from_civil(y, m, d))
}

fn digits(text: &str, b: &[u8]) -> Result<i64, TimeError> {
    if b.is_empty() || !b.iter().all(u8::is_ascii_digit) {
        return Err(err(text, "expected digits"));
    }
    Ok(b.iter().fold(0, |acc, c| acc * 10 + i64::from(c - b'0')))
}

/// Parses a time argument given by a person or an agent: RFC 3339, a date (`2026-11-25`,
/// midnight UTC), `now`, or an age relative to `now` such as `90m`, `24h`, `7d`, `2w`.
pub fn parse_time_arg(text: &str, now: Timestamp) -> Result<Timestamp, TimeError> {
    let t = text.trim();
    if t.eq_ignore_ascii_case("now") {
        return Ok(now);
    }
    if t.len() == 10 && t.as_bytes()[4] == b'-' {
        return Ok(Timestamp(parse_date(t, t.as_bytes())? * 86_400));
    }
    if let Some(secs) = parse_duration(t) {
        return Ok(Timestamp(now.0 - secs));
    }
    parse_rfc3339(t).map_err(|_| {
        err(
            text,
            "use RFC 3339 (2026-11-25T10:30:00Z), a date (2026-11-25), or an age like 24h / 7d",
        )
    })
}

/// Parses a duration such as `30s`, `90m`, `24h`, `7d`, `2w` into seconds.
pub fn parse_duration(text: &str) -> Option<i64> {
    let t = text.trim();
    let unit = t.chars().last()?;
    let n: i64 = t.strip_suffix(unit)?.parse().ok()?;
    let mult = match unit {
        's' => 1,
        'm' => 60,
        'h' => 3600,
        'd' => 86_400,
        'w' => 604_800,
        _ => return None,
    };
    if n < 0 {
        return None;
    }
    n.checked_mul(mult)
}

fn is_leap(y: i64) -> bool {
    (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
}

fn days_in_month(y: i64, m: i64) -> i64 {
    match m {
        2 if is_leap(y) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since the epoch for a proleptic Gregorian date (H. Hinnant's algorithm).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// Inverse of [`days_from_civil`].
fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

/// Where the core gets "now" from.
pub trait Clock: Send + Sync {
    /// The current time as this clock sees it.
    fn now(&self) -> Timestamp;
}

/// The operating system's wall clock. The only place the crate reads real time.
#[derive(Debug, Default, Clone, Copy)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> Timestamp {
        let d = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default();
        Timestamp(d.as_secs() as i64)
    }
}

/// A clock that says whatever it was last set to; for tests and `--now`.
#[derive(Debug)]
pub struct FixedClock(AtomicI64);

impl FixedClock {
    /// A clock pinned at `t`.
    pub fn new(t: Timestamp) -> Self {
        Self(AtomicI64::new(t.0))
    }
    /// Moves the clock to `t`.
    pub fn set(&self, t: Timestamp) {
        self.0.store(t.0, Ordering::SeqCst);
    }
    /// Moves the clock forward by `secs` seconds.
    pub fn advance(&self, secs: i64) {
        self.0.fetch_add(secs, Ordering::SeqCst);
    }
}

impl Clock for FixedClock {
    fn now(&self) -> Timestamp {
        Timestamp(self.0.load(Ordering::SeqCst))
    }
}

/// A clock read from a file holding one RFC 3339 timestamp, re-read on every call.
///
/// The scenario runner uses it to pin and move time for several server processes at once
/// (`WARROOM_NOW_FILE`). If the file cannot be read or parsed, the last good value is kept
/// (or the system clock, before any good value) and a warning is logged.
#[derive(Debug)]
pub struct FileClock {
    path: PathBuf,
    last: Mutex<Option<Timestamp>>,
}

impl FileClock {
    /// A clock backed by the file at `path`.
    pub fn new(path: PathBuf) -> Self {
        Self {
            path,
            last: Mutex::new(None),
        }
    }
}

impl Clock for FileClock {
    fn now(&self) -> Timestamp {
        let read = std::fs::read_to_string(&self.path)
            .map_err(|e| e.to_string())
            .and_then(|s| parse_rfc3339(s.trim()).map_err(|e| e.to_string()));
        let mut last = self.last.lock().unwrap_or_else(|p| p.into_inner());
        match read {
            Ok(t) => {
                *last = Some(t);
                t
            }
            Err(e) => {
                tracing::warn!(path = %self.path.display(), error = %e, "clock file unreadable");
                last.unwrap_or_else(|| SystemClock.now())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_canonical_text() {
        for s in [
            "1970-01-01T00:00:00Z",
            "2026-11-25T10:30:00Z",
            "2000-02-29T23:59:59Z",
            "1969-12-31T23:59:59Z",
            "2400-12-31T00:00:01Z",
        ] {
            assert_eq!(parse_rfc3339(s).unwrap().to_rfc3339(), s);
        }
        assert_eq!(
            parse_rfc3339("1970-01-02T00:00:00Z").unwrap(),
            Timestamp(86_400)
        );
    }

    #[test]
    fn accepts_offsets_and_fractions() {
        let z = parse_rfc3339("2026-04-03T11:04:01Z").unwrap();
        assert_eq!(parse_rfc3339("2026-04-03T13:04:01.999+02:00").unwrap(), z);
        assert_eq!(parse_rfc3339("2026-04-03 06:04:01-05:00").unwrap(), z);
    }

    #[test]
    fn rejects_nonsense_with_a_reason() {
        for s in [
            "",
            "yesterday",
            "2026-13-01T00:00:00Z",
            "2026-02-30T00:00:00Z",
            "2026-01-01T24:00:00Z",
            "2026-01-01T00:00:00",
            "2026-01-01T00:00:00+2",
        ] {
            assert!(parse_rfc3339(s).is_err(), "{s} should be rejected");
        }
    }

    #[test]
    fn time_args_relative_to_now() {
        let now = parse_rfc3339("2026-11-25T10:00:00Z").unwrap();
        assert_eq!(parse_time_arg("24h", now).unwrap().0, now.0 - 86_400);
        assert_eq!(parse_time_arg("2w", now).unwrap().0, now.0 - 14 * 86_400);
        assert_eq!(parse_time_arg("now", now).unwrap(), now);
        assert_eq!(
            parse_time_arg("2026-11-25", now).unwrap().to_rfc3339(),
            "2026-11-25T00:00:00Z"
        );
        assert!(parse_time_arg("-5h", now).is_err());
        assert!(parse_time_arg("soon", now).is_err());
    }

    #[test]
    fn age_is_never_negative() {
        assert_eq!(Timestamp(100).age_hours(Timestamp(50)), 0.0);
        assert_eq!(Timestamp(0).age_hours(Timestamp(7200)), 2.0);
    }

    #[test]
    fn fixed_clock_moves_only_when_told() {
        let c = FixedClock::new(Timestamp(10));
        assert_eq!(c.now(), Timestamp(10));
        c.advance(3600);
        assert_eq!(c.now(), Timestamp(3610));
        c.set(Timestamp(5));
        assert_eq!(c.now(), Timestamp(5));
    }
}
