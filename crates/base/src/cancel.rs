//! Cancellation of a call in flight, honoured up to its commit point.
//!
//! A client that gives up on a publish (`notifications/cancelled`, a closed connection)
//! or a signal that stops the process must not leave a write to land later: a cancelled
//! publish is either written before the cancellation or not at all. The MCP edge runs each
//! tool call inside [`scope`] with the request's [`Cancel`]; the storage layer asks
//! [`requested`] while it waits for the append lock and once more right before the one
//! `write_all` that is the commit point. A call that never reaches a write ignores it.
//!
//! The scope is per thread (the blocking thread running the call), so the core's
//! signatures stay free of it; [`shutdown`] cancels every call of the process at once.

use std::cell::RefCell;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// Set once a signal asked the process to stop.
static SHUTDOWN: AtomicBool = AtomicBool::new(false);

thread_local! {
    static CURRENT: RefCell<Option<Cancel>> = const { RefCell::new(None) };
}

/// A cancellation flag shared between the protocol edge and a running call.
#[derive(Debug, Clone, Default)]
pub struct Cancel(Arc<AtomicBool>);

impl Cancel {
    /// A flag not yet set.
    pub fn new() -> Cancel {
        Cancel::default()
    }

    /// Cancels the call (from any thread).
    pub fn cancel(&self) {
        self.0.store(true, Ordering::SeqCst);
    }

    /// True once cancelled.
    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }
}

/// Runs `f` with `cancel` as this thread's current cancellation.
pub fn scope<R>(cancel: &Cancel, f: impl FnOnce() -> R) -> R {
    struct Reset(Option<Cancel>);
    impl Drop for Reset {
        fn drop(&mut self) {
            let old = self.0.take();
            CURRENT.with(|c| *c.borrow_mut() = old);
        }
    }
    let _reset = Reset(CURRENT.with(|c| c.borrow_mut().replace(cancel.clone())));
    f()
}

/// Cancels every call of this process that has not reached its commit point.
pub fn shutdown() {
    SHUTDOWN.store(true, Ordering::SeqCst);
}

/// True if the current call was cancelled, or the process is stopping.
pub fn requested() -> bool {
    SHUTDOWN.load(Ordering::SeqCst)
        || CURRENT.with(|c| c.borrow().as_ref().is_some_and(Cancel::is_cancelled))
}

/// The error of a write abandoned because it was cancelled.
pub fn error() -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::Interrupted,
        "the call was cancelled (by the client, or the server is stopping) before it was \
         written; nothing was written",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scope_sees_its_own_cancel_only() {
        let c = Cancel::new();
        assert!(!requested());
        scope(&c, || {
            assert!(!requested());
            c.cancel();
            assert!(requested());
            scope(&Cancel::new(), || assert!(!requested()));
            assert!(requested());
        });
        assert!(!requested());
    }
}
