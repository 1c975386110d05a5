//! Reading the ledger as it was at a git revision (`git show REV:path`), for `diff --git`.
//!
//! Revisions are checked before they reach git: no leading `-` (never an option), no `:`,
//! whitespace or control characters, at most 200 bytes.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::error::{Error, Result};

fn check_rev(rev: &str) -> Result<()> {
    let bad = rev.is_empty()
        || rev.len() > 200
        || rev.starts_with('-')
        || rev.contains(':')
        || rev.chars().any(|c| c.is_whitespace() || c.is_control());
    if bad {
        return Err(Error::invalid(
            "git revision",
            format!(
                "`{}` is not a revision name",
                crate::validate::printable(rev)
            ),
            "use a commit, branch or tag such as HEAD~3, main or v1.2 (REV1..REV2 for a range)",
        ));
    }
    Ok(())
}

/// Splits `REV1..REV2`; an empty REV2 means the working-tree file.
pub fn parse_range(range: &str) -> Result<(String, Option<String>)> {
    let (a, b) = range.split_once("..").ok_or_else(|| {
        Error::invalid(
            "--git",
            format!("`{range}` has no `..`"),
            "write REV1..REV2, e.g. HEAD~5..HEAD (REV1.. for the working tree)",
        )
    })?;
    check_rev(a)?;
    let b = (!b.is_empty()).then(|| b.to_string());
    if let Some(b) = &b {
        check_rev(b)?;
    }
    Ok((a.to_string(), b))
}

fn git(dir: &Path, args: &[&str]) -> Result<Vec<u8>> {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .map_err(|e| Error::io("running git in", dir, e))?;
    if !out.status.success() {
        return Err(Error::NotFound(format!(
            "git {} failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    Ok(out.stdout)
}

/// The repository-relative path of `file` and the repository's top directory.
fn locate(file: &Path) -> Result<(PathBuf, String)> {
    let dir = file.parent().unwrap_or(Path::new("."));
    let top = git(dir, &["rev-parse", "--show-toplevel"])?;
    let top = PathBuf::from(String::from_utf8_lossy(&top).trim());
    let top = top.canonicalize().unwrap_or(top);
    let abs = dir
        .canonicalize()
        .map_err(|e| Error::io("resolving", dir, e))?
        .join(file.file_name().unwrap_or_default());
    let rel = abs.strip_prefix(&top).map_err(|_| {
        Error::NotFound(format!(
            "{} is not inside the git repository at {}",
            file.display(),
            top.display()
        ))
    })?;
    Ok((top, rel.to_string_lossy().replace('\\', "/")))
}

/// The bytes of `file` at revision `rev` (`None`: the file on disk now).
pub fn read_at(file: &Path, rev: Option<&str>) -> Result<Vec<u8>> {
    let Some(rev) = rev else {
        return crate::fsx::read(file).map_err(|e| Error::io("reading", file, e));
    };
    check_rev(rev)?;
    let (top, rel) = locate(file)?;
    git(&top, &["show", &format!("{rev}:{rel}")])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn revisions_are_checked_before_git_sees_them() {
        assert_eq!(
            parse_range("HEAD~2..HEAD").unwrap(),
            ("HEAD~2".into(), Some("HEAD".into()))
        );
        assert_eq!(parse_range("v1..").unwrap(), ("v1".into(), None));
        for bad in ["HEAD", "--output=x..HEAD", "a:b..c", "a b..c", "..HEAD"] {
            assert!(parse_range(bad).is_err(), "{bad}");
        }
    }
}
