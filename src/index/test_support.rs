//! Helpers the unit tests of several modules share.

/// An index of `lines` (ledger lines, in order; texts held in memory), for unit tests.
pub(crate) fn index_of(lines: &[String]) -> super::LedgerIndex {
    let mut ix = super::LedgerIndex::default();
    for (n, l) in lines.iter().enumerate() {
        apply_line(&mut ix, n, l);
    }
    ix
}

/// Indexes `line` as the ledger's line `n + 1` (0-based `n`), as a publish would.
pub(crate) fn apply_line(ix: &mut super::LedgerIndex, n: usize, line: &str) {
    let e: crate::entry::EntryRef<'_> = serde_json::from_str(line).unwrap();
    let ts = crate::clock::parse_rfc3339(&e.ts).unwrap_or(crate::clock::Timestamp(0));
    let loc = super::Loc {
        line: n as u64 + 1,
        offset: 0,
    };
    ix.apply(&e, ts, loc, line.as_bytes());
}
