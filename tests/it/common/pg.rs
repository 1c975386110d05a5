//! A real PostgreSQL server for the tests — never skipped.
//!
//! `$WARROOM_TEST_DATABASE_URL` (an administrator's URL) when set; otherwise a throwaway
//! cluster this helper starts once per checkout with Debian's `initdb` and `pg_ctl`
//! (as the `postgres` user when the tests run as root), listening only on a Unix socket
//! in a directory of its own under /tmp, and reused by later runs. Each test gets its own
//! database. When neither is possible the test fails and says how to fix it (`.ci/run`
//! installs the `postgresql` package).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// The server every PostgreSQL test uses.
pub struct PgServer {
    /// Connection string of a user allowed to create databases.
    pub admin: String,
}

static SERVER: OnceLock<PgServer> = OnceLock::new();
static NEXT_DB: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// The port number naming our socket (no TCP listener).
const PORT: u16 = 55439;

/// The directory of `initdb`, `pg_ctl`, `postgres` (the newest installed major version).
pub fn bin_dir() -> PathBuf {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .map(|rd| {
            rd.filter_map(|e| Some(e.ok()?.path().join("bin")))
                .collect()
        })
        .unwrap_or_default();
    dirs.retain(|d| d.join("initdb").exists());
    dirs.sort_by_key(|d| {
        d.parent()
            .and_then(|v| v.file_name()?.to_str()?.parse::<u32>().ok())
            .unwrap_or(0)
    });
    dirs.pop().unwrap_or_else(|| {
        panic!(
            "PostgreSQL's server programs are not installed (no /usr/lib/postgresql/*/bin/initdb). \
             Fix: run `scripts/test`, which installs what the tests need and runs them all \
             (or set WARROOM_TEST_DATABASE_URL to an administrator's connection string)"
        )
    })
}

fn is_root() -> bool {
    // SAFETY-free: read our effective uid from /proc.
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("Uid:"))
                .and_then(|l| l.split_whitespace().nth(2).map(|u| u == "0"))
        })
        .unwrap_or(false)
}

/// Runs a PostgreSQL program as the user that owns the cluster.
pub fn pg_command(program: &str) -> Command {
    let path = bin_dir().join(program);
    if is_root() {
        let mut c = Command::new("runuser");
        c.args(["-u", "postgres", "--"]).arg(path);
        c
    } else {
        Command::new(path)
    }
}

fn run(mut c: Command, what: &str) {
    let out = c.output().unwrap_or_else(|e| panic!("{what}: {e}"));
    assert!(
        out.status.success(),
        "{what} failed: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Creates (once) and starts a cluster in `dir`, listening on a socket in `dir`.
pub fn start_cluster(dir: &Path, extra: &[&str]) {
    let data = dir.join("data");
    if !data.join("PG_VERSION").exists() {
        std::fs::create_dir_all(dir).unwrap();
        if is_root() {
            run(
                {
                    let mut c = Command::new("chown");
                    c.args(["postgres:postgres"]).arg(dir);
                    c
                },
                "chown",
            );
        }
        let mut c = pg_command("initdb");
        c.args(["-A", "trust", "-U", "postgres", "--no-sync", "-D"])
            .arg(&data);
        run(c, "initdb");
    }
    let mut opts = format!("-p {PORT} -k {} -c fsync=off", dir.display());
    for e in extra {
        opts.push(' ');
        opts.push_str(e);
    }
    if !extra.iter().any(|e| e.contains("listen_addresses")) {
        opts.push_str(" -c listen_addresses=''");
    }
    let mut c = pg_command("pg_ctl");
    c.args(["-w", "-t", "60", "-D"]).arg(&data);
    c.args(["-l"])
        .arg(dir.join("log"))
        .args(["-o", &opts, "start"]);
    run(c, "pg_ctl start");
}

/// True if a server answers on `dir`'s socket.
fn answers(admin: &str) -> bool {
    postgres::Client::connect(admin, postgres::NoTls).is_ok()
}

/// The shared server (started on first use).
pub fn server() -> &'static PgServer {
    SERVER.get_or_init(|| {
        if let Ok(url) = std::env::var("WARROOM_TEST_DATABASE_URL") {
            return PgServer { admin: url };
        }
        let key = env!("CARGO_TARGET_TMPDIR")
            .bytes()
            .fold(0u32, |h, b| h.wrapping_mul(31).wrapping_add(u32::from(b)));
        let dir = PathBuf::from(format!("/tmp/warroom-pg-{key:08x}"));
        let admin = format!(
            "host={} port={PORT} user=postgres dbname=postgres",
            dir.display()
        );
        // One test binary starts it; the others wait on the lock and find it running.
        std::fs::create_dir_all("/tmp").ok();
        let lock = std::fs::File::create(format!("{}.lock", dir.display())).unwrap();
        lock.lock().unwrap();
        if !answers(&admin) {
            start_cluster(&dir, &[]);
        }
        assert!(
            answers(&admin),
            "the test cluster in {} does not answer",
            dir.display()
        );
        drop(lock);
        PgServer { admin }
    })
}

impl PgServer {
    /// A new, empty database; returns its connection string.
    pub fn fresh_db(&self) -> String {
        let name = format!(
            "t_{}_{}_{}",
            std::process::id(),
            NEXT_DB.fetch_add(1, std::sync::atomic::Ordering::SeqCst),
            ulid::Ulid::generate().to_string().to_lowercase()
        );
        let mut c = postgres::Client::connect(&self.admin, postgres::NoTls).unwrap();
        c.batch_execute(&format!("CREATE DATABASE {name}")).unwrap();
        self.url_of(&name)
    }

    /// The URL of database `name` on this server (`postgresql://…`).
    pub fn url_of(&self, name: &str) -> String {
        let cfg: postgres::Config = self.admin.parse().unwrap();
        let user = cfg.get_user().unwrap_or("postgres");
        let port = cfg.get_ports().first().copied().unwrap_or(5432);
        let password = cfg
            .get_password()
            .map(|p| format!(":{}", String::from_utf8_lossy(p)))
            .unwrap_or_default();
        match &cfg.get_hosts()[0] {
            postgres::config::Host::Unix(p) => format!(
                "postgresql://{user}{password}@/{name}?host={}&port={port}",
                p.display()
            ),
            postgres::config::Host::Tcp(h) => {
                format!("postgresql://{user}{password}@{h}:{port}/{name}")
            }
        }
    }

    /// A project whose `.agents/warroom.yaml` puts the ledger in a new database; returns
    /// the project and the database's URL.
    pub fn project(&self) -> (tempfile::TempDir, String) {
        let dir = super::project();
        let url = self.fresh_db();
        std::fs::write(
            dir.path().join(".agents/warroom.yaml"),
            format!("ledger: \"{url}\"\n"),
        )
        .unwrap();
        (dir, url)
    }

    /// A client of database `url`.
    pub fn client(url: &str) -> postgres::Client {
        postgres::Client::connect(url, postgres::NoTls).unwrap()
    }
}

/// The ledger's lines as `db export` writes them for the project at `root` (its database
/// named in its configuration). Panics if the command fails.
pub fn db_export(root: &Path) -> Vec<u8> {
    let out = Command::new(super::BIN)
        .arg("--root")
        .arg(root)
        .args(["db", "export"])
        .env_remove("WARROOM_DATABASE_URL")
        .output()
        .unwrap();
    super::succeeded(out)
}
