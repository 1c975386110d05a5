//! Progress of long core work, for an edge to show: the core reports steps here and
//! never prints; the command line installs the one sink (a line on stderr when it is a
//! terminal and the work takes more than ~2 s). Today's only long task is the first read
//! of a ledger with no snapshot ([`FIRST_READ`]).

use std::sync::OnceLock;

/// The task name of a ledger's first full read.
pub const FIRST_READ: &str = "reading the ledger";

/// One step of a task.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Started; `total` units (bytes) to do.
    Begin {
        /// Units to do.
        total: u64,
    },
    /// `done` of `total` units done (reported about every 1 %).
    At {
        /// Units done.
        done: u64,
        /// Units to do.
        total: u64,
    },
    /// Finished after `done` units.
    End {
        /// Units done.
        done: u64,
    },
}

type Sink = Box<dyn Fn(&str, Step) + Send + Sync>;

static SINK: OnceLock<Sink> = OnceLock::new();

/// Installs the process's sink (the first call wins; later ones are ignored).
pub fn set_sink(sink: impl Fn(&str, Step) + Send + Sync + 'static) {
    let _ = SINK.set(Box::new(sink));
}

/// Reports a step of `task` to the sink, if one is installed.
pub fn report(task: &str, step: Step) {
    if let Some(s) = SINK.get() {
        s(task, step);
    }
}

/// Reports `At` steps about every 1 % of `total`: [`Marks::reached`] is cheap enough to
/// call per line.
#[derive(Debug, Clone, Copy)]
pub struct Marks {
    total: u64,
    next: u64,
}

impl Marks {
    /// Marks for `total` units.
    pub fn new(total: u64) -> Marks {
        Marks {
            total,
            next: total / 100,
        }
    }

    /// Notes that `done` units are done, reporting a step of `task` when a mark is passed.
    pub fn reached(&mut self, task: &str, done: u64) {
        if done >= self.next && self.total > 0 {
            report(
                task,
                Step::At {
                    done,
                    total: self.total,
                },
            );
            self.next = done + (self.total / 100).max(1);
        }
    }
}
