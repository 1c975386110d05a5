//! `bench`: measure the hot paths on generated ledgers and print README-ready tables.

use std::path::PathBuf;

use clap::Args;

use super::out::{Outcome, emit, note, print};
use crate::bench::{self, BenchOptions};

/// Options of `bench`.
#[derive(Debug, Args)]
pub struct BenchCmd {
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
    #[arg(long, hide = true)]
    child_size: Option<usize>,
    #[arg(long, hide = true)]
    child_corpus: Option<PathBuf>,
    #[arg(long, hide = true)]
    child_work: Option<PathBuf>,
}

impl BenchCmd {
    pub(super) fn run(self, json: bool) -> anyhow::Result<Outcome> {
        if let (Some(n), Some(corpus), Some(work)) =
            (self.child_size, &self.child_corpus, &self.child_work)
        {
            let report = bench::measure::measure(corpus, work, n, self.queries)?;
            print(&serde_json::to_string(&report)?);
            return Ok(Outcome::Ok);
        }
        let opts = BenchOptions {
            sizes: self.sizes,
            queries: self.queries.max(10),
            repeat: self.repeat,
            dir: self.dir,
        };
        let exe = std::env::current_exe()?;
        let reports = bench::run(&opts, &exe, &mut |msg| note(&format!("bench: {msg}")))?;
        if !cfg!(feature = "sqlite-compare") {
            note(
                "bench: SQLite FTS5 column skipped; build with `--features sqlite-compare` to include it",
            );
        }
        emit(json, &reports, |r| bench::markdown(r));
        Ok(Outcome::Ok)
    }
}
