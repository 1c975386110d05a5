//! Secrets never reach the disk, whatever field they are in and however they are disguised
//! (issue: trust boundaries). Everything through the real binary.

use crate::common;

use common::*;
use serde_json::{Value, json};

const GHP: &str = "ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d";
const AKIA: &str = "AKIAUVW75EFR6EDT4SYW";

fn disk(root: &std::path::Path) -> String {
    let mut all = String::new();
    for dir in [".agents", ".agents/plan"] {
        for f in std::fs::read_dir(root.join(dir))
            .into_iter()
            .flatten()
            .flatten()
        {
            if f.path().is_file() {
                all += &std::fs::read_to_string(f.path()).unwrap_or_default();
            }
        }
    }
    let rooms = root.join(".agents/war-rooms");
    for d in std::fs::read_dir(rooms).into_iter().flatten().flatten() {
        all += &std::fs::read_to_string(d.path().join("channel.jsonl")).unwrap_or_default();
    }
    all
}

#[tokio::test]
async fn identifiers_carrying_secrets_are_refused_and_nothing_is_written() {
    let p = project();
    let root = p.path();
    std::fs::create_dir_all(root.join(".agents/plan")).unwrap();
    // An operator (no identity) names rooms and roles itself.
    let op = agent(root).start().await;
    for (field, args) in [
        (
            "ref",
            json!({"kind": "decision", "summary": "x", "room_id": "room-1", "author_role": "eng", "ref": GHP}),
        ),
        (
            "author_role",
            json!({"kind": "decision", "summary": "x", "room_id": "room-1", "author_role": GHP}),
        ),
        (
            "room_id",
            json!({"kind": "decision", "summary": "x", "room_id": GHP, "author_role": "eng"}),
        ),
    ] {
        let e = op.err("memory_publish", args).await;
        assert!(
            e.contains(&format!("`{field}`")) && e.contains("secret"),
            "{e}"
        );
    }
    for (field, args) in [
        (
            "from",
            json!({"room_id": "room-1", "type": "task", "body": "hi", "from": GHP}),
        ),
        (
            "to",
            json!({"room_id": "room-1", "type": "task", "body": "hi", "from": "eng", "to": GHP}),
        ),
        (
            "ref",
            json!({"room_id": "room-1", "type": "task", "body": "hi", "from": "eng", "ref": GHP}),
        ),
    ] {
        let e = op.err("channel_post", args).await;
        assert!(
            e.contains(&format!("`{field}`")) && e.contains("secret"),
            "{e}"
        );
    }
    let plan = json!({"plan_id": "p1", "title": "t", "epics": [{"ref": GHP, "room_id": "room-9"}]});
    let e = op.err("memory_register_plan", json!({"plan": plan})).await;
    assert!(e.contains("epics[0].ref") && e.contains("secret"), "{e}");
    assert!(!disk(root).contains("ghp_"), "nothing written");
    assert!(ledger_lines(root).is_empty());
}

#[tokio::test]
async fn prose_fields_are_redacted_before_the_write() {
    let p = project();
    let root = p.path();
    let a = agent(root).room("room-1").role("eng").start().await;
    // A tag is scanned as given, before it is lower-cased.
    let out = a
        .ok(
            "memory_publish",
            json!({"kind": "decision", "summary": "deploy", "tags": ["ci", AKIA]}),
        )
        .await;
    assert_eq!(out["redacted"], json!(["aws-access-token"]));
    // A plan's title is prose: redacted; its file never holds the token.
    let plan = json!({"plan_id": "p1", "title": format!("rollout {GHP}"), "epics": [{"ref": "E1", "room_id": "room-1"}]});
    a.ok("memory_register_plan", json!({"plan": plan})).await;
    // Disguised: split by a zero-width space, and fullwidth.
    let split = format!("{}\u{200B}{}", GHP.split_at(12).0, GHP.split_at(12).1);
    let out = a
        .ok(
            "channel_post",
            json!({"type": "task", "body": format!("use {split} and ｐａｓｓｗｏｒｄ＝Hunter2!x")}),
        )
        .await;
    assert_eq!(out["redacted"], json!(["github-pat", "password"]));
    let all = disk(root);
    for secret in [
        AKIA,
        &AKIA.to_lowercase(),
        GHP,
        GHP.split_at(12).1,
        "Hunter2!x",
        "Ｈｕｎｔｅｒ",
    ] {
        assert!(!all.contains(secret), "`{secret}` reached the disk");
    }
    assert!(
        all.contains("[REDACTED:github-pat]"),
        "the plan title is redacted"
    );
}

/// The parts of `sample` a redaction removed: runs of credential-like characters (6+)
/// of its normalised form that are not in what was stored. Never empty for a caught secret.
fn removed(sample: &str, stored: &str) -> Vec<String> {
    let norm = warroom_memory::secrets::normalize(sample);
    let token = |c: char| c.is_ascii_alphanumeric() || "+/_-.=!&#%@:".contains(c);
    norm.split(|c: char| !token(c))
        .filter(|r| r.len() >= 6 && !stored.contains(*r))
        .map(str::to_string)
        .collect()
}

#[test]
fn every_corpus_secret_is_redacted_or_refused_and_never_on_disk() {
    // (The detection and false-positive figures are `cargo xtask bench secrets`, tested in
    // xtask/tests/secrets.rs.) Every positive sample, as an entry's detail and as a channel
    // message: with the default policy stored redacted, with `secrets: refuse` refused —
    // and in both modes its secret's bytes are in no file of the project.
    let corpus: Value = serde_saphyr::from_str(
        &std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/secrets/corpus.yaml"
        ))
        .unwrap(),
    )
    .unwrap();
    let samples: Vec<String> = corpus["positive"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["text"].as_str().unwrap().to_string())
        .collect();
    assert!(samples.len() >= 35);
    let post = |root: &std::path::Path, body: &str| {
        let body = format!("--body={body}");
        cli(
            root,
            &[
                "--json", "channel", "post", "--room", "room-1", "--from", "eng", "--type", "task",
                &body,
            ],
        )
    };
    let redact = project();
    let mut secrets = Vec::new();
    for sample in &samples {
        let detail = format!("--detail={sample}");
        let v = cli_publish_as(
            redact.path(),
            None,
            ("warning", "room-1", "eng"),
            "sample",
            &[&detail],
        );
        let gone = removed(sample, v["entry"]["detail"].as_str().unwrap());
        assert!(!gone.is_empty(), "{sample} was stored as is: {v}");
        let (code, out, err) = post(redact.path(), sample);
        assert_eq!(code, 0, "{err}");
        let m: Value = serde_json::from_str(&out).unwrap();
        let body = m["message"]["body"]
            .as_str()
            .unwrap_or_else(|| panic!("{m}"));
        assert!(
            !removed(sample, body).is_empty(),
            "{sample} posted as is: {m}"
        );
        secrets.extend(gone);
    }
    let refuse = project();
    std::fs::write(
        refuse.path().join(".agents/warroom.yaml"),
        "secrets: refuse\n",
    )
    .unwrap();
    for sample in &samples {
        let detail = format!("--detail={sample}");
        let (code, _, err) = cli(
            refuse.path(),
            &[
                "publish",
                "--kind",
                "warning",
                "--summary",
                "sample",
                &detail,
                "--room",
                "room-1",
                "--role",
                "eng",
            ],
        );
        assert_eq!(code, 2, "{sample}: {err}");
        assert!(err.contains("secret"), "{err}");
        let (code, _, err) = post(refuse.path(), sample);
        assert_eq!(code, 2, "{sample}: {err}");
        assert!(err.contains("secret"), "{err}");
    }
    assert!(
        ledger_lines(refuse.path()).is_empty(),
        "refused publishes wrote nothing"
    );
    for root in [redact.path(), refuse.path()] {
        let on_disk = disk(root);
        for s in &secrets {
            assert!(!on_disk.contains(s.as_str()), "`{s}` reached the disk");
        }
    }
    assert!(
        !refuse
            .path()
            .join(".agents/war-rooms/room-1/channel.jsonl")
            .exists()
            || std::fs::read_to_string(
                refuse.path().join(".agents/war-rooms/room-1/channel.jsonl")
            )
            .unwrap()
            .is_empty()
    );
}

/// Red-team finding 9: at every log level — `trace` included — no log line carries an
/// entry's text or a secret (the MCP library used to log whole requests at debug), nor a
/// bearer token; over stdio and over the daemon's HTTP edge.
#[tokio::test]
async fn logs_never_carry_an_entrys_text_or_a_secret_at_any_level() {
    let p = project();
    let summary = format!("rotate the deploy key {GHP} xyzzy-summary-marker");
    let detail = "plugh-detail-marker in the detail";
    let a = agent(p.path())
        .room("room-1")
        .role("eng")
        .env("WARROOM_LOG", "trace")
        .env("WARROOM_DAEMON", "off")
        .start()
        .await;
    publish(&a, "decision", &summary, json!({"detail": detail})).await;
    a.ok(
        "memory_search",
        json!({"text": "xyzzy-summary-marker", "room_id": "*"}),
    )
    .await;
    a.ok(
        "channel_post",
        json!({"type": "task", "body": "quux-channel-marker"}),
    )
    .await;
    drop(a);
    // The daemon's HTTP edge at trace.
    let rt = tempfile::tempdir().unwrap();
    let log = p.path().join("daemon-trace.log");
    let mut d = common::daemon::daemon_cmd(p.path(), rt.path(), &["--listen", "127.0.0.1:0"])
        .env("WARROOM_LOG", "trace")
        .stderr(std::fs::File::create(&log).unwrap())
        .spawn()
        .unwrap();
    common::daemon::wait_until_ready(p.path(), rt.path());
    let token = common::daemon::operator_token(p.path(), rt.path());
    let url = common::daemon::url_of(p.path(), rt.path());
    {
        use rmcp::ServiceExt;
        let transport = common::daemon::http_transport(&url, &token, Some("room-2"), Some("qa"));
        let client = ().serve(transport).await.unwrap();
        let Value::Object(args) =
            json!({"kind": "warning", "summary": format!("{AKIA} frobnicate-http-marker")})
        else {
            unreachable!()
        };
        client
            .call_tool(
                rmcp::model::CallToolRequestParams::new("memory_publish").with_arguments(args),
            )
            .await
            .unwrap();
        client.cancel().await.unwrap();
    }
    let _ = d.kill();
    let _ = d.wait();
    let mut logs = std::fs::read_to_string(&log).unwrap();
    for f in std::fs::read_dir(p.path()).unwrap().flatten() {
        if f.file_name().to_string_lossy().starts_with("stderr-") {
            logs += &std::fs::read_to_string(f.path()).unwrap();
        }
    }
    assert!(logs.lines().count() >= 3, "the servers logged: {logs}");
    for never in [
        GHP,
        AKIA,
        "xyzzy-summary-marker",
        "plugh-detail-marker",
        "quux-channel-marker",
        "frobnicate-http-marker",
        token.as_str(),
    ] {
        assert!(!logs.contains(never), "`{never}` is in the logs:\n{logs}");
    }
}

/// Red-team finding 3, through the binary: a token split between summary and detail, a
/// JSON-escaped webhook, a password on a command line and tokens broken by invisible
/// characters of every class never reach the disk; everyday random-looking text (an
/// integrity hash, an SSH public key) is stored unchanged.
#[test]
fn new_secret_shapes_never_reach_the_disk_and_everyday_text_is_kept() {
    let p = project();
    let root = p.path();
    let token = "ghp_Q7m2Kx9LpR4vT8nW3yZ6aB1cD5eF0gH2jJ4k";
    let (head, tail) = token.split_at(17);
    cli_publish_as(
        root,
        None,
        ("warning", "room-1", "eng"),
        &format!("rotated the CI key, new value {head}"),
        &[&format!("--detail={tail} (effective today)")],
    );
    let hook = r#"{"url":"https:\/\/hooks.slack.com\/services\/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"}"#;
    let curl = "curl -u deploy:Harbor-88309! https://api.acme.io/v1/items";
    for text in [hook, curl] {
        cli_publish_as(root, None, ("warning", "room-1", "eng"), text, &[]);
    }
    let classes = [
        '\u{034F}',
        '\u{FE0F}',
        '\u{E0101}',
        '\u{E0020}',
        '\u{3164}',
        '\u{115F}',
        '\u{1160}',
        '\u{FFA0}',
        '\u{061C}',
        '\u{1D173}',
        '\u{180E}',
        '\u{2061}',
        '\u{200D}',
        '\u{00AD}',
    ];
    let key = "AKIAQ3M8K2LXZ7N4P1RW";
    for c in classes {
        let hidden = format!("{}{c}{}", key.split_at(9).0, key.split_at(9).1);
        cli_publish_as(
            root,
            None,
            ("warning", "room-1", "eng"),
            &format!("use {hidden} for deploys"),
            &[],
        );
    }
    let integrity = "\"integrity\": \"sha512-4m9XKpR2vLq8nT3wY6zB1cD5eF0gH7jJ9kM2oP4rS6uV8xA0bC3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW3xY5zA7bC==\"";
    let pubkey =
        "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIKq8mT3vL9xR2nW7yB4cD6eF1gH5jJ0kM3oP8rS2uV4 ci@build";
    for text in [integrity, pubkey] {
        let v = cli_publish_as(root, None, ("convention", "room-1", "eng"), text, &[]);
        assert_eq!(v["redacted"], json!([]), "{text}: {v}");
        assert_eq!(v["entry"]["summary"], text);
    }
    let on_disk = disk(root);
    for secret in [
        head,
        tail,
        "Vx8Kp2Lm9Qr4St6Uw1Yz3Ab5",
        "Harbor-88309!",
        key,
        key.split_at(9).1,
    ] {
        assert!(!on_disk.contains(secret), "`{secret}` reached the disk");
    }
}

/// A team's own rules in gitleaks' format: `.gitleaks.toml` at the root (or the file
/// `secrets: { rules: FILE }` names) adds rules that find the team's misses and
/// allowlists that keep its false alarms; a bad file stops the server with an error that
/// names the file and the rule. And everyday values the red team found altered are kept.
#[test]
fn a_teams_gitleaks_rules_and_allowlists_apply_and_a_bad_file_is_refused() {
    let p = project();
    let root = p.path();
    let publish = |summary: &str| -> (i32, Value, String) {
        let (code, out, err) = cli(
            root,
            &[
                "--json",
                "publish",
                "--kind",
                "decision",
                "--room",
                "r1",
                "--role",
                "eng",
                "--summary",
                summary,
            ],
        );
        (code, serde_json::from_str(&out).unwrap_or(Value::Null), err)
    };
    let miss = "queue ack_9k2m4p7q1x3z is the staging one";
    let alarm = "build bld-Zq8xW3vN5mK2pL7rT9yB4cD6fH1jA0 failed on arm64";
    // Without the team's file: its key is kept, its build id redacted.
    let (_, v, _) = publish(miss);
    assert!(
        v["entry"]["summary"]
            .as_str()
            .unwrap()
            .contains("ack_9k2m4p7q1x3z")
    );
    let (_, v, _) = publish(alarm);
    assert!(
        !v["entry"]["summary"].as_str().unwrap().contains("bld-Zq8x"),
        "{v}"
    );
    std::fs::write(
        root.join(".gitleaks.toml"),
        r#"title = "acme"
[[rules]]
id = "acme-queue-key"
description = "Acme's queue keys"
regex = '''\b(ack_[a-z0-9]{12})\b'''
keywords = ["ack_"]
[[allowlists]]
description = "build ids"
regexes = ['''^bld-[A-Za-z0-9]{20,}$''']
"#,
    )
    .unwrap();
    let (code, v, err) = publish(&miss.replace("9k2", "5r7"));
    assert_eq!(code, 0, "{err}");
    assert_eq!(v["redacted"], json!(["acme-queue-key"]), "{v}");
    let (_, v, _) = publish(alarm);
    assert_eq!(
        v["entry"]["summary"], alarm,
        "the team's allowlist keeps it"
    );
    assert!(!disk(root).contains("ack_5r7m4p7q1x3z"));

    // The same file named in warroom.yaml, elsewhere; a bad one is refused at start.
    std::fs::rename(
        root.join(".gitleaks.toml"),
        root.join(".agents/team-rules.toml"),
    )
    .unwrap();
    std::fs::write(
        root.join(".agents/warroom.yaml"),
        "secrets: { policy: refuse, rules: .agents/team-rules.toml }\n",
    )
    .unwrap();
    let (code, _, err) = publish("queue ack_1a2b3c4d5e6f is the staging one");
    assert_eq!(code, 2, "refused under `policy: refuse`");
    assert!(err.contains("acme-queue-key"), "{err}");
    std::fs::write(
        root.join(".agents/team-rules.toml"),
        "[[rules]]\nid = \"broken\"\nregex = '''(ack_'''\n",
    )
    .unwrap();
    let before = std::fs::read_to_string(common::ledger(root)).unwrap();
    let (code, _, err) = publish("anything at all");
    assert_eq!(code, 2);
    assert!(
        err.contains("team-rules.toml") && err.contains("rule `broken`") && err.contains("Fix"),
        "{err}"
    );
    assert_eq!(
        std::fs::read_to_string(common::ledger(root)).unwrap(),
        before
    );
    std::fs::remove_file(root.join(".agents/warroom.yaml")).unwrap();

    // Everyday values a red team found altered: stored as written.
    for kept in [
        "The API token is hashed to 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08 in the tokens table",
        "The JS glue calls wbg.__wbg_randomFillSync_ab2cfe79ebbf2740 which throws",
        "The PNG data URI iVBORw0KGgoAAAANSUhEUgAAABAAAAAQCAYAAAAf8/9hAAAAGUlEQVR42mNk+M9Qz0AEYBxVSF+FAAhKDveksOjmAAAAAElFTkSuQmCC is the logo",
        "worker log: decoded payload=CgtyZWZyZXNoLWpvYhIQY2F0YWxvZy1pbmRleGVyGgcIARDoBxgDIgxidWlsZC0yMDI2LTEx for job 42",
    ] {
        let (code, v, err) = publish(kept);
        assert_eq!(code, 0, "{err}");
        assert_eq!(v["entry"]["summary"], kept, "{v}");
    }
}
