//! `semantic fetch` through the real binary, against a local HTTP server — no test reaches
//! outside the machine. The server serves the model files of a package the build already
//! fetched (crates.io's pocket-encoder, from the cargo registry): a team catalogue pinning
//! them is fetched, checked and installed; fetched again, nothing is downloaded; a mirror
//! serving other bytes, or nothing, is refused with nothing installed — for a team's pins
//! and for the built-in ones.

use crate::common;

#[cfg(feature = "semantic")]
mod with_the_feature {
    use std::collections::HashMap;
    use std::io::{BufRead, BufReader, Write};
    use std::net::TcpListener;
    use std::path::{Path, PathBuf};
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::{Arc, Mutex};

    use super::common::{cli, project};
    use serde_json::{Value, json};
    use sha2::Digest;

    const FILES: [&str; 3] = ["config.json", "model.safetensors", "tokenizer.json"];

    /// pocket-encoder's assets in the cargo registry (extracted when the build fetched it).
    fn package_assets() -> PathBuf {
        let home = std::env::var_os("CARGO_HOME")
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from(std::env::var_os("HOME").unwrap()).join(".cargo"));
        let src = home.join("registry/src");
        for index in std::fs::read_dir(&src).unwrap() {
            let dir = index.unwrap().path().join("pocket-encoder-0.1.2/assets");
            if dir.join("model.safetensors").is_file() {
                return dir;
            }
        }
        panic!("pocket-encoder's assets are not under {}", src.display());
    }

    /// What the test server answers for a path.
    #[derive(Clone)]
    enum Route {
        Body(Vec<u8>),
        /// 302 to this address.
        Redirect(String),
        /// 200 with a promise of this many bytes, then zeros forever, slowly.
        Endless(u64),
    }

    /// A server on 127.0.0.1 answering GET /<path> from `files` (404 otherwise); counts
    /// requests.
    fn serve(files: HashMap<String, Vec<u8>>) -> (String, Arc<AtomicUsize>) {
        serve_routes(
            files
                .into_iter()
                .map(|(k, v)| (k, Route::Body(v)))
                .collect(),
        )
    }

    fn serve_routes(routes: HashMap<String, Route>) -> (String, Arc<AtomicUsize>) {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let base = format!("http://{}", l.local_addr().unwrap());
        let hits = Arc::new(AtomicUsize::new(0));
        let routes = Arc::new(Mutex::new(routes));
        let h = hits.clone();
        std::thread::spawn(move || {
            for s in l.incoming() {
                let Ok(mut s) = s else { continue };
                h.fetch_add(1, Ordering::SeqCst);
                let routes = routes.clone();
                std::thread::spawn(move || {
                    let mut r = BufReader::new(s.try_clone().unwrap());
                    let mut first = String::new();
                    let _ = r.read_line(&mut first);
                    loop {
                        let mut l = String::new();
                        if r.read_line(&mut l).unwrap_or(0) == 0 || l == "\r\n" {
                            break;
                        }
                    }
                    let path = first.split(' ').nth(1).unwrap_or("/").to_string();
                    let route = routes.lock().unwrap().get(&path).cloned();
                    let _ = match route {
                        Some(Route::Body(b)) => s
                            .write_all(
                                format!(
                                    "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                                    b.len()
                                )
                                .as_bytes(),
                            )
                            .and_then(|()| s.write_all(&b)),
                        Some(Route::Redirect(to)) => s.write_all(
                            format!(
                                "HTTP/1.1 302 Found\r\nLocation: {to}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                            )
                            .as_bytes(),
                        ),
                        Some(Route::Endless(n)) => (|| {
                            s.write_all(
                                format!("HTTP/1.1 200 OK\r\nContent-Length: {n}\r\nConnection: close\r\n\r\n")
                                    .as_bytes(),
                            )?;
                            let chunk = vec![0u8; 1 << 16];
                            loop {
                                s.write_all(&chunk)?;
                                std::thread::sleep(std::time::Duration::from_millis(5));
                            }
                        })(),
                        None => s.write_all(
                            b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
                        ),
                    };
                });
            }
        });
        (base, hits)
    }

    fn sha(b: &[u8]) -> String {
        sha2::Sha256::digest(b)
            .iter()
            .map(|x| format!("{x:02x}"))
            .collect()
    }

    fn fetch(root: &Path, args: &[&str]) -> (i32, Value, String) {
        let mut a = vec!["--json", "semantic", "fetch"];
        a.extend(args);
        let (code, out, err) = cli(root, &a);
        (code, serde_json::from_str(&out).unwrap_or(Value::Null), err)
    }

    fn leftovers(dir: &Path) -> Vec<String> {
        std::fs::read_dir(dir)
            .map(|d| {
                d.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                    // The fetches' lock file stays (removing a lock file races its users).
                    .filter(|n| n.starts_with('.') && n != ".fetch.lock")
                    .collect()
            })
            .unwrap_or_default()
    }

    #[test]
    fn a_pinned_model_is_fetched_checked_and_installed_and_other_bytes_are_refused() {
        let assets = package_assets();
        let mut files = HashMap::new();
        let mut pins = Vec::new();
        for f in FILES {
            let b = std::fs::read(assets.join(f)).unwrap();
            pins.push(json!({"name": f, "sha256": sha(&b), "bytes": b.len()}));
            let mut evil = b.clone();
            evil[0] ^= 1;
            files.insert(format!("/evil/{f}"), evil);
            files.insert(format!("/m/{f}"), b);
        }
        let (base, hits) = serve(files);
        let p = project();
        let root = p.path();
        let dir = root.join("models");
        let dir_arg = dir.display().to_string();
        let catalogue = root.join("catalogue.json");
        std::fs::write(
            &catalogue,
            json!([{"name": "pocket-l3", "about": "the bundled model's files", "base": format!("{base}/m/"), "files": pins}]).to_string(),
        )
        .unwrap();
        let cat = catalogue.display().to_string();

        // Fetched, checked, installed; the config line to use is printed.
        let (code, v, err) = fetch(root, &["pocket-l3", "--catalogue", &cat, "--dir", &dir_arg]);
        assert_eq!(code, 0, "{err}");
        assert_eq!(v["already"], false);
        for f in FILES {
            assert_eq!(
                std::fs::read(dir.join("pocket-l3").join(f)).unwrap(),
                std::fs::read(assets.join(f)).unwrap()
            );
        }
        assert!(v["config"].as_str().unwrap().contains("pocket-l3"), "{v}");
        assert!(leftovers(&dir).is_empty());

        // Again: every file is there with its hash — nothing is downloaded.
        let before = hits.load(Ordering::SeqCst);
        let (code, v, _) = fetch(root, &["pocket-l3", "--catalogue", &cat, "--dir", &dir_arg]);
        assert_eq!((code, v["already"].clone()), (0, json!(true)));
        assert_eq!(hits.load(Ordering::SeqCst), before);

        // A mirror serving other bytes: refused, naming the file and both hashes; nothing
        // installed, nothing left behind.
        let other = root.join("other");
        let other_arg = other.display().to_string();
        let evil = format!("{base}/evil/");
        let (code, _, err) = fetch(
            root,
            &[
                "pocket-l3",
                "--catalogue",
                &cat,
                "--dir",
                &other_arg,
                "--from",
                &evil,
            ],
        );
        assert_ne!(code, 0);
        assert!(
            err.contains("config.json")
                && err.contains("not the pinned file")
                && err.contains("Nothing was installed"),
            "{err}"
        );
        assert!(!other.join("pocket-l3").exists());
        assert!(leftovers(&other).is_empty(), "{:?}", leftovers(&other));

        // A mirror without the files: the status, and the fix.
        let (code, _, err) = fetch(
            root,
            &[
                "pocket-l3",
                "--catalogue",
                &cat,
                "--dir",
                &other_arg,
                "--from",
                &format!("{base}/none/"),
            ],
        );
        assert_ne!(code, 0);
        assert!(err.contains("HTTP 404"), "{err}");

        // The built-in pins are enforced the same way: these files are not
        // all-MiniLM-L6-v2.
        let (code, _, err) = fetch(
            root,
            &[
                "all-minilm-l6-v2",
                "--dir",
                &other_arg,
                "--from",
                &format!("{base}/m/"),
            ],
        );
        assert_ne!(code, 0);
        assert!(err.contains("not the pinned file"), "{err}");
        assert!(!other.join("all-minilm-l6-v2").exists());

        // The list, and a name not in it.
        let (code, v, _) = fetch(root, &[]);
        assert_eq!(code, 0);
        assert_eq!(v[0]["name"], "all-minilm-l6-v2");
        let (code, _, err) = fetch(root, &["no-such-model"]);
        assert_ne!(code, 0);
        assert!(err.contains("all-minilm-l6-v2"), "{err}");
    }

    /// Bounds whatever the catalogue says: a model pinned past the caps is refused before
    /// a byte is downloaded; a redirect goes to the same host, or to one the catalogue
    /// names; an interrupted fetch leaves no partial directory, and one an earlier fetch
    /// left is removed by the next.
    #[test]
    fn a_fetch_is_bounded_whatever_the_catalogue_pins() {
        let assets = package_assets();
        let mut routes = HashMap::new();
        let mut pins = Vec::new();
        for f in FILES {
            let b = std::fs::read(assets.join(f)).unwrap();
            pins.push(json!({"name": f, "sha256": sha(&b), "bytes": b.len()}));
            routes.insert(format!("/m/{f}"), Route::Body(b));
        }
        let (base, hits) = serve_routes(routes.clone());
        let port = base.rsplit_once(':').unwrap().1.to_string();
        // Same-host redirects into /m/, and ones to another name of this machine.
        let (rbase, _) = serve_routes(
            FILES
                .iter()
                .flat_map(|f| {
                    [
                        (format!("/same/{f}"), Route::Redirect(format!("/m/{f}"))),
                        (
                            format!("/other/{f}"),
                            Route::Redirect(format!("http://localhost:{port}/m/{f}")),
                        ),
                    ]
                })
                .chain(routes)
                .collect(),
        );
        let p = project();
        let root = p.path();
        let dir = root.join("models");
        let dir_arg = dir.display().to_string();
        let catalogue = |entries: Value| {
            let path = root.join("catalogue.json");
            std::fs::write(&path, entries.to_string()).unwrap();
            path.display().to_string()
        };

        // 10 TB pinned: refused, nothing asked of the server.
        let huge = catalogue(
            json!([{"name": "huge", "base": format!("{base}/m/"), "files": [
            {"name": "model.safetensors", "sha256": "00", "bytes": 10_000_000_000_000u64}]}]),
        );
        let (code, _, err) = fetch(root, &["huge", "--catalogue", &huge, "--dir", &dir_arg]);
        assert_ne!(code, 0);
        assert!(
            err.contains("at most 1073741824") && err.contains("Nothing was downloaded"),
            "{err}"
        );
        assert_eq!(hits.load(Ordering::SeqCst), 0);

        // A redirect to another host is refused unless the catalogue names it; one within
        // the host is followed.
        let one = |from: &str, hosts: Value| {
            catalogue(
                json!([{"name": "pocket-l3", "base": format!("{rbase}/{from}/"),
                              "files": pins, "redirect_hosts": hosts}]),
            )
        };
        let cat = one("other", json!([]));
        let (code, _, err) = fetch(root, &["pocket-l3", "--catalogue", &cat, "--dir", &dir_arg]);
        assert_ne!(code, 0);
        assert!(
            err.contains("another host, localhost") && err.contains("redirect_hosts"),
            "{err}"
        );
        assert!(!dir.join("pocket-l3").exists());
        let cat = one("other", json!(["localhost"]));
        let (code, _, err) = fetch(root, &["pocket-l3", "--catalogue", &cat, "--dir", &dir_arg]);
        assert_eq!(code, 0, "{err}");
        std::fs::remove_dir_all(dir.join("pocket-l3")).unwrap();
        // A partial directory an interrupted fetch left is removed by the next fetch.
        std::fs::create_dir_all(dir.join(".pocket-l3.partial-old")).unwrap();
        std::fs::write(
            dir.join(".pocket-l3.partial-old/model.safetensors"),
            b"half",
        )
        .unwrap();
        let cat = one("same", json!([]));
        let (code, _, err) = fetch(root, &["pocket-l3", "--catalogue", &cat, "--dir", &dir_arg]);
        assert_eq!(code, 0, "{err}");
        assert!(dir.join("pocket-l3/model.safetensors").is_file());
        assert!(
            leftovers(&dir).iter().all(|n| !n.contains("partial")),
            "{:?}",
            leftovers(&dir)
        );

        // Interrupted mid-download (a server that never ends): the process stops and
        // leaves no partial directory.
        let (ebase, _) = serve_routes(HashMap::from([(
            "/e/model.safetensors".to_string(),
            Route::Endless(900_000_000),
        )]));
        let endless = catalogue(
            json!([{"name": "endless", "base": format!("{ebase}/e/"), "files": [
            {"name": "model.safetensors", "sha256": "00", "bytes": 900_000_000u64}]}]),
        );
        let mut child = std::process::Command::new(super::common::BIN)
            .args([
                "--root",
                root.to_str().unwrap(),
                "semantic",
                "fetch",
                "endless",
            ])
            .args(["--catalogue", &endless, "--dir", &dir_arg])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let partial = || {
            std::fs::read_dir(&dir)
                .unwrap()
                .filter_map(|e| e.ok())
                .any(|e| {
                    e.file_name()
                        .to_string_lossy()
                        .starts_with(".endless.partial-")
                })
        };
        let t0 = std::time::Instant::now();
        while !partial() && t0.elapsed() < std::time::Duration::from_secs(20) {
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        assert!(partial(), "the download began");
        std::thread::sleep(std::time::Duration::from_millis(500));
        let _ = std::process::Command::new("kill")
            .args(["-INT", &child.id().to_string()])
            .status();
        let t1 = std::time::Instant::now();
        let status = loop {
            if let Some(s) = child.try_wait().unwrap() {
                break s;
            }
            assert!(
                t1.elapsed() < std::time::Duration::from_secs(10),
                "the fetch did not stop"
            );
            std::thread::sleep(std::time::Duration::from_millis(50));
        };
        assert!(!status.success());
        assert!(!partial(), "{:?}", leftovers(&dir));
    }
}

#[cfg(not(feature = "semantic"))]
#[test]
fn without_the_feature_fetch_says_how_to_get_a_build_with_it() {
    let p = common::project();
    let (code, _, err) = common::cli(p.path(), &["semantic", "fetch", "all-minilm-l6-v2"]);
    assert_ne!(code, 0);
    assert!(err.contains("--features semantic"), "{err}");
}
