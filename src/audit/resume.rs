//! Continued verification: a project's verification kept in memory and carried on over the
//! lines appended since, so an auditor's page after one new entry reads one entry, not the
//! whole ledger.
//!
//! What a continuation trusts, and what proves it: the verified prefix is not read again.
//! Before going on, the prefix's *last line* is read back and its link compared with the
//! head the verification ended on, and the stream must be at least as long as the prefix
//! and the prefix must have ended with a whole line; any of those failing means the prefix
//! changed at its end (a rollback, a truncation, a rewritten tail) and the caller runs a
//! full pass instead. A line changed *inside* the prefix keeps every one of those true —
//! only a full pass finds it, which is why the console also runs full passes in the
//! background ([`crate::memory::Memory::audit_view`]). Every new line gets every check a
//! full pass gives it, the duplicate ids and supersede pointers against the whole prefix
//! included: the report of a continuation is the report of a full pass over a file whose
//! prefix is the one verified before (a unit test compares them).
//!
//! For a database the "file" is its export, as in [`super::whole`]: a continuation
//! exports the rows from the prefix's last line on.

use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::Path;

use super::receipts_check::ReceiptsVerifier;
use super::verify::{Verifier, VerifyOptions, VerifyReport};
use crate::config::Paths;
use crate::error::{Error, Result};
use crate::store::Stream;

/// A project's verification (ledger and receipts), ready to be continued (and kept
/// between processes: `audit::kept`).
#[derive(Clone, serde::Serialize, serde::Deserialize)]
pub struct ProjectVerifier {
    ledger: Verifier,
    receipts: ReceiptsVerifier,
    label: Option<String>,
}

/// How one stream was brought up to date.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resumed {
    /// Only the lines after the prefix were read (how many).
    Continued(u64),
    /// The prefix no longer ends as it did: a full pass is needed.
    PrefixChanged,
}

impl ProjectVerifier {
    /// A full pass over the project, kept to be continued.
    pub fn full(
        paths: &Paths,
        opts: &VerifyOptions<'_>,
        progress: &mut dyn FnMut(u64, u64),
    ) -> Result<ProjectVerifier> {
        let receipts_path = paths.receipts();
        let mut v = ProjectVerifier {
            ledger: Verifier::new(&paths.ledger, opts),
            receipts: ReceiptsVerifier::new(&receipts_path),
            label: paths.database.as_ref().map(ToString::to_string),
        };
        let Some(url) = &paths.database else {
            let f = crate::fsx::open_read(&paths.ledger)
                .map_err(|e| Error::io("opening", &paths.ledger, e))?;
            let total = f.metadata().map(|m| m.len()).unwrap_or(0);
            v.ledger.feed(
                BufReader::with_capacity(1 << 20, f),
                &paths.ledger,
                total,
                progress,
            )?;
            match crate::fsx::open_read(&receipts_path) {
                Ok(f) => v.receipts.feed(BufReader::new(f), &receipts_path)?,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(Error::io("opening", &receipts_path, e)),
            }
            return Ok(v);
        };
        let tmp = super::whole::export(url, &Stream::Ledger, 0)?;
        let total = tmp.as_file().metadata().map(|m| m.len()).unwrap_or(0);
        v.ledger.feed(reader(&tmp)?, tmp.path(), total, progress)?;
        let tmp = super::whole::export(url, &Stream::Receipts, 0)?;
        v.receipts.feed(reader(&tmp)?, tmp.path())?;
        Ok(v)
    }

    /// Carries the verification on over the lines appended since, or says the prefix
    /// changed at its end (then nothing was changed here: run [`ProjectVerifier::full`]).
    /// Returns the new lines read (ledger and receipts). Both streams' prefixes are checked
    /// before either is read on; after an error (a read failing half-way) the verification
    /// may be part-way through the new lines: drop it. `now` is the verifier's now for the
    /// new lines (`future-dated` is judged against it, as a full pass now would; lines
    /// read before keep the judgement of their own pass).
    pub fn resume(
        &mut self,
        paths: &Paths,
        now: Option<crate::clock::Timestamp>,
    ) -> Result<Resumed> {
        self.ledger.set_now(now);
        let before = self.lines();
        let receipts_path = paths.receipts();
        match &paths.database {
            None => {
                let (bytes, lines, whole, head) = self.ledger.read_so_far();
                let last = self.ledger.offset_of(lines);
                let Some(a) = reopen(&paths.ledger, bytes, last, whole, head)? else {
                    return Ok(Resumed::PrefixChanged);
                };
                let (bytes, lines, whole, head) = self.receipts.read_so_far();
                let last = self.receipts.offset_of(lines);
                let Some(b) = reopen(&receipts_path, bytes, last, whole, head)? else {
                    return Ok(Resumed::PrefixChanged);
                };
                self.ledger.feed(a, &paths.ledger, 0, &mut |_, _| {})?;
                self.receipts.feed(b, &receipts_path)?;
            }
            Some(url) => {
                let (_, lines, whole, head) = self.ledger.read_so_far();
                let ta = super::whole::export(url, &Stream::Ledger, lines.saturating_sub(1))?;
                let Some(a) = after_last(reader(&ta)?, lines, whole, head)? else {
                    return Ok(Resumed::PrefixChanged);
                };
                let (_, lines, whole, head) = self.receipts.read_so_far();
                let tb = super::whole::export(url, &Stream::Receipts, lines.saturating_sub(1))?;
                let Some(b) = after_last(reader(&tb)?, lines, whole, head)? else {
                    return Ok(Resumed::PrefixChanged);
                };
                self.ledger.feed(a, ta.path(), 0, &mut |_, _| {})?;
                self.receipts.feed(b, tb.path())?;
            }
        }
        let after = self.lines();
        Ok(Resumed::Continued(after.0 - before.0 + after.1 - before.1))
    }

    /// The report, as [`super::whole::verify_project`] gives it, with the findings of a
    /// recorded head and of a recorded receipts head when given.
    pub fn report(&self, head: Option<&str>, receipts_head: Option<&str>) -> VerifyReport {
        let mut r = self.ledger.report(head);
        let rc = self.receipts.report(receipts_head);
        r.receipts = (rc.lines > 0 || receipts_head.is_some()).then_some(rc);
        if let Some(label) = &self.label {
            r.file = format!("{label} (ledger)");
            if let Some(rc) = r.receipts.as_mut() {
                rc.file = format!("{label} (receipts)");
            }
        }
        r
    }

    /// Lines verified (ledger, receipts).
    pub fn lines(&self) -> (u64, u64) {
        (self.ledger.read_so_far().1, self.receipts.read_so_far().1)
    }
}

/// A reader over an exported temporary file.
fn reader(tmp: &tempfile::NamedTempFile) -> Result<BufReader<std::fs::File>> {
    let f = tmp
        .reopen()
        .map_err(|e| Error::io("reopening", tmp.path(), e))?;
    Ok(BufReader::with_capacity(1 << 20, f))
}

/// The file at `path`, positioned after its first `bytes` bytes, if its prefix still ends
/// as verified: long enough, the verified prefix ended with a whole line, and that last
/// line (at offset `last`) still has the link `head`. A missing file is an empty one.
fn reopen(
    path: &Path,
    bytes: u64,
    last: Option<u64>,
    whole: bool,
    head: &str,
) -> Result<Option<BufReader<std::fs::File>>> {
    let mut f = match crate::fsx::open_read(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && bytes == 0 => {
            return Ok(Some(BufReader::new(
                tempfile::tempfile()
                    .map_err(|e| Error::io("creating a temporary file", path, e))?,
            )));
        }
        Err(e) => return Err(Error::io("opening", path, e)),
    };
    let len = f
        .metadata()
        .map_err(|e| Error::io("reading", path, e))?
        .len();
    if len < bytes || !whole {
        return Ok(None);
    }
    let start = last.unwrap_or(0);
    f.seek(SeekFrom::Start(start))
        .map_err(|e| Error::io("reading", path, e))?;
    let mut r = BufReader::with_capacity(1 << 20, f);
    if last.is_some() {
        let mut line = Vec::new();
        (&mut r)
            .take(bytes - start)
            .read_to_end(&mut line)
            .map_err(|e| Error::io("reading", path, e))?;
        if !same_line(&line, head) {
            return Ok(None);
        }
    }
    Ok(Some(r))
}

/// `reader` past the prefix's last line (line `lines`, which is its first line), if that
/// line still has the link `head` and the prefix ended with a whole line.
fn after_last<R: BufRead>(mut reader: R, lines: u64, whole: bool, head: &str) -> Result<Option<R>> {
    if !whole {
        return Ok(None);
    }
    if lines > 0 {
        let mut line = Vec::new();
        reader.read_until(b'\n', &mut line).map_err(|e| Error::Io {
            context: "reading the export".into(),
            source: e,
        })?;
        if !same_line(&line, head) {
            return Ok(None);
        }
    }
    Ok(Some(reader))
}

/// True if `line` (with its newline) is a whole line whose link is `head`.
fn same_line(line: &[u8], head: &str) -> bool {
    line.strip_suffix(b"\n")
        .is_some_and(|l| crate::chain::hex(&crate::chain::link_of(l)) == head)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chain::{hex, link_of};

    /// Entry lines linked one to the next; `supersedes[i]` = index of the entry line `i`
    /// supersedes.
    fn chained(n: usize, supersedes: &[(usize, usize)]) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for i in 0..n {
            let sup = supersedes
                .iter()
                .find(|(a, _)| *a == i)
                .map_or("null".to_string(), |(_, b)| format!("\"mem-{b:04}\""));
            let prev = out.last().map_or(crate::chain::GENESIS.to_string(), |l| {
                hex(&link_of(l.as_bytes()))
            });
            out.push(format!(
                r#"{{"id":"mem-{i:04}","ts":"2026-11-20T00:{:02}:00Z","kind":"decision","room_id":"room-1","author_role":"eng","ref":"","tags":[],"summary":"decision {i}","detail":"","supersedes":{sup},"prev":"{prev}"}}"#,
                i % 60
            ));
        }
        out
    }

    fn project(lines: &[String]) -> (tempfile::TempDir, Paths) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join(".agents")).unwrap();
        let paths = Paths::under(dir.path());
        write(&paths, lines);
        (dir, paths)
    }

    fn write(paths: &Paths, lines: &[String]) {
        std::fs::write(&paths.ledger, lines.join("\n") + "\n").unwrap();
    }

    fn kinds(r: &VerifyReport) -> Vec<(u64, String)> {
        r.violations
            .iter()
            .map(|v| (v.line, v.kind.clone()))
            .collect()
    }

    fn full(paths: &Paths) -> ProjectVerifier {
        ProjectVerifier::full(paths, &VerifyOptions::default(), &mut |_, _| {}).unwrap()
    }

    #[test]
    fn a_continued_report_is_the_full_report_of_the_longer_file() {
        let all = chained(40, &[(30, 3), (35, 31)]);
        let (_d, paths) = project(&all[..20]);
        let mut v = full(&paths);
        write(&paths, &all);
        assert_eq!(v.resume(&paths, None).unwrap(), Resumed::Continued(20));
        let (cont, whole) = (v.report(None, None), full(&paths).report(None, None));
        assert!(whole.ok(), "{:?}", kinds(&whole));
        assert_eq!(
            serde_json::to_value(&cont).unwrap(),
            serde_json::to_value(&whole).unwrap()
        );
        assert_eq!(cont.superseded, 2);
        // Nothing new: nothing read.
        assert_eq!(v.resume(&paths, None).unwrap(), Resumed::Continued(0));
    }

    #[test]
    fn supersede_findings_carried_on_equal_a_full_pass_whatever_the_pointers() {
        // A pointer dangling in the prefix resolved later, a double supersede, a cycle
        // through a forward pointer, and plain supersedes between them.
        let all = chained(
            32,
            &[
                (5, 25),
                (8, 2),
                (21, 9),
                (22, 3),
                (24, 3),
                (26, 27),
                (27, 26),
                (30, 28),
            ],
        );
        let (_d, paths) = project(&all[..20]);
        let mut v = full(&paths);
        for upto in [21, 22, 24, 26, 28, 32] {
            write(&paths, &all[..upto]);
            assert!(matches!(
                v.resume(&paths, None).unwrap(),
                Resumed::Continued(_)
            ));
            let (cont, whole) = (v.report(None, None), full(&paths).report(None, None));
            assert_eq!(kinds(&cont), kinds(&whole), "after {upto} lines");
            assert_eq!(cont.superseded, whole.superseded, "after {upto} lines");
        }
        let k = kinds(&v.report(None, None));
        assert!(k.contains(&(25, "double-supersede".to_string())), "{k:?}");
        assert!(k.iter().any(|(_, kind)| kind == "supersede-cycle"), "{k:?}");
        assert!(
            !k.iter().any(|(_, kind)| kind == "dangling-supersede"),
            "{k:?}"
        );
    }

    /// A verification kept for an hour judges the lines appended since against the now of
    /// its continuation, not the now it began with (else every new line of a live
    /// ledger would be `future-dated` a minute after the first view).
    #[test]
    fn new_lines_are_judged_against_the_continuations_now() {
        let all = chained(30, &[]);
        let (_d, paths) = project(&all[..20]);
        let at = |t: &str| Some(crate::clock::parse_rfc3339(t).unwrap());
        let opts = VerifyOptions {
            now: at("2026-11-20T00:19:30Z"),
            ..VerifyOptions::default()
        };
        let mut v = ProjectVerifier::full(&paths, &opts, &mut |_, _| {}).unwrap();
        assert!(v.report(None, None).ok());
        let mut stale = v.clone();
        write(&paths, &all);
        assert_eq!(
            v.resume(&paths, at("2026-11-20T01:00:00Z")).unwrap(),
            Resumed::Continued(10)
        );
        assert!(
            v.report(None, None).ok(),
            "{:?}",
            kinds(&v.report(None, None))
        );
        // Judged against the old now, the new lines (00:20 to 00:29) are in its future.
        stale.resume(&paths, at("2026-11-20T00:19:30Z")).unwrap();
        let r = stale.report(None, None);
        assert!(
            kinds(&r)
                .iter()
                .any(|(l, k)| *l == 23 && k == "future-dated"),
            "{:?}",
            kinds(&r)
        );
    }

    #[test]
    fn every_tamper_of_the_new_lines_is_caught_at_once() {
        let all = chained(30, &[]);
        let (_d, paths) = project(&all[..20]);
        let mut v = full(&paths);
        let mut bad = all.clone();
        // A duplicate of a prefix id, a supersede of a missing entry, a changed line (its
        // successor's link breaks) and a line that is not JSON.
        bad[21] = bad[21].replace("mem-0021", "mem-0004");
        bad[23] = bad[23].replace("\"supersedes\":null", "\"supersedes\":\"mem-9999\"");
        bad[25] = bad[25].replace("decision 25", "decision twenty-five");
        bad[28] = "not json".into();
        write(&paths, &bad);
        assert_eq!(v.resume(&paths, None).unwrap(), Resumed::Continued(10));
        let cont = v.report(None, None);
        assert_eq!(kinds(&cont), kinds(&full(&paths).report(None, None)));
        let k = kinds(&cont);
        for want in [
            (22, "duplicate-id"),
            (23, "broken-link"),
            (24, "dangling-supersede"),
            (27, "broken-link"),
            (29, "malformed-json"),
        ] {
            assert!(
                k.contains(&(want.0, want.1.to_string())),
                "{want:?} in {k:?}"
            );
        }
    }

    #[test]
    fn a_changed_end_of_the_prefix_asks_for_a_full_pass_and_only_a_full_pass_sees_inside_it() {
        let all = chained(30, &[]);
        let (_d, paths) = project(&all[..20]);
        let v = full(&paths);
        // The prefix's last line rewritten, or the file cut short: not continued.
        let mut tail = all.clone();
        tail[19] = tail[19].replace("decision 19", "decision XIX");
        write(&paths, &tail);
        assert_eq!(
            v.clone().resume(&paths, None).unwrap(),
            Resumed::PrefixChanged
        );
        write(&paths, &all[..15]);
        assert_eq!(
            v.clone().resume(&paths, None).unwrap(),
            Resumed::PrefixChanged
        );
        // A line changed inside the prefix keeps its end intact: the continuation trusts
        // the prefix; the full pass finds the change.
        let mut inner = all.clone();
        inner[5] = inner[5].replace("decision 5", "decision V");
        write(&paths, &inner);
        let mut c = v.clone();
        assert_eq!(c.resume(&paths, None).unwrap(), Resumed::Continued(10));
        assert!(c.report(None, None).ok());
        assert_eq!(
            kinds(&full(&paths).report(None, None)),
            vec![(7, "broken-link".to_string())]
        );
    }
}
