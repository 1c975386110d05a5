//! The transport edge for one global server per project: the daemon that holds the one
//! index, and the relay that `serve` becomes when a daemon serves its root.
//!
//! ```text
//!   agent MCP client ──stdio──> serve (relay, no index) ──Unix socket──> daemon: one Memory
//! ```
//!
//! Where things are: per project root (canonical path), a directory private to the user —
//! `$XDG_RUNTIME_DIR/warroom-memory/` when set, else `<tmp>/warroom-memory-<uid>/`, created
//! with mode 0700 and refused if another user owns it — holding `<hash>.sock` (mode 0600)
//! and `<hash>.lock`, where `<hash>` is the first 16 hex digits of the SHA-256 of the root.
//! The daemon holds an exclusive OS lock on the lock file for its whole life and writes
//! its [`DaemonInfo`] into it, so exactly one daemon serves a root, `daemon status` can
//! tell a live daemon from a stale file, and a crashed daemon's lock is released by the OS.
//!
//! The socket speaks newline-delimited JSON-RPC after one hello line that carries the
//! session's identity ([`Hello`]); the daemon answers [`HELLO_OK`] (or an error line) and
//! then serves MCP on the connection with that identity, fixed for the session.
//!
//! Architecture invariant: this module takes plain values (root, identity, a way to open
//! the memory); it never sees the CLI's context type, so nothing here imports `cli`.

pub mod credentials;
pub mod http;
pub mod http_conn;
pub mod http_sessions;
mod relay;
mod server;

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::Digest;

pub use relay::{AttachMode, attach, relay, relay_future};
pub use server::{DaemonOptions, request_stop, run_daemon};

use crate::config::Identity;

/// Resolves on SIGTERM or SIGINT, naming which: how `serve` and the daemon learn to stop.
pub fn shutdown_signal() -> impl std::future::Future<Output = &'static str> + Send + 'static {
    use tokio::signal::unix::{SignalKind, signal};
    // Registered now, not when first polled: a signal arriving before the future is awaited
    // is still seen (and never takes the default action of killing the process).
    let mut term = signal(SignalKind::terminate()).expect("SIGTERM handler");
    let mut int = signal(SignalKind::interrupt()).expect("SIGINT handler");
    async move {
        tokio::select! {
            _ = term.recv() => "SIGTERM",
            _ = int.recv() => "SIGINT",
        }
    }
}

/// What the daemon answers to a good hello.
pub const HELLO_OK: &str = "{\"warroom\":\"attached\"}";

/// The first line a client sends on the socket.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Hello {
    /// Protocol version of the hello (1).
    pub warroom: u32,
    /// `attach` (serve MCP with this identity) or `stop` (shut the daemon down).
    pub action: String,
    /// The session's room, if it has one.
    #[serde(default)]
    pub room: Option<String>,
    /// The session's role, if it has one.
    #[serde(default)]
    pub role: Option<String>,
    /// The tools the session offers its agent (default: the daemon's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<crate::mcp::ToolSet>,
}

impl Hello {
    /// The hello of a session acting as `who`, offering `tools`.
    pub fn attach(who: &Identity, tools: crate::mcp::ToolSet) -> Hello {
        Hello {
            warroom: 1,
            action: "attach".into(),
            room: who.room_id.clone(),
            role: who.role.clone(),
            tools: Some(tools),
        }
    }
}

/// What a running daemon writes into its lock file (and `daemon status --json` prints).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct DaemonInfo {
    /// The daemon's process id.
    pub pid: u32,
    /// The project root it serves.
    pub root: PathBuf,
    /// Its Unix socket.
    pub socket: PathBuf,
    /// The ledger it serves.
    pub ledger: PathBuf,
    /// When it started (RFC 3339).
    pub started: String,
    /// False while it loads the ledger; true once agents can attach.
    pub ready: bool,
    /// Its MCP Streamable HTTP endpoint, if it serves HTTP.
    #[serde(default)]
    pub url: Option<String>,
    /// The file holding the operator token HTTP clients send (`Authorization: Bearer …`),
    /// when the daemon made or keeps it there (not when given by `WARROOM_TOKEN`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_file: Option<PathBuf>,
}

/// The socket and lock file of the daemon for one project root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Place {
    /// Unix socket agents attach through.
    pub socket: PathBuf,
    /// Lock file held by the running daemon; holds its [`DaemonInfo`].
    pub lock: PathBuf,
    /// The HTTP edge's credentials (operator token, agent tokens) of this root.
    pub credentials: credentials::CredentialStore,
}

/// Where the daemon of `root` lives. `env` reads the environment (for `XDG_RUNTIME_DIR`).
pub fn place(root: &Path, env: &dyn Fn(&str) -> Option<String>) -> std::io::Result<Place> {
    let canonical = root.canonicalize()?;
    let digest = sha2::Sha256::digest(canonical.as_os_str().as_encoded_bytes());
    let hash: String = digest[..8].iter().map(|b| format!("{b:02x}")).collect();
    let dir = private_dir(env)?;
    Ok(Place {
        socket: dir.join(format!("{hash}.sock")),
        lock: dir.join(format!("{hash}.lock")),
        credentials: credentials::CredentialStore::of(&hash, env, &dir),
    })
}

/// The user's private directory for sockets, created 0700 and checked to be ours.
fn private_dir(env: &dyn Fn(&str) -> Option<String>) -> std::io::Result<PathBuf> {
    use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
    let uid = crate::fsx::current_uid();
    let dir = match env("XDG_RUNTIME_DIR").filter(|d| !d.is_empty()) {
        Some(d) => PathBuf::from(d).join("warroom-memory"),
        None => std::env::temp_dir().join(format!("warroom-memory-{uid}")),
    };
    match std::fs::DirBuilder::new().mode(0o700).create(&dir) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(e),
    }
    let meta = std::fs::symlink_metadata(&dir)?;
    if !meta.is_dir() || meta.uid() != uid || meta.permissions().mode() & 0o077 != 0 {
        return Err(std::io::Error::other(format!(
            "{} is not a private directory of this user (owner uid {}, mode {:o}); refusing to \
             put the daemon's socket there. Fix: remove it, or set XDG_RUNTIME_DIR",
            dir.display(),
            meta.uid(),
            meta.permissions().mode() & 0o777
        )));
    }
    Ok(dir)
}

/// The running daemon of `place`, if one holds its lock. A lock file nobody holds (a
/// daemon that was killed) means no daemon.
pub fn running(place: &Place) -> std::io::Result<Option<DaemonInfo>> {
    let file = match std::fs::File::open(&place.lock) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    match file.try_lock_shared() {
        // We could lock it: nobody holds it, so no daemon runs.
        Ok(()) => Ok(None),
        Err(std::fs::TryLockError::WouldBlock) => {
            let text = std::fs::read_to_string(&place.lock)?;
            Ok(serde_json::from_str(&text).ok())
        }
        Err(std::fs::TryLockError::Error(e)) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_place_per_root_in_a_private_directory() {
        let runtime = tempfile::tempdir().unwrap();
        let env = |k: &str| (k == "XDG_RUNTIME_DIR").then(|| runtime.path().display().to_string());
        let a = tempfile::tempdir().unwrap();
        let b = tempfile::tempdir().unwrap();
        let pa = place(a.path(), &env).unwrap();
        assert_eq!(pa, place(a.path(), &env).unwrap());
        assert_ne!(pa.socket, place(b.path(), &env).unwrap().socket);
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(pa.socket.parent().unwrap())
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o700);
        assert_eq!(running(&pa).unwrap(), None);
    }
}
