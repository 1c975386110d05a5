//! `scenario run`: run scenario files through real server processes and report.

use std::path::PathBuf;

use clap::{Args, Subcommand};

use super::out::{Outcome, print};
use crate::scenario::runner::{self, Outcome as ScenarioOutcome};

/// Scenario-driven acceptance tests.
#[derive(Debug, Subcommand)]
pub enum ScenarioCmd {
    /// Run scenario files (or directories of *.scenario.yaml); exit 1 if any fails.
    Run(RunArgs),
}

/// Options of `scenario run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// Files or directories (default: scenarios/).
    paths: Vec<PathBuf>,
    /// Also write a JSON report to this file (`--json` prints it on stdout instead of text).
    #[arg(long, value_name = "FILE")]
    report: Option<PathBuf>,
    /// Run every scenario with a daemon serving its project: every agent's `serve`
    /// attaches to it (`--daemon require`), so the suite checks the daemon's semantics.
    #[arg(long)]
    daemon: bool,
    /// Run every scenario on the PostgreSQL backend: each gets a new database on this
    /// server (URL of a user allowed to CREATE DATABASE), dropped when it ends.
    #[arg(long, value_name = "ADMIN_URL")]
    postgres: Option<String>,
}

fn describe(o: &ScenarioOutcome) -> String {
    if let Some(why) = &o.not_applicable {
        return format!("– {} — {} (not run: {why})", o.id, o.title);
    }
    if o.passed {
        return format!("✓ {} — {} ({} steps, {} ms)", o.id, o.title, o.steps, o.ms);
    }
    let mut s = format!("✗ {} — {} ({})", o.id, o.title, o.file);
    if let Some(f) = &o.failure {
        s.push_str(&format!(
            "\n    at:       {}\n    expected: {}\n    actual:   {}",
            f.step,
            f.expectation,
            f.actual.replace('\n', "\n              ")
        ));
        if let Some(d) = &f.diff {
            s.push_str(&format!(
                "\n    diff:\n      {}",
                d.trim_end().replace('\n', "\n      ")
            ));
        }
    }
    s
}

impl ScenarioCmd {
    pub(super) fn run(self, json: bool) -> anyhow::Result<Outcome> {
        let ScenarioCmd::Run(args) = self;
        let paths = if args.paths.is_empty() {
            vec![PathBuf::from("scenarios")]
        } else {
            args.paths
        };
        if let Some(missing) = paths.iter().find(|p| !p.exists()) {
            anyhow::bail!("{} does not exist", missing.display());
        }
        let files = crate::scenario::expand(&paths);
        anyhow::ensure!(
            !files.is_empty(),
            "no *.scenario.yaml found in {}",
            paths
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
        let exe = std::env::current_exe()?;
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()?;
        let admin = match &args.postgres {
            Some(u) => Some(crate::store::pg::DbUrl::parse("--postgres", u)?),
            None => None,
        };
        let mut outcomes = Vec::new();
        for (i, f) in files.iter().enumerate() {
            let name = format!("warroom_scenario_{}_{i}", std::process::id());
            let database = match &admin {
                Some(a) => {
                    a.drop_database(&name)?;
                    a.create_database(&name)?;
                    Some(a.url_of_database(&name))
                }
                None => None,
            };
            let o = rt.block_on(runner::run_file(f, &exe, args.daemon, database.as_deref()));
            if let Some(a) = &admin
                && let Err(e) = a.drop_database(&name)
            {
                tracing::warn!("{e}");
            }
            if !json {
                print(&describe(&o));
            }
            outcomes.push(o);
        }
        let failed = outcomes.iter().filter(|o| !o.passed).count();
        let not_run = outcomes
            .iter()
            .filter(|o| o.not_applicable.is_some())
            .count();
        if json {
            print(&serde_json::to_string_pretty(&outcomes)?);
        } else {
            print(&format!(
                "{} passed, {failed} failed{}",
                outcomes.len() - failed - not_run,
                if not_run > 0 {
                    format!(", {not_run} not applicable to this backend")
                } else {
                    String::new()
                }
            ));
        }
        if let Some(path) = args.report {
            std::fs::write(&path, serde_json::to_string_pretty(&outcomes)?)?;
        }
        Ok(if failed == 0 {
            Outcome::Ok
        } else {
            Outcome::Violations
        })
    }
}
