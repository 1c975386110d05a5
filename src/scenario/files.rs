//! File and command-line checks of a scenario step (`check_file`, `cli`).

use serde_json::Value;

use super::expect;
use super::runner::{Failed, Run, failed};
use super::{CheckFile, CliStep};

impl Run<'_> {
    /// With a database: `Some(None)` if `rel` is the ledger's file, `Some(Some(room))` if
    /// it is a room's channel file.
    fn stream_of(&self, rel: &str) -> Option<Option<String>> {
        self.database.as_ref()?;
        if rel == ".agents/ledger.jsonl" {
            return Some(None);
        }
        let room = rel
            .strip_prefix(".agents/war-rooms/")?
            .strip_suffix("/channel.jsonl")?;
        (!room.contains('/')).then(|| Some(room.to_string()))
    }

    /// `db export` of the ledger or of `room`'s channel, through the binary.
    fn export(&self, room: Option<String>) -> Result<Vec<u8>, String> {
        let mut cmd = super::isolated(self.exe);
        cmd.arg("--root").arg(&self.root).args(["db", "export"]);
        if let Some(r) = room {
            cmd.args(["--channel", &r]);
        }
        let out = cmd.output().map_err(|e| e.to_string())?;
        if !out.status.success() {
            return Err(String::from_utf8_lossy(&out.stderr).into_owned());
        }
        Ok(out.stdout)
    }

    pub(super) fn check_file(&self, c: &CheckFile, label: &str) -> Result<(), Failed> {
        let p = self
            .path(&c.path)
            .map_err(|e| failed(label, "a path inside the root", e))?;
        // On the database backend, the ledger's and channels' files are the database's
        // streams: checked as `db export` writes them.
        let exported = match self.stream_of(&c.path) {
            Some(stream) => Some(
                self.export(stream)
                    .map_err(|e| failed(label, "db export", e))?,
            ),
            None => None,
        };
        let exists = exported
            .as_ref()
            .map_or_else(|| p.exists(), |d| !d.is_empty());
        if c.exists == Some(false) {
            return if exists {
                Err(failed(
                    label,
                    format!("{} does not exist", c.path),
                    "it exists",
                ))
            } else {
                Ok(())
            };
        }
        let data = match exported {
            Some(d) => d,
            None => std::fs::read(&p)
                .map_err(|e| failed(label, format!("{} exists", c.path), e.to_string()))?,
        };
        let lines = crate::audit::lines(&data);
        let valid = lines
            .iter()
            .filter(|l| crate::entry::EntryRef::parse(l.bytes).is_ok())
            .count();
        let invalid = lines.iter().filter(|l| !l.is_blank()).count() - valid;
        let text = String::from_utf8_lossy(&data);
        let check = |ok: bool, what: String, actual: String| {
            if ok {
                Ok(())
            } else {
                Err(failed(label, what, actual))
            }
        };
        if let Some(n) = c.lines {
            check(
                lines.len() == n,
                format!("{} has {n} lines", c.path),
                lines.len().to_string(),
            )?;
        }
        if let Some(n) = c.valid_entries {
            check(
                valid == n,
                format!("{} has {n} valid entries", c.path),
                valid.to_string(),
            )?;
        }
        if let Some(n) = c.invalid_lines {
            check(
                invalid == n,
                format!("{} has {n} invalid lines", c.path),
                invalid.to_string(),
            )?;
        }
        if let Some(b) = c.ends_with_newline {
            check(
                data.ends_with(b"\n") == b,
                format!("{} ends with a newline: {b}", c.path),
                format!("{:?}", data.last().map(|&b| b as char)),
            )?;
        }
        if let Some(t) = &c.contains {
            check(
                text.contains(t.as_str()),
                format!("{} contains {t:?}", c.path),
                text.chars().take(2000).collect(),
            )?;
        }
        if let Some(t) = &c.not_contains {
            check(
                !text.contains(t.as_str()),
                format!("{} does not contain {t:?}", c.path),
                text.chars().take(2000).collect(),
            )?;
        }
        for id in &c.ids_once {
            let id = match expect::substitute(&Value::String(id.clone()), &self.vars) {
                Value::String(s) => s,
                other => other.to_string(),
            };
            let n = lines
                .iter()
                .filter(|l| crate::entry::EntryRef::parse(l.bytes).is_ok_and(|(e, _)| e.id == id))
                .count();
            check(
                n == 1,
                format!("{id} is in {} exactly once", c.path),
                format!("{n} times"),
            )?;
        }
        Ok(())
    }

    /// Replays every receipt of the scenario's project (`receipts`, then `context
    /// --replay` of each through the binary); a brief that does not replay byte for byte
    /// fails the scenario, and so does a replay on the index as it was (the default) that
    /// says anything else than a replay on an index rebuilt from the prefix (`--rebuild`).
    pub(super) fn replay_receipts(&self) -> Result<(), Failed> {
        let label = "receipts";
        let run = |args: &[&str]| {
            super::isolated(self.exe)
                .arg("--root")
                .arg(&self.root)
                .args(args)
                .env("WARROOM_NOW_FILE", &self.clock)
                .output()
                .map_err(|e| failed(label, "the command runs", e.to_string()))
        };
        let out = run(&["--json", "receipts", "--last", "1000"])?;
        let list: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
        let ids: Vec<String> = list
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|r| r["id"].as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default();
        for id in ids {
            let out = run(&["--json", "context", "--replay", &id])?;
            if !out.status.success() {
                return Err(failed(
                    label,
                    format!("receipt {id} replays byte for byte"),
                    format!(
                        "{}{}",
                        String::from_utf8_lossy(&out.stdout),
                        String::from_utf8_lossy(&out.stderr)
                    ),
                ));
            }
            let rebuilt = run(&["--json", "context", "--replay", &id, "--rebuild"])?;
            if rebuilt.stdout != out.stdout {
                return Err(failed(
                    label,
                    format!("receipt {id} replays the same at its horizon and rebuilt"),
                    format!(
                        "at the horizon:\n{}\nrebuilt:\n{}{}",
                        String::from_utf8_lossy(&out.stdout),
                        String::from_utf8_lossy(&rebuilt.stdout),
                        String::from_utf8_lossy(&rebuilt.stderr)
                    ),
                ));
            }
        }
        Ok(())
    }

    pub(super) fn cli(&self, c: &CliStep, label: &str) -> Result<(), Failed> {
        // `${name}` substitutes saved values in arguments and expected output alike.
        let sub = |a: &String| match expect::substitute(&Value::String(a.clone()), &self.vars) {
            Value::String(s) => s,
            other => other.to_string(),
        };
        let args: Vec<String> = c.args.iter().map(sub).collect();
        let out = super::isolated(self.exe)
            .arg("--root")
            .arg(&self.root)
            .args(&args)
            .env("WARROOM_NOW_FILE", &self.clock)
            .env("NO_COLOR", "1")
            .env_remove("WARROOM_ROOM_ID")
            .env_remove("WARROOM_ROLE")
            .output()
            .map_err(|e| failed(label, "the command runs", e.to_string()))?;
        let stdout = String::from_utf8_lossy(&out.stdout);
        let code = out.status.code().unwrap_or(-1);
        if code != c.exit {
            return Err(failed(
                label,
                format!("`{}` exits {}", args.join(" "), c.exit),
                format!(
                    "exit {code}\n{stdout}{}",
                    String::from_utf8_lossy(&out.stderr)
                ),
            ));
        }
        for want in c.stdout_contains.iter().map(sub) {
            if !stdout.contains(want.as_str()) {
                return Err(failed(
                    label,
                    format!("stdout contains {want:?}"),
                    stdout.into_owned(),
                ));
            }
        }
        for not in c.stdout_not_contains.iter().map(sub) {
            if stdout.contains(not.as_str()) {
                return Err(failed(
                    label,
                    format!("stdout does not contain {not:?}"),
                    stdout.into_owned(),
                ));
            }
        }
        Ok(())
    }
}
