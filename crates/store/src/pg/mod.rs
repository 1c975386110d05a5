//! The PostgreSQL backend: the ledger and the channels as rows of one database.
//!
//! Each line is stored as written (`bytea`, byte for byte) with a sequence number that
//! orders it, so a reader catches up with `seq > last` and an export is the original file.
//! Writers serialise on a transaction-scoped advisory lock per stream — the database's
//! equivalent of the file lock — so the checks that run "under the lock" (supersede
//! exclusivity, idempotency keys, the hash chain's tip) see every earlier line from every
//! host, and sequence numbers are assigned in commit order. The database itself refuses
//! UPDATE, DELETE and TRUNCATE of those tables and a second supersede of one entry
//! ([`schema`]).
//!
//! Connections: a small pool per process (one client per call in flight), each with a
//! connect timeout, a TCP user timeout and a statement timeout, so no call waits without
//! bound; a client that saw an error is dropped and the next call connects afresh — the
//! server reconnects by itself. One more connection `LISTEN`s ([`listen`]) so live
//! subscribers are woken when another host appends.
//!
//! Credentials: the URL's password is never logged or shown; [`DbUrl`] displays without it.

mod listen;
pub mod schema;
mod source;

/// The table, filter and order key of a stream's rows (for `db import`/`export`).
pub fn source_rows(stream: &super::Stream, param: usize) -> (&'static str, String, String) {
    source::rows(stream, param)
}

pub use source::{PgLock, PgSource};

use std::io;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use postgres::{Client, NoTls};

/// Most idle connections kept per process.
const POOL_MAX_IDLE: usize = 16;
/// Longest wait for a connection to be established.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// Longest a statement may run on the server.
const STATEMENT_TIMEOUT_MS: u64 = 60_000;
/// Longest unacknowledged data may sit on a connection before it is considered dead
/// (a host or network gone without a reset).
const TCP_USER_TIMEOUT: Duration = Duration::from_secs(10);

/// A PostgreSQL connection string whose password is never displayed.
#[derive(Clone)]
pub struct DbUrl {
    config: postgres::Config,
    shown: String,
}

impl DbUrl {
    /// True if `text` names a database rather than a file (`postgres://`, `postgresql://`).
    pub fn is_url(text: &str) -> bool {
        text.starts_with("postgres://") || text.starts_with("postgresql://")
    }

    /// Parses a URL (`postgres://user:pass@host:port/db?…`) or a key=value string.
    /// `field` names where it came from, for the error.
    pub fn parse(field: &str, text: &str) -> warroom_base::error::Result<DbUrl> {
        let config: postgres::Config = text.parse().map_err(|e: postgres::Error| {
            warroom_base::error::Error::invalid(
                field,
                format!("not a PostgreSQL connection string ({e})"),
                "use postgres://USER:PASSWORD@HOST:PORT/DATABASE, or \
                 postgres://USER@/DATABASE?host=/run/postgresql for a local socket",
            )
        })?;
        let shown = describe(&config);
        Ok(DbUrl { config, shown })
    }

    /// The connection settings.
    pub fn config(&self) -> &postgres::Config {
        &self.config
    }

    /// A `postgresql://` URL of database `name` on the same server, as the same user
    /// (password included: for writing into a throwaway project's config).
    pub fn url_of_database(&self, name: &str) -> String {
        let enc = |s: &[u8]| -> String {
            s.iter()
                .map(|&b| {
                    if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
                        (b as char).to_string()
                    } else {
                        format!("%{b:02X}")
                    }
                })
                .collect()
        };
        let c = &self.config;
        let user = enc(c.get_user().unwrap_or("postgres").as_bytes());
        let password = c
            .get_password()
            .map(|p| format!(":{}", enc(p)))
            .unwrap_or_default();
        let port = c.get_ports().first().copied().unwrap_or(5432);
        match c.get_hosts().first() {
            Some(postgres::config::Host::Unix(p)) => format!(
                "postgresql://{user}{password}@/{}?host={}&port={port}",
                enc(name.as_bytes()),
                enc(p.to_string_lossy().as_bytes())
            ),
            Some(postgres::config::Host::Tcp(h)) => format!(
                "postgresql://{user}{password}@{}:{port}/{}",
                enc(h.as_bytes()),
                enc(name.as_bytes())
            ),
            None => format!(
                "postgresql://{user}{password}@localhost:{port}/{}",
                enc(name.as_bytes())
            ),
        }
    }

    /// Creates database `name` (the user must be allowed to).
    pub fn create_database(&self, name: &str) -> io::Result<()> {
        let mut c = Db::connect(self)?;
        c.batch_execute(&format!("CREATE DATABASE \"{name}\""))
            .map_err(|e| error(&format!("creating database {name}"), &e))
    }

    /// Drops database `name`, disconnecting whoever is still connected.
    pub fn drop_database(&self, name: &str) -> io::Result<()> {
        let mut c = Db::connect(self)?;
        c.batch_execute(&format!("DROP DATABASE IF EXISTS \"{name}\" WITH (FORCE)"))
            .map_err(|e| error(&format!("dropping database {name}"), &e))
    }
}

/// `postgres://user@host:port/db` from a config, without its password.
fn describe(c: &postgres::Config) -> String {
    let host = c
        .get_hosts()
        .iter()
        .map(|h| match h {
            postgres::config::Host::Tcp(s) => s.clone(),
            postgres::config::Host::Unix(p) => p.display().to_string(),
        })
        .collect::<Vec<_>>()
        .join(",");
    let port = c
        .get_ports()
        .first()
        .map(|p| format!(":{p}"))
        .unwrap_or_default();
    let user = c.get_user().map(|u| format!("{u}@")).unwrap_or_default();
    let db = c.get_dbname().unwrap_or("");
    format!("postgres://{user}{host}{port}/{db}")
}

impl std::fmt::Display for DbUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.shown)
    }
}

impl std::fmt::Debug for DbUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "DbUrl({})", self.shown)
    }
}

/// The last sequence numbers of the ledger and the plans, and the ledger's identity: what a
/// read checks before answering, in one query.
#[derive(Debug, Clone)]
pub struct Heads {
    /// `warroom_meta.ledger_id`.
    pub id: String,
    /// Last sequence number of `ledger_lines` (0: none).
    pub ledger: i64,
    /// Last sequence number of `plan_lines` (0: none).
    pub plans: i64,
}

/// One database, shared by every stream of a process.
pub struct Db {
    url: DbUrl,
    idle: Mutex<Vec<Client>>,
    news: Arc<listen::News>,
}

impl std::fmt::Debug for Db {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Db({})", self.url)
    }
}

/// A database error as an I/O error with a message for the caller: what failed, why, and
/// (for a lost connection) that nothing is assumed written and the next call reconnects.
pub fn error(what: &str, e: &postgres::Error) -> io::Error {
    let cause = match e.as_db_error() {
        // Named as the database's, so the caller knows where it came from (an outage
        // ends connections with "terminating connection due to administrator command").
        Some(db) => format!(
            "the database answered: {} ({})",
            db.message(),
            db.code().code()
        ),
        None if e.is_closed() => "the connection to the database was lost".into(),
        None => {
            let mut text = e.to_string();
            let mut src = std::error::Error::source(e);
            while let Some(s) = src {
                text.push_str(&format!(": {s}"));
                src = s.source();
            }
            // A reset or refused socket names no database by itself; say whose it was.
            format!("talking to the database failed ({text})")
        }
    };
    io::Error::other(format!(
        "{what}: {cause}. The server reconnects by itself; retry the call"
    ))
}

/// A client borrowed from the pool; returned on drop unless it saw an error.
pub struct Pooled {
    db: Arc<Db>,
    client: Option<Client>,
    /// Set when the connection may be unusable; it is then closed, not pooled.
    pub broken: bool,
}

impl Pooled {
    /// The borrowed connection.
    pub fn client(&mut self) -> &mut Client {
        self.client.as_mut().expect("present until drop")
    }
}

impl Drop for Pooled {
    fn drop(&mut self) {
        if let Some(c) = self.client.take()
            && !self.broken
            && !c.is_closed()
        {
            let mut idle = self.db.idle.lock().unwrap_or_else(|p| p.into_inner());
            if idle.len() < POOL_MAX_IDLE {
                idle.push(c);
            }
        }
    }
}

impl Db {
    /// Connects, brings the schema up to date ([`schema::migrate`]) and returns the
    /// shared handle.
    pub fn open(url: DbUrl) -> io::Result<Arc<Db>> {
        let db = Arc::new(Db {
            url,
            idle: Mutex::new(Vec::new()),
            news: Arc::default(),
        });
        let mut c = db.client()?;
        schema::migrate(c.client())?;
        drop(c);
        Ok(db)
    }

    /// The database, without credentials.
    pub fn url(&self) -> &DbUrl {
        &self.url
    }

    /// A new connection with this crate's timeouts.
    pub fn connect(url: &DbUrl) -> io::Result<Client> {
        let mut config = url.config.clone();
        config
            .connect_timeout(CONNECT_TIMEOUT)
            .tcp_user_timeout(TCP_USER_TIMEOUT)
            .keepalives(true)
            .keepalives_idle(Duration::from_secs(10))
            .application_name("warroom-memory")
            .options(&format!(
                "-c statement_timeout={STATEMENT_TIMEOUT_MS} -c client_min_messages=warning"
            ));
        config
            .connect(NoTls)
            .map_err(|e| error(&format!("connecting to the database {url}"), &e))
    }

    /// A pooled connection (an idle one, or a new one).
    pub fn client(self: &Arc<Self>) -> io::Result<Pooled> {
        let idle = self.idle.lock().unwrap_or_else(|p| p.into_inner()).pop();
        let client = match idle {
            Some(c) if !c.is_closed() => c,
            _ => Db::connect(&self.url)?,
        };
        Ok(Pooled {
            db: self.clone(),
            client: Some(client),
            broken: false,
        })
    }

    /// Runs `f` on a pooled connection; a connection that saw an error is not reused.
    pub fn with<T>(
        self: &Arc<Self>,
        what: &str,
        f: impl FnOnce(&mut Client) -> Result<T, postgres::Error>,
    ) -> io::Result<T> {
        let mut c = self.client()?;
        f(c.client()).map_err(|e| {
            c.broken = true;
            error(what, &e)
        })
    }

    /// The ledger's and the plans' heads, in one query.
    pub fn heads(self: &Arc<Self>) -> io::Result<Heads> {
        self.with("checking the database for news", |c| {
            let r = c.query_one(
                "SELECT (SELECT value FROM warroom_meta WHERE key = 'ledger_id'),
                        coalesce((SELECT max(seq) FROM ledger_lines), 0),
                        coalesce((SELECT max(seq) FROM plan_lines), 0)",
                &[],
            )?;
            Ok(Heads {
                id: r.get(0),
                ledger: r.get(1),
                plans: r.get(2),
            })
        })
    }

    /// How many notifications of appends this process has seen (starts listening on
    /// first use). Take it *before* checking for news, then [`Db::wait_for_news`].
    pub fn news_mark(self: &Arc<Self>) -> u64 {
        listen::mark(self)
    }

    /// Waits at most `timeout` for a notification of an append (from any host) after
    /// `mark`.
    pub fn wait_for_news(self: &Arc<Self>, mark: u64, timeout: Duration) {
        listen::wait(self, mark, timeout);
    }
}
