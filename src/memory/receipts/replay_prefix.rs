//! The ledger's prefix a receipt's brief read, checked as it streams past: the hash chain
//! of its lines, how many lines it has and the head they end on, and its last line (for
//! the receipt's time). Read in bounded chunks, never held whole; a sink (the replay that
//! rebuilds an index from the prefix) may take a copy of each chunk as it passes.

use std::io::{self, Write};

use crate::audit::chain_check::{ChainCheck, LineRead};
use crate::chain::{GENESIS, hex, link_of};
use crate::store::Source;

/// Bytes read at a time (more when one line is longer).
const CHUNK: u64 = 4 << 20;

/// What the prefix says.
#[derive(Debug)]
pub(super) struct Prefix {
    /// Whole lines in it.
    pub lines: u64,
    /// The link of its last line (the genesis value when empty).
    pub head: String,
    /// Its last line that is not blank.
    pub last: Option<Vec<u8>>,
    /// The chain's breaks inside it: (line, kind, why).
    pub breaks: Vec<(u64, &'static str, String)>,
}

/// Reads the first `bytes` bytes of `source` (whole lines) and checks them; each chunk is
/// also written to `sink` when one is given.
pub(super) fn read(
    source: &Source,
    bytes: u64,
    mut sink: Option<&mut dyn Write>,
) -> io::Result<Prefix> {
    let mut chain = ChainCheck::default();
    let threads = crate::par::threads();
    let mut p = Prefix {
        lines: 0,
        head: GENESIS.to_string(),
        last: None,
        breaks: Vec::new(),
    };
    let (mut from, mut chunk) = (0u64, CHUNK);
    while from < bytes {
        let to = (from + chunk).min(bytes);
        let mut buf = source.read_range(p.lines + 1, from, to)?;
        // A database answers in whole rows, perhaps past `to`: never past the prefix.
        buf.truncate((bytes - from) as usize);
        if (buf.len() as u64) < to - from && to < bytes {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                format!("the ledger ends at byte {}", from + buf.len() as u64),
            ));
        }
        let Some(end) = buf.iter().rposition(|&b| b == b'\n').map(|i| i + 1) else {
            if to == bytes {
                break; // a partial last line is not a line
            }
            chunk *= 2; // one line longer than a chunk
            continue;
        };
        if let Some(s) = sink.as_mut() {
            s.write_all(&buf[..end])?;
        }
        let (mut last, mut final_line) = (None, &buf[..0]);
        // `end` is just past a newline: the pieces before it are exactly the whole lines.
        let lines: Vec<&[u8]> = buf[..end - 1].split(|&b| b == b'\n').collect();
        let reads = LineRead::of_lines(&lines, threads);
        for (&line, read) in lines.iter().zip(reads) {
            p.lines += 1;
            if let Some((kind, why)) = chain.observe_read(read, p.lines) {
                p.breaks.push((p.lines, kind, why));
            }
            if !line.iter().all(u8::is_ascii_whitespace) {
                last = Some(line);
            }
            final_line = line;
        }
        // The head: the last line's link, without its carriage returns (as a ledger's).
        while let [rest @ .., b'\r'] = final_line {
            final_line = rest;
        }
        p.head = hex(&link_of(final_line));
        if let Some(line) = last {
            p.last = Some(line.to_vec());
        }
        from += end as u64;
        chunk = CHUNK;
    }
    Ok(p)
}
