//! What the HTTP edges (the daemon's `/mcp` and the console) know of one connection: which
//! credential first proved itself on it. The connection loop (`daemon::http_conn`) puts a
//! [`Proven`] on every request of a connection; the bearer check and the console's guard
//! [`Proven::mark`] it with the credential's key.
//!
//! Connections are counted per credential ([`Holders`]): a credential already holding its
//! share (`--max-connections-per-credential`) cannot prove another connection — that
//! request is answered 429 and its connection closed — so one token cannot hold the whole
//! edge. At the connection cap the oldest unproven connection gives its place to a new
//! one, else the oldest of the credential holding the most.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

/// The connections each credential holds, and the most one may.
#[derive(Debug)]
pub struct Holders {
    per_holder: usize,
    counts: Mutex<HashMap<String, usize>>,
}

impl Holders {
    /// A registry allowing each credential `per_holder` connections.
    pub fn new(per_holder: usize) -> Holders {
        Holders {
            per_holder,
            counts: Mutex::new(HashMap::new()),
        }
    }

    /// The holder with the most connections, and how many.
    pub fn heaviest(&self) -> Option<(String, usize)> {
        let counts = self.counts.lock().unwrap_or_else(|p| p.into_inner());
        counts
            .iter()
            .max_by_key(|(_, n)| **n)
            .map(|(k, n)| (k.clone(), *n))
    }
}

impl Default for Holders {
    fn default() -> Holders {
        Holders::new(usize::MAX)
    }
}

/// A credential at its share of connections.
#[derive(Debug, PartialEq, Eq)]
pub struct AtShare {
    /// The most connections one credential may hold.
    pub limit: usize,
}

/// Set on a connection once one of its requests carried a valid credential: whose.
#[derive(Debug, Clone, Default)]
pub struct Proven {
    holder: Arc<OnceLock<String>>,
    holders: Arc<Holders>,
}

impl Proven {
    /// A connection's marker, counted in `holders`.
    pub fn new(holders: Arc<Holders>) -> Proven {
        Proven {
            holder: Arc::default(),
            holders,
        }
    }

    /// Marks the request's connection as held by `holder` (a credential's key). A
    /// connection already marked stays its first holder's. Refused when `holder` already
    /// holds its share; nothing if the request has no marker (not from the HTTP edge).
    pub fn mark<B>(req: &http::Request<B>, holder: &str) -> Result<(), AtShare> {
        let Some(p) = req.extensions().get::<Proven>() else {
            return Ok(());
        };
        if p.holder.get().is_some() {
            return Ok(());
        }
        let mut counts = p.holders.counts.lock().unwrap_or_else(|e| e.into_inner());
        let n = counts.entry(holder.to_string()).or_insert(0);
        if *n >= p.holders.per_holder {
            return Err(AtShare {
                limit: p.holders.per_holder,
            });
        }
        if p.holder.set(holder.to_string()).is_ok() {
            *n += 1;
        }
        Ok(())
    }

    /// True once a request of the connection authenticated.
    pub fn is_set(&self) -> bool {
        self.holder.get().is_some()
    }

    /// The credential holding the connection.
    pub fn holder(&self) -> Option<&str> {
        self.holder.get().map(String::as_str)
    }

    /// The connection ended: its holder's count goes down.
    pub fn release(&self) {
        if let Some(h) = self.holder.get() {
            let mut counts = self
                .holders
                .counts
                .lock()
                .unwrap_or_else(|e| e.into_inner());
            if let Some(n) = counts.get_mut(h) {
                *n = n.saturating_sub(1);
                if *n == 0 {
                    counts.remove(h);
                }
            }
        }
    }
}

/// The answer to a request whose credential holds its share of connections: 429, and the
/// connection closed.
pub fn at_share_response(limit: usize) -> axum::response::Response {
    use axum::response::IntoResponse;
    (
        http::StatusCode::TOO_MANY_REQUESTS,
        [(http::header::CONNECTION, "close")],
        format!(
            "this credential already holds {limit} HTTP connections, the most one credential \
             may (--max-connections-per-credential); reuse a connection (keep-alive) or close \
             ones you do not use"
        ),
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(p: &Proven) -> http::Request<()> {
        let mut r = http::Request::new(());
        r.extensions_mut().insert(p.clone());
        r
    }

    #[test]
    fn a_credential_proves_at_most_its_share_and_gets_it_back() {
        let holders = Arc::new(Holders::new(2));
        let conns: Vec<Proven> = (0..3).map(|_| Proven::new(holders.clone())).collect();
        assert_eq!(Proven::mark(&req(&conns[0]), "a"), Ok(()));
        assert_eq!(Proven::mark(&req(&conns[0]), "a"), Ok(()), "counted once");
        assert_eq!(Proven::mark(&req(&conns[1]), "a"), Ok(()));
        assert_eq!(
            Proven::mark(&req(&conns[2]), "a"),
            Err(AtShare { limit: 2 })
        );
        assert!(!conns[2].is_set());
        assert_eq!(
            Proven::mark(&req(&conns[2]), "b"),
            Ok(()),
            "another credential"
        );
        assert_eq!(holders.heaviest(), Some(("a".into(), 2)));
        conns[0].release();
        let again = Proven::new(holders.clone());
        assert_eq!(Proven::mark(&req(&again), "a"), Ok(()));
    }
}
