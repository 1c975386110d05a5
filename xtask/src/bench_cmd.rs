//! `bench`: measure the hot paths on generated ledgers, or (`bench quality`) the retrieval
//! quality of each ranking, and print README-ready tables.

use std::path::PathBuf;

use clap::{Args, Subcommand};

use crate::bench::{self, BenchOptions, locomo, quality};
use warroom_memory::cli::out::{Outcome, emit, note, print};

/// Options of `bench`.
#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct BenchCmd {
    #[command(subcommand)]
    mode: Option<BenchMode>,
    /// Ledger sizes to measure, comma-separated (1000000 is supported; expect ~1 min).
    #[arg(long, value_delimiter = ',', default_value = "10000,100000")]
    sizes: Vec<usize>,
    /// Timed calls per operation.
    #[arg(long, default_value_t = 300)]
    queries: usize,
    /// Runs per size; every figure is the median over the runs.
    #[arg(long, default_value_t = 1)]
    repeat: usize,
    /// Where generated ledgers are kept between runs.
    #[arg(long, value_name = "DIR", default_value = "target/bench-data")]
    dir: PathBuf,
    /// Short entries (~440 bytes a line, no detail; an id, a path and a number in each)
    /// instead of the usual mix: where per-entry and per-term overhead show.
    #[arg(long)]
    short_entries: bool,
    /// Only write the ledgers of `--sizes` into `--dir` (kept for later runs) and print
    /// their paths: for measuring the product binary on them (docs/performance.md).
    #[arg(long)]
    generate_only: bool,
    #[arg(long, hide = true)]
    child_size: Option<usize>,
    #[arg(long, hide = true)]
    child_corpus: Option<PathBuf>,
    #[arg(long, hide = true)]
    child_work: Option<PathBuf>,
}

/// What else `bench` measures.
#[derive(Debug, Subcommand)]
enum BenchMode {
    /// Retrieval quality (R@5, R@10, MRR@10 per category) of each ranking — relevance
    /// alone, the default blend, the seed formula, and SQLite FTS5 with `--features
    /// sqlite-compare` — on LoCoMo and on our war-room relevance set.
    Quality(QualityCmd),
    /// What a room's brief carries of what it needs (recall), on generated worlds of three
    /// domains (freight, clinic, energy) and a harder world of each (three seeds), at 0 /
    /// 5 / 20 / 60 working notes a room, beside the newest-15, kind-first and twins-last
    /// baselines; stale entries shown, bytes, the brief's latency at `--sizes`, and the
    /// outside shop world (`../shared/brief-check`) printed beside. `BENCH_BRIEF_DEBUG=1`
    /// prints every needed entry a brief missed, `BENCH_BRIEF_SHOW=1` every entry it
    /// showed with its reason and whether the room needs it (on stderr).
    Brief(BriefCmd),
    /// Direct mode (every agent loads the ledger) against one daemon (every agent a relay):
    /// time until every agent has answered, resident memory, search and brief round trips.
    Daemon(DaemonBenchCmd),
    /// The secret scanner: detection rate on the corpus's positive samples, false
    /// positives on its negatives and on ordinary text (the example project, generated
    /// entries, LoCoMo), and scan time of 16 KB hostile inputs. Exit 1 if a positive
    /// sample is missed or a corpus negative is flagged.
    Secrets(SecretsCmd),
    /// The PostgreSQL backend next to JSONL files on the same generated ledgers: import,
    /// cold start, search, publish, and catch-up with another server's commit.
    Postgres(PgBenchCmd),
    /// The console's pages, server side through the daemon (kept-alive HTTP) on generated
    /// ledgers with a 30-epic plan: plans, timeline (first, filtered, next page), entry,
    /// room, search, audit, diff.
    Console(ConsoleBenchCmd),
    /// Lexical, dense (a small local embedding model) and hybrid ranking on LoCoMo, the
    /// war-room set and the paraphrase set. Needs `--features semantic-eval`.
    Semantic(SemanticCmd),
    /// The vector store as the server holds it (4-bit codes, sign bits, two-stage search)
    /// against exact cosines, on LoCoMo's turns embedded by the bundled model, and its
    /// bytes and search time at 1M rows. Needs `--features semantic-eval`.
    Vectors(VectorsCmd),
    /// The product at another revision (default: the commit before HEAD) beside this
    /// tree's, built in release (REV in a worktree and target directory of its own under
    /// `--dir`) and measured in turn in one run: first start, resident memory, search and
    /// brief round trips deep in a 40-epic plan, over stdio. Run it before a change to the
    /// index, the brief or the wire lands, and put its table in the commit message.
    Compare(CompareCmd),
    /// What a brief deep in a plan costs as the ledger and the plan grow: the product
    /// binary (built in release from this tree) over stdio, `memory_get_context` p50 of
    /// the deepest rooms, at each of `--sizes`, for plans of each of `--epics` epics as a
    /// chain (each epic on the two before it) and wide (half roots, the rest on all).
    BriefCost(BriefCostCmd),
}

/// Options of `bench brief-cost`.
#[derive(Debug, Args)]
struct BriefCostCmd {
    /// Ledger sizes (generated once into target/bench-data and kept).
    #[arg(long, value_delimiter = ',', default_value = "10000,100000,1000000")]
    sizes: Vec<usize>,
    /// Epics of each plan measured.
    #[arg(long, value_delimiter = ',', default_value = "4,12,40")]
    epics: Vec<usize>,
    /// Where the projects live.
    #[arg(long, value_name = "DIR", default_value = "target/brief-cost")]
    dir: PathBuf,
}

impl BriefCostCmd {
    fn run(self, json: bool) -> anyhow::Result<Outcome> {
        use bench::brief_cost::{Shape, cell, markdown};
        let mut say = |m: &str| note(&format!("bench brief-cost: {m}"));
        let (_, exe) = bench::compare::build_current(&mut say)?;
        let data = bench::compare::workspace_root().join("target/bench-data");
        std::fs::create_dir_all(&data)?;
        let dir = std::path::absolute(&self.dir)?;
        std::fs::create_dir_all(&dir)?;
        let mut cells = Vec::new();
        for &n in &self.sizes {
            let ledger = bench::corpus_file(&data, n, &mut say)?;
            for &epics in &self.epics {
                for shape in [Shape::Chain, Shape::Wide] {
                    say(&format!("{n} entries, {epics} epics, {shape:?}"));
                    cells.push(cell(&exe, &dir.join("project"), &ledger, n, epics, shape)?);
                }
            }
        }
        emit(json, &cells, |c| markdown(c));
        Ok(Outcome::Ok)
    }
}

/// Options of `bench compare`.
#[derive(Debug, Args)]
struct CompareCmd {
    /// The revision to compare this tree with.
    #[arg(default_value = "HEAD~1")]
    rev: String,
    /// Ledger entries (generated once into target/bench-data and kept).
    #[arg(long, default_value_t = 1_000_000)]
    size: usize,
    /// Epics of the plan (each depends on the two before it); the deepest 12 are briefed.
    #[arg(long, default_value_t = 40)]
    epics: usize,
    /// Runs of each binary, alternating.
    #[arg(long, default_value_t = 2)]
    runs: usize,
    /// Where the other revision's worktree, its build and the projects live.
    #[arg(long, value_name = "DIR", default_value = "target/compare")]
    dir: PathBuf,
}

impl CompareCmd {
    fn run(self, json: bool) -> anyhow::Result<Outcome> {
        let mut say = |m: &str| note(&format!("bench compare: {m}"));
        let dir = std::path::absolute(&self.dir)?;
        std::fs::create_dir_all(&dir)?;
        let base = bench::compare::build_rev(&self.rev, &dir, &mut say)?;
        let current = bench::compare::build_current(&mut say)?;
        let data = bench::compare::workspace_root().join("target/bench-data");
        std::fs::create_dir_all(&data)?;
        let ledger = bench::corpus_file(&data, self.size, &mut say)?;
        let c = bench::compare::compare(
            [base, current],
            &ledger,
            self.size,
            self.epics,
            self.runs.max(1),
            &dir,
            &mut say,
        )?;
        emit(json, &c, bench::compare::markdown);
        Ok(Outcome::Ok)
    }
}

/// Why a `bench` mode that embeds cannot run in a build without the model.
#[cfg(not(feature = "semantic-eval"))]
fn needs_model(mode: &str) -> anyhow::Error {
    anyhow::anyhow!(
        "bench {mode} needs the embedding model: run `cargo run --release -p xtask \
         --features semantic-eval -- bench {mode}`"
    )
}

/// Options of `bench vectors`.
#[derive(Debug, Args)]
struct VectorsCmd {
    /// LoCoMo's locomo10.json (default: ../shared/bench-data/locomo10.json).
    #[arg(long, value_name = "FILE")]
    locomo: Option<PathBuf>,
    /// Rows made from the real ones for the large measurement.
    #[arg(long, default_value_t = 1_000_000)]
    rows: usize,
    /// Standard deviation of the noise a made-up row's coordinates get (a real vector's
    /// coordinates are ~0.05).
    #[arg(long, default_value_t = 0.03)]
    noise: f32,
    /// Instead of measuring: write the bundled model's vector cache for this ledger file,
    /// a made-up row for every entry, to measure the server through its binary at 1M.
    #[arg(long, value_name = "LEDGER")]
    fill_cache: Option<PathBuf>,
    /// Instead of measuring: the recall of the two-stage search against exact on the real
    /// vectors `semantic backfill` wrote for this ledger file (its cache as the server
    /// finds it), at the server's candidates and at the share a search at 1M scores.
    #[arg(long, value_name = "LEDGER", conflicts_with = "fill_cache")]
    recall_cache: Option<PathBuf>,
}

impl VectorsCmd {
    #[cfg(not(feature = "semantic-eval"))]
    fn run(self, _json: bool) -> anyhow::Result<Outcome> {
        Err(needs_model("vectors"))
    }

    #[cfg(feature = "semantic-eval")]
    fn run(self, json: bool) -> anyhow::Result<Outcome> {
        let encoder = bench::semantic::Embedder::new(None)?;
        let path = locomo_file(false, self.locomo)
            .ok_or_else(|| anyhow::anyhow!("LoCoMo not found; pass --locomo FILE"))?;
        let (groups, _) = locomo::load(&path)?;
        if let Some(ledger) = &self.fill_cache {
            bench::vectors::fill_cache(&groups, &encoder, self.noise, ledger)?;
            return Ok(Outcome::Ok);
        }
        if let Some(ledger) = &self.recall_cache {
            print(&bench::vectors::recall_cache(&encoder, ledger)?);
            return Ok(Outcome::Ok);
        }
        let r = bench::vectors::run(&groups, &encoder, self.noise, self.rows)?;
        emit(json, &r, bench::vectors::markdown);
        Ok(Outcome::Ok)
    }
}

/// Options of `bench semantic`.
#[derive(Debug, Args)]
struct SemanticCmd {
    /// LoCoMo's locomo10.json (default: ../shared/bench-data/locomo10.json).
    #[arg(long, value_name = "FILE")]
    locomo: Option<PathBuf>,
    /// A sentence-transformers model directory (config.json, model.safetensors,
    /// tokenizer.json) instead of the bundled 3-layer model.
    #[arg(long, value_name = "DIR")]
    model_dir: Option<PathBuf>,
    /// Skip LoCoMo (the sets then use this fusion weight).
    #[arg(long, value_name = "W")]
    no_locomo: Option<f64>,
    /// Cosines from the vectors as the server holds them (4-bit magnitudes and sign bits)
    /// rather than exact ones.
    #[arg(long)]
    as_held: bool,
}

impl SemanticCmd {
    #[cfg(not(feature = "semantic-eval"))]
    fn run(self, _json: bool) -> anyhow::Result<Outcome> {
        Err(needs_model("semantic"))
    }

    #[cfg(feature = "semantic-eval")]
    fn run(self, json: bool) -> anyhow::Result<Outcome> {
        let work = tempfile::tempdir()?;
        let encoder = bench::semantic::Embedder::new(self.model_dir.as_deref())?;
        let mut reports = Vec::new();
        let w = match self.no_locomo {
            Some(w) => w,
            None => {
                let path = locomo_file(false, self.locomo)
                    .ok_or_else(|| anyhow::anyhow!("LoCoMo not found; pass --locomo FILE"))?;
                note("bench semantic: LoCoMo (embedding every turn)");
                let (groups, _) = locomo::load(&path)?;
                let headline = |c: &str| c != "adversarial";
                let loc = bench::semantic::evaluate(
                    "LoCoMo (categories 1–4)",
                    &groups,
                    &headline,
                    work.path(),
                    bench::semantic::Tuning {
                        loco: true,
                        fixed: 0.5,
                        check_disjoint: false,
                        held: self.as_held,
                    },
                    &encoder,
                )?;
                // The other sets use the median of the weights LoCoMo chose.
                let mut ws = loc.weights.clone();
                ws.sort_by(f64::total_cmp);
                let w = ws.get(ws.len() / 2).copied().unwrap_or(0.5);
                reports.push(loc);
                w
            }
        };
        for (name, file, check) in [
            (
                "war-room set",
                "tests/fixtures/relevance/warroom.yaml",
                false,
            ),
            (
                "paraphrase set",
                "tests/fixtures/relevance/paraphrase.yaml",
                true,
            ),
        ] {
            note(&format!("bench semantic: {name}"));
            let g = quality::load_set(std::path::Path::new(file))?;
            reports.push(bench::semantic::evaluate(
                name,
                &[g],
                &|_| true,
                work.path(),
                bench::semantic::Tuning {
                    loco: false,
                    fixed: w,
                    check_disjoint: check,
                    held: self.as_held,
                },
                &encoder,
            )?);
        }
        emit(json, &reports, |r| bench::semantic::markdown(r));
        Ok(Outcome::Ok)
    }
}

/// Options of `bench console`.
#[derive(Debug, Args)]
struct ConsoleBenchCmd {
    /// Ledger sizes, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "100000,1000000")]
    sizes: Vec<usize>,
    /// Timed requests per page.
    #[arg(long, default_value_t = 50)]
    rounds: usize,
    /// Where generated ledgers are kept between runs.
    #[arg(long, value_name = "DIR", default_value = "target/bench-data")]
    dir: PathBuf,
}

impl ConsoleBenchCmd {
    fn run(self, json: bool) -> anyhow::Result<Outcome> {
        let exe = crate::product_binary()?;
        std::fs::create_dir_all(&self.dir)?;
        let mut reports = Vec::new();
        for &n in &self.sizes {
            let (_, root) = generated_project(&self.dir, n)?;
            reports.extend(bench::console::measure(
                &exe,
                root.path(),
                n,
                self.rounds.max(5),
                &mut |m| note(&format!("bench console: {m}")),
            )?);
        }
        emit(json, &reports, |r| bench::console::markdown(r));
        Ok(Outcome::Ok)
    }
}

/// Options of `bench postgres`.
#[derive(Debug, Args)]
struct PgBenchCmd {
    /// A server to measure on: URL of a user allowed to CREATE DATABASE (a database is
    /// created per size and dropped after).
    #[arg(
        long,
        value_name = "ADMIN_URL",
        env = "WARROOM_BENCH_DATABASE_URL",
        hide_env_values = true
    )]
    database_url: String,
    /// Ledger sizes, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "100000")]
    sizes: Vec<usize>,
    /// Timed calls per operation.
    #[arg(long, default_value_t = 300)]
    queries: usize,
    /// Where generated ledgers are kept between runs.
    #[arg(long, value_name = "DIR", default_value = "target/bench-data")]
    dir: PathBuf,
}

impl PgBenchCmd {
    fn run(self, json: bool) -> anyhow::Result<Outcome> {
        let admin = warroom_memory::store::pg::DbUrl::parse("--database-url", &self.database_url)?;
        std::fs::create_dir_all(&self.dir)?;
        let mut reports = Vec::new();
        for &n in &self.sizes {
            let corpus = bench::corpus_file(&self.dir, n, &mut |m| note(&format!("bench: {m}")))?;
            reports.push(bench::pg::measure(
                &admin,
                &corpus,
                n,
                self.queries.max(10),
                &mut |m| note(&format!("bench postgres: {m}")),
            )?);
        }
        emit(json, &reports, |r| bench::pg::markdown(r));
        Ok(Outcome::Ok)
    }
}

/// A temporary project whose ledger is the generated ledger of `n` entries (made in `dir`
/// the first time), and that ledger's path.
fn generated_project(
    dir: &std::path::Path,
    n: usize,
) -> anyhow::Result<(PathBuf, tempfile::TempDir)> {
    let corpus = bench::corpus_file(dir, n, &mut |m| note(&format!("bench: {m}")))?;
    let root = tempfile::tempdir()?;
    std::fs::create_dir_all(root.path().join(".agents"))?;
    std::fs::copy(&corpus, root.path().join(".agents/ledger.jsonl"))?;
    Ok((corpus, root))
}

/// LoCoMo's file: none with `--no-locomo`, the one given, else the shared bench data's
/// when it exists.
fn locomo_file(none: bool, given: Option<PathBuf>) -> Option<PathBuf> {
    let default = PathBuf::from("../shared/bench-data/locomo10.json");
    match (none, given) {
        (true, _) => None,
        (false, Some(p)) => Some(p),
        (false, None) => default.exists().then_some(default),
    }
}

/// Options of `bench secrets`.
#[derive(Debug, Args)]
struct SecretsCmd {
    /// The corpora (repeatable): YAML with `positive: [{category?, why, text, detail?}]`
    /// and `negative: [text | {category, text}]`. The first is strict (every sample caught,
    /// no negative flagged: exit 1 otherwise); the others are measured against ≥ 95 %
    /// found, ≤ 5 % flagged. Each held-out set was measured once before any rule learned
    /// from it; docs/security.md keeps each one's first figures.
    #[arg(
        long,
        value_name = "FILE",
        default_values = [
            "tests/fixtures/secrets/corpus.yaml",
            "tests/fixtures/secrets/wide.yaml",
            "tests/fixtures/secrets/heldout-1.yaml",
            "tests/fixtures/secrets/heldout-2.yaml",
            "tests/fixtures/secrets/heldout-3.yaml",
            "tests/fixtures/secrets/heldout-4.yaml",
            "tests/fixtures/secrets/heldout-5.yaml",
            "tests/fixtures/secrets/heldout-6.yaml",
            "tests/fixtures/secrets/heldout-7.yaml",
            "tests/fixtures/secrets/heldout-8.yaml",
            "tests/fixtures/secrets/heldout-9.yaml",
            "tests/fixtures/secrets/heldout-10.yaml",
            "tests/fixtures/secrets/heldout-11.yaml",
            "tests/fixtures/secrets/heldout-12.yaml",
            "tests/fixtures/secrets/heldout-13.yaml",
            "tests/fixtures/secrets/heldout-14.yaml",
            "tests/fixtures/secrets/heldout-15.yaml",
            "tests/fixtures/secrets/heldout-16.yaml",
            "tests/fixtures/secrets/heldout-17.yaml",
            "tests/fixtures/secrets/heldout-18.yaml",
            "tests/fixtures/secrets/heldout-19.yaml",
            "tests/fixtures/secrets/heldout-20.yaml",
            "tests/fixtures/secrets/heldout-21.yaml",
            "tests/fixtures/secrets/heldout-22.yaml",
            "tests/fixtures/secrets/heldout-23.yaml",
            "tests/fixtures/secrets/heldout-24.yaml",
            "tests/fixtures/secrets/heldout-25.yaml",
            "tests/fixtures/secrets/heldout-26.yaml",
            "tests/fixtures/secrets/heldout-27.yaml",
            "tests/fixtures/secrets/heldout-28.yaml",
            "tests/fixtures/secrets/heldout-29.yaml",
            "tests/fixtures/secrets/heldout-30.yaml",
            "tests/fixtures/secrets/heldout-31.yaml",
            "tests/fixtures/secrets/heldout-32.yaml",
            "tests/fixtures/secrets/heldout-33.yaml",
            "tests/fixtures/secrets/heldout-34.yaml",
            "tests/fixtures/secrets/heldout-35.yaml",
            "tests/fixtures/secrets/heldout-36.yaml",
            "tests/fixtures/secrets/heldout-37.yaml",
            "tests/fixtures/secrets/heldout-38.yaml",
            "tests/fixtures/secrets/heldout-39.yaml",
            "tests/fixtures/secrets/heldout-40.yaml",
            "tests/fixtures/secrets/heldout-41.yaml",
            "tests/fixtures/secrets/heldout-42.yaml",
            "tests/fixtures/secrets/heldout-43.yaml",
            "tests/fixtures/secrets/heldout-44.yaml",
            "tests/fixtures/secrets/heldout-45.yaml",
            "tests/fixtures/secrets/heldout-46.yaml",
            "tests/fixtures/secrets/heldout-47.yaml",
        ]
    )]
    corpus: Vec<PathBuf>,
    /// A project whose `.agents/` ledger and channels count as ordinary text.
    #[arg(long, value_name = "DIR", default_value = ".")]
    example: PathBuf,
    /// LoCoMo's locomo10.json (default: ../shared/bench-data/locomo10.json if present).
    #[arg(long, value_name = "FILE")]
    locomo: Option<PathBuf>,
    /// Leave LoCoMo out.
    #[arg(long)]
    no_locomo: bool,
    /// Leave the scan times of hostile inputs out (detection and false positives only:
    /// what the tests check, in an unoptimised build where times mean nothing).
    #[arg(long)]
    no_timing: bool,
}

impl SecretsCmd {
    fn run(self, json: bool) -> anyhow::Result<Outcome> {
        let locomo = locomo_file(self.no_locomo, self.locomo);
        let r = bench::secrets::run(
            &self.corpus,
            &self.example,
            locomo.as_deref(),
            !self.no_timing,
        )?;
        emit(json, &r, bench::secrets::markdown);
        // Exit 1 only when the strict corpus fails; the rates of the others are figures
        // (the untouched held-out set may be below the targets, and says so).
        let clean = r.missed.is_empty() && r.sets.first().is_none_or(|s| s.flagged == 0);
        Ok(if clean {
            Outcome::Ok
        } else {
            Outcome::Violations
        })
    }
}

/// Options of `bench daemon`.
#[derive(Debug, Args)]
struct DaemonBenchCmd {
    /// Ledger sizes, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "100000")]
    sizes: Vec<usize>,
    /// Agent counts, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "16,64")]
    agents: Vec<usize>,
    /// Timed search round trips of one agent (and as many briefs, `memory_get_context`
    /// for rooms deep in the 100-epic bench plan).
    #[arg(long, default_value_t = 200)]
    searches: usize,
    /// Skip direct mode when its agents would need more than this many MB in all
    /// (estimated at 2.2 × the ledger per agent).
    #[arg(long, default_value_t = 16_000)]
    max_direct_mb: u64,
    /// Where generated ledgers are kept between runs.
    #[arg(long, value_name = "DIR", default_value = "target/bench-data")]
    dir: PathBuf,
    /// Instead: N agents on one daemon (half stdio relays, half HTTP sessions), each
    /// calling once a second for `--seconds`, on the first size.
    #[arg(long, value_name = "N")]
    load: Option<usize>,
    /// Length of the `--load` run.
    #[arg(long, default_value_t = 60)]
    seconds: u64,
}

impl DaemonBenchCmd {
    fn run(self, json: bool) -> anyhow::Result<Outcome> {
        let exe = crate::product_binary()?;
        std::fs::create_dir_all(&self.dir)?;
        if let Some(agents) = self.load {
            let n = self.sizes.first().copied().unwrap_or(100_000);
            let (_, root) = generated_project(&self.dir, n)?;
            note(&format!(
                "bench: {agents} agents on one daemon for {} s",
                self.seconds
            ));
            let r = bench::daemon::load(&exe, root.path(), n, agents, self.seconds)?;
            emit(json, &r, bench::daemon::load_markdown);
            return Ok(if r.lost_or_duplicated == 0 && r.errors == 0 {
                Outcome::Ok
            } else {
                Outcome::Violations
            });
        }
        let mut reports = Vec::new();
        for &n in &self.sizes {
            let (corpus, root) = generated_project(&self.dir, n)?;
            bench::daemon::register_bench_plan(&exe, root.path())?;
            let ledger_mb = std::fs::metadata(&corpus)?.len() / 1_048_576;
            for &agents in &self.agents {
                for mode in ["direct", "daemon"] {
                    let need = ledger_mb * 22 / 10 * agents as u64;
                    if mode == "direct" && need > self.max_direct_mb {
                        note(&format!(
                            "bench: {n} entries × {agents} agents direct skipped: would need ~{need} MB (--max-direct-mb {})",
                            self.max_direct_mb
                        ));
                        continue;
                    }
                    note(&format!("bench: {n} entries, {agents} agents, {mode}"));
                    reports.push(bench::daemon::measure(
                        &exe,
                        root.path(),
                        n,
                        agents,
                        mode,
                        self.searches,
                    )?);
                }
            }
        }
        emit(json, &reports, |r| bench::daemon::markdown(r));
        Ok(Outcome::Ok)
    }
}

/// Options of `bench brief`.
#[derive(Debug, Args)]
struct BriefCmd {
    /// Ledger sizes to time the brief at (comma-separated; 0 for none).
    #[arg(long, value_delimiter = ',', default_value = "100000,1000000")]
    sizes: Vec<usize>,
    /// Every brief with semantic ranking on (the bundled model; every world's entries
    /// embedded first). Needs xtask built with `--features semantic`.
    #[arg(long)]
    semantic: bool,
}

impl BriefCmd {
    fn run(self, json: bool) -> anyhow::Result<Outcome> {
        let sizes: Vec<usize> = self.sizes.into_iter().filter(|&n| n > 0).collect();
        if self.semantic && !cfg!(feature = "semantic") {
            anyhow::bail!(
                "--semantic needs the product's semantic ranking: build with `cargo xtask` \
                 replaced by `cargo run -p xtask --release --features semantic --`"
            );
        }
        let report = bench::brief::run(&sizes, self.semantic, &|m| note(m))?;
        emit(json, &report, bench::brief::markdown);
        Ok(Outcome::Ok)
    }
}

/// Options of `bench quality`.
#[derive(Debug, Args)]
struct QualityCmd {
    /// LoCoMo's locomo10.json (read in place, never copied). Default:
    /// ../shared/bench-data/locomo10.json when it exists.
    #[arg(long, value_name = "FILE")]
    locomo: Option<PathBuf>,
    /// Skip LoCoMo even when it is found.
    #[arg(long)]
    no_locomo: bool,
    /// The war-room relevance set.
    #[arg(
        long,
        value_name = "FILE",
        default_value = "tests/fixtures/relevance/warroom.yaml"
    )]
    set: PathBuf,
    /// The multilingual set (fourteen scripts, each with a distractor in the same script).
    #[arg(
        long,
        value_name = "FILE",
        default_value = "tests/fixtures/relevance/multilingual.yaml"
    )]
    multilingual: PathBuf,
    /// Also rank with the blend at these decay floors (comma-separated, 0..=1), to compare.
    #[arg(long, value_delimiter = ',', value_name = "F,F…")]
    floors: Vec<f64>,
}

impl QualityCmd {
    fn run(self, json: bool) -> anyhow::Result<Outcome> {
        let work = tempfile::tempdir()?;
        let mut reports = Vec::new();
        for (name, file) in [
            ("war-room relevance set", &self.set),
            ("multilingual set", &self.multilingual),
        ] {
            let group = quality::load_set(file)?;
            note(&format!(
                "bench quality: {} cases on {} entries from {}",
                group.cases.len(),
                group.entries.len(),
                file.display()
            ));
            reports.push(quality::evaluate(
                name,
                &[group],
                0,
                &|_| true,
                &self.floors,
                work.path(),
            )?);
        }
        let locomo_path = locomo_file(self.no_locomo, self.locomo);
        match locomo_path {
            Some(path) => {
                note(&format!("bench quality: LoCoMo from {}", path.display()));
                let (groups, skipped) = locomo::load(&path)?;
                let headline = |c: &str| c != "adversarial";
                reports.push(quality::evaluate(
                    "LoCoMo (headline: categories 1–4)",
                    &groups,
                    skipped,
                    &headline,
                    &self.floors,
                    work.path(),
                )?);
            }
            None => note("bench quality: LoCoMo not found; pass --locomo FILE to include it"),
        }
        if !cfg!(feature = "sqlite-compare") {
            note("bench quality: build with `--features sqlite-compare` to add SQLite FTS5");
        }
        emit(json, &reports, |r| quality::markdown(r));
        Ok(Outcome::Ok)
    }
}

impl BenchCmd {
    pub fn run(self, json: bool) -> anyhow::Result<Outcome> {
        match self.mode {
            Some(BenchMode::Quality(q)) => return q.run(json),
            Some(BenchMode::Brief(b)) => return b.run(json),
            Some(BenchMode::Daemon(d)) => return d.run(json),
            Some(BenchMode::Secrets(s)) => return s.run(json),
            Some(BenchMode::Postgres(p)) => return p.run(json),
            Some(BenchMode::Console(c)) => return c.run(json),
            Some(BenchMode::Semantic(c)) => return c.run(json),
            Some(BenchMode::Vectors(c)) => return c.run(json),
            Some(BenchMode::Compare(c)) => return c.run(json),
            Some(BenchMode::BriefCost(c)) => return c.run(json),
            None => {}
        }
        if let (Some(n), Some(corpus), Some(work)) =
            (self.child_size, &self.child_corpus, &self.child_work)
        {
            let report = bench::measure::measure(corpus, work, n, self.queries)?;
            print(&serde_json::to_string(&report)?);
            return Ok(Outcome::Ok);
        }
        if self.generate_only {
            std::fs::create_dir_all(&self.dir)?;
            for &n in &self.sizes {
                let path = bench::corpus_file_of(&self.dir, n, self.short_entries, &mut |msg| {
                    note(&format!("bench: {msg}"))
                })?;
                print(&path.display().to_string());
            }
            return Ok(Outcome::Ok);
        }
        let opts = BenchOptions {
            sizes: self.sizes,
            queries: self.queries.max(10),
            repeat: self.repeat,
            dir: self.dir,
            short_entries: self.short_entries,
        };
        let exe = std::env::current_exe()?;
        let reports = bench::run(&opts, &exe, &mut |msg| note(&format!("bench: {msg}")))?;
        if !cfg!(feature = "sqlite-compare") {
            note(
                "bench: SQLite FTS5 column skipped; build with `--features sqlite-compare` to include it",
            );
        }
        if !cfg!(feature = "tantivy-compare") {
            note(
                "bench: tantivy column skipped; build with `--features tantivy-compare` to include it",
            );
        }
        emit(json, &reports, |r| bench::markdown(r));
        Ok(Outcome::Ok)
    }
}
