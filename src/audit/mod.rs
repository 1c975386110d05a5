//! Auditing the ledger: prove that nothing was rewritten or deleted ([`verify`], [`diff`]),
//! and read what changed between two points ([`diff`]).
//!
//! These functions read whole files (or git revisions) as bytes and never go through the
//! index: an auditor must see the file exactly as it is, including lines the index skips.

pub mod chain_check;
pub mod diff;
pub mod git;
pub mod kept;
mod line_facts;
pub mod receipts_check;
pub mod resume;
mod supersedes;
pub mod verify;
pub mod whole;

/// One physical line of a ledger file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line<'a> {
    /// 1-based line number.
    pub no: u64,
    /// Byte offset of its first byte.
    pub offset: u64,
    /// Its bytes, without `\n` (a trailing `\r` is kept: it is part of what was written).
    pub bytes: &'a [u8],
    /// False for a last line with no `\n`: a torn write (or one still in flight).
    pub terminated: bool,
}

impl Line<'_> {
    /// True if the line holds only whitespace.
    pub fn is_blank(&self) -> bool {
        self.bytes.iter().all(u8::is_ascii_whitespace)
    }
}

/// Streams the lines of `reader` (the file at `path`, for errors) to `each`, one at a time
/// through one reused buffer — how `verify` and the receipts check read a file of any size
/// without holding it. Returns the bytes read.
pub fn stream_lines(
    reader: impl std::io::BufRead,
    path: &std::path::Path,
    each: impl FnMut(Line<'_>),
) -> crate::error::Result<u64> {
    stream_lines_from(reader, path, 0, 0, each)
}

/// [`stream_lines`] of a reader that starts after `lines` lines and `offset` bytes of the
/// file: numbers and offsets go on from there; returns the offset reached.
pub fn stream_lines_from(
    mut reader: impl std::io::BufRead,
    path: &std::path::Path,
    lines: u64,
    offset: u64,
    mut each: impl FnMut(Line<'_>),
) -> crate::error::Result<u64> {
    let (mut buf, mut offset, mut no) = (Vec::new(), offset, lines);
    loop {
        buf.clear();
        let n = reader
            .read_until(b'\n', &mut buf)
            .map_err(|e| crate::error::Error::io("reading", path, e))?;
        if n == 0 {
            return Ok(offset);
        }
        no += 1;
        let terminated = buf.last() == Some(&b'\n');
        let bytes = if terminated { &buf[..n - 1] } else { &buf[..] };
        each(Line {
            no,
            offset,
            bytes,
            terminated,
        });
        offset += n as u64;
    }
}

/// Splits `data` into lines.
pub fn lines(data: &[u8]) -> Vec<Line<'_>> {
    let mut out = Vec::new();
    let mut start = 0usize;
    let mut no = 1;
    while start < data.len() {
        let (end, terminated) = match memchr::memchr(b'\n', &data[start..]) {
            Some(i) => (start + i, true),
            None => (data.len(), false),
        };
        out.push(Line {
            no,
            offset: start as u64,
            bytes: &data[start..end],
            terminated,
        });
        no += 1;
        start = end + 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_and_marks_the_torn_tail() {
        let l = lines(b"a\n\nbc\r\nd");
        assert_eq!(l.len(), 4);
        assert_eq!((l[2].no, l[2].offset, l[2].bytes), (3, 3, &b"bc\r"[..]));
        assert!(l[1].is_blank() && l[2].terminated && !l[3].terminated);
        assert!(lines(b"").is_empty());
        assert_eq!(lines(b"x\n").len(), 1);
    }
}
