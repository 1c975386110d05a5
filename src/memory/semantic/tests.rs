//! Two processes saving one vector cache: neither save undoes the other's rows.

use std::sync::Arc;

use super::SemanticState;
use crate::semantic::cache::CachePlace;
use crate::semantic::id_key;
use crate::snapshot::SnapshotPlace;

/// A unit vector of 8 dimensions pointing mostly along `axis`.
fn unit(axis: usize) -> Vec<f32> {
    let mut v = [0.1f32; 8];
    v[axis] = 1.0;
    let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    v.iter().map(|x| x / n).collect()
}

/// The vector cache of a ledger and model under `dir`.
fn cache_in(dir: &tempfile::TempDir) -> CachePlace {
    let place = SnapshotPlace {
        dir: dir.path().join("cache"),
        min_entries: 0,
    };
    CachePlace::new(&place, "ledger", "model-x")
}

/// The semantic state a process opening `cache` now would have (no model: saving and
/// storing do not embed).
fn opened(cache: &CachePlace) -> SemanticState {
    SemanticState::for_tests(8, None, Some(cache.clone()))
}

#[test]
fn a_save_keeps_the_rows_another_process_saved_since_this_one_read_the_cache() {
    let dir = tempfile::tempdir().unwrap();
    let cache = cache_in(&dir);
    // A daemon and a backfill open the same (missing) cache.
    let daemon = Arc::new(opened(&cache));
    let backfill = opened(&cache);
    // The backfill embeds two entries and saves…
    backfill.store(0, "mem-a", &unit(0));
    backfill.store(1, "mem-b", &unit(1));
    backfill.save();
    // …then the daemon, which embedded a third meanwhile, saves.
    daemon.store(2, "mem-c", &unit(2));
    daemon.save();
    let after = cache.load(8, &|_, _| true).unwrap();
    for (pos, id) in [(0, "mem-a"), (1, "mem-b"), (2, "mem-c")] {
        assert!(after.belongs(pos, id_key(id)), "row {pos} ({id}) was kept");
    }
    // The daemon holds them too now (found by meaning without a restart)…
    assert!(daemon.vectors.read().unwrap().belongs(0, id_key("mem-a")));
    // …and a row it has is never replaced by another process's row for that position.
    let other = opened(&cache);
    other.vectors.write().unwrap().clear();
    other.store(2, "mem-z", &unit(5));
    other.save();
    daemon.store(3, "mem-d", &unit(3));
    daemon.save();
    let last = cache.load(8, &|_, _| true).unwrap();
    assert!(last.belongs(2, id_key("mem-c")), "its own row stays");
    assert!(last.belongs(3, id_key("mem-d")));
    // Saving again with nothing new from others reads nothing (the stamp is its own).
    let seen = *daemon.seen.lock().unwrap();
    assert_eq!(seen, cache.stamp());
}

#[test]
fn a_vector_stored_while_a_save_holds_the_rows_waits_and_is_kept() {
    let dir = tempfile::tempdir().unwrap();
    let cache = cache_in(&dir);
    let s = opened(&cache);
    s.store(0, "mem-a", &unit(0));
    let saving = |on: bool| s.saving.store(on, std::sync::atomic::Ordering::Release);
    {
        // A save in progress holds the rows for reading: a publish's store does not wait.
        saving(true);
        let held = s.vectors.read().unwrap();
        s.store(1, "mem-b", &unit(1));
        assert!(!held.has(1), "not stored under the save's feet");
    }
    saving(false);
    // The next store takes it in…
    s.store(2, "mem-c", &unit(2));
    assert!(s.vectors.read().unwrap().belongs(1, id_key("mem-b")));
    // …and so does a save, with whatever waits then.
    {
        saving(true);
        let _held = s.vectors.read().unwrap();
        s.store(3, "mem-d", &unit(3));
    }
    saving(false);
    s.save();
    let saved = cache.load(8, &|_, _| true).unwrap();
    for (pos, id) in [(0, "mem-a"), (1, "mem-b"), (2, "mem-c"), (3, "mem-d")] {
        assert!(saved.belongs(pos, id_key(id)), "row {pos} saved");
    }
}
