//! `semantic`: the opt-in semantic ranking's housekeeping — `status` (the model, its
//! dimensions, entries with and without a vector, the cache) and `backfill` (embeds every
//! entry without a vector, on every core, resumable: what was embedded is saved every
//! 10 s and on Ctrl-C, so a kill loses at most 10 s of work).

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
    /// Download a model pinned by SHA-256 into the cache directory — only when asked,
    /// never at run time. Without NAME: the models that can be fetched. Then point
    /// `semantic: { model: DIR }` at the directory it prints.
    Fetch {
        /// The model (`all-minilm-l6-v2`, or a name from --catalogue).
        name: Option<String>,
        /// Take the files from this address (a mirror) instead; they must still match
        /// their pinned SHA-256.
        #[arg(long, value_name = "URL")]
        from: Option<String>,
        /// A team's own catalogue: a JSON array of {name, base, files: [{name, sha256,
        /// bytes}]} (models on an internal mirror), instead of the built-in one.
        #[arg(long, value_name = "FILE")]
        catalogue: Option<std::path::PathBuf>,
        /// Where models go (default: `models/` in the cache directory —
        /// $WARROOM_SNAPSHOT_DIR, else ~/.cache/warroom-memory).
        #[arg(long, value_name = "DIR")]
        dir: Option<std::path::PathBuf>,
    },
}

/// What `semantic fetch` did.
#[cfg(feature = "semantic")]
#[derive(Debug, serde::Serialize)]
struct Fetched {
    name: String,
    dir: String,
    /// True if every file was there already with its pinned hash (nothing downloaded).
    already: bool,
    files: usize,
    bytes: u64,
    /// The line to put in .agents/warroom.yaml.
    config: String,
}

impl SemanticCmd {
    pub(super) fn run(self, ctx: &Ctx) -> anyhow::Result<Outcome> {
        match self {
            SemanticCmd::Fetch {
                name,
                from,
                catalogue,
                dir,
            } => fetch(ctx, name, from, catalogue, dir),
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
                        let secs = started.elapsed().as_secs_f64();
                        let rate = done as f64 / secs.max(1e-3);
                        progress(
                            &format!(
                                "semantic backfill: {done} of {total} entries ({rate:.0}/s{})",
                                time_left(done, total, secs)
                                    .map_or_else(String::new, |t| format!(", ~{t} left"))
                            ),
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

#[cfg(feature = "semantic")]
fn fetch(
    ctx: &Ctx,
    name: Option<String>,
    from: Option<String>,
    catalogue: Option<std::path::PathBuf>,
    dir: Option<std::path::PathBuf>,
) -> anyhow::Result<Outcome> {
    use crate::semantic::fetch;
    let list = match &catalogue {
        Some(f) => fetch::catalogue_file(f).map_err(anyhow::Error::msg)?,
        None => fetch::catalogue(),
    };
    let Some(name) = name else {
        emit(ctx.json, &list, |l| {
            l.iter()
                .map(|m| format!("{}  {}", m.name, m.about))
                .collect::<Vec<_>>()
                .join("\n")
        });
        return Ok(Outcome::Ok);
    };
    let Some(model) = list.iter().find(|m| m.name == name) else {
        anyhow::bail!(
            "no model `{}` in the {} catalogue (it has: {}). Fix: `warroom-memory semantic fetch` lists them",
            crate::validate::printable(&name),
            if catalogue.is_some() {
                "given"
            } else {
                "built-in"
            },
            list.iter()
                .map(|m| m.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        );
    };
    let dir = match dir {
        Some(d) => d,
        None => ctx
            .memory
            .settings()
            .snapshot
            .as_ref()
            .map(|p| p.dir.clone())
            .or_else(crate::snapshot::SnapshotPlace::default_dir)
            .ok_or_else(|| {
                anyhow::anyhow!("no cache directory (no $HOME). Fix: give one with --dir")
            })?
            .join("models"),
    };
    use std::io::IsTerminal;
    let tty = std::io::stderr().is_terminal();
    let mut show = |done: u64, total: u64| {
        if tty {
            progress(
                &format!(
                    "semantic fetch {}: {} of {} MB",
                    model.name,
                    done >> 20,
                    total >> 20
                ),
                false,
            );
        }
    };
    let r = fetch::fetch(model, from.as_deref(), &dir, &mut show);
    if tty {
        progress("", true);
    }
    let (path, already) = r.map_err(anyhow::Error::msg)?;
    let out = Fetched {
        name: model.name.clone(),
        dir: path.display().to_string(),
        already,
        files: model.files.len(),
        bytes: model.files.iter().map(|f| f.bytes).sum(),
        config: format!("semantic: {{ model: {} }}", path.display()),
    };
    emit(ctx.json, &out, |o| {
        format!(
            "{} {} into {} ({} files, {} bytes, each SHA-256 as pinned)\nuse it: put `{}` in .agents/warroom.yaml, then run `warroom-memory semantic backfill`",
            if o.already { "already had" } else { "fetched" },
            o.name,
            o.dir,
            o.files,
            o.bytes,
            o.config
        )
    });
    Ok(Outcome::Ok)
}

#[cfg(not(feature = "semantic"))]
fn fetch(
    _: &Ctx,
    _: Option<String>,
    _: Option<String>,
    _: Option<std::path::PathBuf>,
    _: Option<std::path::PathBuf>,
) -> anyhow::Result<Outcome> {
    anyhow::bail!(
        "this build has no semantic ranking. Fix: install a build with it: \
         `cargo install --path . --features semantic`"
    )
}

/// The time a run that did `done` of `total` in `secs` seconds still needs at that rate, as
/// people read it ("1 h 05 min", "12 min", "40 s"); none before 5 s or a first item.
fn time_left(done: usize, total: usize, secs: f64) -> Option<String> {
    if done == 0 || secs < 5.0 || done >= total {
        return None;
    }
    let left = (secs / done as f64 * (total - done) as f64).round() as u64;
    Some(match left {
        0..60 => format!("{left} s"),
        60..3600 => format!("{} min", left.div_ceil(60)),
        _ => {
            let minutes = left.div_ceil(60);
            format!("{} h {:02} min", minutes / 60, minutes % 60)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::time_left;

    #[test]
    fn the_time_left_is_the_rate_so_far_applied_to_what_remains() {
        assert_eq!(time_left(0, 100, 60.0), None, "nothing done: no rate yet");
        assert_eq!(time_left(10, 100, 2.0), None, "too early to say");
        assert_eq!(time_left(100, 100, 60.0), None, "done");
        // 10 a second, 90 left: 9 s.
        assert_eq!(time_left(100, 190, 10.0).as_deref(), Some("9 s"));
        // 100 a second, 60,000 left: 600 s.
        assert_eq!(time_left(1_000, 61_000, 10.0).as_deref(), Some("10 min"));
        // 115 a second, 945,950 left: 8,226 s, minutes rounded up.
        assert_eq!(
            time_left(54_050, 1_000_000, 470.0).as_deref(),
            Some("2 h 18 min")
        );
    }
}
