//! The HTTP edge's connections: accepting, bounding and timing them out (shape after
//! mini-redis's listener and hyper's server guides).
//!
//! - **A cap on open connections** (`--max-connections`, default
//!   [`DEFAULT_MAX_CONNECTIONS`]), and **a share per credential**
//!   (`--max-connections-per-credential`, default [`DEFAULT_MAX_PER_CREDENTIAL`]): a
//!   credential at its share cannot prove another connection (429, closed), so keep-open
//!   streams or slowly dripped bodies of one token cannot fill the edge. At the cap a new
//!   connection takes the place of the oldest connection that has not yet made an
//!   authenticated request ([`Proven`], set by the bearer check and the console's guard);
//!   when every open connection has proven itself, of the oldest connection of the
//!   credential holding the most (if it holds more than one). Only when neither exists is
//!   a new one closed at once; the first refusal of a saturation is logged, and the
//!   recovery — one line per condition, not one per attempt.
//! - **Header and idle timeouts** (`--header-timeout`, default [`HEADER_TIMEOUT`]): a
//!   connection that sends half a request head, or sits idle between requests, is closed
//!   after it (hyper's header-read timer runs from the moment a connection waits for a
//!   request). A response being streamed (a live-updates stream) is not idle.
//! - **`TCP_NODELAY`** on every connection: MCP clients keep a connection alive, and with
//!   Nagle's algorithm each later response waited ~40 ms for the client's delayed ACK.
//! - **Back-off on accept errors** (out of descriptors): a growing pause, never a spin.
//! - **Graceful stop**: on the stop signal, no new connections; open ones finish the
//!   request in flight (bounded by [`DRAIN`]).

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio_util::sync::CancellationToken;

/// Default cap on open HTTP connections.
pub const DEFAULT_MAX_CONNECTIONS: usize = 512;
/// Default share of the open connections one credential may hold.
pub const DEFAULT_MAX_PER_CREDENTIAL: usize = 64;
/// Default time a connection may take to send a request head, or stay idle between
/// requests.
pub const HEADER_TIMEOUT: Duration = Duration::from_secs(30);
/// How long a stop waits for open connections to finish their request.
const DRAIN: Duration = Duration::from_secs(10);
const BACKOFF_START: Duration = Duration::from_millis(5);
const BACKOFF_MAX: Duration = Duration::from_secs(1);

pub use crate::conn::{Holders, Proven};

/// An open connection as the accept loop sees it.
struct Open {
    seq: u64,
    proven: Proven,
    close: CancellationToken,
}

type OpenList = Arc<Mutex<VecDeque<Open>>>;

/// Closes the oldest open connection `pick` chooses; false if none. Each reason's warning
/// is logged at most once per 10 s.
fn evict(
    open: &OpenList,
    pick: impl Fn(&Open) -> bool,
    limiter: &crate::ratelog::Limiter,
    why: &str,
) -> bool {
    let mut list = open.lock().unwrap_or_else(|p| p.into_inner());
    let Some(i) = list.iter().position(pick) else {
        return false;
    };
    let c = list.remove(i).expect("a position in the list");
    c.close.cancel();
    if let Some(held) = limiter.allow(std::time::Instant::now()) {
        tracing::warn!(
            held_back = held,
            "HTTP: at the connection cap, {why} (such warnings: at most one per 10 s)"
        );
    }
    true
}

/// Closes the oldest open connection that has not proven itself; false if none.
fn evict_unproven(open: &OpenList) -> bool {
    static EVICTED: crate::ratelog::Limiter = crate::ratelog::Limiter::new();
    evict(
        open,
        |c| !c.proven.is_set(),
        &EVICTED,
        "closed an unauthenticated connection for a new one",
    )
}

/// Closes the oldest connection of the credential holding the most, when it holds more
/// than one; false otherwise.
fn evict_heaviest(open: &OpenList, holders: &Holders) -> bool {
    static EVICTED: crate::ratelog::Limiter = crate::ratelog::Limiter::new();
    let Some((heavy, _)) = holders.heaviest().filter(|(_, n)| *n > 1) else {
        return false;
    };
    evict(
        open,
        |c| c.proven.holder() == Some(heavy.as_str()),
        &EVICTED,
        "every connection authenticated: closed the oldest of the credential holding the most",
    )
}

/// The edge's connection limits.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Open connections (`--max-connections`).
    pub max_connections: usize,
    /// Connections one credential may hold (`--max-connections-per-credential`).
    pub per_credential: usize,
    /// Time for a request head, or idle between requests (`--header-timeout`).
    pub header_timeout: Duration,
}

/// Serves `router` on `listener` until `stop`, within the limits above.
pub async fn serve(
    listener: tokio::net::TcpListener,
    router: axum::Router,
    limits: Limits,
    stop: CancellationToken,
) {
    let Limits {
        max_connections,
        per_credential,
        header_timeout,
    } = limits;
    let holders = Arc::new(Holders::new(per_credential));
    let slots = Arc::new(tokio::sync::Semaphore::new(max_connections));
    let mut tasks = tokio::task::JoinSet::new();
    let mut backoff: Option<Duration> = None;
    let mut saturated = false;
    let open: OpenList = Arc::default();
    let mut seq = 0u64;
    loop {
        let accepted = tokio::select! {
            a = listener.accept() => a,
            () = stop.cancelled() => break,
        };
        let tcp = match accepted {
            Ok((tcp, _)) => {
                if backoff.take().is_some() {
                    tracing::info!("HTTP: accepting connections again");
                }
                tcp
            }
            Err(e) => {
                let pause = match backoff {
                    None => {
                        tracing::warn!(
                            "HTTP accept failed: {e}; retrying with a pause of up to 1 s \
                             (logged again only when it recovers)"
                        );
                        BACKOFF_START
                    }
                    Some(p) => (p * 2).min(BACKOFF_MAX),
                };
                backoff = Some(pause);
                tokio::time::sleep(pause).await;
                continue;
            }
        };
        let slot = match slots.clone().try_acquire_owned() {
            Ok(s) => Some(s),
            // At the cap: an unproven connection makes room (its task ends at once).
            Err(_) if evict_unproven(&open) || evict_heaviest(&open, &holders) => {
                tokio::time::timeout(Duration::from_secs(1), slots.clone().acquire_owned())
                    .await
                    .ok()
                    .and_then(Result::ok)
            }
            Err(_) => None,
        };
        let Some(slot) = slot else {
            if !saturated {
                tracing::warn!(
                    "HTTP: {max_connections} connections open (--max-connections); closing new \
                     ones until some end"
                );
                saturated = true;
            }
            drop(tcp);
            continue;
        };
        if saturated {
            tracing::info!("HTTP: below the connection cap again");
            saturated = false;
        }
        if let Err(e) = tcp.set_nodelay(true) {
            tracing::debug!("TCP_NODELAY: {e}");
        }
        let (router, stop) = (router.clone(), stop.clone());
        seq += 1;
        let me = Open {
            seq,
            proven: Proven::new(holders.clone()),
            close: CancellationToken::new(),
        };
        let (proven, close, list, id) = (me.proven.clone(), me.close.clone(), open.clone(), seq);
        open.lock().unwrap_or_else(|p| p.into_inner()).push_back(me);
        tasks.spawn(async move {
            let _slot = slot;
            connection(tcp, router, header_timeout, stop, proven.clone(), close).await;
            proven.release();
            list.lock()
                .unwrap_or_else(|p| p.into_inner())
                .retain(|c| c.seq != id);
        });
        while tasks.try_join_next().is_some() {}
    }
    let _ = tokio::time::timeout(DRAIN, async { while tasks.join_next().await.is_some() {} }).await;
}

/// One connection: HTTP/1.1 with the header/idle timeout, until it ends or we stop.
async fn connection(
    tcp: tokio::net::TcpStream,
    router: axum::Router,
    header_timeout: Duration,
    stop: CancellationToken,
    proven: Proven,
    close: CancellationToken,
) {
    let inner = TowerToHyperService::new(router);
    let service = hyper::service::service_fn(move |mut req: http::Request<_>| {
        req.extensions_mut().insert(proven.clone());
        hyper::service::Service::call(&inner, req)
    });
    let conn = hyper::server::conn::http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(header_timeout)
        .serve_connection(TokioIo::new(tcp), service);
    let mut conn = std::pin::pin!(conn);
    tokio::select! {
        () = close.cancelled() => {}
        r = conn.as_mut() => {
            if let Err(e) = r {
                tracing::debug!("HTTP connection ended: {e}");
            }
        }
        () = stop.cancelled() => {
            conn.as_mut().graceful_shutdown();
            let _ = tokio::time::timeout(DRAIN, conn).await;
        }
    }
}
