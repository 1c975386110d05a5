//! `verify`'s check of the `supersedes` pointers over every entry read: self-supersedes,
//! pointers to no entry, entries superseded twice, cycles — as a full pass over every
//! entry, and carried on over new entries in O(1) each when they only supersede an earlier
//! entry nobody superseded yet (what writers do); anything else recomputes the whole check
//! from the ids in memory (no read of the file).

use std::collections::{HashMap, HashSet};

use super::verify::{Id, Seen, Violation};

/// The supersede pointers' findings over the entries checked so far.
#[derive(Clone, Default, serde::Serialize, serde::Deserialize)]
pub(super) struct Supersedes {
    /// Violations, in entry order.
    pub(super) findings: Vec<Violation>,
    /// Entries superseded by a later one.
    pub(super) superseded: u64,
    /// Targets superseded by an entry.
    taken: HashSet<Id>,
    /// Targets named that are no entry (yet).
    missing: HashSet<Box<str>>,
    /// Entries of `order` checked.
    checked: usize,
}

impl Supersedes {
    /// Brings the check up to date with `order` (every entry's id, in file order), which
    /// extends the order checked before.
    pub(super) fn update(&mut self, ids: &foldhash::HashMap<Id, Seen>, order: &[Id]) {
        let new = &order[self.checked.min(order.len())..];
        let easy = new.iter().all(|id| {
            let seen = &ids[&**id];
            !self.missing.contains(&**id)
                && seen.supersedes.as_deref().is_none_or(|t| {
                    t != &**id
                        && ids.get(t).is_some_and(|target| target.line < seen.line)
                        && !self.taken.contains(t)
                })
        });
        if !easy {
            *self = full(ids, order);
            return;
        }
        // Each new pointer names an earlier entry nobody superseded, and no earlier
        // pointer names a new entry: no finding, and no cycle (every pointer followed
        // from a new entry goes back in the file, and none comes forward to it).
        for id in new {
            if let Some(t) = ids[&**id].supersedes.as_deref() {
                // A later entry in this batch naming the same target is not easy: checked
                // above against `taken` as it was, so check again as it grows.
                let target = ids.get_key_value(t).map(|(k, _)| k.clone());
                if !target.is_some_and(|k| self.taken.insert(k)) {
                    *self = full(ids, order);
                    return;
                }
                self.superseded += 1;
            }
        }
        self.checked = order.len();
    }
}

/// The ids that lie on a cycle of `supersedes` pointers. Each entry points to at most one
/// other, so one pass that marks every id once finds them all: linear, however long the
/// chains are.
fn on_cycles<'a>(ids: &'a foldhash::HashMap<Id, Seen>, order: &'a [Id]) -> HashSet<&'a str> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        OnPath,
        Done,
    }
    let mut mark: HashMap<&str, Mark> = HashMap::with_capacity(ids.len());
    let mut cyclic = HashSet::new();
    for start in order {
        let mut path: Vec<&str> = Vec::new();
        let mut cur = Some(&**start);
        while let Some(c) = cur {
            match mark.get(c) {
                Some(Mark::OnPath) => {
                    let from = path.iter().position(|p| *p == c).unwrap_or(0);
                    cyclic.extend(path[from..].iter().copied());
                    break;
                }
                Some(Mark::Done) => break,
                None => {}
            }
            mark.insert(c, Mark::OnPath);
            path.push(c);
            cur = ids
                .get_key_value(c)
                .and_then(|(_, s)| s.supersedes.as_deref())
                .and_then(|t| ids.get_key_value(t).map(|(k, _)| &**k));
        }
        for p in path {
            mark.insert(p, Mark::Done);
        }
    }
    cyclic
}

/// The whole check over `order`.
fn full(ids: &foldhash::HashMap<Id, Seen>, order: &[Id]) -> Supersedes {
    let cyclic = on_cycles(ids, order);
    let mut s = Supersedes {
        checked: order.len(),
        ..Supersedes::default()
    };
    let mut taken: HashMap<&str, &str> = HashMap::new();
    for id in order {
        let seen = &ids[&**id];
        let Some(target) = seen.supersedes.as_deref() else {
            continue;
        };
        let mut flag = |kind: &str, message: String| {
            s.findings.push(Violation {
                line: seen.line,
                offset: seen.offset,
                kind: kind.into(),
                message,
            });
        };
        if target == &**id {
            flag("self-supersede", format!("`{id}` supersedes itself"));
            continue;
        }
        if !ids.contains_key(target) {
            s.missing.insert(Box::from(target));
            flag(
                "dangling-supersede",
                format!("`{id}` supersedes `{target}`, which is not in the ledger"),
            );
            continue;
        }
        if let Some(first) = taken.get(target) {
            flag(
                "double-supersede",
                format!(
                    "`{target}` is superseded twice: by `{first}` (line {}) and by `{id}`",
                    ids[*first].line
                ),
            );
            continue;
        }
        taken.insert(target, &**id);
        s.superseded += 1;
        // Walking the chain from the target comes back to `id` exactly when `id` is on a
        // cycle of the supersede pointers.
        if cyclic.contains(&**id) {
            flag(
                "supersede-cycle",
                format!("`{id}` and `{target}` supersede each other (a cycle)"),
            );
        }
    }
    s.taken = taken
        .into_keys()
        .filter_map(|t| ids.get_key_value(t).map(|(k, _)| k.clone()))
        .collect();
    s
}
