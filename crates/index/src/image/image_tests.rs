//! The snapshot codec: an index read back answers like the original; damaged bytes are
//! an error, never a panic.

use super::*;
use crate::test_support::FileIndex as Ledger;
use crate::{Filter, Ranking, Scorer};

const LINES: &[&str] = &[
    r#"{"id":"a","ts":"2026-11-02T00:00:00+00:00","kind":"decision","room_id":"r1","author_role":"architect","ref":"EPIC-1","tags":["db","cache"],"summary":"use postgres","detail":"why","idempotency_key":"k1"}"#,
    r#"{"id":"b","ts":"2026-11-01T00:00:00Z","kind":"warning","room_id":"r2","author_role":"qa","ref":"","tags":[],"summary":"token [REDACTED:aws]","redacted":["aws"],"plan_id":"p1"}"#,
    r#"{"id":"c","ts":"2026-11-03T00:00:00Z","kind":"decision","room_id":"r1","author_role":"architect","ref":"EPIC-1","tags":["db"],"summary":"use sqlite","supersedes":"a"}"#,
    r#"{"id":"d","ts":"2026-11-04T00:00:00Z","kind":"code","room_id":"r3","author_role":"engineer","ref":"","tags":[],"summary":"later","supersedes":"zz"}"#,
    r#"not json"#,
    r#"{"id":"a","ts":"2026-11-05T00:00:00Z","kind":"code","room_id":"r3","author_role":"engineer","ref":"","tags":[],"summary":"dup"}"#,
    // Frequencies too large for a posting's byte: kept aside, and written so.
    r#"{"id":"e","ts":"2026-11-06T00:00:00Z","kind":"warning","room_id":"r2","author_role":"qa","ref":"","tags":[],"summary":"retry retry retry retry retry retry retry retry budget","detail":"retry retry retry retry retry retry retry retry retry"}"#,
    // A later term ("later") gets its second posting before an earlier one ("cache"): their
    // slots are in the other order than their term ids.
    r#"{"id":"f","ts":"2026-11-07T00:00:00Z","kind":"code","room_id":"r3","author_role":"engineer","ref":"","tags":[],"summary":"later"}"#,
    r#"{"id":"g","ts":"2026-11-08T00:00:00Z","kind":"code","room_id":"r3","author_role":"engineer","ref":"","tags":[],"summary":"cache"}"#,
];

/// The ledger of `LINES` in a temporary directory (kept alive by the first value), its
/// path, the ledger read from it, and its index encoded.
fn encoded() -> (tempfile::TempDir, std::path::PathBuf, Ledger, Enc) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ledger.jsonl");
    std::fs::write(&path, LINES.join("\n") + "\n").unwrap();
    let ledger = Ledger::open(&path);
    let mut w = Enc::default();
    encode(ledger.index(), &mut w).unwrap();
    (dir, path, ledger, w)
}

#[test]
fn an_index_read_back_answers_like_the_original() {
    let (_dir, path, ledger, w) = encoded();
    let ix = ledger.index();
    let mut r = Dec::new(&w.0);
    let back = decode(&mut r, plain(&path)).unwrap();
    assert!(r.is_empty());
    // Its text index written again, the same bytes: the per-term tables derived for
    // lists of one posting and kept per slot for the others (slots in another order once
    // read back) come out as they went in. (The whole snapshot is not byte-stable: maps
    // of pending supersedes and idempotency keys are written in their hash order.)
    let (mut before, mut again) = (Enc::default(), Enc::default());
    encode_text(&ix.text, &mut before);
    encode_text(&back.text, &mut again);
    assert!(
        again.0 == before.0,
        "the text index read back writes the same bytes"
    );
    assert!(
        back.text.postings.slotted() > 0 && back.text.postings.slotted() < back.text.postings.len(),
        "lists of one posting and longer ones"
    );
    let slots = |t: &TextIndex| {
        let id = |w: &str| t.terms.get(&t.tokenize(w)[0]).unwrap();
        (t.postings.slot(id("later")), t.postings.slot(id("cache")))
    };
    let (later, cache) = slots(&ix.text);
    assert!(
        later < cache,
        "slotted in the order of their second postings"
    );
    let (later, cache) = slots(&back.text);
    assert!(later > cache, "read back, slotted in term order");
    assert_eq!(back.len(), ix.len());
    for pos in 0..ix.len() as u32 {
        assert_eq!(back.entry(pos).unwrap(), ix.entry(pos).unwrap());
        assert_eq!(back.meta(pos).live, ix.meta(pos).live);
        assert_eq!(
            back.stored(pos).superseded_by(),
            ix.stored(pos).superseded_by()
        );
        assert_eq!(back.fact(pos), ix.fact(pos));
        assert_eq!(back.shape(pos), ix.shape(pos));
        assert_eq!(back.print(pos), ix.print(pos));
        assert_eq!(back.slot(pos), ix.slot(pos));
    }
    assert_eq!(back.entry(0).unwrap().ts, "2026-11-02T00:00:00+00:00");
    assert_eq!(back.entry(1).unwrap().redacted, vec!["aws".to_string()]);
    assert_eq!(back.problems(), ix.problems());
    assert_eq!(back.in_time_order(), ix.in_time_order());
    assert_eq!(
        back.chrono().iter().collect::<Vec<_>>(),
        ix.chrono().iter().collect::<Vec<_>>()
    );
    assert_eq!(back.in_time_order(), ix.in_time_order());
    assert_eq!(back.position("c"), Some(2));
    assert_eq!(back.by_idempotency_key("r1", "k1"), Some(0));
    assert_eq!(
        back.dangling_supersedes().collect::<Vec<_>>(),
        ix.dangling_supersedes().collect::<Vec<_>>()
    );
    let sc = Scorer {
        now: warroom_base::clock::parse_rfc3339("2026-11-10T00:00:00Z").unwrap(),
        half_lives: crate::entry::Kind::default_half_lives(),
        ranking: Ranking::default(),
    };
    let (f1, f2) = (
        Filter::default().compile(ix),
        Filter::default().compile(&back),
    );
    assert!(
        ix.text.postings.aside() > 0,
        "a posting's frequencies aside"
    );
    assert_eq!(
        back.text.postings.aside_entries(),
        ix.text.postings.aside_entries()
    );
    for q in [
        "postgres",
        "db token",
        "later sqlite",
        "retry",
        "retry budget",
        "later cache",
    ] {
        let a = ix.search(q, &f1, 10, &sc);
        assert_eq!(back.search(q, &f2, 10, &sc), a, "{q}");
    }
    let tag = Filter {
        tags: vec!["db".into()],
        ..Filter::default()
    };
    assert_eq!(
        back.query(&tag.compile(&back), 10),
        ix.query(&tag.compile(ix), 10)
    );
}

#[test]
fn cut_or_bent_bytes_are_an_error_not_a_panic() {
    let (_dir, path, _ledger, w) = encoded();
    for cut in (0..w.0.len()).step_by(7) {
        assert!(decode(&mut Dec::new(&w.0[..cut]), plain(&path)).is_err());
    }
    // A bent byte is rejected, or (a byte of text or a score) decoded — never a panic.
    // (The MAC keeps bent bytes from reaching `decode` at all; this is the backstop.)
    let rejected = (0..w.0.len())
        .step_by(3)
        .filter(|&i| {
            let mut b = w.0.clone();
            b[i] ^= 0xA5;
            decode(&mut Dec::new(&b), plain(&path)).is_err()
        })
        .count();
    assert!(rejected > 0);
}

#[test]
fn a_stream_read_in_chunks_hashes_every_byte_once_however_much_is_taken() {
    let (_dir, path, _ledger, w) = encoded();
    let key = [7u8; 32];
    let whole = blake3::keyed_hash(&key, &w.0);
    // Decoded whole: the digest covers every byte.
    let mut r = Dec::reading(
        &w.0[..],
        w.0.len() as u64,
        Some(blake3::Hasher::new_keyed(&key)),
    );
    decode(&mut r, plain(&path)).unwrap();
    assert!(r.is_empty());
    assert_eq!(r.finish().unwrap(), Some(whole));
    // Stopped early (as when a header does not match): the rest is still hashed.
    let mut r = Dec::reading(
        &w.0[..],
        w.0.len() as u64,
        Some(blake3::Hasher::new_keyed(&key)),
    );
    assert_eq!(r.u32().unwrap().to_le_bytes(), w.0[..4]);
    assert_eq!(r.finish().unwrap(), Some(whole));
    // A source shorter than announced is an error, never a panic or a short digest.
    let r = Dec::reading(&w.0[..10], 20, Some(blake3::Hasher::new_keyed(&key)));
    assert!(r.finish().is_err());
}

#[test]
fn a_spilling_writer_writes_and_hashes_exactly_what_an_in_memory_one_holds() {
    let (dir, _path, ledger, w) = encoded();
    let key = [9u8; 32];
    let file = dir.path().join("spilled");
    let out = std::fs::File::create(&file).unwrap();
    let mut s = Enc::spilling(out, blake3::Hasher::new_keyed(&key));
    encode(ledger.index(), &mut s).unwrap();
    let (out, mac) = s.finish().unwrap().unwrap();
    drop(out);
    let spilled = std::fs::read(&file).unwrap();
    assert_eq!(spilled, w.0);
    assert_eq!(mac.finalize(), blake3::keyed_hash(&key, &w.0));
    assert!(w.finish().is_none(), "an in-memory writer has no file");
}

/// A first read with the text index on its own thread ([`super::inverted_job`]) builds the
/// same index as one thread, bit for bit: the same text index and the same slots,
/// through duplicates, supersedes of earlier and of later lines, and several batches.
#[test]
fn a_bulk_load_on_two_threads_builds_the_index_one_thread_builds() {
    use crate::entry::{Entry, EntryRef, Kind};
    let words = [
        "cache",
        "retry",
        "token",
        "auth",
        "login",
        "ledger",
        "queue",
        "schema",
        "deploy",
        "invoice",
        "cents",
        "argon2",
        "session_ttl",
        "RateLimiter",
        "http://x.example/a?b=1",
    ];
    let entries: Vec<Entry> = (0..3_000usize)
        .map(|i| {
            let pick = |k: usize| words[(i * 7 + k * 13 + i / 5) % words.len()];
            Entry {
                // Every 97th line repeats an earlier id: a duplicate, not indexed.
                id: if i % 97 == 96 {
                    format!("e{}", i - 50)
                } else {
                    format!("e{i}")
                },
                ts: format!("2026-11-{:02}T{:02}:00:00Z", 1 + i % 28, i % 24),
                kind: Kind::ALL[i % Kind::ALL.len()],
                room_id: format!("room-{}", i % 9),
                author_role: "engineer".into(),
                ref_: format!("EPIC-{}", i % 4),
                tags: (0..i % 3).map(|k| pick(k + 5).to_string()).collect(),
                summary: format!("{} {} {} w{}", pick(0), pick(1), pick(2), i % 400),
                detail: if i % 4 == 0 {
                    format!("{} detail {i}", pick(3))
                } else {
                    String::new()
                },
                // Supersedes of an earlier line, and (every 31st) of a later one.
                supersedes: match i {
                    _ if i % 31 == 30 => Some(format!("e{}", i + 3)),
                    _ if i % 7 == 6 => Some(format!("e{}", i - 6)),
                    _ => None,
                },
                plan_id: (i % 2 == 0).then(|| "p1".to_string()),
                redacted: vec![],
                audience: None,
            }
        })
        .collect();
    let build = |two_threads: bool| {
        let mut ix = LedgerIndex::with_texts_in(std::sync::Arc::new(
            crate::test_support::PlainFile::new(std::path::Path::new("ledger.jsonl")),
        ));
        ix.begin_bulk_on(two_threads);
        for (i, e) in entries.iter().enumerate() {
            let ts = warroom_base::clock::parse_rfc3339(&e.ts).unwrap();
            let loc = Loc {
                line: i as u64 + 1,
                offset: i as u64 * 100,
            };
            ix.apply(&EntryRef::from(e), ts, loc, b"");
        }
        ix.end_bulk();
        ix
    };
    let (one, two) = (build(false), build(true));
    assert!(one.problems().1 > 0, "the ledger has duplicates to skip");
    assert!(one.live_count() < one.len(), "and supersedes");
    // The text index as a snapshot holds it (the rest of a snapshot lists hash maps in
    // their own order, which differs between any two builds).
    let bytes = |ix: &LedgerIndex| {
        let mut w = Enc::default();
        encode_text(&ix.text, &mut w);
        w.0
    };
    let (a, b) = (bytes(&one), bytes(&two));
    let first_difference = a.iter().zip(&b).position(|(x, y)| x != y);
    assert_eq!(
        (a.len(), first_difference),
        (b.len(), None),
        "the text indexes differ"
    );
    assert!(
        one.text.terms.iter().eq(two.text.terms.iter()),
        "the vocabularies differ"
    );
    for pos in 0..one.len() as u32 {
        assert_eq!(one.slot(pos), two.slot(pos), "slot of {pos}");
    }
}

#[test]
fn tags_that_do_not_follow_one_another_in_position_order_are_refused() {
    // Each entry's record: time 8, four symbols 16, kind and liveness 2, its id (a length
    // of 8 and one byte here), then where its tags start (4) and how many (4), its
    // superseder (4) and its line and offset (16): 63 bytes after the count of 8.
    let (_dir, path, ledger, w) = encoded();
    assert_eq!(
        ledger.index().tags_of(0).len(),
        2,
        "the first entry has two tags"
    );
    assert!(ledger.index().tags_of(1).is_empty());
    let start_of = |pos: usize| 8 + 63 * pos + 35;
    let read = |b: &[u8], at: usize| u32::from_le_bytes(b[at..at + 4].try_into().unwrap());
    assert_eq!(
        (read(&w.0, start_of(0)), read(&w.0, start_of(0) + 4)),
        (0, 2)
    );
    assert_eq!(
        (read(&w.0, start_of(1)), read(&w.0, start_of(1) + 4)),
        (2, 0)
    );
    assert!(decode(&mut Dec::new(&w.0), plain(&path)).is_ok());
    for (at, v) in [(start_of(1), 1u32), (start_of(1), 3), (start_of(0) + 4, 1)] {
        let mut b = w.0.clone();
        b[at..at + 4].copy_from_slice(&v.to_le_bytes());
        let err = decode(&mut Dec::new(&b), plain(&path)).err();
        assert!(
            matches!(err, Some(Bad("tags out of order" | "tags out of range"))),
            "{v} at {at}: {err:?}"
        );
    }
}

/// A spilling writer holds about a chunk, never a table: the per-term tables and the
/// documents' lengths are written value by value, and each value may spill first (a
/// first start's snapshot held 18 MB a table at 4.6M terms, left behind in the heap).
#[test]
fn a_spilling_writer_never_holds_more_than_a_chunk_and_one_value() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ledger.jsonl");
    // Many terms, so that each per-term table is far larger than a test chunk (7 bytes).
    let lines: Vec<String> = (0..40)
        .map(|i| {
            let words: Vec<String> = (0..25).map(|k| format!("w{i}x{k}")).collect();
            format!(
                r#"{{"id":"e{i}","ts":"2026-11-02T00:00:00Z","kind":"decision","room_id":"r1","author_role":"qa","ref":"","tags":[],"summary":"{}"}}"#,
                words.join(" ")
            )
        })
        .collect();
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    let ledger = Ledger::open(&path);
    assert!(ledger.index().text.terms.len() >= 1000);
    let mut s = Enc::spilling(
        std::fs::File::create(dir.path().join("spilled")).unwrap(),
        blake3::Hasher::new_keyed(&[1; 32]),
    );
    encode(ledger.index(), &mut s).unwrap();
    assert!(s.0.capacity() <= 64, "held {} bytes", s.0.capacity());
    let mut w = Enc::default();
    encode(ledger.index(), &mut w).unwrap();
    s.finish().unwrap().unwrap();
    let spilled = std::fs::read(dir.path().join("spilled")).unwrap();
    assert_eq!(spilled, w.0);
}

/// The file at `path` read back, as a test's index reads it.
fn plain(path: &std::path::Path) -> std::sync::Arc<dyn warroom_base::fsx::ReadAt> {
    std::sync::Arc::new(crate::test_support::PlainFile::new(path))
}
