//! `stress`: many processes, kill -9 and torn writes, with README-ready figures.

use std::path::PathBuf;

use clap::Args;

use crate::stress::{self, StressOptions, StressReport};
use warroom_memory::cli::out::{Outcome, emit, note};

/// Options of `stress`.
#[derive(Debug, Args)]
pub struct StressCmd {
    /// Concurrent server processes.
    #[arg(long, default_value_t = 16)]
    processes: usize,
    /// Entries and channel posts per process.
    #[arg(long, default_value_t = 1000)]
    entries: usize,
    /// Rounds in which a publishing server is killed -9 at a random moment.
    #[arg(long, default_value_t = 100)]
    kills: usize,
    /// Rounds in which a publishing server crashes inside an append (a torn write).
    #[arg(long, default_value_t = 20)]
    tears: usize,
    /// Where the temporary projects are made.
    #[arg(long, value_name = "DIR", default_value = "target")]
    dir: PathBuf,
}

fn text(r: &StressReport) -> String {
    let c = &r.concurrency;
    let k = &r.crashes;
    format!(
        "| run | figures |\n|---|---|\n\
         | concurrency | {} processes: {} entries written, {} found ({} unique), {} lost; {} channel posts written, {} found, {} lost; {} invalid lines; every process saw ≥ {} entries; {:.1} s |\n\
         | crashes | {} kill -9 + {} crashes inside an append: {} acknowledged entries, {} lost, {} duplicated, {} glued lines, {} torn fragments each on its own line, verify named all: {}; {:.1} s |",
        c.processes,
        c.entries_written,
        c.entries_found,
        c.entries_unique,
        c.entries_lost,
        c.posts_written,
        c.posts_found,
        c.posts_lost,
        c.invalid_lines,
        c.min_total_seen,
        c.seconds,
        k.kill9,
        k.torn_writes,
        k.acknowledged,
        k.lost,
        k.duplicated,
        k.glued_lines,
        k.torn_fragments,
        k.verify_named_all,
        k.seconds
    )
}

impl StressCmd {
    pub fn run(self, json: bool) -> anyhow::Result<Outcome> {
        let opts = StressOptions {
            processes: self.processes,
            entries: self.entries,
            kills: self.kills,
            tears: self.tears,
            dir: self.dir,
        };
        std::fs::create_dir_all(&opts.dir)?;
        note(&format!(
            "stress: {} processes × {} entries, then {} crash rounds",
            opts.processes, opts.entries, opts.kills
        ));
        let exe = crate::product_binary()?;
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()?;
        let report = rt.block_on(stress::run(&exe, &opts))?;
        emit(json, &report, text);
        let c = &report.concurrency;
        let k = &report.crashes;
        let clean = c.entries_lost == 0
            && c.posts_lost == 0
            && c.invalid_lines == 0
            && c.entries_unique == c.entries_found
            && c.min_total_seen == c.entries_found
            && k.lost == 0
            && k.duplicated == 0
            && k.glued_lines == 0
            && k.verify_named_all;
        Ok(if clean {
            Outcome::Ok
        } else {
            Outcome::Violations
        })
    }
}
