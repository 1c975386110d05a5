//! `bench quality`: retrieval quality of each ranking on labelled data — recall of the
//! relevant entries in the top 5 and 10 and the reciprocal rank of the first one (MRR@10),
//! per category — on LoCoMo ([`super::locomo`]) and on our own war-room relevance set
//! (`tests/fixtures/relevance/warroom.yaml`: decisions superseded, identifiers in
//! interfaces, old-but-exact vs new-but-vague), whose cases also name the ids that must
//! rank first.
//!
//! Every group of entries is written as a ledger file and read back through
//! [`warroom_memory::ledger::Ledger`], so the benchmark ranks through the same index the server
//! uses. SQLite FTS5 `bm25()` ranks the same summaries when built with `sqlite-compare`.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::Context as _;
use serde::{Deserialize, Serialize};

use warroom_memory::clock::{Timestamp, parse_rfc3339};
use warroom_memory::config::Settings;
use warroom_memory::entry::{Entry, Kind};
use warroom_memory::index::{Filter, Ranking, Scorer};
use warroom_memory::ledger::Ledger;
use warroom_memory::store::jsonl::AppendOptions;

/// Entries searched together (one ledger), the server's now, and the questions.
#[derive(Debug, Clone)]
pub struct Group {
    /// Name for reports.
    pub name: String,
    /// The entries, in file order.
    pub entries: Vec<Entry>,
    /// The server's now for decay.
    pub now: Timestamp,
    /// Questions asked of this group.
    pub cases: Vec<Case>,
}

/// One labelled question.
#[derive(Debug, Clone)]
pub struct Case {
    /// Name for reports.
    pub name: String,
    /// The search text.
    pub query: String,
    /// Category for per-category figures.
    pub category: String,
    /// Ids of the relevant entries.
    pub relevant: Vec<String>,
    /// Ids that must rank first, in this order (empty: no expectation).
    pub expect_top: Vec<String>,
}

/// Recall and reciprocal rank over a set of questions.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Metrics {
    /// Questions counted.
    pub questions: usize,
    /// Mean share of relevant entries in the top 5.
    pub r5: f64,
    /// Mean share of relevant entries in the top 10.
    pub r10: f64,
    /// Mean reciprocal rank of the first relevant entry within the top 10.
    pub mrr10: f64,
}

impl Metrics {
    pub(crate) fn add(&mut self, ranked: &[String], relevant: &[String]) {
        let found = |k: usize| {
            let top = &ranked[..ranked.len().min(k)];
            relevant.iter().filter(|r| top.contains(r)).count() as f64 / relevant.len() as f64
        };
        self.r5 += found(5);
        self.r10 += found(10);
        if let Some(i) = ranked.iter().take(10).position(|id| relevant.contains(id)) {
            self.mrr10 += 1.0 / (i + 1) as f64;
        }
        self.questions += 1;
    }

    pub(crate) fn finish(mut self) -> Metrics {
        let n = self.questions.max(1) as f64;
        self.r5 /= n;
        self.r10 /= n;
        self.mrr10 /= n;
        self
    }
}

/// One ranker's figures on one dataset.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RankerReport {
    /// `bm25`, `blend (default)`, `seed`, `blend floor F`, or `sqlite-fts5`.
    pub ranker: String,
    /// Figures per category.
    pub by_category: BTreeMap<String, Metrics>,
    /// Figures over the headline categories (LoCoMo: 1–4; our set: all).
    pub headline: Metrics,
    /// Cases whose `expect_top` held, of those that have one.
    pub expectations_met: (usize, usize),
    /// Names of cases whose `expect_top` did not hold, with the ids ranked first.
    pub failures: Vec<String>,
}

/// Every ranker on one dataset.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct QualityReport {
    /// Dataset name.
    pub dataset: String,
    /// Questions skipped (no resolvable evidence).
    pub skipped: usize,
    /// One report per ranker.
    pub rankers: Vec<RankerReport>,
}

/// The rankings compared: relevance alone, the default blend, the seed formula, and a
/// blend for each extra floor asked for (to choose the default by measurement).
pub fn rankings(floors: &[f64]) -> Vec<(String, Ranking)> {
    let mut r = vec![
        ("bm25".to_string(), Ranking::Relevance),
        ("blend (default)".to_string(), Ranking::default()),
        ("seed".to_string(), Ranking::Seed),
    ];
    for &floor in floors {
        r.push((format!("blend floor {floor}"), Ranking::Blend { floor }));
    }
    r
}

/// Ranks every case of `groups` with each ranking (and SQLite FTS5 when compiled in).
/// `headline` says which categories count in the headline figures.
pub fn evaluate(
    dataset: &str,
    groups: &[Group],
    skipped: usize,
    headline: &dyn Fn(&str) -> bool,
    floors: &[f64],
    work: &Path,
) -> anyhow::Result<QualityReport> {
    let half_lives = Settings::default().half_life_hours;
    let rankings = rankings(floors);
    let mut rankers: Vec<(String, Vec<Vec<Vec<String>>>)> = Vec::new();
    let mut per_ranking: Vec<Vec<Vec<Vec<String>>>> = vec![Vec::new(); rankings.len()];
    for g in groups {
        let path = work.join(format!("{}.jsonl", g.name));
        let mut text = String::new();
        for e in &g.entries {
            text.push_str(&serde_json::to_string(e)?);
            text.push('\n');
        }
        std::fs::write(&path, text)?;
        let ledger = Ledger::open(&path, AppendOptions::default())?;
        let ix = ledger.index();
        let all = Filter::default().compile(ix);
        for (slot, (_, ranking)) in per_ranking.iter_mut().zip(&rankings) {
            let scorer = Scorer {
                now: g.now,
                half_lives,
                ranking: *ranking,
            };
            let ranked = g
                .cases
                .iter()
                .map(|c| {
                    let r = ix.search(&c.query, &all, 10, &scorer);
                    r.hits.iter().map(|h| ix.id(h.pos).to_string()).collect()
                })
                .collect();
            slot.push(ranked);
        }
        std::fs::remove_file(&path)?;
    }
    for ((name, _), ranked) in rankings.into_iter().zip(per_ranking) {
        rankers.push((name, ranked));
    }
    if let Some(ranked) = sqlite_ranked(groups)? {
        rankers.push(("sqlite-fts5".into(), ranked));
    }
    let reports = rankers
        .into_iter()
        .map(|(name, ranked)| report(name, groups, &ranked, headline))
        .collect();
    Ok(QualityReport {
        dataset: dataset.to_string(),
        skipped,
        rankers: reports,
    })
}

fn sqlite_ranked(groups: &[Group]) -> anyhow::Result<Option<Vec<Vec<Vec<String>>>>> {
    let mut out = Vec::new();
    for g in groups {
        let docs: Vec<String> = g.entries.iter().map(|e| e.summary.clone()).collect();
        let queries: Vec<String> = g.cases.iter().map(|c| c.query.clone()).collect();
        let Some(ranked) = super::sqlite::top_k(&docs, &queries, 10)? else {
            return Ok(None);
        };
        out.push(
            ranked
                .into_iter()
                .map(|rows| rows.into_iter().map(|i| g.entries[i].id.clone()).collect())
                .collect(),
        );
    }
    Ok(Some(out))
}

fn report(
    ranker: String,
    groups: &[Group],
    ranked: &[Vec<Vec<String>>],
    headline: &dyn Fn(&str) -> bool,
) -> RankerReport {
    let mut by_category: BTreeMap<String, Metrics> = BTreeMap::new();
    let mut head = Metrics::default();
    let (mut met, mut expected, mut failures) = (0, 0, Vec::new());
    for (g, ranked) in groups.iter().zip(ranked) {
        for (c, r) in g.cases.iter().zip(ranked) {
            by_category
                .entry(c.category.clone())
                .or_default()
                .add(r, &c.relevant);
            if headline(&c.category) {
                head.add(r, &c.relevant);
            }
            if !c.expect_top.is_empty() {
                expected += 1;
                if r.len() >= c.expect_top.len() && r[..c.expect_top.len()] == c.expect_top[..] {
                    met += 1;
                } else {
                    failures.push(format!("{}: got [{}]", c.name, r.join(", ")));
                }
            }
        }
    }
    RankerReport {
        ranker,
        by_category: by_category
            .into_iter()
            .map(|(k, m)| (k, m.finish()))
            .collect(),
        headline: head.finish(),
        expectations_met: (met, expected),
        failures,
    }
}

/// The war-room relevance set as written in YAML.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SetFile {
    now: String,
    entries: Vec<SetEntry>,
    cases: Vec<SetCase>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SetEntry {
    id: String,
    ts: String,
    kind: Kind,
    #[serde(default)]
    room: Option<String>,
    #[serde(default, rename = "ref")]
    ref_: String,
    #[serde(default)]
    tags: Vec<String>,
    summary: String,
    #[serde(default)]
    detail: String,
    #[serde(default)]
    supersedes: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SetCase {
    name: String,
    query: String,
    category: String,
    expect_top: Vec<String>,
    #[serde(default)]
    relevant: Vec<String>,
    #[allow(dead_code)]
    why: String,
}

/// Loads a relevance set file as one group.
pub fn load_set(path: &Path) -> anyhow::Result<Group> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("reading the relevance set {}", path.display()))?;
    let file: SetFile = serde_saphyr::from_str(&text)
        .with_context(|| format!("{} does not parse", path.display()))?;
    let now = parse_rfc3339(&file.now).map_err(|e| anyhow::anyhow!("now: {e}"))?;
    let entries = file
        .entries
        .into_iter()
        .map(|e| Entry {
            id: e.id,
            ts: e.ts,
            kind: e.kind,
            room_id: e.room.unwrap_or_else(|| "room-001".into()),
            author_role: "engineer".into(),
            ref_: e.ref_,
            tags: e.tags,
            summary: e.summary,
            detail: e.detail,
            supersedes: e.supersedes,
            plan_id: None,
            redacted: Vec::new(),
            audience: None,
        })
        .collect();
    let cases = file
        .cases
        .into_iter()
        .map(|c| Case {
            relevant: if c.relevant.is_empty() {
                c.expect_top.clone()
            } else {
                c.relevant
            },
            name: c.name,
            query: c.query,
            category: c.category,
            expect_top: c.expect_top,
        })
        .collect();
    Ok(Group {
        name: "warroom".into(),
        entries,
        now,
        cases,
    })
}

/// The reports as markdown tables (for README).
pub fn markdown(reports: &[QualityReport]) -> String {
    let mut s = String::new();
    for q in reports {
        let cats: Vec<&String> = q.rankers[0].by_category.keys().collect();
        s.push_str(&format!(
            "\n{} — R@5 / R@10 / MRR@10 (questions skipped: {})\n\n| ranker | headline |",
            q.dataset, q.skipped
        ));
        for c in &cats {
            s.push_str(&format!(
                " {c} ({}) |",
                q.rankers[0].by_category[*c].questions
            ));
        }
        s.push_str(" expectations met |\n|---|---:|");
        s.push_str(&"---:|".repeat(cats.len() + 1));
        s.push('\n');
        let fmt = |m: &Metrics| format!("{:.2} / {:.2} / {:.2}", m.r5, m.r10, m.mrr10);
        for r in &q.rankers {
            s.push_str(&format!("| {} | {} |", r.ranker, fmt(&r.headline)));
            for c in &cats {
                s.push_str(&format!(
                    " {} |",
                    r.by_category.get(*c).map(fmt).unwrap_or_default()
                ));
            }
            match r.expectations_met {
                (_, 0) => s.push_str(" — |\n"),
                (met, of) => s.push_str(&format!(" {met} of {of} |\n")),
            }
        }
    }
    s
}
