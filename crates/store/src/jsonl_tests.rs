//! Tests of the JSONL store: appends under the lock, torn tails, the incremental tail.

use super::*;
use std::fs::OpenOptions;

fn lines(tail: &mut Tail) -> (Poll, Vec<(u64, u64, String)>) {
    let mut out = Vec::new();
    let p = tail
        .poll(|l| {
            out.push((
                l.line_no,
                l.offset,
                String::from_utf8_lossy(l.bytes).into_owned(),
            ))
        })
        .unwrap();
    (p, out)
}

#[test]
fn reads_only_complete_lines_and_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("l.jsonl");
    let mut t = Tail::new(&path);
    assert_eq!(lines(&mut t).0, Poll::Unchanged);
    std::fs::write(&path, "a\nbb\nccc").unwrap();
    let (p, got) = lines(&mut t);
    assert_eq!(p, Poll::Appended(2));
    assert_eq!(got, vec![(1, 0, "a".into()), (2, 2, "bb".into())]);
    assert_eq!(t.pending_bytes(), 3);
    assert_eq!(lines(&mut t).0, Poll::Unchanged);
    let mut f = OpenOptions::new().append(true).open(&path).unwrap();
    f.write_all(b"c\nd\n").unwrap();
    let (_, got) = lines(&mut t);
    assert_eq!(got, vec![(3, 5, "cccc".into()), (4, 10, "d".into())]);
    assert_eq!(t.pending_bytes(), 0);
}

#[test]
fn detects_replacement_and_shrinking() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("l.jsonl");
    std::fs::write(&path, "a\nb\n").unwrap();
    let mut t = Tail::new(&path);
    lines(&mut t);
    std::fs::write(&path, "x\n").unwrap(); // same inode, shorter
    assert!(matches!(lines(&mut t).0, Poll::Reset(_)));
    assert_eq!(lines(&mut t).1, vec![(1, 0, "x".into())]);
    let other = dir.path().join("new.jsonl");
    std::fs::write(&other, "y\nz\nw\n").unwrap();
    std::fs::rename(&other, &path).unwrap();
    assert!(matches!(lines(&mut t).0, Poll::Reset(_)));
    assert_eq!(lines(&mut t).1.len(), 3);
}

#[test]
fn append_repairs_a_torn_tail() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("l.jsonl");
    std::fs::write(&path, "{\"ok\":1}\n{\"torn\":").unwrap();
    let mut lock = AppendLock::acquire(&path, Duration::ZERO).unwrap();
    let r = lock
        .append("{\"new\":2}", &AppendOptions::default())
        .unwrap();
    assert!(r.repaired_torn_tail);
    drop(lock);
    let text = std::fs::read_to_string(&path).unwrap();
    assert_eq!(text, "{\"ok\":1}\n{\"torn\":\n{\"new\":2}\n");
    assert_eq!(text.get(r.offset as usize..), Some("{\"new\":2}\n"));
}

#[test]
fn a_held_lock_is_waited_for_only_so_long_and_its_holder_named() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("l.jsonl");
    let holder = AppendLock::acquire(&path, Duration::ZERO).unwrap();
    let err = AppendLock::acquire(&path, Duration::from_millis(100)).expect_err("the lock is held");
    assert_eq!(err.kind(), io::ErrorKind::TimedOut);
    let msg = err.to_string();
    assert!(
        msg.contains(&format!("by PID {}", std::process::id())),
        "{msg}"
    );
    drop(holder);
    assert!(AppendLock::acquire(&path, Duration::from_millis(100)).is_ok());
}

#[test]
fn failed_write_leaves_no_partial_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("l.jsonl");
    std::fs::write(&path, "{\"ok\":1}\n").unwrap();
    let opts = AppendOptions {
        fsync: true,
        fault: Some(Arc::new(FaultBudget::new(15))),
        lock_wait: Duration::ZERO,
        jail: None,
    };
    let mut lock = AppendLock::acquire(&path, Duration::ZERO).unwrap();
    lock.append("{\"a\":1}", &opts).unwrap(); // 8 bytes, budget left 7
    let err = lock.append("{\"b\":22222}", &opts).unwrap_err();
    assert_eq!(err.raw_os_error(), Some(28));
    drop(lock);
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "{\"ok\":1}\n{\"a\":1}\n"
    );
}

#[test]
fn oversized_lines_are_reported_and_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("l.jsonl");
    let mut content = vec![b'x'; MAX_LINE_BYTES + 10];
    content.extend_from_slice(b"\nok\n");
    std::fs::write(&path, &content).unwrap();
    let mut t = Tail::new(&path);
    let mut seen = Vec::new();
    t.poll(|l| seen.push((l.line_no, l.oversized, l.bytes.len())))
        .unwrap();
    assert_eq!(seen, vec![(1, true, 0), (2, false, 2)]);
    // A line that outgrows the limit before its newline arrives is skipped too.
    let path2 = dir.path().join("l2.jsonl");
    let mut content = vec![b'x'; MAX_LINE_BYTES + CHUNK + 1];
    content.extend_from_slice(b"\nok\n");
    std::fs::write(&path2, &content).unwrap();
    let mut seen = Vec::new();
    Tail::new(&path2)
        .poll(|l| seen.push((l.line_no, l.oversized, l.bytes.len())))
        .unwrap();
    assert_eq!(seen, vec![(1, true, 0), (2, false, 2)]);
}

#[test]
fn lines_across_reads_and_longer_than_a_read_come_back_whole() {
    // Lines of many lengths, one longer than a read and one just short of it, so that
    // reads end inside lines, on their newlines and inside a line that outgrows a read.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("l.jsonl");
    let mut lens: Vec<usize> = (0..4000).map(|i| (i * 7919) % 1500).collect();
    lens.insert(1000, CHUNK + CHUNK / 2);
    lens.insert(2000, CHUNK - 1);
    lens.insert(3000, 3 * CHUNK);
    let mut content = Vec::new();
    let mut want = Vec::new();
    for (i, &n) in lens.iter().enumerate() {
        want.push((
            i as u64 + 1,
            content.len() as u64,
            n,
            (b'a' + (i % 26) as u8),
        ));
        content.extend(std::iter::repeat_n(b'a' + (i % 26) as u8, n));
        content.push(b'\n');
    }
    std::fs::write(&path, &content).unwrap();
    let mut t = Tail::new(&path);
    let mut seen = Vec::new();
    t.poll(|l| {
        assert!(!l.oversized);
        let byte = l
            .bytes
            .first()
            .copied()
            .unwrap_or(b'a' + ((l.line_no - 1) % 26) as u8);
        assert!(
            l.bytes.iter().all(|&b| b == byte),
            "line {} is one byte repeated",
            l.line_no
        );
        seen.push((l.line_no, l.offset, l.bytes.len(), byte));
    })
    .unwrap();
    assert_eq!(seen, want);
    assert_eq!(t.offset(), content.len() as u64);
}
