//! Property test: the ledger behaves like a plain `Vec` of entries with a "superseded" flag,
//! through any sequence of publishes, supersedes (of live, superseded and unknown ids) and
//! reopenings from disk; queried by tag and by room.

use std::sync::Arc;

use proptest::prelude::*;
use warroom_memory::api::ledger::{FilterArgs, PublishArgs, QueryArgs};
use warroom_memory::clock::{FixedClock, Timestamp};
use warroom_memory::config::{Identity, Paths, Settings};
use warroom_memory::entry::Kind;
use warroom_memory::memory::Memory;

#[derive(Debug, Clone)]
enum Op {
    Publish {
        room: u8,
        kind: u8,
        tag: u8,
        supersede: Option<u8>,
    },
    Reopen,
    Tick(u16),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => (0u8..3, 0u8..6, 0u8..4, proptest::option::of(0u8..40))
            .prop_map(|(room, kind, tag, supersede)| Op::Publish { room, kind, tag, supersede }),
        1 => Just(Op::Reopen),
        2 => (0u16..5000).prop_map(Op::Tick),
    ]
}

#[derive(Debug, Clone)]
struct ModelEntry {
    id: String,
    room: String,
    tag: String,
    live: bool,
}

fn open(root: &std::path::Path, clock: &Arc<FixedClock>) -> Memory {
    let settings = Settings {
        fsync: false,
        ..Settings::default()
    };
    Memory::open(Paths::under(root), settings, clock.clone()).unwrap()
}

fn all(memory: &Memory, tag: Option<&str>) -> (Vec<String>, usize) {
    by(memory, tag, "*")
}

fn by(memory: &Memory, tag: Option<&str>, room: &str) -> (Vec<String>, usize) {
    let args = QueryArgs {
        filter: FilterArgs {
            room_id: Some(room.into()),
            tags: tag.map(|t| vec![t.to_string()]),
            ..FilterArgs::default()
        },
        last_n: None,
    };
    let q = memory.query(args, &Identity::default()).unwrap();
    (q.entries.into_iter().map(|e| e.id).collect(), q.total)
}

fn expected(model: &[ModelEntry], tag: Option<&str>) -> (Vec<String>, usize) {
    expected_in(model, tag, None)
}

fn expected_in(
    model: &[ModelEntry],
    tag: Option<&str>,
    room: Option<&str>,
) -> (Vec<String>, usize) {
    let live: Vec<&ModelEntry> = model
        .iter()
        .filter(|e| e.live && tag.is_none_or(|t| e.tag == t) && room.is_none_or(|r| e.room == r))
        .collect();
    // Timestamps never go backwards here, so newest first = reverse publication order.
    (
        live.iter().rev().take(50).map(|e| e.id.clone()).collect(),
        live.len(),
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    #[test]
    fn ledger_matches_a_vec_model(ops in proptest::collection::vec(op(), 1..60)) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join(".agents")).unwrap();
        let clock = Arc::new(FixedClock::new(Timestamp(1_795_000_000)));
        let mut memory = open(dir.path(), &clock);
        let mut model: Vec<ModelEntry> = Vec::new();
        for op in ops {
            match op {
                Op::Publish { room, kind, tag, supersede } => {
                    // An index past the model names an id that was never published.
                    let target = supersede.and_then(|i| model.get(i as usize).cloned());
                    let unknown = match (supersede, &target) {
                        (Some(i), None) => Some(format!("mem-never-published-{i}")),
                        _ => None,
                    };
                    let room = format!("room-{room}");
                    let tag = format!("t{tag}");
                    let args = PublishArgs {
                        kind: Kind::ALL[kind as usize],
                        summary: format!("fact number {} about {tag}", model.len()),
                        tags: vec![tag.clone()],
                        room_id: Some(room.clone()),
                        author_role: Some("engineer".into()),
                        ref_: None,
                        detail: None,
                        supersedes: target.as_ref().map(|t| t.id.clone()).or(unknown.clone()),
                        idempotency_key: None,
                        audience: None,
                    };
                    let result = memory.publish(args, &Identity::default());
                    match (&target, result) {
                        (Some(t), Err(e)) => {
                            prop_assert!(!t.live, "superseding live {} failed: {e}", t.id);
                            prop_assert!(e.to_string().contains("already superseded"), "{e}");
                        }
                        (Some(t), Ok(out)) => {
                            prop_assert!(t.live, "superseded an already superseded entry");
                            model.iter_mut().find(|m| m.id == t.id).unwrap().live = false;
                            model.push(ModelEntry { id: out.entry.id, room, tag, live: true });
                        }
                        (None, Ok(out)) => {
                            prop_assert!(unknown.is_none(), "superseded an unknown id: {:?}", unknown);
                            model.push(ModelEntry { id: out.entry.id, room, tag, live: true });
                        }
                        (None, Err(e)) => {
                            prop_assert!(unknown.is_some(), "plain publish failed: {e}");
                            prop_assert!(e.to_string().contains("mem-never-published"), "{e}");
                        }
                    }
                }
                Op::Reopen => memory = open(dir.path(), &clock),
                Op::Tick(s) => clock.advance(i64::from(s)),
            }
            prop_assert_eq!(all(&memory, None), expected(&model, None));
            prop_assert_eq!(all(&memory, Some("t1")), expected(&model, Some("t1")));
            prop_assert_eq!(by(&memory, None, "room-1"), expected_in(&model, None, Some("room-1")));
            prop_assert_eq!(
                by(&memory, Some("t2"), "room-2"),
                expected_in(&model, Some("t2"), Some("room-2"))
            );
        }
        // The file holds exactly one valid line per successful publish, in order.
        let text = std::fs::read_to_string(dir.path().join(".agents/ledger.jsonl")).unwrap_or_default();
        let ids: Vec<String> = text
            .lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["id"].as_str().unwrap().to_string())
            .collect();
        prop_assert_eq!(ids, model.iter().map(|m| m.id.clone()).collect::<Vec<_>>());
    }
}
