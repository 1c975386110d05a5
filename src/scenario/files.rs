//! File and command-line checks of a scenario step (`check_file`, `cli`).

use serde_json::Value;

use super::expect;
use super::runner::{Failed, Run, failed};
use super::{CheckFile, CliStep};

impl Run<'_> {
    pub(super) fn check_file(&self, c: &CheckFile, label: &str) -> Result<(), Failed> {
        let p = self
            .path(&c.path)
            .map_err(|e| failed(label, "a path inside the root", e))?;
        if c.exists == Some(false) {
            return if p.exists() {
                Err(failed(
                    label,
                    format!("{} does not exist", c.path),
                    "it exists",
                ))
            } else {
                Ok(())
            };
        }
        let data = std::fs::read(&p)
            .map_err(|e| failed(label, format!("{} exists", c.path), e.to_string()))?;
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

    pub(super) fn cli(&self, c: &CliStep, label: &str) -> Result<(), Failed> {
        let args: Vec<String> = c
            .args
            .iter()
            .map(
                |a| match expect::substitute(&Value::String(a.clone()), &self.vars) {
                    Value::String(s) => s,
                    other => other.to_string(),
                },
            )
            .collect();
        let out = std::process::Command::new(self.exe)
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
        for want in &c.stdout_contains {
            if !stdout.contains(want.as_str()) {
                return Err(failed(
                    label,
                    format!("stdout contains {want:?}"),
                    stdout.into_owned(),
                ));
            }
        }
        for not in &c.stdout_not_contains {
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
