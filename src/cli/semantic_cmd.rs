//! `semantic`: the opt-in semantic ranking's housekeeping — `status` (the model, its
//! dimensions, entries with and without a vector, the cache) and `backfill` (embeds every
//! entry without a vector, on every core, resumable: what was embedded is saved as it
//! goes, so Ctrl-C loses at most one batch).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use clap::Subcommand;

use super::Ctx;
use super::out::{Outcome, emit, note, progress};

/// What `semantic` does.
#[derive(Debug, Subcommand)]
pub enum SemanticCmd {
    /// The model, dimensions, entries with and without a vector, and the cache's size.
    Status,
    /// Embed every entry that has no vector yet (needs `semantic: on`). Uses every core;
    /// resumable after Ctrl-C; a progress line on a terminal.
    Backfill {
        /// Threads embedding side by side (default: the machine's cores).
        #[arg(long, value_name = "N")]
        threads: Option<usize>,
    },
}

impl SemanticCmd {
    pub(super) fn run(self, ctx: &Ctx) -> anyhow::Result<Outcome> {
        match self {
            SemanticCmd::Status => {
                let s = ctx.memory.semantic_status()?;
                emit(ctx.json, &s, |s| {
                    if !s.on {
                        return format!(
                            "semantic ranking: off ({} entries, ranked lexically). Turn it on \
                             with `semantic: on` in .agents/warroom.yaml or WARROOM_SEMANTIC=on",
                            s.entries
                        );
                    }
                    let mut t = format!(
                        "semantic ranking: on, weight {} lexical / {} cosine\nmodel: {}\nmodel id: {}\ndimensions: {}\nentries: {} ({} with a vector, {} without)",
                        s.weight,
                        1.0 - s.weight,
                        s.model.as_deref().unwrap_or("(did not load)"),
                        s.model_id.as_deref().unwrap_or("-"),
                        s.dimensions,
                        s.entries,
                        s.with_vector,
                        s.without_vector
                    );
                    if let Some(c) = &s.cache {
                        t.push_str(&format!("\ncache: {c} ({} bytes)", s.cache_bytes));
                    }
                    if let Some(e) = &s.error {
                        t.push_str(&format!("\nerror: {e}"));
                    }
                    if s.without_vector > 0 && s.error.is_none() {
                        t.push_str("\nrun `warroom-memory semantic backfill` to embed the rest");
                    }
                    t
                });
                Ok(Outcome::Ok)
            }
            SemanticCmd::Backfill { threads } => {
                let threads = threads
                    .unwrap_or_else(|| {
                        std::thread::available_parallelism().map_or(1, std::num::NonZero::get)
                    })
                    .max(1);
                let stop = Arc::new(AtomicBool::new(false));
                {
                    let stop = stop.clone();
                    // Ctrl-C: stop after the batch in flight (saved), then exit.
                    let _ = ctrlc_once(move || stop.store(true, Ordering::Relaxed));
                }
                use std::io::IsTerminal;
                let tty = std::io::stderr().is_terminal();
                let started = std::time::Instant::now();
                let mut show = |done: usize, total: usize| {
                    if tty {
                        let rate = done as f64 / started.elapsed().as_secs_f64().max(1e-3);
                        progress(
                            &format!("semantic backfill: {done} of {total} entries ({rate:.0}/s)"),
                            false,
                        );
                    }
                };
                let r = ctx.memory.semantic_backfill(threads, &stop, &mut show)?;
                if tty {
                    progress("", true);
                }
                if r.interrupted {
                    note(
                        "semantic backfill: stopped; what was embedded is saved — run it again to go on",
                    );
                }
                emit(ctx.json, &r, |r| {
                    format!(
                        "embedded {} entries ({} already had a vector, {} failed and stay lexical){}",
                        r.embedded,
                        r.already,
                        r.failed,
                        if r.interrupted { "; interrupted" } else { "" }
                    )
                });
                Ok(Outcome::Ok)
            }
        }
    }
}

/// Runs `f` on the first SIGINT (a thread waits for it); later ones kill as usual.
fn ctrlc_once(f: impl FnOnce() + Send + 'static) -> std::io::Result<()> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    std::thread::spawn(move || {
        rt.block_on(async {
            if tokio::signal::ctrl_c().await.is_ok() {
                f();
            }
        });
    });
    Ok(())
}
