//! Builders for tests, of this crate and of the crates above it (an index of a few lines
//! without a ledger). Not for production code.

use std::path::Path;

use crate::entry::EntryRef;
use crate::{LedgerIndex, Loc};

/// An index of `lines` (ledger lines, in order; texts held in memory), for unit tests.
pub fn index_of(lines: &[String]) -> LedgerIndex {
    let mut ix = LedgerIndex::default();
    for (n, l) in lines.iter().enumerate() {
        apply_line(&mut ix, n, l);
    }
    ix
}

/// Indexes `line` as the ledger's line `n + 1` (0-based `n`), as a publish would.
pub fn apply_line(ix: &mut LedgerIndex, n: usize, line: &str) {
    let e: EntryRef<'_> = serde_json::from_str(line).unwrap();
    let ts = warroom_base::clock::parse_rfc3339(&e.ts).unwrap_or(warroom_base::clock::Timestamp(0));
    let loc = Loc {
        line: n as u64 + 1,
        offset: 0,
    };
    ix.apply(&e, ts, loc, line.as_bytes());
}

/// The index of a ledger file as a first read builds it (texts read back from the file;
/// a malformed line noted as a problem, a blank one skipped).
pub struct FileIndex(LedgerIndex);

impl FileIndex {
    /// Reads every complete line of the file at `path`.
    pub fn open(path: &Path) -> FileIndex {
        let bytes = std::fs::read(path).unwrap();
        let mut ix = LedgerIndex::with_texts_in(std::sync::Arc::new(PlainFile::new(path)));
        let mut offset = 0u64;
        for (n, raw) in bytes.split_inclusive(|&b| b == b'\n').enumerate() {
            let Some(line) = raw.strip_suffix(b"\n") else {
                break;
            };
            let loc = Loc {
                line: n as u64 + 1,
                offset,
            };
            offset += raw.len() as u64;
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            match EntryRef::parse(line) {
                Ok((e, ts)) => {
                    ix.apply(&e, ts, loc, line);
                }
                Err(e) => ix.note_problem(loc, format!("malformed line: {}", e.0)),
            }
        }
        FileIndex(ix)
    }

    /// The index.
    pub fn index(&self) -> &LedgerIndex {
        &self.0
    }
}

/// A file read at offsets, opened at the first read and kept (as the storage seam's reader
/// is), without a jail: tests only.
#[derive(Debug)]
pub struct PlainFile(std::path::PathBuf, std::sync::OnceLock<std::fs::File>);

impl PlainFile {
    /// The file at `path`, to be opened at the first read.
    pub fn new(path: &Path) -> PlainFile {
        PlainFile(path.to_path_buf(), std::sync::OnceLock::new())
    }
}

impl warroom_base::fsx::ReadAt for PlainFile {
    fn read_at(&self, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
        let file = match self.1.get() {
            Some(f) => f,
            None => {
                let f = std::fs::File::open(&self.0)?;
                self.1.get_or_init(|| f)
            }
        };
        std::os::unix::fs::FileExt::read_exact_at(file, buf, offset)
    }

    fn path(&self) -> &Path {
        &self.0
    }
}
