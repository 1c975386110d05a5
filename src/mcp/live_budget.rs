//! What live updates may hold: every listen stream and legacy subscription is charged its
//! URIs (duplicates collapsed) against its identity's budget and the process's, and a
//! session holds at most a few streams. A charge is given back when its stream or task
//! ends, however it ends (the [`Charge`] is dropped with it).
//!
//! Why these shapes: one publish costs one notification per (stream, URI) it covers, so
//! the process's URI budget bounds a publish's fan-out; the identity's budget keeps one
//! agent (one credential) from taking the process's; the session's cap keeps one client
//! from holding thousands of idle streams. A filter naming more URIs than any stream may
//! keep is refused whole, never cut silently.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::config::Identity;

/// `subscriptions/listen` streams one session may hold open.
pub const MAX_STREAMS_PER_SESSION: usize = 16;
/// URIs one stream may name (after duplicates are collapsed).
pub const MAX_STREAM_URIS: usize = 64;
/// URIs all the streams and subscriptions of one identity (room and role) may hold.
pub const MAX_URIS_PER_IDENTITY: usize = 256;
/// URIs the whole process may hold: the most notifications one publish can cause.
pub const MAX_URIS: usize = 16_384;

#[derive(Default)]
struct Held {
    by_identity: HashMap<(Option<String>, Option<String>), usize>,
    total: usize,
}

/// The process's budget (one per [`super::live::Feed`]).
#[derive(Default, Clone)]
pub struct Budget(Arc<Mutex<Held>>);

/// URIs held by one stream or subscription; given back on drop.
pub struct Charge {
    budget: Budget,
    who: (Option<String>, Option<String>),
    uris: usize,
}

impl Drop for Charge {
    fn drop(&mut self) {
        let mut h = self.budget.0.lock().unwrap_or_else(|p| p.into_inner());
        h.total = h.total.saturating_sub(self.uris);
        if let Some(n) = h.by_identity.get_mut(&self.who) {
            *n = n.saturating_sub(self.uris);
            if *n == 0 {
                h.by_identity.remove(&self.who);
            }
        }
    }
}

impl Budget {
    /// Charges `uris` to `who`, or says which budget is spent and what to do.
    pub fn charge(&self, who: &Identity, uris: usize) -> Result<Charge, String> {
        let key = (who.room_id.clone(), who.role.clone());
        let mut h = self.0.lock().unwrap_or_else(|p| p.into_inner());
        let mine = h.by_identity.get(&key).copied().unwrap_or(0);
        if mine + uris > MAX_URIS_PER_IDENTITY {
            return Err(format!(
                "this identity's live streams and subscriptions already hold {mine} URIs; \
                 {uris} more would pass the limit of {MAX_URIS_PER_IDENTITY} per identity. \
                 Fix: end streams you no longer read, or name fewer URIs per stream"
            ));
        }
        if h.total + uris > MAX_URIS {
            return Err(format!(
                "the server's live streams already hold {} URIs, the limit is {MAX_URIS}; \
                 retry later",
                h.total
            ));
        }
        h.total += uris;
        *h.by_identity.entry(key.clone()).or_insert(0) += uris;
        Ok(Charge {
            budget: self.clone(),
            who: key,
            uris,
        })
    }

    /// URIs held now (process-wide), for tests and status.
    pub fn held(&self) -> usize {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).total
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn who(room: &str) -> Identity {
        Identity {
            room_id: Some(room.into()),
            role: Some("engineer".into()),
            credential: None,
        }
    }

    #[test]
    fn an_identity_cannot_take_the_process_and_charges_come_back() {
        let b = Budget::default();
        let mut held = Vec::new();
        for _ in 0..MAX_URIS_PER_IDENTITY / 64 {
            held.push(b.charge(&who("a"), 64).unwrap());
        }
        let e = b.charge(&who("a"), 1).err().unwrap();
        assert!(e.contains("per identity"), "{e}");
        // Another identity still gets in.
        let other = b.charge(&who("b"), 64).unwrap();
        assert_eq!(b.held(), MAX_URIS_PER_IDENTITY + 64);
        held.pop();
        assert!(
            b.charge(&who("a"), 64).is_ok(),
            "a dropped charge is given back"
        );
        drop((held, other));
        assert_eq!(b.held(), 0);
    }
}
