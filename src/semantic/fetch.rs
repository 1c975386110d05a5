//! `semantic fetch NAME`: a model downloaded on request — never implicitly, never at run
//! time — into the cache directory, each file checked against a SHA-256 pinned in this
//! source ([`CATALOGUE`]) or in a team's own catalogue file (`--catalogue`, for models kept
//! on an internal mirror). The download is bounded (connect and read timeouts, each file
//! at most its pinned size), lands in a temporary directory beside the target, and is
//! moved into place only when every file matched: a failed or interrupted fetch leaves
//! nothing half-installed. `--from URL` takes the files from a mirror instead of the
//! catalogue's address; the pins still decide.

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
    let target = dir.join(&model.name);
    if model
        .files
        .iter()
        .all(|f| sha256_of(&target.join(&f.name)).as_deref() == Some(f.sha256.as_str()))
    {
        return Ok((target, true));
    }
    std::fs::create_dir_all(dir).map_err(|e| format!("could not create {}: {e}", dir.display()))?;
    let tmp = tempfile::Builder::new()
        .prefix(&format!(".{}.partial-", model.name))
        .tempdir_in(dir)
        .map_err(|e| format!("could not create a directory in {}: {e}", dir.display()))?;
    let base = from.unwrap_or(&model.base);
    let base = if base.ends_with('/') {
        base.to_string()
    } else {
        format!("{base}/")
    };
    let agent: ureq::Agent = ureq::Agent::config_builder()
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
        done += download(&agent, &url, f, &path, done, total, progress)?;
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

/// Downloads one file to `path`, checking its size and hash; returns its size.
fn download(
    agent: &ureq::Agent,
    url: &str,
    f: &PinnedFile,
    path: &Path,
    before: u64,
    total: u64,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<u64, String> {
    let resp = agent.get(url).call().map_err(|e| {
        format!(
            "could not download {url}: {e}. Fix: check the network, or give a mirror with --from"
        )
    })?;
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

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
