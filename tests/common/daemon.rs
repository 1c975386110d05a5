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
        .env_remove("WARROOM_ROOM_ID")
        .env_remove("WARROOM_ROLE")
        .env_remove("WARROOM_DATABASE_URL");
    cmd
}

pub fn start_daemon(root: &Path, runtime: &Path) -> Daemon {
    start_daemon_with(root, runtime, &["--listen", "127.0.0.1:0"])
}

/// Starts `daemon ARGS…` and waits until `daemon status` says it is ready.
pub fn start_daemon_with(root: &Path, runtime: &Path, args: &[&str]) -> Daemon {
    let log = std::fs::File::create(root.join("daemon.log")).unwrap();
    let child = daemon_cmd(root, runtime, args)
        .stderr(Stdio::from(log))
        .spawn()
        .unwrap();
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
