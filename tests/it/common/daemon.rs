//! A project daemon for tests: started with its socket under a private runtime dir (so
//! tests never meet a real one), killed on drop.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::{Agent, BIN, agent};

/// A daemon for `root`, with its socket under `runtime` (so tests never meet a real one).
pub struct Daemon {
    pub child: Child,
}

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn daemon_cmd(root: &Path, runtime: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(BIN);
    cmd.arg("--root")
        .arg(root)
        .arg("daemon")
        .args(args)
        .env("XDG_RUNTIME_DIR", runtime)
        .env("XDG_STATE_HOME", runtime)
        .env_remove("WARROOM_TOKEN")
        .env_remove("WARROOM_ROOM_ID")
        .env_remove("WARROOM_ROLE")
        .env_remove("WARROOM_DATABASE_URL");
    cmd
}

pub fn start_daemon(root: &Path, runtime: &Path) -> Daemon {
    start_daemon_with(root, runtime, &["--listen", "127.0.0.1:0"])
}

/// Waits (≤ 60 s) until `daemon status` of `root` says a daemon is ready.
pub fn wait_until_ready(root: &Path, runtime: &Path) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while !daemon_cmd(root, runtime, &["status"])
        .output()
        .unwrap()
        .status
        .success()
    {
        assert!(
            Instant::now() < deadline,
            "the daemon did not come up within 60 s"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Starts `daemon ARGS…` and waits until `daemon status` says it is ready.
pub fn start_daemon_with(root: &Path, runtime: &Path, args: &[&str]) -> Daemon {
    start_daemon_cmd(root, runtime, daemon_cmd(root, runtime, args))
}

/// Starts `cmd` (a [`daemon_cmd`], perhaps with more environment) and waits until ready.
pub fn start_daemon_cmd(root: &Path, runtime: &Path, mut cmd: Command) -> Daemon {
    let log = std::fs::File::create(root.join("daemon.log")).unwrap();
    let child = cmd.stderr(Stdio::from(log)).spawn().unwrap();
    // A bound against a hang, generous for a loaded 2-core CI machine.
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut child = child;
    while !daemon_cmd(root, runtime, &["status"])
        .output()
        .unwrap()
        .status
        .success()
    {
        if Instant::now() >= deadline || child.try_wait().unwrap().is_some() {
            let _ = child.kill();
            panic!(
                "the daemon did not come up (exit: {:?}); its log:\n{}",
                child.try_wait().ok().flatten(),
                std::fs::read_to_string(root.join("daemon.log")).unwrap_or_default()
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    Daemon { child }
}

pub async fn attached(root: &Path, runtime: &Path, room: &str) -> Agent {
    agent(root)
        .room(room)
        .role("engineer")
        .env("XDG_RUNTIME_DIR", &runtime.display().to_string())
        .env("WARROOM_DAEMON", "require")
        .start()
        .await
}

/// The daemon's HTTP URL, from `daemon status --json`.
pub fn url_of(root: &Path, runtime: &Path) -> String {
    let out = daemon_cmd(root, runtime, &["status"])
        .arg("--json")
        .output()
        .unwrap();
    let info: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    info["url"]
        .as_str()
        .expect("the daemon serves HTTP")
        .to_string()
}

/// The operator token of the daemon of `root`: read from the file `daemon status --json`
/// names (the daemon made it, 0600, on first start).
pub fn operator_token(root: &Path, runtime: &Path) -> String {
    // A daemon restarting rewrites its info file: ask again for a few seconds.
    let deadline = Instant::now() + Duration::from_secs(20);
    let info: serde_json::Value = loop {
        let out = daemon_cmd(root, runtime, &["status"])
            .arg("--json")
            .output()
            .unwrap();
        match serde_json::from_slice(&out.stdout) {
            Ok(v) => break v,
            Err(e) if Instant::now() > deadline => panic!(
                "daemon status --json: {e}: {}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            ),
            Err(_) => std::thread::sleep(Duration::from_millis(100)),
        }
    };
    let file = info["token_file"]
        .as_str()
        .expect("the daemon names its token file");
    std::fs::read_to_string(file).unwrap().trim().to_string()
}

/// A sign-in address of the console, as `warroom-memory console --no-start` prints it.
pub fn console_login_url(root: &Path, runtime: &Path) -> String {
    let out = Command::new(BIN)
        .arg("--root")
        .arg(root)
        .args(["console", "--json", "--no-start"])
        .env("XDG_RUNTIME_DIR", runtime)
        .env("XDG_STATE_HOME", runtime)
        .env_remove("WARROOM_TOKEN")
        .output()
        .unwrap();
    let v = super::succeeded_json(out);
    v["login_url"].as_str().unwrap().to_string()
}

/// rmcp's Streamable HTTP client to `url` with `token` (sent as `Authorization: Bearer`)
/// and, for an operator token, the identity to act as.
pub fn http_transport(
    url: &str,
    token: &str,
    room: Option<&str>,
    role: Option<&str>,
) -> rmcp::transport::StreamableHttpClientTransport<reqwest::Client> {
    use http::{HeaderName, HeaderValue};
    use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
    let mut h = std::collections::HashMap::new();
    for (name, value) in [("x-warroom-room", room), ("x-warroom-role", role)] {
        if let Some(v) = value {
            h.insert(
                HeaderName::from_static(name),
                HeaderValue::from_str(v).unwrap(),
            );
        }
    }
    rmcp::transport::StreamableHttpClientTransport::from_config(
        StreamableHttpClientTransportConfig::with_uri(url.to_string())
            .auth_header(token)
            .custom_headers(h),
    )
}

/// `token issue --room ROOM --role ROLE --json`: the token's id and the token.
pub fn issue_token(root: &Path, runtime: &Path, room: &str, role: &str) -> (String, String) {
    let out = Command::new(BIN)
        .arg("--root")
        .arg(root)
        .args(["token", "issue", "--room", room, "--role", role, "--json"])
        .env("XDG_RUNTIME_DIR", runtime)
        .env("XDG_STATE_HOME", runtime)
        .output()
        .unwrap();
    let v = super::succeeded_json(out);
    (
        v["id"].as_str().unwrap().to_string(),
        v["token"].as_str().unwrap().to_string(),
    )
}
