//! Credentials of the daemon's HTTP edge: who may call, and as whom.
//!
//! Loopback is not trust: every account on the machine can reach a TCP port on 127.0.0.1,
//! so the HTTP edge never serves a request without a credential. Two kinds:
//!
//! - **The operator token** — `operator.token`, 32 random bytes as hex, created (0600) the
//!   first time a daemon serves HTTP and kept across restarts, or the token given with
//!   `--token-file` / `WARROOM_TOKEN`. It may act as any identity: its sessions name theirs
//!   with the `X-Warroom-Room` / `X-Warroom-Role` headers, as before.
//! - **Agent tokens** — `warroom-memory token issue --room R --role ROLE` prints a token
//!   once; only its SHA-256 is stored (`agents.json`), with the identity it is bound to.
//!   A session using it *is* that room and role: an `X-Warroom-*` header naming anything
//!   else is refused. `token revoke ID` ends it at the next request (the daemon re-reads
//!   the file when it changes), no restart needed.
//!
//! Where: `$XDG_STATE_HOME/warroom-memory/<root hash>/`, else
//! `~/.local/state/warroom-memory/<root hash>/` — persistent (a token in an agent's MCP
//! config must survive a reboot), private to the user: every directory we create is 0700,
//! and a directory or file another user owns or can write is refused, as are links.

use std::collections::HashMap;
use std::fs::OpenOptions;
use std::io::{self, Read as _, Write as _};
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};
use sha2::Digest;

use crate::config::Identity;
use crate::mcp::Credential;

/// Largest credentials file read (thousands of agent tokens fit well below it).
const MAX_FILE_BYTES: u64 = 4 << 20;

/// The credentials directory of one project root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CredentialStore {
    dir: PathBuf,
}

/// One issued agent token, as stored (never the token itself).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct AgentToken {
    /// Short public id (`token list`, `token revoke ID`); also the token's prefix.
    pub id: String,
    /// The room this token acts as.
    pub room: String,
    /// The role this token acts as.
    pub role: String,
    /// SHA-256 of the whole token, hex.
    pub sha256: String,
    /// When it was issued (RFC 3339).
    pub issued: String,
    /// When it was revoked (RFC 3339), if it was.
    #[serde(default)]
    pub revoked: Option<String>,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct AgentFile {
    tokens: Vec<AgentToken>,
}

impl CredentialStore {
    /// The store of the project whose root hashes to `root_hash`; `env` reads the
    /// environment (`XDG_STATE_HOME`, `HOME`). With neither set, `fallback` (the daemon's
    /// private runtime directory) holds them — private, but not kept across a reboot.
    pub fn of(root_hash: &str, env: &dyn Fn(&str) -> Option<String>, fallback: &Path) -> Self {
        let base = env("XDG_STATE_HOME")
            .filter(|d| !d.is_empty())
            .map(|d| PathBuf::from(d).join("warroom-memory"))
            .or_else(|| {
                env("HOME")
                    .filter(|h| !h.is_empty())
                    .map(|h| PathBuf::from(h).join(".local/state/warroom-memory"))
            })
            .unwrap_or_else(|| fallback.to_path_buf());
        CredentialStore {
            dir: base.join(root_hash),
        }
    }

    /// The directory holding the credentials.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The operator token's file.
    pub fn operator_file(&self) -> PathBuf {
        self.dir.join("operator.token")
    }

    fn agents_file(&self) -> PathBuf {
        self.dir.join("agents.json")
    }

    /// Creates the directory (0700 for what we create) and refuses it unless it and its
    /// parent are ours and writable by nobody else.
    fn ensure_dir(&self) -> io::Result<()> {
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(&self.dir)?;
        private_dir(&self.dir)?;
        if let Some(parent) = self.dir.parent() {
            private_dir(parent)?;
        }
        Ok(())
    }

    /// The operator token, created (32 random bytes, hex, file mode 0600) when missing.
    pub fn operator_token(&self) -> io::Result<String> {
        self.ensure_dir()?;
        let path = self.operator_file();
        match read_private(&path) {
            Ok(text) => return Ok(text.trim().to_string()),
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        }
        let token = random_hex(32)?;
        let mut file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .custom_flags(libc::O_NOFOLLOW)
            .open(&path)?;
        file.write_all(format!("{token}\n").as_bytes())?;
        file.sync_all()?;
        Ok(token)
    }

    /// Issues a token for `room`/`role`; returns its record and the token (shown once).
    pub fn issue(&self, room: &str, role: &str, now: &str) -> io::Result<(AgentToken, String)> {
        self.ensure_dir()?;
        let id = random_hex(4)?;
        let token = format!("wrm_{id}_{}", random_hex(32)?);
        let record = AgentToken {
            id,
            room: room.to_string(),
            role: role.to_string(),
            sha256: sha256_hex(&token),
            issued: now.to_string(),
            revoked: None,
        };
        self.update(|f| {
            f.tokens.push(record.clone());
            Ok(())
        })?;
        Ok((record, token))
    }

    /// Revokes the token `id`; false if no live token has that id.
    pub fn revoke(&self, id: &str, now: &str) -> io::Result<bool> {
        let mut found = false;
        self.update(|f| {
            for t in f
                .tokens
                .iter_mut()
                .filter(|t| t.id == id && t.revoked.is_none())
            {
                t.revoked = Some(now.to_string());
                found = true;
            }
            Ok(())
        })?;
        Ok(found)
    }

    /// Every issued token, revoked ones included.
    pub fn list(&self) -> io::Result<Vec<AgentToken>> {
        Ok(self.load()?.tokens)
    }

    fn load(&self) -> io::Result<AgentFile> {
        match read_private(&self.agents_file()) {
            Ok(text) => serde_json::from_str(&text).map_err(|e| {
                io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!("{}: {e}", self.agents_file().display()),
                )
            }),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(AgentFile::default()),
            Err(e) => Err(e),
        }
    }

    /// Read, change, write back atomically (temp file + rename) under an exclusive lock.
    fn update(&self, change: impl FnOnce(&mut AgentFile) -> io::Result<()>) -> io::Result<()> {
        self.ensure_dir()?;
        let lock = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(false)
            .mode(0o600)
            .custom_flags(libc::O_NOFOLLOW)
            .open(self.dir.join("agents.lock"))?;
        lock.lock()?;
        let mut file = self.load()?;
        change(&mut file)?;
        let mut tmp = tempfile::Builder::new()
            .prefix(".agents.")
            .tempfile_in(&self.dir)?;
        tmp.write_all(serde_json::to_string_pretty(&file)?.as_bytes())?;
        tmp.as_file().sync_all()?;
        tmp.persist(self.agents_file()).map_err(|e| e.error)?;
        Ok(())
    }
}

/// Checks bearer tokens for the HTTP edge: the operator's, and agent tokens re-read from
/// their file whenever it changes (so a revocation applies at the next request).
#[derive(Debug)]
pub struct Verifier {
    operator: String,
    store: Option<CredentialStore>,
    cache: Mutex<(Option<FileStamp>, HashMap<String, AgentToken>)>,
}

/// Length and modification time of the agent tokens' file: when it changes, re-read.
type FileStamp = (u64, i64, i64);

impl Verifier {
    /// A verifier of `operator` and of the agent tokens in `store` (if any).
    pub fn new(operator: String, store: Option<CredentialStore>) -> Verifier {
        Verifier {
            operator,
            store,
            cache: Mutex::new((None, HashMap::new())),
        }
    }

    /// Who `token` is, or None for an unknown, revoked or malformed token.
    pub fn check(&self, token: &str) -> Option<Credential> {
        if constant_time_eq(token.as_bytes(), self.operator.as_bytes()) {
            return Some(Credential::Operator);
        }
        let id = token.strip_prefix("wrm_")?.split('_').next()?;
        let store = self.store.as_ref()?;
        let mut cache = self.cache.lock().unwrap_or_else(|p| p.into_inner());
        let stamp = std::fs::symlink_metadata(store.agents_file())
            .ok()
            .map(|m| (m.len(), m.mtime(), m.mtime_nsec()));
        if cache.0 != stamp || stamp.is_none() {
            let tokens = match store.load() {
                Ok(f) => f.tokens,
                Err(e) => {
                    tracing::warn!("agent tokens unreadable, none accepted: {e}");
                    Vec::new()
                }
            };
            *cache = (
                stamp,
                tokens.into_iter().map(|t| (t.id.clone(), t)).collect(),
            );
        }
        let record = cache.1.get(id)?;
        let hash = sha256_hex(token);
        if record.revoked.is_some() || !constant_time_eq(hash.as_bytes(), record.sha256.as_bytes())
        {
            return None;
        }
        Some(Credential::Agent(Identity {
            room_id: Some(record.room.clone()),
            role: Some(record.role.clone()),
            credential: Some(record.id.clone()),
        }))
    }
}

/// Refuses a directory that is a link, not ours, or writable by others.
fn private_dir(dir: &Path) -> io::Result<()> {
    let meta = std::fs::symlink_metadata(dir)?;
    let uid = crate::fsx::current_uid();
    if !meta.is_dir() || meta.uid() != uid || meta.permissions().mode() & 0o022 != 0 {
        return Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            format!(
                "{} is not a private directory of this user (owner uid {}, mode {:o}); \
                 refusing to keep credentials there. Fix: remove it, or set XDG_STATE_HOME",
                dir.display(),
                meta.uid(),
                meta.permissions().mode() & 0o777
            ),
        ));
    }
    Ok(())
}

/// Reads a credentials file: not through a link, ours, readable by nobody else, bounded.
fn read_private(path: &Path) -> io::Result<String> {
    read_owned(
        path,
        "Fix: `chmod 600` it, or remove it to have a new one made",
    )
}

/// Reads an operator token file named with `--token-file`, under the credentials
/// directory's rules: a regular file (not a link) of this user that nobody else can read
/// or write — a token file another account can write would let it choose the operator's
/// token.
pub fn read_token_file(path: &Path) -> io::Result<String> {
    read_owned(
        path,
        "Fix: make it a regular file of this user and `chmod 600` it",
    )
    .map_err(|e| io::Error::new(e.kind(), format!("--token-file {e}")))
}

fn read_owned(path: &Path, fix: &str) -> io::Result<String> {
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)
        .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
    let meta = file.metadata()?;
    if !meta.is_file()
        || meta.uid() != crate::fsx::current_uid()
        || meta.permissions().mode() & 0o077 != 0
    {
        return Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            format!(
                "{} must be a regular file of this user that nobody else can read or write \
                 (it is owned by uid {}, mode {:o}); refusing it. {fix}",
                path.display(),
                meta.uid(),
                meta.permissions().mode() & 0o777
            ),
        ));
    }
    let mut text = String::new();
    file.take(MAX_FILE_BYTES).read_to_string(&mut text)?;
    Ok(text)
}

fn random_hex(bytes: usize) -> io::Result<String> {
    let mut buf = vec![0u8; bytes];
    getrandom::fill(&mut buf).map_err(|e| io::Error::other(format!("no randomness: {e}")))?;
    Ok(buf.iter().map(|b| format!("{b:02x}")).collect())
}

fn sha256_hex(text: &str) -> String {
    sha2::Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Compares without an early exit, so timing does not reveal a matching prefix.
pub fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn store() -> (tempfile::TempDir, CredentialStore) {
        let state = tempfile::tempdir().unwrap();
        let path = state.path().display().to_string();
        let env = move |k: &str| (k == "XDG_STATE_HOME").then(|| path.clone());
        let s = CredentialStore::of("abc123", &env, Path::new("/nonexistent"));
        (state, s)
    }

    #[test]
    fn the_operator_token_is_made_once_private_and_kept() {
        let (_d, s) = store();
        let t = s.operator_token().unwrap();
        assert_eq!(t.len(), 64);
        assert_eq!(s.operator_token().unwrap(), t);
        let mode = std::fs::metadata(s.operator_file())
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
        let dir_mode = std::fs::metadata(s.dir()).unwrap().permissions().mode();
        assert_eq!(dir_mode & 0o777, 0o700);
        // A token file others can read is refused, not used.
        std::fs::set_permissions(s.operator_file(), std::fs::Permissions::from_mode(0o644))
            .unwrap();
        assert!(s.operator_token().is_err());
    }

    #[test]
    fn agent_tokens_name_their_identity_until_revoked() {
        let (_d, s) = store();
        let (rec, token) = s
            .issue("room-001", "engineer", "2026-11-27T00:00:00Z")
            .unwrap();
        let v = Verifier::new("x".repeat(64), Some(s.clone()));
        let who = Identity {
            room_id: Some("room-001".into()),
            role: Some("engineer".into()),
            credential: Some(rec.id.clone()),
        };
        assert_eq!(v.check(&token), Some(Credential::Agent(who)));
        assert_eq!(v.check(&"x".repeat(64)), Some(Credential::Operator));
        // One changed character, or a known id with another secret, is no one.
        let mut forged = token.clone();
        forged.pop();
        forged.push(if token.ends_with('0') { '1' } else { '0' });
        assert_eq!(v.check(&forged), None);
        assert_eq!(v.check(&format!("wrm_{}_", rec.id)), None);
        assert!(s.revoke(&rec.id, "2026-11-27T01:00:00Z").unwrap());
        assert_eq!(v.check(&token), None, "revoked tokens stop at once");
        assert!(!s.revoke(&rec.id, "2026-11-27T02:00:00Z").unwrap());
        assert_eq!(s.list().unwrap().len(), 1);
        assert!(
            !std::fs::read_to_string(s.agents_file())
                .unwrap()
                .contains(&token)
        );
    }
}
