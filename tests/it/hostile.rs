//! Hostile input: property tests over tool arguments and ledger/channel lines (no panic,
//! errors are tool errors), and path traversal in every path-forming field.
//!
//! The case count follows `PROPTEST_CASES` (default 256 per property); the documented fuzz
//! run is `PROPTEST_CASES=100000 cargo test --release --test hostile`.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use proptest::prelude::*;
use serde_json::{Map, Value, json};
use warroom_memory::clock::{FixedClock, Timestamp};
use warroom_memory::config::{Identity, Paths, Settings};
use warroom_memory::mcp::ToolSet;
use warroom_memory::mcp::profiles::find;
use warroom_memory::mcp::tools::TOOLS;
use warroom_memory::memory::Memory;

struct Sandbox {
    dir: tempfile::TempDir,
    memory: Memory,
}

impl Sandbox {
    fn new() -> Sandbox {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("project");
        std::fs::create_dir_all(root.join(".agents")).unwrap();
        let settings = Settings {
            fsync: false,
            ..Settings::default()
        };
        let clock = Arc::new(FixedClock::new(Timestamp(1_795_608_000)));
        let memory = Memory::open(Paths::under(&root), settings, clock).unwrap();
        Sandbox { dir, memory }
    }

    fn root(&self) -> PathBuf {
        self.dir.path().join("project")
    }

    /// Every path under the sandbox, relative to it.
    fn tree(&self) -> Vec<String> {
        fn walk(base: &Path, dir: &Path, out: &mut Vec<String>) {
            for e in std::fs::read_dir(dir).unwrap() {
                let p = e.unwrap().path();
                out.push(p.strip_prefix(base).unwrap().display().to_string());
                if p.is_dir() && !p.is_symlink() {
                    walk(base, &p, out);
                }
            }
        }
        let mut out = Vec::new();
        walk(self.dir.path(), self.dir.path(), &mut out);
        out
    }

    fn everything_inside_agents(&self) -> bool {
        self.tree()
            .iter()
            .all(|p| p == "project" || p.starts_with("project/.agents"))
    }
}

fn arg_names(tool: &str) -> Vec<String> {
    let t = find(ToolSet::All, tool).unwrap();
    let described = (t.describe)(t);
    described.input_schema["properties"]
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect()
}

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
        "\\PC{0,40}".prop_map(Value::from),
        prop_oneof![
            Just("../../etc/passwd"),
            Just("/abs"),
            Just("room-042"),
            Just("decision"),
            Just("*"),
            Just("room-["),
            Just("24h"),
            Just("EPIC-001"),
            Just("mem-nope"),
            Just("\u{0}"),
            Just("\u{202E}x"),
            Just("HEAD~1"),
            Just("--upload-pack=x"),
        ]
        .prop_map(Value::from),
        (0usize..20_000).prop_map(|n| Value::from("x".repeat(n))),
    ];
    leaf.prop_recursive(3, 24, 6, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            proptest::collection::btree_map("[a-z_]{1,10}", inner, 0..5)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

fn tool_call() -> impl Strategy<Value = (usize, Map<String, Value>)> {
    (0..TOOLS.len()).prop_flat_map(|i| {
        let names = arg_names(TOOLS[i].name);
        let key = prop_oneof![
            4 => proptest::sample::select(names),
            1 => "[a-z_]{1,12}",
        ];
        (
            Just(i),
            proptest::collection::btree_map(key, json_value(), 0..6)
                .prop_map(|m| m.into_iter().collect()),
        )
    })
}

proptest! {
    #[test]
    fn arbitrary_tool_arguments_never_panic(calls in proptest::collection::vec(tool_call(), 1..8)) {
        let sb = Sandbox::new();
        for who in [Identity::default(), Identity { room_id: Some("room-1".into()), role: Some("qa".into()), credential: None }] {
            for (i, args) in &calls {
                let r = (TOOLS[*i].call)(&sb.memory, &who, args.clone());
                if r.is_error == Some(true) {
                    let text: String = r.content.iter().filter_map(|c| c.as_text().map(|t| t.text.clone())).collect();
                    prop_assert!(!text.is_empty(), "{} returned an empty error", TOOLS[*i].name);
                    prop_assert!(r.structured_content.is_none());
                } else {
                    prop_assert!(r.structured_content.is_some(), "{} succeeded without structured content", TOOLS[*i].name);
                }
            }
        }
        prop_assert!(sb.everything_inside_agents(), "{:?}", sb.tree());
    }

    #[test]
    fn arbitrary_ledger_and_channel_lines_never_panic(lines in proptest::collection::vec(line(), 0..40), torn in any::<bool>()) {
        let sb = Sandbox::new();
        let mut data: Vec<u8> = lines.join(&b'\n');
        if !torn {
            data.push(b'\n');
        }
        let ledger = sb.root().join(".agents/ledger.jsonl");
        std::fs::write(&ledger, &data).unwrap();
        let room = sb.root().join(".agents/war-rooms/room-1");
        std::fs::create_dir_all(&room).unwrap();
        std::fs::write(room.join("channel.jsonl"), &data).unwrap();
        let memory = Memory::open(Paths::under(&sb.root()), Settings { fsync: false, ..Settings::default() }, Arc::new(FixedClock::new(Timestamp(1_795_608_000)))).unwrap();
        let stats = memory.stats().unwrap();
        prop_assert!(stats.entries <= lines.len());
        let who = Identity::default();
        for (tool, args) in [
            ("memory_query", json!({"room_id": "*"})),
            ("memory_search", json!({"text": "decision cache"})),
            ("channel_read", json!({"room_id": "room-1"})),
            ("memory_get_context", json!({"room_id": "room-2"})),
            ("memory_publish", json!({"kind": "code", "summary": "after the fuzz", "room_id": "room-1", "author_role": "qa"})),
        ] {
            let Value::Object(a) = args else { unreachable!() };
            let r = (find(ToolSet::All, tool).unwrap().call)(&memory, &who, a);
            prop_assert!(r.is_error != Some(true), "{tool} failed on a fuzzed ledger");
        }
        let report = warroom_memory::audit::verify::verify(&ledger, &Default::default(), &mut |_, _| {}).unwrap();
        prop_assert!(report.lines as usize >= lines.len());
        let after = std::fs::read(&ledger).unwrap();
        let d = warroom_memory::audit::diff::diff("a", &data, "b", &after);
        prop_assert!(d.append_only(), "a publish after fuzzed lines broke append-only: {:?}", d.violations);
    }
}

fn line() -> impl Strategy<Value = Vec<u8>> {
    let valid = (0u32..1000, prop_oneof![Just("decision"), Just("code"), Just("warning")], "\\PC{1,30}").prop_map(|(n, kind, summary)| {
        json!({"id": format!("mem-{n}"), "ts": "2026-11-20T00:00:00Z", "kind": kind, "room_id": "room-1", "author_role": "a", "tags": ["t"], "summary": summary, "supersedes": if n % 7 == 0 { Value::from(format!("mem-{}", n / 2)) } else { Value::Null }})
            .to_string()
            .into_bytes()
    });
    prop_oneof![
        4 => valid.clone(),
        2 => (valid, any::<prop::sample::Index>()).prop_map(|(v, at)| v[..at.index(v.len())].to_vec()),
        1 => proptest::collection::vec(any::<u8>(), 0..80).prop_map(|mut v| { v.retain(|b| *b != b'\n'); v }),
        1 => Just(b"{\"id\":\"x\",\"ts\":\"2026-11-20T00:00:00Z\",\"kind\":\"code\",\"summary\":\"\\ud800\"}".to_vec()),
        1 => Just(vec![b' '; 3]),
    ]
}

#[test]
fn path_traversal_is_refused_in_every_path_forming_field() {
    let sb = Sandbox::new();
    let bad = [
        "../x",
        "../../etc/passwd",
        "/etc/passwd",
        "a/b",
        "a\\b",
        "..",
        ".",
        ".hidden",
        "x\u{0}y",
        "room\u{2215}x",
        "room\u{FF0F}x",
        "r\u{202E}oom",
        "ro\u{200B}om",
        "",
        " ",
        "ф",
    ];
    let long = "x".repeat(200);
    let who = Identity::default();
    for v in bad.iter().copied().chain([long.as_str()]) {
        let cases = [
            (
                "memory_publish",
                json!({"kind": "code", "summary": "s", "room_id": v, "author_role": "qa"}),
            ),
            (
                "channel_post",
                json!({"room_id": v, "from": "qa", "type": "task", "body": "b"}),
            ),
            ("channel_read", json!({"room_id": v})),
            ("memory_get_context", json!({"room_id": v})),
            (
                "memory_get_context",
                json!({"room_id": "room-1", "plan_id": v}),
            ),
            (
                "memory_register_plan",
                json!({"plan_id": v, "plan": {"epics": [{"ref": "E", "room_id": "r"}]}}),
            ),
            (
                "memory_register_plan",
                json!({"plan": {"plan_id": v, "epics": [{"ref": "E", "room_id": "r"}]}}),
            ),
            (
                "memory_register_plan",
                json!({"plan": {"plan_id": "p", "epics": [{"ref": "E", "room_id": v}]}}),
            ),
            (
                "memory_register_plan",
                json!({"plan": format!("# T\n## EPIC-1 — A\nRoom: {v}\n")}),
            ),
        ];
        for (tool, args) in cases {
            let Value::Object(a) = args.clone() else {
                unreachable!()
            };
            let r = (find(ToolSet::All, tool).unwrap().call)(&sb.memory, &who, a);
            assert_eq!(r.is_error, Some(true), "{tool} accepted {v:?}: {args}");
        }
    }
    assert!(sb.everything_inside_agents(), "{:?}", sb.tree());
    assert_eq!(
        sb.tree(),
        vec!["project", "project/.agents"],
        "nothing was created at all"
    );
}
