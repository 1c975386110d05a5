//! `bench postgres`: the PostgreSQL backend next to JSONL files, on the same generated
//! ledger in the same run — import, cold start, publish latency, search (which checks the
//! database for news on every call), and how soon an entry committed by another server
//! is in this server's index (files: the refresh after another process's append).

use std::path::Path;
use std::sync::Arc;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde::Serialize;

use super::corpus::Corpus;
use super::measure::{Micros, publish_args};
use warroom_memory::api::ledger::SearchArgs;
use warroom_memory::clock::{FixedClock, Timestamp};
use warroom_memory::config::{Identity, Paths, Settings};
use warroom_memory::memory::Memory;
use warroom_memory::store::Stream;
use warroom_memory::store::pg::{Db, DbUrl};
use warroom_memory::store::transfer;

/// One size, both backends.
#[derive(Debug, Clone, Serialize)]
pub struct PgReport {
    /// Entries in the ledger.
    pub entries: usize,
    /// `db import` of the whole ledger, ms.
    pub import_ms: f64,
    /// Opening the project (reading every line into the index), ms.
    pub cold_start_files_ms: f64,
    /// The same from the database, ms.
    pub cold_start_pg_ms: f64,
    /// Search on files.
    pub search_files: Micros,
    /// Search on the database (one small query for news, then the same index).
    pub search_pg: Micros,
    /// Publish on files, fsync on.
    pub publish_files: Micros,
    /// Publish on the database (commit durable per the server's settings).
    pub publish_pg: Micros,
    /// Files: refresh after another process appended one line.
    pub catch_up_files: Micros,
    /// Database: from another server's commit to the entry in this server's index,
    /// woken by `NOTIFY`.
    pub catch_up_pg: Micros,
}

fn time(n: usize, mut f: impl FnMut(usize)) -> Micros {
    Micros::of(
        (0..n)
            .map(|i| {
                let t = Instant::now();
                f(i);
                t.elapsed()
            })
            .collect(),
    )
}

/// Measures one size: `corpus` on files and in a new database `name` of `admin`'s server.
pub fn measure(
    admin: &DbUrl,
    corpus: &Path,
    entries: usize,
    calls: usize,
    progress: &mut dyn FnMut(&str),
) -> anyhow::Result<PgReport> {
    let end = Timestamp(1_795_608_000);
    let clock = Arc::new(FixedClock::new(end));
    let who = Identity {
        room_id: Some("room-000".into()),
        role: Some("engineer".into()),
        credential: None,
    };
    let mut generated = Corpus::new(99, end);
    let texts: Vec<String> = (0..calls).map(|_| generated.query()).collect();
    let search = |m: &Memory| {
        let _ = m.search(
            SearchArgs {
                text: texts[0].clone(),
                ..SearchArgs::default()
            },
            &who,
        );
        time(calls, |i| {
            let args = SearchArgs {
                text: texts[i].clone(),
                ..SearchArgs::default()
            };
            let _ = m.search(args, &who);
        })
    };

    // Files.
    let work = tempfile::tempdir()?;
    let paths = Paths::under(work.path());
    std::fs::create_dir_all(paths.ledger.parent().expect("has a parent"))?;
    std::fs::copy(corpus, &paths.ledger)?;
    progress(&format!("{entries} entries: files"));
    let t = Instant::now();
    let files = Memory::open(paths.clone(), Settings::default(), clock.clone())?;
    let cold_start_files_ms = t.elapsed().as_secs_f64() * 1e3;
    let search_files = search(&files);
    let publish_files = time(calls.min(200), |i| {
        let _ = files.publish(publish_args(i), &who);
    });
    let mut other = std::fs::OpenOptions::new()
        .append(true)
        .open(&paths.ledger)?;
    let catch_up_files = Micros::of(
        (0..calls.min(200))
            .map(|i| {
                let line = generated
                    .entry(entries + i, entries + 200)
                    .to_line()
                    .replace("mem-bench-", "mem-other-");
                std::io::Write::write_all(&mut other, format!("{line}\n").as_bytes())
                    .expect("append");
                let t = Instant::now();
                let _ = files.refresh();
                t.elapsed()
            })
            .collect(),
    );
    drop(files);

    // PostgreSQL.
    let name = format!("warroom_bench_{entries}_{}", std::process::id());
    admin.drop_database(&name)?;
    admin.create_database(&name)?;
    let url = DbUrl::parse("bench", &admin.url_of_database(&name))?;
    let result = (|| -> anyhow::Result<PgReport> {
        progress(&format!("{entries} entries: importing into {url}"));
        let db = Db::open(url.clone())?;
        let t = Instant::now();
        transfer::import(
            &db,
            &Stream::Ledger,
            corpus,
            &warroom_memory::ledger::line_keys,
            &mut |_| {},
        )?;
        let import_ms = t.elapsed().as_secs_f64() * 1e3;
        drop(db);
        progress(&format!("{entries} entries: postgres"));
        let mut pg_paths = paths.clone();
        pg_paths.database = Some(url.clone());
        let t = Instant::now();
        let pg = Memory::open(pg_paths.clone(), Settings::default(), clock.clone())?;
        let cold_start_pg_ms = t.elapsed().as_secs_f64() * 1e3;
        let search_pg = search(&pg);
        let publish_pg = time(calls.min(200), |i| {
            let _ = pg.publish(publish_args(i), &who);
        });
        // Another server on the same database commits; this one, woken by NOTIFY,
        // catches up. Latency: the writer's commit returned → the entry is in our index.
        let writer = Memory::open(pg_paths, Settings::default(), clock.clone())?;
        let (tx, rx) = mpsc::channel::<Instant>();
        let stop = std::sync::atomic::AtomicBool::new(false);
        let catch_up_pg = std::thread::scope(|s| {
            s.spawn(|| {
                let mut seen = pg.stats().map(|st| st.entries).unwrap_or(0);
                while !stop.load(std::sync::atomic::Ordering::SeqCst) {
                    let mark = pg.news_mark();
                    let now = pg.stats().map(|st| st.entries).unwrap_or(seen);
                    if now > seen {
                        seen = now;
                        let _ = tx.send(Instant::now());
                        continue;
                    }
                    pg.wait_for_news(mark, Duration::from_millis(50));
                }
            });
            let mut lags = Vec::new();
            for i in 0..calls.min(200) {
                let _ = writer.publish(publish_args(100_000 + i), &who);
                let committed = Instant::now();
                let Ok(visible) = rx.recv_timeout(Duration::from_secs(10)) else {
                    break;
                };
                lags.push(visible.saturating_duration_since(committed));
            }
            stop.store(true, std::sync::atomic::Ordering::SeqCst);
            Micros::of(lags)
        });
        Ok(PgReport {
            entries,
            import_ms,
            cold_start_files_ms,
            cold_start_pg_ms,
            search_files,
            search_pg,
            publish_files,
            publish_pg,
            catch_up_files,
            catch_up_pg,
        })
    })();
    let _ = admin.drop_database(&name);
    result
}

/// README table.
pub fn markdown(reports: &[PgReport]) -> String {
    let pair = |m: &Micros| format!("{:.2} / {:.2} ms", m.p50 / 1e3, m.p99 / 1e3);
    let mut s = String::from(
        "| entries | import | cold start files / pg | search p50/p99 files | search p50/p99 pg | publish p50/p99 files (fsync) | publish p50/p99 pg | catch-up p50/p99 files | catch-up p50/p99 pg (remote commit → index) |\n|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for r in reports {
        s.push_str(&format!(
            "| {} | {:.1} s | {:.2} s / {:.2} s | {} | {} | {} | {} | {} | {} |\n",
            r.entries,
            r.import_ms / 1e3,
            r.cold_start_files_ms / 1e3,
            r.cold_start_pg_ms / 1e3,
            pair(&r.search_files),
            pair(&r.search_pg),
            pair(&r.publish_files),
            pair(&r.publish_pg),
            pair(&r.catch_up_files),
            pair(&r.catch_up_pg),
        ));
    }
    s
}
