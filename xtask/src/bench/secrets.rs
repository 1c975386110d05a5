//! `bench secrets`: how well and how fast the secret scanner works.
//!
//! Detection rate on the positive samples of the corpus (`tests/fixtures/secrets/
//! corpus.yaml`), false-positive rate on its negative samples and on ordinary text — the
//! bundled example project's entries and channel messages, generated ledger entries, and
//! LoCoMo's dialogue turns when present — and the scan time of 16 KB hostile inputs.

use std::path::Path;
use std::time::Instant;

use anyhow::Context as _;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use warroom_memory::secrets::scan;

#[derive(Deserialize)]
struct CorpusFile {
    positive: Vec<Positive>,
    negative: Vec<String>,
}

#[derive(Deserialize)]
struct Positive {
    why: String,
    text: String,
}

/// False positives on one set of ordinary text.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct FpSet {
    /// What the texts are.
    pub name: String,
    /// Texts scanned.
    pub texts: usize,
    /// Texts with a finding.
    pub flagged: usize,
    /// Up to 5 flagged texts (cut to 120 characters), to see why.
    pub examples: Vec<String>,
}

/// Scan time of one hostile input.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Timing {
    /// What the input is.
    pub input: String,
    /// Its size in bytes.
    pub bytes: usize,
    /// Median scan time, microseconds.
    pub p50_us: u64,
    /// Slowest scan, microseconds.
    pub max_us: u64,
}

/// What `bench secrets` measured.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct SecretsReport {
    /// Detection rules loaded.
    pub rules: usize,
    /// Positive samples.
    pub positives: usize,
    /// Positive samples caught.
    pub detected: usize,
    /// The `why` of every positive sample missed.
    pub missed: Vec<String>,
    /// False positives per set (the corpus's negatives first).
    pub sets: Vec<FpSet>,
    /// Hostile inputs.
    pub timings: Vec<Timing>,
}

fn fp_set(name: &str, texts: impl IntoIterator<Item = String>) -> FpSet {
    let mut set = FpSet {
        name: name.to_string(),
        texts: 0,
        flagged: 0,
        examples: Vec::new(),
    };
    for t in texts {
        set.texts += 1;
        let s = scan(&t);
        if !s.kinds.is_empty() {
            set.flagged += 1;
            if set.examples.len() < 5 {
                let cut: String = t.chars().take(120).collect();
                set.examples.push(format!("[{}] {cut}", s.kinds.join(",")));
            }
        }
    }
    set
}

/// Texts of the example project: entry summaries and details, channel bodies.
fn example_texts(root: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let ledger = root.join(".agents/ledger.jsonl");
    for line in std::fs::read_to_string(&ledger).unwrap_or_default().lines() {
        if let Ok(e) = serde_json::from_str::<warroom_memory::entry::Entry>(line) {
            out.push(e.summary);
            if !e.detail.is_empty() {
                out.push(e.detail);
            }
        }
    }
    let rooms = root.join(".agents/war-rooms");
    for dir in std::fs::read_dir(rooms).into_iter().flatten().flatten() {
        let ch = dir.path().join("channel.jsonl");
        for line in std::fs::read_to_string(ch).unwrap_or_default().lines() {
            if let Ok(v) = serde_json::from_str::<serde_json::Value>(line)
                && let Some(b) = v["body"].as_str()
            {
                out.push(b.to_string());
            }
        }
    }
    out
}

fn hostile_inputs() -> Vec<(String, String)> {
    const N: usize = 16 * 1024;
    let fill = |unit: &str| {
        let mut s = unit.repeat(N / unit.len() + 1);
        let mut end = N;
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        s.truncate(end);
        s
    };
    let mut rng = super::corpus::Rng::new(3);
    let alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let random: String = (0..N)
        .map(|_| alphabet[rng.below(64) as usize] as char)
        .collect();
    vec![
        (
            "keyword soup (password= key token secret)".into(),
            fill("password=x key: token secret auth "),
        ),
        (
            "URL credentials, repeated".into(),
            fill("postgres://u:p@h/ "),
        ),
        ("one 16 KB base64 token".into(), random),
        (
            "PEM headers without ends".into(),
            fill("-----BEGIN PRIVATE KEY-----\n"),
        ),
        (
            "generic assignments".into(),
            fill("MYAPP_API_KEY=abcDEF123456ghiJKL7890 "),
        ),
        (
            "zero-width and fullwidth".into(),
            fill("ｐａｓｓ\u{200B}ｗｏｒｄ＝ "),
        ),
    ]
}

fn time(input: &str) -> (u64, u64) {
    let mut runs: Vec<u64> = (0..21)
        .map(|_| {
            let t = Instant::now();
            std::hint::black_box(scan(input));
            t.elapsed().as_micros() as u64
        })
        .collect();
    runs.sort_unstable();
    (runs[runs.len() / 2], runs[runs.len() - 1])
}

/// Runs the measurement. `example_root` is a project with `.agents/`; `locomo` is
/// LoCoMo's `locomo10.json` when available.
pub fn run(
    corpus: &Path,
    example_root: &Path,
    locomo: Option<&Path>,
) -> anyhow::Result<SecretsReport> {
    let text = std::fs::read_to_string(corpus)
        .with_context(|| format!("reading the secret corpus {}", corpus.display()))?;
    let file: CorpusFile = serde_saphyr::from_str(&text)
        .with_context(|| format!("{} does not parse", corpus.display()))?;
    let started = Instant::now();
    let rules = warroom_memory::secrets::rules().rules.len();
    tracing::info!(ms = started.elapsed().as_millis() as u64, "rules compiled");
    let mut missed = Vec::new();
    for p in &file.positive {
        if scan(&p.text).kinds.is_empty() {
            missed.push(p.why.clone());
        }
    }
    let mut sets = vec![
        fp_set("corpus negatives", file.negative.clone()),
        fp_set(
            "example project entries and messages",
            example_texts(example_root),
        ),
    ];
    let mut generated =
        super::corpus::Corpus::new(11, warroom_memory::clock::Timestamp(1_795_000_000));
    sets.push(fp_set(
        "generated ledger entries (10,000)",
        (0..10_000).map(|i| {
            let e = generated.entry(i, 10_000);
            format!("{} {}", e.summary, e.detail)
        }),
    ));
    if let Some(path) = locomo {
        let (groups, _) = super::locomo::load(path)?;
        sets.push(fp_set(
            "LoCoMo dialogue turns",
            groups
                .into_iter()
                .flat_map(|g| g.entries.into_iter().map(|e| e.summary)),
        ));
    }
    let timings = hostile_inputs()
        .into_iter()
        .map(|(name, input)| {
            let (p50_us, max_us) = time(&input);
            Timing {
                input: name,
                bytes: input.len(),
                p50_us,
                max_us,
            }
        })
        .collect();
    Ok(SecretsReport {
        rules,
        positives: file.positive.len(),
        detected: file.positive.len() - missed.len(),
        missed,
        sets,
        timings,
    })
}

/// README-ready tables.
pub fn markdown(r: &SecretsReport) -> String {
    use std::fmt::Write as _;
    let mut s = format!(
        "{} rules. Detection: {}/{} positive samples ({:.1} %){}\n\n| text | texts | flagged | rate |\n|---|---:|---:|---:|\n",
        r.rules,
        r.detected,
        r.positives,
        100.0 * r.detected as f64 / r.positives.max(1) as f64,
        if r.missed.is_empty() {
            String::new()
        } else {
            format!("; missed: {}", r.missed.join(", "))
        }
    );
    for set in &r.sets {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {:.2} % |",
            set.name,
            set.texts,
            set.flagged,
            100.0 * set.flagged as f64 / set.texts.max(1) as f64
        );
    }
    for set in r.sets.iter().filter(|s| !s.examples.is_empty()) {
        let _ = writeln!(s, "\nflagged in {}:", set.name);
        for e in &set.examples {
            let _ = writeln!(s, "  {}", warroom_memory::validate::printable(e));
        }
    }
    s.push_str("\n| hostile input (16 KB) | p50 | max |\n|---|---:|---:|\n");
    for t in &r.timings {
        let _ = writeln!(
            s,
            "| {} | {:.2} ms | {:.2} ms |",
            t.input,
            t.p50_us as f64 / 1000.0,
            t.max_us as f64 / 1000.0
        );
    }
    s
}
