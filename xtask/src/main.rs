//! `xtask`: the developer tools of warroom-memory, kept out of the product binary (the
//! shape of rust-analyzer's `xtask`). Run with `cargo xtask …` (an alias for
//! `cargo run --release -p xtask --`, see `.cargo/config.toml`):
//!
//! - `bench` — the measurements behind README's tables and `docs/performance.md`
//!   (search, query, context, cold start, memory at 10k–10M entries; `quality`; `daemon`
//!   with kept-alive HTTP; `secrets`; `postgres`), with SQLite FTS5 and tantivy beside our
//!   index (features `sqlite-compare`, `tantivy-compare`);
//! - `stress` — many processes, kill -9 and torn writes: nothing acknowledged is lost.
//!
//! Benchmarks that need the product's server (`bench daemon`, `stress`) run the real
//! `warroom-memory` binary: the one beside this one in the target directory, or
//! `WARROOM_BIN` ([`product_binary`]).

mod bench;
mod bench_cmd;
mod stress;
mod stress_cmd;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use warroom_memory::cli::out;

/// Developer tools of warroom-memory: benchmarks and stress runs.
///
/// Exit codes: 0 ok, 1 a check failed (lost entries, missed secrets), 2 error.
#[derive(Debug, Parser)]
#[command(name = "xtask", max_term_width = 100)]
struct Cli {
    /// Machine-readable JSON output instead of text.
    #[arg(long, global = true)]
    json: bool,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Measure cold start, search, query, context, tail pick-up and publish on generated
    /// ledgers; or retrieval quality, the daemon, the secret scanner, PostgreSQL.
    Bench(bench_cmd::BenchCmd),
    /// Many processes, kill -9 and torn writes: prove nothing is lost (exit 1 if anything is).
    Stress(stress_cmd::StressCmd),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    warroom_memory::cli::init_logging();
    let result = match cli.command {
        Command::Bench(cmd) => cmd.run(cli.json),
        Command::Stress(cmd) => cmd.run(cli.json),
    };
    match result {
        Ok(outcome) => outcome.into(),
        Err(e) => {
            out::note(&format!("error: {e:#}"));
            ExitCode::from(2)
        }
    }
}

/// The product binary the benchmarks run: `WARROOM_BIN`, else `warroom-memory` beside
/// this binary in the target directory (`cargo build --release` builds it; `cargo xtask`
/// does not, since a nested cargo would wait for the lock the outer one holds).
pub(crate) fn product_binary() -> anyhow::Result<PathBuf> {
    if let Some(bin) = std::env::var_os("WARROOM_BIN") {
        return Ok(PathBuf::from(bin));
    }
    let me = std::env::current_exe()?;
    let bin = me.with_file_name("warroom-memory");
    anyhow::ensure!(
        bin.exists(),
        "{} not found. Fix: `cargo build --release` first (the same profile as this \
         xtask), or set WARROOM_BIN to the binary to measure",
        bin.display()
    );
    Ok(bin)
}
