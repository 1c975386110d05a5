//! `console`: open the project's web console. Reuses the daemon that serves the project
//! (it must serve HTTP), or starts one with HTTP on `--listen`, then prints the sign-in
//! address: `/login?code=…` trades a one-time code (good once, for a minute; made with
//! the operator token, never carrying it) for a browser session of its own.

use clap::Args;

use super::Global;
use super::out::{Outcome, emit, note};
use crate::daemon;

/// Options of `console`.
#[derive(Debug, Args)]
pub struct ConsoleCmd {
    /// Where a daemon started by this command serves HTTP (the console and `/mcp`).
    /// Ignored when a daemon already runs.
    #[arg(long, value_name = "ADDR:PORT", default_value = crate::daemon::http::DEFAULT_LISTEN)]
    listen: String,
    /// Only print the address of a running daemon's console; never start one.
    #[arg(long)]
    no_start: bool,
}

/// What `console --json` prints.
#[derive(Debug, serde::Serialize)]
struct ConsoleOut {
    /// The console's address.
    url: String,
    /// The address that signs a browser in: good once, within `expires_in_seconds`.
    login_url: String,
    /// Seconds the sign-in address stays good.
    expires_in_seconds: u64,
    /// The daemon serving it.
    pid: u32,
    /// True if this command started the daemon.
    started: bool,
}

impl ConsoleCmd {
    pub(super) fn run(self, g: &Global) -> anyhow::Result<Outcome> {
        let (paths, _, _) = g.layout()?;
        let env = |k: &str| std::env::var(k).ok();
        let place = daemon::place(&paths.root, &env)?;
        let mut started = false;
        let info = match daemon::running(&place)? {
            Some(i) if i.ready => i,
            Some(i) => anyhow::bail!(
                "the daemon of {} (PID {}) is still loading the ledger. Fix: wait a moment \
                 and run `warroom-memory console` again",
                paths.root.display(),
                i.pid
            ),
            None if self.no_start => {
                note(&format!(
                    "no daemon serves {} (run `warroom-memory console` without --no-start to start one)",
                    paths.root.display()
                ));
                return Ok(Outcome::NothingFound);
            }
            None => {
                note(&format!(
                    "starting the daemon of {} with HTTP on {}",
                    paths.root.display(),
                    self.listen
                ));
                super::serve::spawn_daemon(&paths.root, &place, Some(&self.listen))?;
                started = true;
                daemon::running(&place)?
                    .ok_or_else(|| anyhow::anyhow!("the daemon started and stopped at once"))?
            }
        };
        let Some(mcp) = &info.url else {
            anyhow::bail!(
                "the daemon of {} (PID {}) serves no HTTP (it was started with --listen none). \
                 Fix: `warroom-memory daemon stop`, then `warroom-memory console` (or start \
                 it with `daemon --listen {}`)",
                paths.root.display(),
                info.pid,
                crate::daemon::http::DEFAULT_LISTEN
            );
        };
        let token = match (&info.token_file, std::env::var("WARROOM_TOKEN")) {
            (Some(f), _) => crate::daemon::credentials::read_token_file(f)?
                .trim()
                .to_string(),
            (None, Ok(t)) if !t.is_empty() => t,
            _ => anyhow::bail!(
                "the daemon of {} was given its operator token (--token-file or \
                 WARROOM_TOKEN) and did not say where. Fix: set WARROOM_TOKEN to that token \
                 here and run `warroom-memory console` again",
                paths.root.display()
            ),
        };
        let base = mcp.trim_end_matches("/mcp").to_string();
        let now = {
            use crate::clock::Clock;
            crate::clock::SystemClock.now().0.max(0) as u64
        };
        let authority = base
            .trim_start_matches("http://")
            .trim_start_matches("https://");
        let code = crate::console::signin::mint_code(&token, authority, now);
        let lifetime = crate::console::signin::CODE_LIFETIME.as_secs();
        let out = ConsoleOut {
            login_url: format!("{base}/login?code={code}"),
            expires_in_seconds: lifetime,
            url: format!("{base}/"),
            pid: info.pid,
            started,
        };
        note(&format!(
            "the console of {} is served by the daemon (PID {}{}); open the address below \
             in a browser on this machine within {lifetime} s: it signs that browser in once \
             (run this command again for another). Sign out at /logout. Stop the daemon with \
             `warroom-memory daemon stop`.",
            paths.root.display(),
            info.pid,
            if started { ", started now" } else { "" }
        ));
        emit(g.json, &out, |o| o.login_url.clone());
        Ok(Outcome::Ok)
    }
}
