//! `semantic fetch NAME`: a model downloaded on request — never implicitly, never at run
//! time — into the cache directory, each file checked against a SHA-256 pinned in this
//! source ([`CATALOGUE`]) or in a team's own catalogue file (`--catalogue`, for models kept
//! on an internal mirror). The download is bounded (connect and read timeouts, each file
//! at most its pinned size), lands in a temporary directory beside the target, and is
//! moved into place only when every file matched: a failed or interrupted fetch leaves
//! nothing half-installed. `--from URL` takes the files from a mirror instead of the
//! catalogue's address; the pins still decide.
//!
//! Bounds whatever a catalogue says: each file at most the size the runtime accepts for
//! it ([`file_cap`]), the model at most [`MAX_MODEL_BYTES`]; a redirect is followed only
//! to the same host or a host the catalogue names (`redirect_hosts`), never from https to
//! http, at most [`MAX_REDIRECTS`] times. An interrupt (Ctrl-C, SIGTERM) stops the
//! download and removes its partial directory; partial directories an earlier fetch left
//! (a kill, a crash) are removed when the next fetch starts, under a lock so two fetches
//! never remove each other's.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;
use sha2::Digest;

/// One file of a pinned model.
#[derive(Debug, Clone, Deserialize, serde::Serialize, schemars::JsonSchema)]
pub struct PinnedFile {
    /// Its name in the model directory (and at the end of its address).
    pub name: String,
    /// Lower-case hex SHA-256 of its bytes.
    pub sha256: String,
    /// Its size in bytes (a download past it is refused).
    pub bytes: u64,
}

/// A model that can be fetched.
#[derive(Debug, Clone, Deserialize, serde::Serialize, schemars::JsonSchema)]
pub struct Pinned {
    /// What `semantic fetch` calls it.
    pub name: String,
    /// What it is.
    #[serde(default)]
    pub about: String,
    /// The address the file names are appended to (ends with `/`).
    pub base: String,
    /// Its files.
    pub files: Vec<PinnedFile>,
    /// Hosts other than `base`'s that its files may be redirected to (a CDN); none: only
    /// redirects within the same host are followed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub redirect_hosts: Vec<String>,
}

/// Most bytes of all of a model's files together.
pub const MAX_MODEL_BYTES: u64 = 1 << 31;
/// Most redirects followed for one file.
pub const MAX_REDIRECTS: usize = 5;

/// Most bytes a model file may have: what the runtime reads of it
/// ([`super::model_check`]'s caps), 64 MiB for any other file.
pub fn file_cap(name: &str) -> u64 {
    use super::model_check::{MAX_CONFIG_BYTES, MAX_TOKENIZER_BYTES, MAX_WEIGHTS_BYTES};
    match name {
        "config.json" => MAX_CONFIG_BYTES,
        "tokenizer.json" => MAX_TOKENIZER_BYTES,
        "model.safetensors" => MAX_WEIGHTS_BYTES,
        _ => 64 << 20,
    }
}

/// Refuses a pinned model whose sizes pass the caps, before anything is downloaded.
fn check_sizes(model: &Pinned) -> Result<(), String> {
    for f in &model.files {
        let cap = file_cap(&f.name);
        if f.bytes > cap {
            return Err(format!(
                "the catalogue pins {} of {} at {} bytes; a model file may have at most {cap} \
                 (docs/semantic.md). Nothing was downloaded",
                crate::validate::printable(&f.name),
                model.name,
                f.bytes
            ));
        }
    }
    let total: u64 = model.files.iter().map(|f| f.bytes).sum();
    if total > MAX_MODEL_BYTES {
        return Err(format!(
            "the catalogue pins {} at {total} bytes in all; a model may have at most \
             {MAX_MODEL_BYTES}. Nothing was downloaded",
            model.name
        ));
    }
    Ok(())
}

/// The models this build can fetch: sentence-transformers' all-MiniLM-L6-v2 (6 layers,
/// 384 dimensions; what docs/semantic.md measured as the 6-layer model), pinned by the
/// SHA-256 of each file as published.
pub fn catalogue() -> Vec<Pinned> {
    let f = |name: &str, sha256: &str, bytes: u64| PinnedFile {
        name: name.into(),
        sha256: sha256.into(),
        bytes,
    };
    vec![Pinned {
        name: "all-minilm-l6-v2".into(),
        about: "sentence-transformers/all-MiniLM-L6-v2: 6 layers, 384 dimensions, ~91 MB".into(),
        base: "https://huggingface.co/sentence-transformers/all-MiniLM-L6-v2/resolve/main/".into(),
        // The Hub answers large files with a redirect to its content servers.
        redirect_hosts: vec![
            "cdn-lfs.huggingface.co".into(),
            "cdn-lfs.hf.co".into(),
            "cdn-lfs-us-1.hf.co".into(),
            "cas-bridge.xethub.hf.co".into(),
        ],
        files: vec![
            f(
                "config.json",
                "953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41",
                612,
            ),
            f(
                "model.safetensors",
                "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db",
                90_868_376,
            ),
            f(
                "tokenizer.json",
                "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
                466_247,
            ),
        ],
    }]
}

/// A team's catalogue: a JSON array of [`Pinned`].
pub fn catalogue_file(path: &Path) -> Result<Vec<Pinned>, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("could not read the catalogue {}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| {
        format!(
            "the catalogue {} is not a JSON array of {{name, base, files: [{{name, sha256, \
             bytes}}]}}: {e}",
            path.display()
        )
    })
}

/// How long to wait to connect, and for an answer to begin, before giving up.
const TIMEOUT: Duration = Duration::from_secs(30);
/// How long one file's body may take (91 MB at ~100 kB/s).
const BODY_TIMEOUT: Duration = Duration::from_secs(15 * 60);

/// Fetches `model` into `<dir>/<name>` (from `from` instead of its base when given),
/// reporting `(bytes done, bytes in all)`; returns the model's directory and whether it
/// was already there (every file present with its pinned hash: nothing downloaded).
pub fn fetch(
    model: &Pinned,
    from: Option<&str>,
    dir: &Path,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<(PathBuf, bool), String> {
    crate::validate::path_component("name", &model.name).map_err(|e| e.to_string())?;
    check_sizes(model)?;
    let target = dir.join(&model.name);
    if model
        .files
        .iter()
        .all(|f| sha256_of(&target.join(&f.name)).as_deref() == Some(f.sha256.as_str()))
    {
        return Ok((target, true));
    }
    std::fs::create_dir_all(dir).map_err(|e| format!("could not create {}: {e}", dir.display()))?;
    let _lock = lock_and_sweep(dir)?;
    let tmp = tempfile::Builder::new()
        .prefix(&format!(".{}.partial-", model.name))
        .tempdir_in(dir)
        .map_err(|e| format!("could not create a directory in {}: {e}", dir.display()))?;
    interrupt::watch(tmp.path().to_path_buf());
    let base = from.unwrap_or(&model.base);
    let base = if base.ends_with('/') {
        base.to_string()
    } else {
        format!("{base}/")
    };
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .max_redirects(0)
        .timeout_connect(Some(TIMEOUT))
        .timeout_recv_body(Some(BODY_TIMEOUT))
        .timeout_recv_response(Some(TIMEOUT))
        .http_status_as_error(false)
        .build()
        .into();
    let total: u64 = model.files.iter().map(|f| f.bytes).sum();
    let mut done = 0;
    for f in &model.files {
        crate::validate::path_component("files[].name", &f.name).map_err(|e| e.to_string())?;
        let url = format!("{base}{}", f.name);
        let path = tmp.path().join(&f.name);
        done += download(&agent, model, &url, f, &path, done, total, progress)?;
    }
    if target.exists() {
        std::fs::remove_dir_all(&target)
            .map_err(|e| format!("could not replace {}: {e}", target.display()))?;
    }
    let kept = tmp.keep();
    std::fs::rename(&kept, &target).map_err(|e| {
        let _ = std::fs::remove_dir_all(&kept);
        format!("could not move the model into {}: {e}", target.display())
    })?;
    Ok((target, false))
}

/// Takes `<dir>/.fetch.lock` (waiting for another fetch into `dir` to finish) and removes
/// the partial directories an interrupted fetch left. Held until dropped.
fn lock_and_sweep(dir: &Path) -> Result<std::fs::File, String> {
    let path = dir.join(".fetch.lock");
    let lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(|e| format!("could not open {}: {e}", path.display()))?;
    lock.lock()
        .map_err(|e| format!("could not lock {}: {e}", path.display()))?;
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let name = e.file_name();
        let name = name.to_string_lossy();
        if name.starts_with('.') && name.contains(".partial-") && e.path().is_dir() {
            match std::fs::remove_dir_all(e.path()) {
                Ok(()) => {
                    tracing::info!("semantic fetch: removed {name}, left by an interrupted fetch")
                }
                Err(err) => tracing::warn!("semantic fetch: could not remove {name}: {err}"),
            }
        }
    }
    Ok(lock)
}

/// Where a redirect from `from` to `location` may go: the same host, or one the catalogue
/// names; never from https to http.
fn redirect_target(model: &Pinned, from: &str, location: &str) -> Result<String, String> {
    let host_of = |u: &str| -> Option<(String, String)> {
        let (scheme, rest) = u.split_once("://")?;
        let authority = rest.split('/').next()?;
        let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
        let host = host.split(':').next()?.to_ascii_lowercase();
        Some((scheme.to_ascii_lowercase(), host))
    };
    let (scheme, host) = host_of(from).ok_or_else(|| format!("{from}: not an address"))?;
    let next = if location.starts_with('/') {
        let root_end = from.find("://").map_or(0, |i| i + 3);
        let after = from.get(root_end..).unwrap_or_default();
        let authority = after.split('/').next().unwrap_or_default();
        format!("{scheme}://{authority}{location}")
    } else {
        location.to_string()
    };
    let (to_scheme, to_host) = host_of(&next).ok_or_else(|| {
        format!(
            "{from} redirected to `{}`, not an address",
            crate::validate::printable(location)
        )
    })?;
    if scheme == "https" && to_scheme != "https" {
        return Err(format!(
            "{from} redirected to plain http ({}); refused",
            crate::validate::printable(&next)
        ));
    }
    if to_host != host
        && !model
            .redirect_hosts
            .iter()
            .any(|h| h.eq_ignore_ascii_case(&to_host))
    {
        return Err(format!(
            "{from} redirected to another host, {}; refused. Fix: if that host is the \
             source's own content server, name it in the catalogue's `redirect_hosts`",
            crate::validate::printable(&to_host)
        ));
    }
    Ok(next)
}

/// Downloads one file to `path`, checking its size and hash; returns its size.
#[allow(clippy::too_many_arguments)]
fn download(
    agent: &ureq::Agent,
    model: &Pinned,
    url: &str,
    f: &PinnedFile,
    path: &Path,
    before: u64,
    total: u64,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<u64, String> {
    let mut at = url.to_string();
    let mut resp = None;
    for _ in 0..=MAX_REDIRECTS {
        let r = agent.get(&at).call().map_err(|e| {
            format!(
                "could not download {at}: {e}. Fix: check the network, or give a mirror with --from"
            )
        })?;
        if !r.status().is_redirection() {
            resp = Some(r);
            break;
        }
        let location = r
            .headers()
            .get("location")
            .and_then(|v| v.to_str().ok())
            .ok_or_else(|| {
                format!(
                    "{at} answered HTTP {} without a Location",
                    r.status().as_u16()
                )
            })?;
        at = redirect_target(model, &at, location)?;
    }
    let resp =
        resp.ok_or_else(|| format!("{url}: more than {MAX_REDIRECTS} redirects; refused"))?;
    let url = at.as_str();
    let status = resp.status().as_u16();
    if status != 200 {
        return Err(format!(
            "{url} answered HTTP {status}. Fix: check the name, or give a mirror with --from"
        ));
    }
    let mut body = resp.into_body();
    let mut reader = body.as_reader().take(f.bytes + 1);
    let mut out = std::fs::File::create(path)
        .map_err(|e| format!("could not create {}: {e}", path.display()))?;
    let mut hash = sha2::Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    let mut got = 0u64;
    loop {
        let n = reader
            .read(&mut buf)
            .map_err(|e| format!("the download of {url} broke off after {got} bytes: {e}"))?;
        if n == 0 {
            break;
        }
        if interrupt::seen() {
            return Err(
                "interrupted: the partial download was removed and nothing was installed"
                    .to_string(),
            );
        }
        got += n as u64;
        if got > f.bytes {
            return Err(format!(
                "{url} is larger than the {} bytes pinned for {}: not the pinned file \
                 (the source changed, or is another model). Nothing was installed",
                f.bytes, f.name
            ));
        }
        hash.update(&buf[..n]);
        out.write_all(&buf[..n])
            .map_err(|e| format!("could not write {}: {e}", path.display()))?;
        progress(before + got, total);
    }
    out.sync_all()
        .map_err(|e| format!("could not write {}: {e}", path.display()))?;
    let sha = hex(&hash.finalize());
    if got != f.bytes || sha != f.sha256 {
        return Err(format!(
            "{} from {url} is not the pinned file: {got} bytes with SHA-256 {sha}, pinned \
             {} bytes with SHA-256 {}. Nothing was installed. Fix: fetch from the \
             original address, or a mirror that has this exact file",
            f.name, f.bytes, f.sha256
        ));
    }
    Ok(got)
}

/// The SHA-256 of a file, if it can be read.
fn sha256_of(path: &Path) -> Option<String> {
    let mut f = std::fs::File::open(path).ok()?;
    let mut hash = sha2::Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        match f.read(&mut buf).ok()? {
            0 => return Some(hex(&hash.finalize())),
            n => hash.update(&buf[..n]),
        }
    }
}

/// Ctrl-C and SIGTERM during a fetch: the download stops at its next read and unwinds,
/// removing its partial directory; if it does not within a moment (a read waiting on a
/// stalled server), the watcher removes the directory itself and ends the process (130).
mod interrupt {
    use std::path::PathBuf;
    use std::sync::atomic::{AtomicBool, Ordering};

    static SEEN: AtomicBool = AtomicBool::new(false);

    /// Whether an interrupt arrived since [`watch`].
    pub fn seen() -> bool {
        SEEN.load(Ordering::SeqCst)
    }

    /// Watches for SIGINT and SIGTERM for the rest of the process (a fetch is the last
    /// thing its command does); `partial` is removed if one arrives.
    pub fn watch(partial: PathBuf) {
        SEEN.store(false, Ordering::SeqCst);
        let (ready, registered) = std::sync::mpsc::channel();
        let spawned = std::thread::Builder::new()
            .name("fetch-interrupt".into())
            .spawn(move || {
                let Ok(rt) = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                else {
                    let _ = ready.send(());
                    return;
                };
                rt.block_on(async {
                    use tokio::signal::unix::{SignalKind, signal};
                    let (Ok(mut term), Ok(mut int)) = (
                        signal(SignalKind::terminate()),
                        signal(SignalKind::interrupt()),
                    ) else {
                        let _ = ready.send(());
                        return;
                    };
                    let _ = ready.send(());
                    tokio::select! {
                        _ = term.recv() => {}
                        _ = int.recv() => {}
                    }
                });
                SEEN.store(true, Ordering::SeqCst);
                std::thread::sleep(std::time::Duration::from_millis(300));
                for _ in 0..5 {
                    match std::fs::remove_dir_all(&partial) {
                        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                            std::thread::sleep(std::time::Duration::from_millis(50))
                        }
                        _ => break,
                    }
                }
                tracing::warn!(
                    "semantic fetch: interrupted; the partial download was removed and nothing \
                     was installed"
                );
                std::process::exit(130);
            });
        if spawned.is_ok() {
            let _ = registered.recv_timeout(std::time::Duration::from_secs(2));
        }
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
