//! A real browser for the console's tests: Debian's chromium driven through chromedriver's
//! WebDriver protocol (plain JSON over loopback HTTP, with the HTTP client the daemon tests
//! use). Never skipped: without chromium and chromedriver the test fails and says what to
//! install (`.ci/run` installs both).

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

const CHROMIUM: &str = "/usr/bin/chromium";
const DRIVER: &str = "/usr/bin/chromedriver";
/// The key WebDriver names an element reference by.
const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";

pub struct Browser {
    driver: Child,
    base: String,
    session: String,
    _profile: tempfile::TempDir,
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

impl Browser {
    /// Starts chromedriver and a headless chromium session (fresh profile, no network but
    /// loopback: the flags keep chromium from calling out).
    pub fn start() -> Browser {
        for f in [CHROMIUM, DRIVER] {
            assert!(
                std::path::Path::new(f).exists(),
                "{f} is missing (Debian's `chromium` and `chromium-driver`). Fix: run \
                 `scripts/test`, which installs what the tests need and runs them all"
            );
        }
        let port = free_port();
        let driver = Command::new(DRIVER)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let base = format!("http://127.0.0.1:{port}");
        let deadline = Instant::now() + Duration::from_secs(30);
        while xtask::http_client::get(&format!("{base}/status"), &[])
            .map(|r| !r.body.contains("\"ready\":true"))
            .unwrap_or(true)
        {
            assert!(Instant::now() < deadline, "chromedriver did not start");
            std::thread::sleep(Duration::from_millis(50));
        }
        let profile = tempfile::tempdir().unwrap();
        let caps = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {
                "binary": CHROMIUM,
                "args": [
                    "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic",
                    "--no-first-run", "--disable-background-networking",
                    "--disable-component-update", "--disable-sync",
                    "--disable-dev-shm-usage", "--window-size=1400,1000",
                    format!("--user-data-dir={}", profile.path().display()),
                ]
            },
            "goog:loggingPrefs": {"browser": "ALL"}
        }}});
        let mut b = Browser {
            driver,
            base,
            session: String::new(),
            _profile: profile,
        };
        let v = b.call("POST", "/session", caps);
        b.session = v["sessionId"].as_str().expect("a session").to_string();
        b
    }

    fn call(&self, method: &str, path: &str, body: Value) -> Value {
        let url = if path == "/session" {
            format!("{}{path}", self.base)
        } else {
            format!("{}/session/{}{path}", self.base, self.session)
        };
        let r = xtask::http_client::request(method, &url, &[], &body.to_string()).unwrap();
        let v: Value = serde_json::from_str(&r.body)
            .unwrap_or_else(|_| panic!("WebDriver {path}: {} {}", r.status, r.body));
        assert_eq!(r.status, 200, "WebDriver {method} {path}: {v}");
        v["value"].clone()
    }

    /// Opens `url` and waits for the page to load.
    pub fn goto(&self, url: &str) {
        self.call("POST", "/url", json!({"url": url}));
    }

    /// The page's address.
    pub fn url(&self) -> String {
        self.call("GET", "/url", Value::Null)
            .as_str()
            .unwrap()
            .to_string()
    }

    /// Runs `script` (a function body: `return …`) in the page.
    pub fn eval(&self, script: &str) -> Value {
        self.call(
            "POST",
            "/execute/sync",
            json!({"script": script, "args": []}),
        )
    }

    /// The WebDriver reference of the first element matching `css`.
    fn element(&self, css: &str) -> String {
        let el = self.call(
            "POST",
            "/element",
            json!({"using": "css selector", "value": css}),
        );
        el[ELEMENT]
            .as_str()
            .unwrap_or_else(|| panic!("an element for {css}: {el}"))
            .to_string()
    }

    /// Clicks the first element matching `css`.
    pub fn click(&self, css: &str) {
        let id = self.element(css);
        self.call("POST", &format!("/element/{id}/click"), json!({}));
    }

    /// Types `text` into the first element matching `css`.
    pub fn type_into(&self, css: &str, text: &str) {
        let id = self.element(css);
        self.call(
            "POST",
            &format!("/element/{id}/value"),
            json!({"text": text}),
        );
    }

    /// Waits until `script` returns true, at most `within`; panics with `what` otherwise.
    pub fn wait_for(&self, script: &str, within: Duration, what: &str) {
        let deadline = Instant::now() + within;
        while self.eval(script) != Value::Bool(true) {
            assert!(Instant::now() < deadline, "{what} (within {within:?})");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// With `WARROOM_SCREENSHOTS=DIR` set, saves the page as `DIR/NAME.png.b64` (the
    /// WebDriver's base64 PNG; `base64 -d` it) for a person to look at; otherwise nothing.
    pub fn screenshot(&self, name: &str) {
        if let Some(dir) = std::env::var_os("WARROOM_SCREENSHOTS") {
            let png = self.call("GET", "/screenshot", Value::Null);
            let file = std::path::Path::new(&dir).join(format!("{name}.png.b64"));
            std::fs::write(file, png.as_str().unwrap_or_default()).unwrap();
        }
    }

    /// The browser console's errors (and CSP violations) since the last call.
    pub fn console_errors(&self) -> Vec<String> {
        self.call("POST", "/se/log", json!({"type": "browser"}))
            .as_array()
            .cloned()
            .unwrap_or_default()
            .iter()
            .filter(|e| e["level"] == "SEVERE")
            .map(|e| e["message"].as_str().unwrap_or("").to_string())
            .collect()
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        if !self.session.is_empty() {
            let url = format!("{}/session/{}", self.base, self.session);
            let _ = xtask::http_client::request("DELETE", &url, &[], "");
        }
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}
