//! The console's open overlaps kept between views (`Memory::overlaps_kept`): a view after
//! new entries leaves out the pairs they closed, does not show pairs it has not looked
//! for yet and says so; the next pass finds them; a room's view is the whole list's pairs
//! that involve it.

use std::sync::Arc;

use warroom_memory::api::ledger::PublishArgs;
use warroom_memory::clock::{FixedClock, Timestamp};
use warroom_memory::config::{Identity, Paths, Settings};
use warroom_memory::entry::Kind;
use warroom_memory::memory::Memory;

/// A memory on a new, empty project, on `clock`.
fn open(clock: Arc<dyn warroom_memory::clock::Clock>) -> (tempfile::TempDir, Memory) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join(".agents")).unwrap();
    let settings = Settings {
        fsync: false,
        ..Settings::default()
    };
    let m = Memory::open(Paths::under(dir.path()), settings, clock).unwrap();
    (dir, m)
}

fn publish(m: &Memory, room: &str, summary: &str, supersedes: Option<&str>) -> String {
    let args = PublishArgs {
        kind: Kind::Decision,
        summary: summary.into(),
        tags: vec![],
        room_id: Some(room.into()),
        author_role: Some("engineer".into()),
        ref_: None,
        detail: None,
        supersedes: supersedes.map(str::to_string),
        idempotency_key: None,
        audience: None,
    };
    m.publish(args, &Identity::default()).unwrap().entry.id
}

/// The shown pairs as (older id, newer id).
fn ids(v: &warroom_memory::memory::OverlapsView) -> Vec<(String, String)> {
    v.found
        .pairs
        .iter()
        .map(|p| (p.a.id.clone(), p.b.id.clone()))
        .collect()
}

#[test]
fn kept_pairs_close_at_once_and_new_ones_wait_for_the_next_pass() {
    let (_dir, m) = open(Arc::new(FixedClock::new(Timestamp(1_795_608_000))));
    let cents = publish(
        &m,
        "room-001",
        "Money is stored as integer cents in the amount_cents column.",
        None,
    );
    let dollars = publish(
        &m,
        "room-002",
        "Money is stored as DECIMAL dollars; the amount_cents column is dropped.",
        None,
    );
    publish(
        &m,
        "room-004",
        "The background image of the login page is a blurred photo.",
        None,
    );

    // Nothing kept before a pass; a pass keeps its pairs, a second finds them current.
    assert!(m.overlaps_kept(None, 50).unwrap().is_none());
    assert!(m.overlaps_refresh().unwrap());
    assert!(
        !m.overlaps_refresh().unwrap(),
        "nothing new: no second pass"
    );
    let v = m.overlaps_kept(None, 50).unwrap().unwrap();
    assert!(v.current());
    assert_eq!(ids(&v), vec![(cents.clone(), dollars.clone())]);
    assert_eq!((v.found.open, v.as_of, v.entries), (1, 3, 3));

    // A third room decides the same subject: not looked for until the next pass, and the
    // view says how many entries it has not looked at.
    let third = publish(
        &m,
        "room-003",
        "Money is stored as integer cents (amount_cents) in the ledger tables too.",
        None,
    );
    let v = m.overlaps_kept(None, 50).unwrap().unwrap();
    assert!(!v.current());
    assert_eq!((v.as_of, v.entries), (3, 4));
    assert_eq!(ids(&v), vec![(cents.clone(), dollars.clone())]);

    // room-002 reconciles by superseding its entry: the kept pair closes at once.
    let agreed = publish(
        &m,
        "room-002",
        "Money is integer cents everywhere (amount_cents), as room-001 decided.",
        Some(&dollars),
    );
    let v = m.overlaps_kept(None, 50).unwrap().unwrap();
    assert_eq!(v.found.open, 0, "{:?}", ids(&v));
    assert!(v.found.pairs.is_empty());

    // The next pass looks at the new entries: the third room's decision pairs with
    // room-001's (the agreeing entry names room-001 but not its id, so it pairs too).
    assert!(m.overlaps_refresh().unwrap());
    let v = m.overlaps_kept(None, 50).unwrap().unwrap();
    assert!(v.current());
    let pairs = ids(&v);
    assert!(pairs.contains(&(cents.clone(), third.clone())), "{pairs:?}");
    assert!(
        pairs.iter().all(|(a, b)| a != &dollars && b != &dollars),
        "a superseded entry is in no pair: {pairs:?}"
    );
    assert!(pairs.iter().any(|(_, b)| b == &agreed), "{pairs:?}");

    // A room's view is the whole list's pairs that involve it.
    let of3 = m.overlaps_kept(Some("room-003"), 50).unwrap().unwrap();
    let want: Vec<(String, String)> = v
        .found
        .pairs
        .iter()
        .filter(|p| p.a.room_id == "room-003" || p.b.room_id == "room-003")
        .map(|p| (p.a.id.clone(), p.b.id.clone()))
        .collect();
    assert!(!want.is_empty());
    assert_eq!(ids(&of3), want);
    assert_eq!(of3.found.open, want.len());
    let none = m.overlaps_kept(Some("room-009"), 50).unwrap().unwrap();
    assert_eq!(none.found.open, 0);
    // Fewer shown than open: the rest counted.
    let one = m.overlaps_kept(None, 1).unwrap().unwrap();
    assert_eq!((one.found.pairs.len(), one.found.open), (1, v.found.open));
    assert_eq!(one.found.pairs[0], v.found.pairs[0], "the strongest first");

    // An entry that names another's id has seen it: no pair between those two.
    let namer = publish(
        &m,
        "room-005",
        &format!("Money is integer cents (amount_cents) in reports too, as {cents} says."),
        None,
    );
    assert!(m.overlaps_refresh().unwrap());
    let pairs = ids(&m.overlaps_kept(None, 50).unwrap().unwrap());
    assert!(
        pairs.iter().any(|(_, b)| b == &namer),
        "it pairs with the others: {pairs:?}"
    );
    assert!(
        !pairs.contains(&(cents.clone(), namer.clone())),
        "named, so seen: {pairs:?}"
    );

    // A room that cannot be one is an error naming the field.
    let e = m.overlaps_kept(Some("../x"), 50).unwrap_err().to_string();
    assert!(e.contains("`room`"), "{e}");
}

/// A clock one second later at every reading: a pass, which reads it when it starts and
/// when it ends, takes at least a second by it.
struct Ticking(std::sync::atomic::AtomicI64);

impl warroom_memory::clock::Clock for Ticking {
    fn now(&self) -> Timestamp {
        Timestamp(self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst))
    }
}

/// A view's pass runs at most once per ten times the last one's length: a new entry right
/// after a pass leaves the kept pairs as they are, and the same call later runs the pass.
#[test]
fn a_views_pass_is_paced_by_the_last_ones_length() {
    let clock = Arc::new(Ticking(1_795_608_000.into()));
    let (_dir, m) = open(clock.clone());
    publish(
        &m,
        "room-001",
        "Money is integer cents (amount_cents).",
        None,
    );
    publish(
        &m,
        "room-002",
        "Money is DECIMAL dollars, not amount_cents.",
        None,
    );
    assert!(m.overlaps_refresh_paced().unwrap(), "nothing kept: a pass");
    let v = m.overlaps_kept(None, 50).unwrap().unwrap();
    assert!(v.took >= 1, "the pass read the clock twice: {}", v.took);
    assert_eq!(v.next_pass.0, v.computed_at.0 + 10 * v.took);

    publish(
        &m,
        "room-003",
        "Money is integer cents (amount_cents) here too.",
        None,
    );
    assert!(
        !m.overlaps_refresh_paced().unwrap(),
        "too soon after the last pass"
    );
    let v = m.overlaps_kept(None, 50).unwrap().unwrap();
    assert!(!v.current());
    assert_eq!(
        v.found.open, 1,
        "the kept pairs, the new entry not looked at"
    );

    // Later, the same call runs the pass.
    clock.0.fetch_add(3600, std::sync::atomic::Ordering::SeqCst);
    assert!(m.overlaps_refresh_paced().unwrap());
    let v = m.overlaps_kept(None, 50).unwrap().unwrap();
    assert!(v.current());
    assert!(v.found.open >= 2, "the new entry's pairs: {}", v.found.open);
}
