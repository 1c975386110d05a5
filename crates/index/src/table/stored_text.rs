//! The summary and detail of every entry — the bulk of a ledger's bytes — kept where they
//! cost least: read back from the ledger file on demand (files backend), or in memory
//! (the database backend, and indexes built in tests).
//!
//! Reading back is safe because the ledger is append-only: an indexed line never moves.
//! Each entry keeps its line's length and a 64-bit hash of its bytes; a read whose bytes
//! do not hash the same (the file was edited in place, or replaced and not yet re-read) is
//! an error naming the line, never a changed answer. The file is held open, so the text
//! comes from the file that was indexed even if the path is replaced before the next
//! refresh notices.
//!
//! Only what every result needs stays in memory: a hash of each entry's fact (kind and
//! normalised summary) so predecessor context can collapse duplicates without reading
//! the candidates' text, and its shape (the summary's words without those holding a
//! digit) so a brief's selection tells routine entries without reading it either.

use std::hash::BuildHasher;
use std::sync::Arc;

use crate::entry::{EntryRef, Kind};
use warroom_base::error::{Error, Result};
use warroom_base::fsx::ReadAt;

use crate::Loc;

/// Hashes line bytes and facts (fixed seed: stable within and across runs of a build).
fn hasher() -> foldhash::fast::FixedState {
    foldhash::fast::FixedState::with_seed(0x5752_4d45_4d4f_5259)
}

/// The text of one entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Text {
    /// Summary.
    pub summary: String,
    /// Detail ("" if none).
    pub detail: String,
}

/// Where the texts are.
#[derive(Debug)]
enum Store {
    Memory(Vec<[Box<str>; 2]>),
    File {
        file: Arc<dyn ReadAt>,
        /// Per entry: its line's length in bytes and the hash of those bytes.
        lens: Vec<u32>,
        hashes: Vec<u64>,
    },
}

/// Line lengths, line hashes, fact hashes and shapes, per entry.
pub(crate) type FileParts<'a> = (&'a [u32], &'a [u64], &'a [u64], &'a [u64], &'a [u64]);

/// Summary and detail per entry, and the fact hash and shape per entry.
#[derive(Debug)]
pub struct Texts {
    store: Store,
    facts: Vec<u64>,
    shapes: Vec<u64>,
    prints: Vec<u64>,
}

impl Default for Texts {
    fn default() -> Self {
        Texts {
            store: Store::Memory(Vec::new()),
            facts: Vec::new(),
            shapes: Vec::new(),
            prints: Vec::new(),
        }
    }
}

/// The key two entries share when they state the same fact: the kind and the summary,
/// whitespace collapsed, lower-cased, without trailing punctuation.
pub fn fact_key(kind: Kind, summary: &str) -> u64 {
    thread_local! {
        static BUF: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
    }
    // Called for every entry read: one reused buffer, no allocation per entry.
    BUF.with_borrow_mut(|s| {
        s.clear();
        for (i, word) in crate::chunks::words(summary).enumerate() {
            if i > 0 {
                s.push(' ');
            }
            if word.is_ascii() {
                let start = s.len();
                s.push_str(word);
                // `start` was the buffer's length before this push: a boundary.
                #[allow(clippy::string_slice)]
                s[start..].make_ascii_lowercase();
            } else {
                s.push_str(&word.to_lowercase());
            }
        }
        let key = s.trim_end_matches(['.', '!', ';', ':', ',']);
        hasher().hash_one((kind.index(), key))
    })
}

/// An entry's shape: the words of its summary, lower-cased, without the words (or
/// identifier parts) that hold a digit — so "Migration 0042_users.sql adds an index" and
/// "Migration 0043_users.sql adds an index" are one shape. What a brief's selection
/// compares to tell routine entries (`context::select`); kept per entry so that a brief
/// reads no text for it.
pub fn shape_key(summary: &str) -> u64 {
    use std::hash::Hasher;
    let mut h = foldhash::fast::FixedState::with_seed(0x5348_4150).build_hasher();
    for w in summary
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty() && !w.chars().any(|c| c.is_numeric()))
    {
        for c in w.chars().flat_map(char::to_lowercase) {
            h.write_u32(u32::from(c));
        }
        h.write_u8(0);
    }
    h.finish()
}

/// An entry's word print: its summary's words (every run of letters and digits,
/// lower-cased) as a set of 64 bits, one bit per word by its hash. Two summaries whose
/// prints share half their bits or more share about half their words: one note written
/// again with other words, paths or numbers in its variable parts (`brief::select`'s
/// routine rule). Kept per entry so that a brief reads no text for it.
pub fn word_print(summary: &str) -> u64 {
    use std::hash::Hasher;
    let mut print = 0u64;
    for w in summary
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
    {
        let mut h = foldhash::fast::FixedState::with_seed(0x5750_5254).build_hasher();
        for c in w.chars().flat_map(char::to_lowercase) {
            h.write_u32(u32::from(c));
        }
        print |= 1u64 << (h.finish() % 64);
    }
    print
}

/// True if two word prints share at least half of the bits either has: near-twins.
/// Two empty prints (no words at all) are not.
pub fn near_twins(a: u64, b: u64) -> bool {
    let union = (a | b).count_ones();
    union > 0 && 2 * (a & b).count_ones() >= union
}

impl Texts {
    /// Texts read back from the ledger file `file` reads.
    pub fn in_file(file: Arc<dyn ReadAt>) -> Texts {
        Texts {
            store: Store::File {
                file,
                lens: Vec::new(),
                hashes: Vec::new(),
            },
            facts: Vec::new(),
            shapes: Vec::new(),
            prints: Vec::new(),
        }
    }

    /// The parts a snapshot keeps: line lengths, line hashes, fact hashes, shapes and
    /// word prints
    /// (None when the texts are in memory: such an index is not snapshotted).
    pub(crate) fn file_parts(&self) -> Option<FileParts<'_>> {
        match &self.store {
            Store::File { lens, hashes, .. } => {
                Some((lens, hashes, &self.facts, &self.shapes, &self.prints))
            }
            Store::Memory(_) => None,
        }
    }

    /// Texts in the file `file` reads, from a snapshot's parts.
    pub(crate) fn from_file_parts(
        file: Arc<dyn ReadAt>,
        lens: Vec<u32>,
        hashes: Vec<u64>,
        facts: Vec<u64>,
        shapes: Vec<u64>,
        prints: Vec<u64>,
    ) -> Texts {
        Texts {
            store: Store::File { file, lens, hashes },
            facts,
            shapes,
            prints,
        }
    }

    /// Reserves room for `n` more entries.
    pub fn reserve(&mut self, n: usize) {
        self.facts.reserve(n);
        self.shapes.reserve(n);
        self.prints.reserve(n);
        match &mut self.store {
            Store::Memory(v) => v.reserve(n),
            Store::File { lens, hashes, .. } => {
                lens.reserve(n);
                hashes.reserve(n);
            }
        }
    }

    /// Records the next entry: its parsed fields and the line they came from.
    pub fn push(&mut self, entry: &EntryRef<'_>, line: &[u8]) {
        self.facts.push(fact_key(entry.kind, &entry.summary));
        self.shapes.push(shape_key(&entry.summary));
        self.prints.push(word_print(&entry.summary));
        match &mut self.store {
            Store::Memory(v) => v.push([
                (*entry.summary).into(),
                entry.detail.as_deref().unwrap_or("").into(),
            ]),
            Store::File { lens, hashes, .. } => {
                lens.push(u32::try_from(line.len()).expect("lines are at most 16 MiB"));
                hashes.push(hasher().hash_one(line));
            }
        }
    }

    /// The fact hash of entry `pos` (see [`fact_key`]).
    pub fn fact(&self, pos: u32) -> u64 {
        self.facts[pos as usize]
    }

    /// The shape of entry `pos` (see [`shape_key`]).
    pub fn shape(&self, pos: u32) -> u64 {
        self.shapes[pos as usize]
    }

    /// The word print of entry `pos` (see [`word_print`]).
    pub fn print(&self, pos: u32) -> u64 {
        self.prints[pos as usize]
    }

    /// The text of entry `pos`, whose line is at `loc`.
    pub fn get(&self, pos: u32, loc: Loc) -> Result<Text> {
        Ok(self
            .get_many(&[(pos, loc)])?
            .pop()
            .expect("one asked, one read"))
    }

    /// The texts of several entries, in the order asked. From the file, lines that lie
    /// close together (a page of new entries usually does) are read with one `pread`.
    pub fn get_many(&self, want: &[(u32, Loc)]) -> Result<Vec<Text>> {
        let (file, lens, hashes) = match &self.store {
            Store::Memory(v) => {
                return Ok(want
                    .iter()
                    .map(|&(pos, _)| {
                        let [summary, detail] = &v[pos as usize];
                        Text {
                            summary: summary.to_string(),
                            detail: detail.to_string(),
                        }
                    })
                    .collect());
            }
            Store::File { file, lens, hashes } => (file, lens, hashes),
        };
        if want.is_empty() {
            return Ok(Vec::new());
        }
        let io = |loc: Loc, source: std::io::Error| Error::Io {
            context: format!("reading line {} of {}", loc.line, file.path().display()),
            source,
        };
        // Indices into `want`, by offset, then runs whose gaps are small.
        let mut order: Vec<usize> = (0..want.len()).collect();
        order.sort_unstable_by_key(|&i| want[i].1.offset);
        let mut out: Vec<Option<Text>> = vec![None; want.len()];
        let mut buf = Vec::new();
        let mut i = 0;
        while i < order.len() {
            let first = want[order[i]].1.offset;
            let mut end = i;
            let mut run_end = first + u64::from(lens[want[order[i]].0 as usize]);
            while end + 1 < order.len() {
                let (pos, loc) = want[order[end + 1]];
                let line_end = loc.offset + u64::from(lens[pos as usize]);
                if loc.offset > run_end + RUN_GAP || line_end - first > RUN_MAX {
                    break;
                }
                run_end = run_end.max(line_end);
                end += 1;
            }
            buf.resize((run_end - first) as usize, 0);
            file.read_at(&mut buf, first)
                .map_err(|e| io(want[order[i]].1, e))?;
            for &k in &order[i..=end] {
                let (pos, loc) = want[k];
                let at = (loc.offset - first) as usize;
                let line = &buf[at..at + lens[pos as usize] as usize];
                out[k] = Some(parse_text(line, hashes[pos as usize]).map_err(|e| io(loc, e))?);
            }
            i = end + 1;
        }
        Ok(out
            .into_iter()
            .map(|t| t.expect("every line read"))
            .collect())
    }

    /// Heap bytes held for the texts.
    pub fn heap_bytes(&self) -> usize {
        (self.facts.capacity() + self.shapes.capacity() + self.prints.capacity()) * 8
            + match &self.store {
                Store::Memory(v) => v.iter().map(|[s, d]| s.len() + d.len() + 32).sum(),
                Store::File { lens, hashes, .. } => lens.capacity() * 4 + hashes.capacity() * 8,
            }
    }
}

/// Lines at most this far apart are read in one run…
const RUN_GAP: u64 = 16 << 10;
/// …of at most this many bytes.
const RUN_MAX: u64 = 1 << 20;

/// The summary and detail of one line, if its bytes still hash to `hash`.
fn parse_text(line: &[u8], hash: u64) -> std::io::Result<Text> {
    /// Only the two fields a result needs (serde skips the rest).
    #[derive(serde::Deserialize)]
    struct Fields<'a> {
        #[serde(borrow)]
        summary: std::borrow::Cow<'a, str>,
        #[serde(default, borrow)]
        detail: Option<std::borrow::Cow<'a, str>>,
    }
    if hasher().hash_one(line) != hash {
        return Err(std::io::Error::other(
            "the line changed since it was read: the ledger was edited in place or \
             replaced. Run `warroom-memory verify` to see what changed",
        ));
    }
    let f: Fields<'_> = serde_json::from_slice(line).map_err(std::io::Error::other)?;
    Ok(Text {
        summary: f.summary.into_owned(),
        detail: f.detail.map(|d| d.into_owned()).unwrap_or_default(),
    })
}

#[cfg(test)]
mod tests {
    use crate::entry::{Entry, Kind};
    use crate::test_support::FileIndex as Ledger;

    fn line(id: &str, summary: &str) -> String {
        let e = Entry {
            id: id.into(),
            ts: "2026-11-01T00:00:00Z".into(),
            kind: Kind::Decision,
            room_id: "room-1".into(),
            author_role: "architect".into(),
            ref_: "EPIC-1".into(),
            tags: vec!["db".into()],
            summary: summary.into(),
            detail: "because".into(),
            supersedes: None,
            plan_id: None,
            redacted: vec![],
            audience: None,
        };
        serde_json::to_string(&e).unwrap() + "\n"
    }

    #[test]
    fn text_is_read_back_and_an_edit_in_place_is_an_error_not_an_answer() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ledger.jsonl");
        let text = line("a", "use alpha storage") + &line("b", "keep beta");
        std::fs::write(&path, &text).unwrap();
        let ledger = Ledger::open(&path);
        let ix = ledger.index();
        assert_eq!(ix.entry(0).unwrap().summary, "use alpha storage");
        assert_eq!(ix.entry(1).unwrap().detail, "because");
        // Same length, so nothing about the file's size tells: only the line's hash.
        std::fs::write(&path, text.replace("alpha", "omega")).unwrap();
        let err = ix.entry(0).unwrap_err().to_string();
        assert!(err.contains("line 1"), "{err}");
        assert!(err.contains("changed since it was read"), "{err}");
        assert_eq!(ix.entry(1).unwrap().summary, "keep beta");
    }

    #[test]
    fn entries_read_together_come_back_in_the_order_asked() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ledger.jsonl");
        // A 40 KB line between others: reads split into runs around it.
        let big = "x".repeat(40_000);
        let text =
            line("a", "first") + &line("b", &big) + &line("c", "third") + &line("d", "fourth");
        std::fs::write(&path, &text).unwrap();
        let ledger = Ledger::open(&path);
        let ix = ledger.index();
        assert!(ix.entries(&[]).unwrap().is_empty());
        let order = [3, 0, 2, 1, 3];
        let many = ix.entries(&order).unwrap();
        let one: Vec<_> = order.iter().map(|&p| ix.entry(p).unwrap()).collect();
        assert_eq!(many, one);
        let summaries: Vec<&str> = many.iter().map(|e| e.summary.as_str()).collect();
        assert_eq!(summaries, ["fourth", "first", "third", &big, "fourth"]);
    }

    #[test]
    fn a_replaced_file_is_not_read_in_place_of_the_indexed_one() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ledger.jsonl");
        std::fs::write(&path, line("a", "the indexed text")).unwrap();
        let ledger = Ledger::open(&path);
        let ix = ledger.index();
        assert_eq!(ix.entry(0).unwrap().summary, "the indexed text");
        // Replaced by rename: the index still reads the file it indexed, held open.
        let other = dir.path().join("other.jsonl");
        std::fs::write(&other, line("a", "a different text")).unwrap();
        std::fs::rename(&other, &path).unwrap();
        assert_eq!(ix.entry(0).unwrap().summary, "the indexed text");
    }

    proptest::proptest! {
        /// The key is the hash of the summary's words lowercased, joined by one space,
        /// trailing punctuation trimmed — its value is kept in snapshots, so however it is
        /// built it must stay this.
        #[test]
        fn a_fact_key_is_the_hash_of_the_words_lowercased_and_joined(
            summary in "[ a-zA-Z.!;:,\t\n\u{0}\u{1f}\u{e9}\u{c9}\u{2003}]{0,40}",
        ) {
            use std::hash::BuildHasher;
            let joined = summary
                .split_whitespace()
                .map(str::to_lowercase)
                .collect::<Vec<_>>()
                .join(" ");
            let key = joined.trim_end_matches(['.', '!', ';', ':', ',']);
            for kind in [Kind::Decision, Kind::Warning] {
                let want = super::hasher().hash_one((kind.index(), key));
                proptest::prop_assert_eq!(super::fact_key(kind, &summary), want);
            }
        }
    }

    proptest::proptest! {
        /// A shape is the summary's words without those holding a digit: the same for
        /// any text with the same such words (other separators, ASCII case, words with
        /// digits added), for any string.
        #[test]
        fn a_shape_keeps_only_the_words_without_digits(
            summary in "\\PC{0,40}",
            numbered in "[a-zé]{0,3}[0-9\u{663}\u{216b}]{1,3}[a-z0-9]{0,4}",
        ) {
            use super::shape_key;
            let words: Vec<&str> = summary
                .split(|c: char| !c.is_alphanumeric())
                .filter(|w| !w.is_empty() && !w.chars().any(|c| c.is_numeric()))
                .collect();
            let k = shape_key(&summary);
            proptest::prop_assert_eq!(shape_key(&words.join(" ")), k);
            proptest::prop_assert_eq!(shape_key(&words.join(", ")), k);
            proptest::prop_assert_eq!(shape_key(&summary.to_ascii_uppercase()), k);
            proptest::prop_assert_eq!(shape_key(&format!("{summary} {numbered}")), k);
        }
    }

    proptest::proptest! {
        /// A word print is the set of the summary's words: the same for any order,
        /// separators, repetition or ASCII case of the same words, for any string; a
        /// summary is its own near-twin (if it has words), and a print with its words
        /// doubled by as many new ones is still one.
        #[test]
        fn a_word_print_is_the_set_of_the_words(summary in "\\PC{0,60}", other in "\\PC{0,60}") {
            use super::{near_twins, word_print};
            let mut words: Vec<&str> = summary
                .split(|c: char| !c.is_alphanumeric())
                .filter(|w| !w.is_empty())
                .collect();
            let p = word_print(&summary);
            proptest::prop_assert!(p.count_ones() as usize <= words.len());
            words.reverse();
            proptest::prop_assert_eq!(word_print(&words.join(" ; ")), p);
            proptest::prop_assert_eq!(word_print(&format!("{summary} {summary}")), p);
            proptest::prop_assert_eq!(word_print(&summary.to_ascii_uppercase()), p);
            proptest::prop_assert_eq!(near_twins(p, p), p != 0);
            let both = word_print(&format!("{summary} {other}"));
            proptest::prop_assert_eq!(both, p | word_print(&other));
        }
    }

    #[test]
    fn word_prints_tell_a_note_written_again_from_a_different_one_in_any_script() {
        use super::{near_twins, word_print};
        let a =
            word_print("Do not run the session seed script against staging; it truncates tables");
        let b = word_print(
            "Do not run the key rotation seed script against staging; it truncates tables",
        );
        let c = word_print("Access tokens are valid for 15 minutes; refresh tokens for 30 days");
        assert!(near_twins(a, b));
        assert!(!near_twins(a, c));
        let ja = word_print(
            "ステージングでシード スクリプト を 実行 しない こと テーブル が 消える セッション",
        );
        let jb =
            word_print("ステージングでシード スクリプト を 実行 しない こと テーブル が 消える 鍵");
        let jc = word_print("アクセス トークン の 有効 期限 は 十五 分");
        assert!(near_twins(ja, jb));
        assert!(!near_twins(ja, jc));
        assert!(!near_twins(0, 0));
    }

    #[test]
    fn shapes_tell_routine_lines_from_different_ones_in_any_script() {
        use super::shape_key;
        let a = shape_key("Migration 0042_users.sql adds an index");
        assert_eq!(a, shape_key("migration 0043_users.sql adds an INDEX"));
        assert_ne!(a, shape_key("Migration 0042_users.sql drops an index"));
        let b = shape_key("Миграция 0042 добавляет индекс");
        assert_eq!(b, shape_key("миграция 0117 добавляет индекс"));
        assert_ne!(b, shape_key("Миграция 0042 удаляет индекс"));
        assert_ne!(shape_key("迁移 添加索引"), shape_key("迁移 删除索引"));
    }

    #[test]
    fn facts_ignore_case_spacing_and_trailing_punctuation_but_not_kind() {
        use super::fact_key;
        let a = fact_key(Kind::Decision, "Use  Postgres.");
        assert_eq!(a, fact_key(Kind::Decision, "use postgres"));
        assert_ne!(a, fact_key(Kind::Warning, "use postgres"));
        assert_ne!(a, fact_key(Kind::Decision, "use sqlite"));
    }
}
