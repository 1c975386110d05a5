//! Warnings a client can cause before it proved who it is (a foreign `Host`, a
//! connection evicted) are rate-limited: anyone who can reach the port could otherwise
//! flood the log. At most one such warning per [`EVERY`] per limiter; the next one says
//! how many were held back.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Shortest time between two warnings of one limiter.
pub const EVERY: Duration = Duration::from_secs(10);

/// One kind of warning's limiter.
#[derive(Debug, Default)]
pub struct Limiter {
    last: Mutex<Option<Instant>>,
    held: AtomicU64,
}

impl Limiter {
    /// A limiter that has warned nothing yet.
    pub const fn new() -> Limiter {
        Limiter {
            last: Mutex::new(None),
            held: AtomicU64::new(0),
        }
    }

    /// `Some(n)` if a warning may be logged at `now`, `n` being how many were held back
    /// since the last one; `None` if this one is held back (and counted).
    pub fn allow(&self, now: Instant) -> Option<u64> {
        let mut last = self.last.lock().unwrap_or_else(|p| p.into_inner());
        match *last {
            Some(t) if now.duration_since(t) < EVERY => {
                self.held.fetch_add(1, Ordering::Relaxed);
                None
            }
            _ => {
                *last = Some(now);
                Some(self.held.swap(0, Ordering::Relaxed))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_warning_per_interval_then_the_count_held_back() {
        let l = Limiter::new();
        let t0 = Instant::now();
        assert_eq!(l.allow(t0), Some(0));
        for i in 1..=5 {
            assert_eq!(l.allow(t0 + Duration::from_millis(i)), None);
        }
        assert_eq!(l.allow(t0 + EVERY), Some(5));
        assert_eq!(l.allow(t0 + EVERY + Duration::from_secs(1)), None);
    }
}
