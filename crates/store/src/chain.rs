//! The hash chain that makes a ledger self-verifying.
//!
//! Every line this server appends ends with `"prev":"<link>"`, where the link is the first
//! 128 bits (32 hex digits) of the SHA-256 of the previous physical line's bytes (without
//! its newline), or [`GENESIS`] for the first line of the file. A line's bytes include its
//! own `prev`, so the hash of the last line — the ledger's *head* — commits to every line
//! before it along the chain. `verify` recomputes every link; `verify --head` checks a head
//! recorded earlier is still in the file with its whole history.
//!
//! Lines without `prev` (older versions, OSTwin) are *unchained*: accepted, counted, and
//! covered only from the next chained line on (which links to their bytes).
//!
//! Timestamps must not go back along the chain by more than [`SKEW_SECONDS`]: the writer
//! refuses to append when its clock is that far behind the last line, and `verify` reports
//! a line dated before its predecessor.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::Path;

use sha2::{Digest, Sha256};

use warroom_base::clock::{Timestamp, parse_rfc3339};

/// The link of the first line of a ledger.
pub const GENESIS: &str = "00000000000000000000000000000000";

/// How far (seconds) a line's timestamp may be before its predecessor's (clock skew
/// between processes and hosts; documented in README § Auditing).
pub const SKEW_SECONDS: i64 = 60;

/// A link: the truncated SHA-256 of a line, as 16 raw bytes.
pub type Link = [u8; 16];

/// The link of `line` (its bytes without the newline).
pub fn link_of(line: &[u8]) -> Link {
    let digest = Sha256::digest(line);
    let mut out = [0u8; 16];
    out.copy_from_slice(&digest[..16]);
    out
}

/// Hex form of a link.
pub fn hex(link: &Link) -> String {
    // One allocation: this runs for every line a verification or a replay reads.
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(32);
    for b in link {
        out.push(DIGITS[usize::from(b >> 4)] as char);
        out.push(DIGITS[usize::from(b & 15)] as char);
    }
    out
}

/// Parses a link's hex form (32 lower-case hex digits).
pub fn parse_hex(text: &str) -> Option<Link> {
    if text.len() != 32 || !text.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
        return None;
    }
    let mut out = [0u8; 16];
    let nibble = |b: u8| (b as char).to_digit(16);
    for (o, pair) in out.iter_mut().zip(text.as_bytes().chunks_exact(2)) {
        *o = u8::try_from(nibble(pair[0])? * 16 + nibble(pair[1])?).ok()?;
    }
    Some(out)
}

/// `line` (one serialized JSON object) with `"prev":"<link>"` as its last field.
pub fn seal(line: &str, prev: &str) -> String {
    let body = line
        .strip_suffix('}')
        .expect("an entry line is a JSON object");
    format!("{body},\"prev\":\"{prev}\"}}")
}

/// `line` (one serialized JSON object) with `"name": value` added as its last field.
pub fn with_field(line: &str, name: &str, value: &str) -> String {
    let body = line
        .strip_suffix('}')
        .expect("an entry line is a JSON object");
    let v = serde_json::to_string(value).expect("strings serialize");
    format!("{body},\"{name}\":{v}}}")
}

/// What the next line must link to: the previous line's link and time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tip {
    /// Hex link for the next line's `prev`.
    pub prev: String,
    /// The previous line's `ts`, when it has a readable one.
    pub ts: Option<Timestamp>,
}

/// The tip of the file at `path`: the link of its last physical line (a torn last line
/// included, since the append that follows terminates it). Reads backwards from the end,
/// so it costs one line, not one file.
pub fn tip(path: &Path, jail: Option<&warroom_base::fsx::Jail>) -> io::Result<Tip> {
    let mut f = match warroom_base::fsx::open_read_in(path, jail) {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(genesis_tip()),
        Err(e) => return Err(e),
    };
    let len = f.metadata()?.len();
    if len == 0 {
        return Ok(genesis_tip());
    }
    let mut end = len;
    if read_at(&mut f, len - 1, 1)? == b"\n" {
        end -= 1;
    }
    let start = line_start(&mut f, end)?;
    let bytes = read_at(&mut f, start, (end - start) as usize)?;
    Ok(Tip {
        prev: hex(&link_of(&bytes)),
        ts: line_ts(&bytes),
    })
}

/// The link of the last line within the first `bytes` bytes of the file at `path` (which
/// end with a newline): the chain head a reader that consumed `bytes` bytes has seen.
/// [`GENESIS`] for none.
pub fn head_at(
    path: &Path,
    jail: Option<&warroom_base::fsx::Jail>,
    bytes: u64,
) -> io::Result<String> {
    if bytes == 0 {
        return Ok(GENESIS.to_string());
    }
    let mut f = warroom_base::fsx::open_read_in(path, jail)?;
    let mut end = bytes;
    if read_at(&mut f, bytes - 1, 1)? == b"\n" {
        end -= 1;
    }
    let start = line_start(&mut f, end)?;
    Ok(hex(&link_of(&read_at(
        &mut f,
        start,
        (end - start) as usize,
    )?)))
}

fn genesis_tip() -> Tip {
    Tip {
        prev: GENESIS.to_string(),
        ts: None,
    }
}

/// The `ts` field of a ledger line, if it parses.
pub fn line_ts(bytes: &[u8]) -> Option<Timestamp> {
    #[derive(serde::Deserialize)]
    struct Ts<'a> {
        #[serde(borrow)]
        ts: std::borrow::Cow<'a, str>,
    }
    let t: Ts<'_> = serde_json::from_slice(bytes).ok()?;
    parse_rfc3339(&t.ts).ok()
}

/// Offset just after the last newline before `end` (0 if none).
fn line_start(f: &mut File, end: u64) -> io::Result<u64> {
    const CHUNK: u64 = 64 * 1024;
    let mut hi = end;
    while hi > 0 {
        let lo = hi.saturating_sub(CHUNK);
        let buf = read_at(f, lo, (hi - lo) as usize)?;
        if let Some(i) = buf.iter().rposition(|&b| b == b'\n') {
            return Ok(lo + i as u64 + 1);
        }
        hi = lo;
    }
    Ok(0)
}

fn read_at(f: &mut File, at: u64, n: usize) -> io::Result<Vec<u8>> {
    f.seek(SeekFrom::Start(at))?;
    let mut buf = vec![0u8; n];
    f.read_exact(&mut buf)?;
    Ok(buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tip_links_the_last_line_torn_or_not() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("l.jsonl");
        assert_eq!(tip(&p, None).unwrap().prev, GENESIS);
        std::fs::write(&p, "").unwrap();
        assert_eq!(tip(&p, None).unwrap().prev, GENESIS);
        let a = r#"{"id":"a","ts":"2026-01-01T00:00:00Z"}"#;
        let b = r#"{"id":"b","ts":"2026-01-02T00:00:00Z"}"#;
        std::fs::write(&p, format!("{a}\n{b}\n")).unwrap();
        let t = tip(&p, None).unwrap();
        assert_eq!(t.prev, hex(&link_of(b.as_bytes())));
        assert_eq!(t.ts, Some(parse_rfc3339("2026-01-02T00:00:00Z").unwrap()));
        std::fs::write(&p, format!("{a}\n{b}\n{{\"id\":\"to")).unwrap();
        assert_eq!(tip(&p, None).unwrap().prev, hex(&link_of(b"{\"id\":\"to")));
        assert_eq!(tip(&p, None).unwrap().ts, None);
    }

    #[test]
    fn seal_appends_prev_and_hex_round_trips() {
        assert_eq!(
            seal(r#"{"a":1}"#, GENESIS),
            format!(r#"{{"a":1,"prev":"{GENESIS}"}}"#)
        );
        let l = link_of(b"x");
        assert_eq!(parse_hex(&hex(&l)), Some(l));
        let mut every = [0u8; 16];
        every[0] = 0x0f;
        every[1] = 0xa5;
        every[15] = 0xff;
        assert_eq!(hex(&every), format!("0fa5{}ff", "00".repeat(13)));
        assert_eq!(parse_hex("XYZ"), None);
        assert_eq!(parse_hex(&"A".repeat(32)), None);
    }
}
