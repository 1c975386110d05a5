//! `bench secrets`: how well and how fast the secret scanner works.
//!
//! Detection rate on the positive samples of the corpora — `tests/fixtures/secrets/
//! corpus.yaml` (hand-written: every sample must be caught, no negative flagged) and
//! `wide.yaml` (hundreds of realistic credentials and everyday texts, by category, held to
//! ≥ 95 % of secrets found and ≤ 5 % of everyday texts altered) — false-positive rate on
//! their negatives and on ordinary text (the bundled example project's entries and channel
//! messages, generated ledger entries, LoCoMo's dialogue turns when present), and the scan
//! time of 16 KB hostile inputs. A sample with a `detail` is scanned as publish scans an
//! entry: summary and detail together ([`warroom_memory::secrets::scan_fields`]). A sample
//! with a `secret` counts as caught only if that secret's bytes are gone from what would be
//! stored (corpora from heldout-12 on record it; earlier ones count any finding).

use std::path::Path;
use std::time::Instant;

use anyhow::Context as _;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use warroom_memory::secrets::{scan, scan_fields};

#[derive(Deserialize)]
struct CorpusFile {
    positive: Vec<Positive>,
    negative: Vec<Negative>,
}

#[derive(Deserialize)]
struct Positive {
    #[serde(default)]
    category: Option<String>,
    why: String,
    text: String,
    #[serde(default)]
    detail: Option<String>,
    /// The secret itself, where the corpus records it: the sample counts as caught only
    /// if these bytes are gone from every stored field, not merely if something was
    /// flagged.
    #[serde(default)]
    secret: Option<String>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum Negative {
    Plain(String),
    Sorted { category: String, text: String },
}

/// Detection target on the wide corpus (share of secrets found).
pub const DETECTION_TARGET: f64 = 0.95;
/// False-positive ceiling on the wide corpus (share of everyday texts altered).
pub const FALSE_POSITIVE_CEILING: f64 = 0.05;

/// One category of one corpus: secrets found, or everyday texts flagged.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct CategoryRate {
    /// The corpus file's name.
    pub corpus: String,
    /// `secret` or `everyday`.
    pub kind: String,
    /// The category (command-line, saas-token, integrity-hash, …).
    pub category: String,
    /// Samples.
    pub samples: usize,
    /// Secrets found (for `secret`) or texts flagged (for `everyday`).
    pub hits: usize,
    /// Up to 12 samples on the wrong side (missed secrets, flagged texts), cut.
    pub wrong: Vec<String>,
}

/// Totals of one corpus.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct CorpusRate {
    /// The corpus file's name.
    pub corpus: String,
    /// Secrets, and how many were found.
    pub secrets: usize,
    /// Secrets found.
    pub found: usize,
    /// Everyday texts, and how many were flagged.
    pub everyday: usize,
    /// Everyday texts flagged.
    pub flagged: usize,
    /// ≥ 95 % of its secrets found and ≤ 5 % of its everyday texts flagged.
    pub meets_targets: bool,
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
    /// Mean scan time per text, microseconds (what the scan adds to a publish).
    pub mean_us: f64,
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
    /// False positives per set (the first corpus's negatives first).
    pub sets: Vec<FpSet>,
    /// Per corpus, totals.
    pub corpora: Vec<CorpusRate>,
    /// Per corpus and category, rates.
    pub categories: Vec<CategoryRate>,
    /// Every corpus after the first meets ≥ 95 % found and ≤ 5 % flagged.
    pub targets_met: bool,
    /// Hostile inputs.
    pub timings: Vec<Timing>,
    /// Each password kind in sentences that name it and that name nothing.
    pub kinds: Vec<super::kinds::KindRate>,
}

fn fp_set(name: &str, texts: impl IntoIterator<Item = String>) -> FpSet {
    let mut set = FpSet {
        name: name.to_string(),
        texts: 0,
        flagged: 0,
        examples: Vec::new(),
        mean_us: 0.0,
    };
    let mut spent = std::time::Duration::ZERO;
    for t in texts {
        set.texts += 1;
        let started = Instant::now();
        let s = scan(&t);
        spent += started.elapsed();
        if !s.kinds.is_empty() {
            set.flagged += 1;
            if set.examples.len() < 5 {
                let cut: String = t.chars().take(120).collect();
                set.examples.push(format!("[{}] {cut}", s.kinds.join(",")));
            }
        }
    }
    set.mean_us = spent.as_secs_f64() * 1e6 / set.texts.max(1) as f64;
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
            "accounts and markup (admin:x root / y <p name=\"pass\" value=)".into(),
            fill("admin:x root / y as a with <p name=\"pass\" value=\"z "),
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

fn load(corpus: &Path) -> anyhow::Result<CorpusFile> {
    let text = std::fs::read_to_string(corpus)
        .with_context(|| format!("reading the secret corpus {}", corpus.display()))?;
    serde_saphyr::from_str(&text).with_context(|| format!("{} does not parse", corpus.display()))
}

/// True if a positive sample is caught, scanned as publish scans an entry: something was
/// flagged and, where the corpus records the secret, its bytes are in no stored field.
fn caught(p: &Positive) -> bool {
    let scans = match &p.detail {
        Some(d) => scan_fields(&[&p.text, d]),
        None => vec![scan(&p.text)],
    };
    scans.iter().any(|s| !s.kinds.is_empty())
        && p.secret
            .as_deref()
            .is_none_or(|secret| scans.iter().all(|s| !s.text.contains(secret)))
}

/// Per-category rates of one corpus.
fn rates(name: &str, file: &CorpusFile) -> (CorpusRate, Vec<CategoryRate>) {
    let mut cats: Vec<CategoryRate> = Vec::new();
    fn slot(cats: &mut Vec<CategoryRate>, name: &str, kind: &str, category: &str) -> usize {
        match cats
            .iter()
            .position(|c| c.kind == kind && c.category == category)
        {
            Some(i) => i,
            None => {
                cats.push(CategoryRate {
                    corpus: name.to_string(),
                    kind: kind.to_string(),
                    category: category.to_string(),
                    samples: 0,
                    hits: 0,
                    wrong: Vec::new(),
                });
                cats.len() - 1
            }
        }
    }
    let cut =
        |t: &str| warroom_memory::validate::printable(&t.chars().take(100).collect::<String>());
    for p in &file.positive {
        let i = slot(
            &mut cats,
            name,
            "secret",
            p.category.as_deref().unwrap_or("corpus"),
        );
        cats[i].samples += 1;
        if caught(p) {
            cats[i].hits += 1;
        } else if cats[i].wrong.len() < 12 {
            cats[i].wrong.push(format!("{}: {}", p.why, cut(&p.text)));
        }
    }
    for n in &file.negative {
        let (category, text) = match n {
            Negative::Plain(t) => ("corpus", t.as_str()),
            Negative::Sorted { category, text } => (category.as_str(), text.as_str()),
        };
        let i = slot(&mut cats, name, "everyday", category);
        cats[i].samples += 1;
        let s = scan(text);
        if !s.kinds.is_empty() {
            cats[i].hits += 1;
            if cats[i].wrong.len() < 12 {
                cats[i]
                    .wrong
                    .push(format!("[{}] {}", s.kinds.join(","), cut(text)));
            }
        }
    }
    let sum = |kind: &str| {
        cats.iter()
            .filter(|c| c.kind == kind)
            .fold((0, 0), |(n, h), c| (n + c.samples, h + c.hits))
    };
    let ((secrets, found), (everyday, flagged)) = (sum("secret"), sum("everyday"));
    (
        CorpusRate {
            corpus: name.to_string(),
            secrets,
            found,
            everyday,
            flagged,
            meets_targets: found as f64 >= DETECTION_TARGET * secrets as f64
                && flagged as f64 <= FALSE_POSITIVE_CEILING * everyday as f64,
        },
        cats,
    )
}

/// Runs the measurement on `corpora` (the first is the strict one: every sample must be
/// caught, no negative flagged; the others are held to the targets). `example_root` is a
/// project with `.agents/`; `locomo` is LoCoMo's `locomo10.json` when available.
pub fn run(
    corpora: &[std::path::PathBuf],
    example_root: &Path,
    locomo: Option<&Path>,
    timing: bool,
) -> anyhow::Result<SecretsReport> {
    let first = corpora.first().context("no secret corpus given")?;
    let file = load(first)?;
    let started = Instant::now();
    let rules = warroom_memory::secrets::rules().rules.len();
    tracing::info!(ms = started.elapsed().as_millis() as u64, "rules compiled");
    let missed: Vec<String> = file
        .positive
        .iter()
        .filter(|p| !caught(p))
        .map(|p| p.why.clone())
        .collect();
    let (mut corpus_rates, mut categories) = (Vec::new(), Vec::new());
    let mut targets_met = true;
    for (k, path) in corpora.iter().enumerate() {
        let name = path.file_name().map_or_else(
            || path.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        let (total, cats) = rates(&name, &load(path)?);
        if k > 0 {
            targets_met &= total.meets_targets;
        }
        corpus_rates.push(total);
        categories.extend(cats);
    }
    let negatives = file.negative.iter().map(|n| match n {
        Negative::Plain(t) | Negative::Sorted { text: t, .. } => t.clone(),
    });
    let mut sets = vec![
        fp_set("corpus negatives", negatives),
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
    let inputs = if timing { hostile_inputs() } else { Vec::new() };
    let timings = inputs
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
        corpora: corpus_rates,
        categories,
        targets_met,
        timings,
        kinds: super::kinds::measure(200),
    })
}

/// README-ready tables.
pub fn markdown(r: &SecretsReport) -> String {
    use std::fmt::Write as _;
    let mut s = format!(
        "{} rules. Detection: {}/{} positive samples ({:.1} %){}\n\n| text | texts | flagged | rate | scan, mean |\n|---|---:|---:|---:|---:|\n",
        r.rules,
        r.detected,
        r.positives,
        pct(r.detected, r.positives),
        if r.missed.is_empty() {
            String::new()
        } else {
            format!("; missed: {}", r.missed.join(", "))
        }
    );
    for set in &r.sets {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {:.2} % | {:.1} µs |",
            set.name,
            set.texts,
            set.flagged,
            pct(set.flagged, set.texts),
            set.mean_us
        );
    }
    s.push_str(
        "\n| corpus | secrets found | everyday texts altered | targets |\n|---|---:|---:|---|\n",
    );
    for c in &r.corpora {
        let _ = writeln!(
            s,
            "| {} | {}/{} ({:.1} %) | {}/{} ({:.1} %) | {} |",
            c.corpus,
            c.found,
            c.secrets,
            pct(c.found, c.secrets),
            c.flagged,
            c.everyday,
            pct(c.flagged, c.everyday),
            if c.meets_targets { "met" } else { "not met" }
        );
    }
    s.push_str("\n| corpus | kind | category | samples | found / flagged | rate |\n|---|---|---|---:|---:|---:|\n");
    for c in &r.categories {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {:.1} % |",
            c.corpus,
            c.kind,
            c.category,
            c.samples,
            c.hits,
            pct(c.hits, c.samples)
        );
    }
    for c in r.categories.iter().filter(|c| !c.wrong.is_empty()) {
        let _ = writeln!(
            s,
            "\n{} {} {} on the wrong side:",
            c.corpus, c.kind, c.category
        );
        for w in &c.wrong {
            let _ = writeln!(s, "  {w}");
        }
    }
    for set in r.sets.iter().filter(|s| !s.examples.is_empty()) {
        let _ = writeln!(s, "\nflagged in {}:", set.name);
        for e in &set.examples {
            let _ = writeln!(s, "  {}", warroom_memory::validate::printable(e));
        }
    }
    s.push_str(
        "\n| password kind | sentence (X: the password) | kept off the disk |\n|---|---|---:|\n",
    );
    for k in &r.kinds {
        let _ = writeln!(
            s,
            "| {} | {} | {:.1} % |",
            k.kind,
            k.sentence,
            pct(k.kept_off, k.samples)
        );
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

/// `n` of `d` as a percentage (0 when `d` is 0).
fn pct(n: usize, d: usize) -> f64 {
    100.0 * n as f64 / d.max(1) as f64
}

#[cfg(test)]
mod tests {
    use super::{Positive, caught};

    fn sample(text: &str, secret: Option<&str>) -> Positive {
        Positive {
            category: None,
            why: "test".into(),
            text: text.into(),
            detail: None,
            secret: secret.map(str::to_string),
        }
    }

    /// A recorded secret counts as found only when its bytes are gone: a finding elsewhere
    /// in the sample is not enough.
    #[test]
    fn a_recorded_secret_must_be_gone() {
        // `Otter98` (a word and two digits) is no password shape: it stays.
        let text = "password=Hunter2!x and, unrelated, Otter98 stays";
        assert!(caught(&sample(text, None)));
        assert!(caught(&sample(text, Some("Hunter2!x"))));
        assert!(!caught(&sample(text, Some("Otter98"))));
    }
}
