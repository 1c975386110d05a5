//! `LISTEN warroom`: one connection per process that wakes live subscribers when any host
//! appends. Only a wake-up: readers still catch up by sequence number before every call,
//! so a lost notification delays a push, never an answer.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, Weak};
use std::time::Duration;

use postgres::fallible_iterator::FallibleIterator;

use super::Db;

/// Notifications seen by the listening connection.
#[derive(Debug, Default)]
pub(super) struct News {
    started: AtomicBool,
    generation: AtomicU64,
    lock: Mutex<()>,
    wake: Condvar,
}

/// The count of notifications seen so far (starting the listener on first use): pass it
/// to [`wait`] after checking for news, so a notification in between is not missed.
pub(super) fn mark(db: &Arc<Db>) -> u64 {
    let news = &db.news;
    if !news.started.swap(true, Ordering::SeqCst) {
        let weak = Arc::downgrade(db);
        let news = news.clone();
        let url = db.url.clone();
        let spawned = std::thread::Builder::new()
            .name("warroom-pg-listen".into())
            .spawn(move || listen(weak, news, url));
        if let Err(e) = spawned {
            tracing::warn!("could not start the database listener: {e}");
        }
    }
    news.generation.load(Ordering::SeqCst)
}

/// Waits up to `timeout` for a notification after `mark` (from [`mark`]).
pub(super) fn wait(db: &Arc<Db>, mark: u64, timeout: Duration) {
    let news = &db.news;
    let guard = news.lock.lock().unwrap_or_else(|p| p.into_inner());
    let _ = news
        .wake
        .wait_timeout_while(guard, timeout, |_| {
            news.generation.load(Ordering::SeqCst) == mark
        })
        .unwrap_or_else(|p| p.into_inner());
}

fn bump(news: &News) {
    news.generation.fetch_add(1, Ordering::SeqCst);
    let _guard = news.lock.lock().unwrap_or_else(|p| p.into_inner());
    news.wake.notify_all();
}

/// The listener's loop: (re)connect, `LISTEN`, wake waiters on every notification, until
/// the database handle is dropped.
fn listen(db: Weak<Db>, news: Arc<News>, url: super::DbUrl) {
    let mut backoff = Duration::from_millis(100);
    while db.strong_count() > 0 {
        let mut client = match Db::connect(&url).and_then(|mut c| {
            c.batch_execute("LISTEN warroom")
                .map_err(|e| super::error("listening", &e))?;
            Ok(c)
        }) {
            Ok(c) => c,
            Err(e) => {
                tracing::warn!("database listener: {e}");
                std::thread::sleep(backoff);
                backoff = (backoff * 2).min(Duration::from_secs(5));
                continue;
            }
        };
        backoff = Duration::from_millis(100);
        // Whatever happened while we were not listening: wake everyone once.
        bump(&news);
        loop {
            if db.strong_count() == 0 {
                return;
            }
            let first = client
                .notifications()
                .timeout_iter(Duration::from_millis(500))
                .next();
            match first {
                Ok(Some(_)) => {
                    while let Ok(Some(_)) = client.notifications().iter().next() {}
                    bump(&news);
                }
                Ok(None) => {
                    if client.is_closed() {
                        break;
                    }
                }
                Err(e) => {
                    tracing::warn!("database listener lost its connection ({e}); reconnecting");
                    break;
                }
            }
        }
    }
}
