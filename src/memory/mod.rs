//! The core service: every operation of the product, as plain Rust, shared by the MCP
//! server and the CLI.
//!
//! A [`Memory`] owns the paths, the settings, the injected clock and the derived state of
//! one project (the ledger index today; channels and plans join it). Each operation locks
//! the state, refreshes it from the files (picking up what other processes appended), does
//! its work and returns typed results from [`crate::api`]. Nothing here knows about MCP,
//! JSON-RPC or terminal output.
//!
//! By feature: the agents' operations are files here (`publish`, `read`, `context_ops`,
//! `channels`, `plans`, `audit_ops`, `live_ops`, `open_overlaps`); three features with
//! state of their own are folders — [`semantic`] (the model, vectors, arrivals, the
//! brief's meaning), [`receipts`] (writing, indexing and replaying briefs' receipts) and
//! [`views`] (what the console's pages keep). Overlap finding itself is
//! [`crate::overlap`], pure on the index.

mod audit_ops;
mod brief;
mod budgets;
mod channels;
mod index_rounds;
mod live_ops;
pub(crate) mod open_overlaps;
mod plans;
mod publish;
mod read;
mod receipts;
mod semantic;
mod views;

pub use crate::api::brief::PairRef;
pub use crate::api::ledger::Related;
pub use open_overlaps::{Found as OpenOverlaps, Overlap, OverlapSide};
pub use receipts::Replay;
pub use semantic::{Backfilled, SemanticStatus};
pub use views::audit::AuditView;
pub use views::browse::{EntryDetail, MAX_CHAIN, MAX_NEWS, RoomSummary, TimelinePage};
pub use views::overlaps::OverlapsView;

pub use live_ops::Cursor;

use std::sync::{Arc, RwLock, RwLockReadGuard, RwLockWriteGuard};

use crate::clock::{Clock, Timestamp};
use crate::config::{Paths, Settings};
use crate::error::{Error, Result};
use crate::ledger::Ledger;
use crate::store::jsonl::{AppendOptions, FaultBudget};

/// Largest page of a query or search.
pub const MAX_RESULTS: u32 = 50;
/// Default number of search hits.
pub const DEFAULT_SEARCH_RESULTS: u32 = 10;

/// Counts describing the ledger, for startup messages and `stats`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stats {
    /// Entries read (live and superseded).
    pub entries: usize,
    /// Live entries.
    pub live: usize,
    /// Malformed or inconsistent lines found.
    pub problems: usize,
    /// Bytes after the last complete line (torn tail or a write in flight).
    pub pending_bytes: u64,
}

pub(crate) struct State {
    pub(crate) ledger: Ledger,
    pub(crate) channels: crate::channel::Channels,
    pub(crate) plans: plans::PlanState,
}

/// The shared memory of one project. Its fields by the feature they serve: the core (the
/// files or database, the clock, the derived state, a team's secret rules), the people's
/// views ([`views`]), the receipts of briefs ([`receipts`]), semantic ranking
/// ([`semantic`]).
pub struct Memory {
    // ── The core ──
    paths: Paths,
    settings: Settings,
    /// The clock of writes (timestamps of entries, messages, plans).
    clock: Arc<dyn Clock>,
    /// The clock of reads (decay, "24h ago"), when pinned apart from writes (`--now`).
    read_clock: Option<Arc<dyn Clock>>,
    append_opts: AppendOptions,
    /// Where every byte of the ledger and channels goes (files or PostgreSQL).
    backend: crate::store::Backend,
    /// Derived state. Reads share it (many sessions of a daemon side by side); catching up
    /// with the files and writing take it alone, and only when there is something to do.
    state: RwLock<State>,
    /// A team's own secret rules (`.gitleaks.toml`), compiled at open.
    secret_rules: Option<Arc<crate::secrets::ProjectRules>>,
    // ── The people's views ──
    views: views::ViewsState,
    // ── Receipts ──
    receipts: receipts::ReceiptsState,
    /// What each identity has appended and registered in the last minute.
    budgets: budgets::Budgets,
    // ── Semantic ranking ──
    /// The model, the entries' vectors and the embedding of arrivals (`semantic: on`).
    semantic: semantic::Semantic,
}

impl std::fmt::Debug for Memory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Memory")
            .field("paths", &self.paths)
            .finish()
    }
}

impl Memory {
    /// Opens the project: reads the ledger whole and builds the index.
    pub fn open(paths: Paths, settings: Settings, clock: Arc<dyn Clock>) -> Result<Memory> {
        let secret_rules = match &settings.secret_rules {
            Some(f) => Some(Arc::new(
                crate::secrets::ProjectRules::load(f).map_err(|e| Error::Refused(e.0))?,
            )),
            None => None,
        };
        let jail = Arc::new(paths.jail());
        let opts = AppendOptions {
            jail: Some(jail.clone()),
            fsync: settings.fsync,
            lock_wait: settings.lock_wait,
            fault: match (settings.fault_after_bytes, settings.crash_after_bytes) {
                (_, Some(n)) => Some(Arc::new(FaultBudget::crash_after(n))),
                (Some(n), None) => Some(Arc::new(FaultBudget::new(n))),
                (None, None) => None,
            },
        };
        let backend = match &paths.database {
            Some(url) => crate::store::Backend::Postgres(
                crate::store::pg::Db::open(url.clone()).map_err(|e| Error::Io {
                    context: format!("opening the database {url}"),
                    source: e,
                })?,
            ),
            None => {
                paths.confine(&paths.ledger)?;
                crate::store::Backend::Files
            }
        };
        let ledger = Ledger::open_in(
            &backend,
            paths.ledger.clone(),
            opts.clone(),
            settings.snapshot.as_ref(),
        )?;
        let channel_backend = backend.clone();
        let plans_backend = backend.clone();
        let label = paths.ledger_label();
        let place = settings.snapshot.clone().or_else(|| {
            crate::snapshot::SnapshotPlace::default_dir().map(|dir| {
                crate::snapshot::SnapshotPlace {
                    dir,
                    min_entries: crate::snapshot::DEFAULT_MIN_ENTRIES,
                }
            })
        });
        let semantic = semantic::open(&settings.semantic, place.as_ref(), &label, ledger.index());
        Ok(Memory {
            paths,
            settings,
            clock,
            read_clock: None,
            backend,
            append_opts: opts,
            state: RwLock::new(State {
                ledger,
                channels: crate::channel::Channels::new(channel_backend, Some(jail)),
                plans: plans::PlanState::new(&plans_backend),
            }),
            secret_rules,
            semantic: semantic::Semantic {
                state: semantic,
                arrivals: std::sync::OnceLock::new(),
            },
            views: Default::default(),
            receipts: Default::default(),
            budgets: Default::default(),
        })
    }

    /// The files this memory reads and writes.
    pub fn paths(&self) -> &Paths {
        &self.paths
    }

    /// The behaviour settings.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// Pins the clock of reads (scoring, relative times) apart from writes: `--now` and
    /// `WARROOM_NOW` never change the time a write is stamped with.
    pub fn with_read_clock(mut self, clock: Arc<dyn Clock>) -> Memory {
        self.read_clock = Some(clock);
        self
    }

    /// The server's now, as reads see it.
    pub fn now(&self) -> Timestamp {
        self.read_clock.as_ref().unwrap_or(&self.clock).now()
    }

    /// The time a write is stamped with.
    pub(crate) fn write_now(&self) -> Timestamp {
        self.clock.now()
    }

    /// How search and context score at `now` under this project's settings.
    pub fn scorer(&self, now: Timestamp) -> crate::index::Scorer {
        crate::index::Scorer {
            now,
            half_lives: self.settings.half_life_hours,
            ranking: self.settings.ranking,
        }
    }

    /// Locks the state exclusively and brings it up to date with the files.
    pub(crate) fn fresh(&self) -> Result<RwLockWriteGuard<'_, State>> {
        // A panic while holding the lock cannot leave the files inconsistent (every write is
        // one line under the OS lock), and derived state is rebuilt from the files anyway.
        let mut state = self.state.write().unwrap_or_else(|p| p.into_inner());
        let before = state.ledger.index().len();
        state.ledger.refresh()?;
        if let (Some(a), Some(s)) = (self.semantic.arrivals.get(), &self.semantic.state) {
            a.queue_new(s, state.ledger.index(), before);
        }
        state.plans.refresh(&self.paths)?;
        Ok(state)
    }

    /// Saves the derived state a server keeps in memory (the vectors embedded since the
    /// cache was last saved). A server calls it as it ends: its memory lives as long as
    /// the process (the live feed's thread holds it), so dropping it never does this.
    pub fn save_derived(&self) {
        if let Some(s) = &self.semantic.state {
            s.save_if_unsaved();
        }
    }

    /// For a server that runs for long (the daemon, a direct `serve`), with semantic
    /// ranking on and its model loaded: from now on the entries other processes append
    /// are embedded in the background, and so are the entries without a vector now if
    /// they are few ([`semantic::arrivals`]). Once per memory; a no-op otherwise.
    pub fn embed_arrivals(&self) {
        let Some(s) = self
            .semantic
            .state
            .as_ref()
            .filter(|s| s.embedder.is_some())
        else {
            return;
        };
        let state = self.state.read().unwrap_or_else(|p| p.into_inner());
        self.semantic
            .arrivals
            .get_or_init(|| semantic::arrivals::Arrivals::start(s, state.ledger.index()));
    }

    /// The state, up to date with the files, shared with other readers. The check for
    /// news is a few `stat`s under the shared lock; only when a file changed is the
    /// exclusive lock taken to catch up.
    pub(crate) fn fresh_read(&self) -> Result<RwLockReadGuard<'_, State>> {
        let plans = plans::PlanState::fingerprint(&self.paths);
        {
            let state = self.state.read().unwrap_or_else(|p| p.into_inner());
            let current = match &self.backend {
                // One query for the ledger's and the plans' last sequence numbers.
                crate::store::Backend::Postgres(db) => {
                    let heads = db.heads().map_err(|e| Error::Io {
                        context: format!("checking {} for news", db.url()),
                        source: e,
                    })?;
                    !state.ledger.source().behind(&heads)
                        && state.plans.is_current_with(&plans, &heads)
                }
                crate::store::Backend::Files => {
                    !state.ledger.may_have_news()? && state.plans.is_current(&plans)?
                }
            };
            if current {
                return Ok(state);
            }
        }
        drop(self.fresh()?);
        Ok(self.state.read().unwrap_or_else(|p| p.into_inner()))
    }

    /// Applies the secret policy to a text field: returns the text to store and the kinds of
    /// secrets redacted, or refuses.
    pub(crate) fn guard_secrets(
        &self,
        field: &str,
        text: String,
        found: &mut Vec<String>,
    ) -> Result<String> {
        let mut out = self.guard_fields(&[(field, text)], found)?;
        Ok(out.pop().expect("one field"))
    }

    /// [`Memory::guard_secrets`] for the text fields of one write, scanned together so a
    /// secret split across two neighbouring fields is found too
    /// ([`crate::secrets::scan_fields`]).
    pub(crate) fn guard_fields(
        &self,
        fields: &[(&str, String)],
        found: &mut Vec<String>,
    ) -> Result<Vec<String>> {
        let texts: Vec<&str> = fields.iter().map(|(_, t)| t.as_str()).collect();
        let scans = crate::secrets::scan_fields_with(&texts, self.secret_rules.as_deref());
        self.apply_policy(fields, scans, found)
    }

    /// [`Self::guard_fields`] for a list of words (brief keywords), scanned as words
    /// ([`crate::secrets::scan_words_with`]: a secret redacts only its own words).
    pub(crate) fn guard_words(
        &self,
        fields: &[(&str, String)],
        found: &mut Vec<String>,
    ) -> Result<Vec<String>> {
        let texts: Vec<&str> = fields.iter().map(|(_, t)| t.as_str()).collect();
        let scans = crate::secrets::scan_words_with(&texts, self.secret_rules.as_deref());
        self.apply_policy(fields, scans, found)
    }

    /// The secret policy over fields' scans: refused, or the redacted texts.
    fn apply_policy(
        &self,
        fields: &[(&str, String)],
        scans: Vec<crate::secrets::Scan>,
        found: &mut Vec<String>,
    ) -> Result<Vec<String>> {
        let mut out = Vec::with_capacity(scans.len());
        for ((field, _), scan) in fields.iter().zip(scans) {
            if !scan.kinds.is_empty()
                && self.settings.secrets == crate::config::SecretPolicy::Refuse
            {
                return Err(crate::error::Error::Refused(format!(
                    "`{field}` contains what looks like a secret ({}); secrets are never \
                     stored. Fix: remove it and say where the secret lives instead (e.g. a \
                     vault path)",
                    scan.kinds.join(", ")
                )));
            }
            for k in scan.kinds {
                if !found.contains(&k) {
                    found.push(k);
                }
            }
            out.push(scan.text);
        }
        Ok(out)
    }

    /// Refuses an identifier (room, role, ref, plan id…) that contains a secret, whatever
    /// the policy: identifiers name files and link entries, so they are never redacted.
    pub(crate) fn guard_id(&self, field: &str, value: &str) -> Result<()> {
        let scan = crate::secrets::scan_fields_with(&[value], self.secret_rules.as_deref())
            .pop()
            .expect("one field, one scan");
        if scan.kinds.is_empty() {
            return Ok(());
        }
        Err(crate::error::Error::Refused(format!(
            "`{field}` contains what looks like a secret ({}); identifiers are never \
             redacted, so nothing was written. Fix: use a plain identifier",
            scan.kinds.join(", ")
        )))
    }

    /// An idempotency key: printable, ≤ 128 bytes, no secret.
    pub(crate) fn check_idempotency_key(&self, key: &str) -> Result<()> {
        if key.is_empty() || key.len() > 128 || key.chars().any(char::is_control) {
            return Err(crate::error::Error::invalid(
                "idempotency_key",
                format!("it is {} bytes or holds control characters", key.len()),
                "use 1–128 printable bytes, e.g. a UUID made once per intended entry",
            ));
        }
        self.guard_id("idempotency_key", key)
    }

    /// Picks up whatever other processes appended; returns the number of new lines.
    /// (Every operation does this first; benchmarks time it alone.)
    pub fn refresh(&self) -> Result<usize> {
        let mut state = self.state.write().unwrap_or_else(|p| p.into_inner());
        Ok(state.ledger.refresh()?.lines)
    }

    /// Turns `fsync` after each append on or off (the benchmark compares both).
    pub fn set_fsync(&self, on: bool) {
        let mut state = self.state.write().unwrap_or_else(|p| p.into_inner());
        state.ledger.set_fsync(on);
    }

    /// A mark for [`Memory::wait_for_news`], taken before checking for news so that an
    /// append in between is not missed (PostgreSQL: notifications seen; files: 0).
    pub fn news_mark(&self) -> u64 {
        match &self.backend {
            crate::store::Backend::Postgres(db) => db.news_mark(),
            crate::store::Backend::Files => 0,
        }
    }

    /// Waits until another process may have appended after `mark`, at most `timeout`:
    /// on PostgreSQL until a `NOTIFY` from any host, on files simply `timeout` (files
    /// have no wake-up).
    pub fn wait_for_news(&self, mark: u64, timeout: std::time::Duration) {
        match &self.backend {
            crate::store::Backend::Postgres(db) => db.wait_for_news(mark, timeout),
            crate::store::Backend::Files => std::thread::sleep(timeout),
        }
    }

    /// Where the ledger and channels are stored.
    pub fn backend(&self) -> &crate::store::Backend {
        &self.backend
    }

    /// How appends to channels are made durable.
    pub(crate) fn append_opts(&self) -> &AppendOptions {
        &self.append_opts
    }

    /// Approximate heap bytes held by the index.
    pub fn index_heap_bytes(&self) -> usize {
        let state = self.state.read().unwrap_or_else(|p| p.into_inner());
        state.ledger.index().heap_bytes()
    }

    /// Entry counts, after picking up anything new.
    pub fn stats(&self) -> Result<Stats> {
        let state = self.fresh_read()?;
        let ix = state.ledger.index();
        Ok(Stats {
            entries: ix.len(),
            live: ix.live_count(),
            problems: ix.problems().1,
            pending_bytes: state.ledger.pending_bytes(),
        })
    }

    /// Problems found in the ledger so far (line, message), at most `limit`.
    pub fn problems(&self, limit: usize) -> Result<Vec<(u64, String)>> {
        let state = self.fresh_read()?;
        Ok(state
            .ledger
            .index()
            .problems()
            .0
            .iter()
            .take(limit)
            .map(|p| (p.loc.line, p.message.clone()))
            .collect())
    }
}
