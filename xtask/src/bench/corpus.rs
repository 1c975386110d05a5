//! Deterministic synthetic ledgers for benchmarks: a Zipf-distributed vocabulary, realistic
//! field shapes, timestamps spread over 90 days, one canonical line per entry.

use std::io::Write;
use std::path::Path;

use warroom_memory::clock::Timestamp;
use warroom_memory::entry::{Entry, Kind};

/// SplitMix64: tiny, fast, good enough for synthetic data; same seed, same corpus.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator from `seed`.
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }
    /// Next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in `0..n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }
}

const TECH: &[&str] = &[
    "auth",
    "token",
    "session",
    "database",
    "migration",
    "schema",
    "cache",
    "redis",
    "postgres",
    "queue",
    "retry",
    "timeout",
    "endpoint",
    "payload",
    "login",
    "password",
    "hashing",
    "bcrypt",
    "argon2",
    "jwt",
    "oauth",
    "webhook",
    "billing",
    "invoice",
    "refund",
    "search",
    "index",
    "latency",
    "deploy",
    "rollback",
    "feature",
    "flag",
    "config",
    "secret",
    "vault",
    "logging",
    "metrics",
    "tracing",
    "alert",
    "incident",
    "frontend",
    "react",
    "router",
    "component",
    "api",
    "graphql",
    "grpc",
    "protobuf",
    "kafka",
    "consumer",
    "producer",
    "batch",
    "cron",
    "scheduler",
    "worker",
    "pool",
    "connection",
    "transaction",
    "lock",
    "deadlock",
    "replica",
    "shard",
    "backup",
    "restore",
    "encryption",
    "tls",
    "certificate",
    "cors",
    "csrf",
    "upload",
    "storage",
    "bucket",
    "image",
    "thumbnail",
    "email",
    "notification",
    "template",
    "locale",
    "currency",
    "pagination",
    "cursor",
    "sorting",
    "filter",
    "validation",
    "error",
    "handler",
];

const SYLLABLES: &[&str] = &[
    "ka", "ro", "mi", "tel", "san", "vo", "ri", "dex", "lu", "po", "nar", "quin", "ze", "bo",
    "tra", "hel", "gus", "fin", "da", "mor",
];

/// Words ranked by frequency (rank 0 most frequent): real technical words first, then
/// pronounceable synthetic ones.
pub fn vocabulary(size: usize) -> Vec<String> {
    let mut words: Vec<String> = TECH.iter().map(|w| w.to_string()).collect();
    let mut seen: std::collections::HashSet<String> = words.iter().cloned().collect();
    let n = SYLLABLES.len();
    let mut i = 0usize;
    while words.len() < size {
        // The base-n digits of i (at least two) spell the word.
        let (mut rest, mut w) = (i, String::new());
        loop {
            w.push_str(SYLLABLES[rest % n]);
            rest /= n;
            if rest == 0 && w.len() >= 4 {
                break;
            }
        }
        i += 1;
        if seen.insert(w.clone()) {
            words.push(w);
        }
    }
    words
}

/// Samples ranks with probability ∝ 1 / (rank + 1).
#[derive(Debug, Clone)]
pub struct Zipf {
    cumulative: Vec<f64>,
}

impl Zipf {
    /// A sampler over `n` ranks.
    pub fn new(n: usize) -> Self {
        let mut acc = 0.0;
        let cumulative = (0..n)
            .map(|r| {
                acc += 1.0 / (r as f64 + 1.0);
                acc
            })
            .collect();
        Zipf { cumulative }
    }
    /// One rank.
    pub fn sample(&self, rng: &mut Rng) -> usize {
        let total = *self.cumulative.last().unwrap_or(&1.0);
        let x = (rng.next_u64() as f64 / u64::MAX as f64) * total;
        self.cumulative
            .partition_point(|&c| c < x)
            .min(self.cumulative.len() - 1)
    }
}

/// Parameters and state of a corpus generator.
#[derive(Debug)]
pub struct Corpus {
    rng: Rng,
    words: Vec<String>,
    zipf: Zipf,
    tags: Zipf,
    /// Time of the newest entry; entries spread over the 90 days before it.
    pub end: Timestamp,
    /// Short entries: a summary of 15–35 words and no detail (~400 bytes a line), with
    /// what real ledgers carry besides words — a request id, a source path and a number
    /// (each nearly unique, so millions of terms with one posting at 1M entries).
    pub short: bool,
}

impl Corpus {
    /// A generator with a fixed seed and a 20,000-word vocabulary.
    pub fn new(seed: u64, end: Timestamp) -> Self {
        let words = vocabulary(20_000);
        Corpus {
            rng: Rng::new(seed),
            zipf: Zipf::new(words.len()),
            tags: Zipf::new(60),
            words,
            end,
            short: false,
        }
    }

    fn sentence(&mut self, min: u64, max: u64) -> String {
        let n = min + self.rng.below(max - min + 1);
        (0..n)
            .map(|_| self.words[self.zipf.sample(&mut self.rng)].as_str())
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// A short entry's summary: 15–35 words, and a request id, a source path and a
    /// number each at a random place among them.
    fn short_summary(&mut self) -> String {
        let n = 15 + self.rng.below(21);
        let mut words: Vec<String> = (0..n)
            .map(|_| self.words[self.zipf.sample(&mut self.rng)].clone())
            .collect();
        let id = format!("req-{:08x}", self.rng.below(1 << 32));
        let path = format!(
            "src/{}/{}_{}.rs",
            self.words[self.zipf.sample(&mut self.rng)],
            self.words[self.zipf.sample(&mut self.rng)],
            self.rng.below(100_000)
        );
        let number = self.rng.below(1_000_000).to_string();
        for token in [id, path, number] {
            let at = self.rng.below(words.len() as u64 + 1) as usize;
            words.insert(at, token);
        }
        words.join(" ")
    }

    /// A query of 2–3 words drawn like the corpus, skipping the 20 most common words.
    pub fn query(&mut self) -> String {
        let n = 2 + self.rng.below(2);
        (0..n)
            .map(|_| {
                let r = 20 + self.zipf.sample(&mut self.rng) % (self.words.len() - 20);
                self.words[r].clone()
            })
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// The tag a query filter would use.
    pub fn tag(&mut self) -> String {
        TECH[self.tags.sample(&mut self.rng) % TECH.len()].to_string()
    }

    /// Entry number `i` of `n` (timestamps ascend with `i`).
    pub fn entry(&mut self, i: usize, n: usize) -> Entry {
        let span = 90 * 86_400;
        let ts = self.end.0 - span + (span * i as i64) / n.max(1) as i64;
        let ntags = 1 + self.rng.below(3);
        let mut tags: Vec<String> = (0..ntags).map(|_| self.tag()).collect();
        tags.sort();
        tags.dedup();
        let detail = if self.short || self.rng.below(2) == 0 {
            String::new()
        } else {
            self.sentence(20, 80)
        };
        Entry {
            id: format!("mem-bench-{i:08}"),
            ts: Timestamp(ts).to_rfc3339(),
            kind: Kind::ALL[self.rng.below(6) as usize],
            room_id: format!("room-{:03}", self.rng.below(100)),
            author_role: ["architect", "engineer", "qa", "manager", "reviewer"]
                [self.rng.below(5) as usize]
                .to_string(),
            ref_: format!("EPIC-{:03}", self.rng.below(50)),
            tags,
            summary: if self.short {
                self.short_summary()
            } else {
                self.sentence(10, 30)
            },
            detail,
            supersedes: None,
            plan_id: None,
            redacted: Vec::new(),
            audience: None,
        }
    }

    /// Writes an `n`-entry ledger to `path`.
    pub fn write_ledger(&mut self, path: &Path, n: usize) -> std::io::Result<()> {
        let mut out = std::io::BufWriter::new(std::fs::File::create(path)?);
        for i in 0..n {
            let line = self.entry(i, n).to_line();
            out.write_all(line.as_bytes())?;
            out.write_all(b"\n")?;
        }
        out.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_corpus() {
        let end = Timestamp(1_795_608_000);
        let a: Vec<Entry> = (0..20).map(|i| Corpus::new(7, end).entry(i, 20)).collect();
        let b: Vec<Entry> = (0..20).map(|i| Corpus::new(7, end).entry(i, 20)).collect();
        assert_eq!(a, b);
        let mut c = Corpus::new(7, end);
        let e = c.entry(19, 20);
        assert!(e.ts <= end.to_rfc3339());
        assert!(!e.summary.is_empty() && !e.tags.is_empty());
    }

    #[test]
    fn zipf_prefers_low_ranks() {
        let z = Zipf::new(1000);
        let mut rng = Rng::new(1);
        let low = (0..10_000).filter(|_| z.sample(&mut rng) < 10).count();
        assert!(low > 2_500, "{low}");
    }
}
