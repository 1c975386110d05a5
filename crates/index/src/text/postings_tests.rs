//! Unit tests of the postings: heads, slots, narrow and wide lists, the frequency byte and
//! the snapshot's way back.

use super::*;

fn posting(doc: u32) -> Posting {
    Posting {
        doc,
        tf: [
            (doc % 9) as u8,
            1,
            (doc % 11) as u8,
            u8::from(doc.is_multiple_of(3)),
        ],
    }
}

/// Lists of every length built by pushes and given whole read back as they were, in
/// term order — frequencies that fit a byte and those kept aside alike; a head is 8
/// bytes.
#[test]
fn lists_read_back_whatever_their_length_and_frequencies() {
    assert_eq!(std::mem::size_of::<Head>(), 8);
    let mut p = Postings::default();
    let want: Vec<Vec<u32>> = (0..40u32).map(|t| (0..t * t % 37).collect()).collect();
    for (t, docs) in want.iter().enumerate() {
        p.push_term();
        for &d in docs {
            p.push(t as u32, posting(d * 3));
        }
    }
    for docs in &want {
        p.push_list(docs.iter().map(|&d| posting(d * 3)).collect());
    }
    assert_eq!(p.len(), 80);
    assert!(p.aside() > 0, "some frequencies do not fit a byte");
    let got: Vec<Vec<(u32, [u8; 4])>> = p
        .lists()
        .map(|l| l.iter().map(|x| (x.doc, x.tf)).collect())
        .collect();
    let want: Vec<Vec<(u32, [u8; 4])>> = want
        .iter()
        .map(|docs| docs.iter().map(|&d| (d * 3, posting(d * 3).tf)).collect())
        .collect();
    assert_eq!(got[..40], want[..]);
    assert_eq!(got[40..], want[..]);
    // Reads at a position, bisection, runs.
    let l = p.list(6); // 6 × 6 % 37 = 36 postings
    assert_eq!(l.len(), 36);
    assert_eq!(l.doc(5), 15);
    assert_eq!(l.get(35).tf, posting(105).tf);
    assert_eq!(l.last().map(|x| x.doc), Some(105));
    assert_eq!(l.below(15), 5);
    assert_eq!(l.below(16), 6);
    assert_eq!(l.count_le(2, 10, 15), 4);
    assert_eq!(l.find(15).map(|x| x.tf), Some(posting(15).tf));
    assert!(l.find(16).is_none());
    let runs: Vec<usize> = l.chunks(16).map(|r| r.len()).collect();
    assert_eq!(runs, vec![16, 16, 4]);
    assert_eq!(l.slice(16, 32).doc(0), 48);
}

/// A list stays narrow while its blocks fit and widens, for good, at the posting
/// that does not; either way, and read back from its records, it reads the same —
/// frequencies aside included — and a run of it starts where it was cut.
#[test]
fn a_list_widens_at_the_posting_too_far_and_reads_the_same() {
    let mut p = Postings::default();
    let docs: Vec<u32> = (0..70u32)
        .map(|i| if i < 40 { i * 7 } else { 100_000 + i * 9 })
        .collect();
    let far: Vec<u32> = vec![3, 70_000, 70_001, 900_000];
    for _ in 0..2 {
        p.push_term();
    }
    let layout = |p: &Postings, t: u32| p.list(t).narrow;
    for (i, &d) in docs.iter().enumerate() {
        p.push(0, posting(d));
        // One posting is held in its head. Posting 40 lies in block 1 (postings 32–63) 99,720 past its base.
        assert_eq!(layout(&p, 0), (1..40).contains(&i), "{i}");
    }
    for &d in &far {
        p.push(1, posting(d));
        assert!(!layout(&p, 1), "the first two lie too far apart");
    }
    let read = |p: &Postings| -> Vec<Vec<(u32, [u8; 4])>> {
        p.lists()
            .map(|l| l.iter().map(|x| (x.doc, x.tf)).collect())
            .collect()
    };
    let mk = |d: &[u32]| d.iter().map(|&d| (d, posting(d).tf)).collect::<Vec<_>>();
    assert_eq!(read(&p), vec![mk(&docs), mk(&far)]);
    let mut q = Postings::default();
    let mut escaped = 0;
    for l in p.lists() {
        let mut out = Vec::new();
        l.write_records(&mut out);
        escaped += q.push_records(&out, 1_000_000).unwrap();
    }
    q.restore_aside(p.aside_entries(), escaped).unwrap();
    assert_eq!(read(&q), read(&p));
    assert!(!layout(&q, 0) && !layout(&q, 1));
    // The first 40 alone are narrow, read back too.
    let mut r = Postings::default();
    r.push_list(docs[..40].iter().map(|&d| posting(d)).collect());
    let mut out = Vec::new();
    r.list(0).write_records(&mut out);
    let mut s = Postings::default();
    let escaped = s.push_records(&out, 1_000).unwrap();
    s.restore_aside(r.aside_entries(), escaped).unwrap();
    assert!(layout(&r, 0) && layout(&s, 0));
    assert_eq!(read(&s), read(&r));
    let run = s.list(0).slice(33, 38);
    assert_eq!((run.len(), run.doc(0), run.get(4).doc), (5, 33 * 7, 37 * 7));
    let want: Vec<_> = (33..38).map(|i| (i * 7, posting(i * 7).tf)).collect();
    assert_eq!(run.iter().map(|x| (x.doc, x.tf)).collect::<Vec<_>>(), want);
    let mut part = Vec::new();
    run.write_records(&mut part);
    assert_eq!(part, out[33 * REC..38 * REC]);
}

/// A list gets its slot with its second posting, in that order across terms; a list
/// of one posting or none has none.
#[test]
fn a_list_gets_its_slot_with_its_second_posting() {
    let mut p = Postings::default();
    for _ in 0..4 {
        p.push_term();
    }
    assert_eq!(p.push(2, posting(1)), Pushed::One);
    assert_eq!(p.push(0, posting(1)), Pushed::One);
    assert_eq!(p.push(0, posting(2)), Pushed::Slotted(0));
    assert_eq!(p.push(2, posting(3)), Pushed::Slotted(1));
    assert_eq!(p.push(0, posting(9)), Pushed::More(0));
    assert_eq!(p.push(3, posting(9)), Pushed::One);
    assert_eq!(p.slotted(), 2);
    assert_eq!(
        (p.slot(0), p.slot(1), p.slot(2), p.slot(3)),
        (Some(0), None, Some(1), None)
    );
    assert_eq!((p.slot_term(0), p.slot_term(1)), (0, 2));
    let docs = |l: List<'_>| l.iter().map(|x| x.doc).collect::<Vec<_>>();
    assert_eq!(docs(p.slot_list(0)), vec![1, 2, 9]);
    assert_eq!(docs(p.slot_list(1)), vec![1, 3]);
    assert_eq!(docs(p.list(3)), vec![9]);
    assert!(p.list(1).is_empty());
}

/// Every frequency a byte can hold is packed and unpacked to itself, and nothing else
/// is packed.
#[test]
fn a_frequency_byte_holds_what_it_can_and_nothing_more() {
    let mut packed = 0;
    for s in 0..10u8 {
        for t in 0..3u8 {
            for d in 0..10u8 {
                for r in 0..3u8 {
                    let tf = [s, t, d, r];
                    match pack(tf) {
                        Some(c) => {
                            packed += 1;
                            assert_ne!(c & 7, ESCAPE);
                            assert_eq!(unpack(c), tf);
                        }
                        None => assert!(s >= 7 || t >= 2 || d >= 8 || r >= 2),
                    }
                }
            }
        }
    }
    assert_eq!(packed, 7 * 2 * 8 * 2);
}

/// The snapshot's way back: a term's records and the frequencies aside restore lists
/// that read as the originals; records out of order, of no entry, an escaped record
/// without its frequencies or frequencies naming no escaped record are refused.
#[test]
fn records_and_the_frequencies_aside_come_back_whole_or_not_at_all() {
    let mut p = Postings::default();
    let lists: Vec<Vec<u32>> = vec![vec![], vec![5], (0..9).map(|d| d * 4).collect()];
    for (t, docs) in lists.iter().enumerate() {
        p.push_term();
        for &d in docs {
            p.push(t as u32, posting(d));
        }
    }
    let aside = p.aside_entries();
    assert!(!aside.is_empty(), "some frequencies do not fit a byte");
    let recs: Vec<Vec<u8>> = p
        .lists()
        .map(|l| {
            let mut out = Vec::new();
            l.write_records(&mut out);
            out
        })
        .collect();
    let back = |docs: usize, aside: Vec<(u32, u32, [u8; 4])>| {
        let mut q = Postings::default();
        let mut escaped = 0;
        for r in &recs {
            escaped += q.push_records(r, docs)?;
        }
        q.restore_aside(aside, escaped)?;
        Ok::<_, &str>(q)
    };
    let q = back(40, aside.clone()).unwrap();
    let read = |p: &Postings| -> Vec<Vec<(u32, [u8; 4])>> {
        p.lists()
            .map(|l| l.iter().map(|x| (x.doc, x.tf)).collect())
            .collect()
    };
    assert_eq!(read(&q), read(&p));
    assert_eq!(q.aside_entries(), aside);
    // A document past the ledger's end.
    assert!(back(32, aside.clone()).is_err());
    // Frequencies missing, named twice, or naming a posting that is not escaped.
    assert!(back(40, aside[1..].to_vec()).is_err());
    let mut twice = aside.clone();
    twice.push(aside[0]);
    assert!(back(40, twice).is_err());
    for doc in [5, 0] {
        // Term 2 has no document 5; its posting of document 0 fits its byte.
        let mut wrong = aside.clone();
        assert_eq!(wrong[0].0, 2);
        wrong[0].1 = doc;
        assert!(back(40, wrong).is_err(), "{doc}");
    }
    // Records out of order, or cut mid-record.
    let mut q = Postings::default();
    let swapped = [&recs[2][REC..2 * REC], &recs[2][..REC]].concat();
    assert!(q.push_records(&swapped, 40).is_err());
    assert!(q.push_records(&recs[2][..REC + 2], 40).is_err());
}

/// A run shares its list's bytes, yet a read past its end fails instead of answering
/// with the posting after it (what a horizon's run must never see).
#[test]
#[should_panic(expected = "a posting within the run")]
fn a_read_past_a_run_fails() {
    let mut p = Postings::default();
    p.push_list((0..40).map(|d| posting(d * 2)).collect());
    let run = p.list(0).slice(0, 10);
    assert_eq!(run.doc(9), 18);
    run.doc(10);
}
