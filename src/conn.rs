//! What the HTTP edges (the daemon's `/mcp` and the console) know of one connection:
//! whether any of its requests carried a valid credential. The connection loop
//! (`daemon::http_conn`) puts a [`Proven`] on every request of a connection; the bearer
//! check and the console's guard set it; at the connection cap the oldest connection not
//! yet proven gives its place to a new one.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// Set on a connection once one of its requests carried a valid credential.
#[derive(Debug, Clone, Default)]
pub struct Proven(pub Arc<AtomicBool>);

impl Proven {
    /// Marks the request's connection as authenticated (nothing if it has no marker).
    pub fn mark<B>(req: &http::Request<B>) {
        if let Some(p) = req.extensions().get::<Proven>() {
            p.0.store(true, Ordering::Relaxed);
        }
    }

    /// True once a request of the connection authenticated.
    pub fn is_set(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}
