//! Opening project files without ever blocking on them.
//!
//! A FIFO (or a device, socket or directory) placed where the project expects a file —
//! the ledger, a channel, a plan, a room `config.json`, `DAG.json`, `warroom.yaml` —
//! would make a plain `open` or `read` wait forever for a writer, hanging every call of
//! every agent (with the daemon, all of them at once). Every project file is therefore
//! opened with `O_NONBLOCK` (which never blocks on a FIFO and changes nothing for regular
//! files) and refused unless `fstat` says it is a regular file. Files a user names on the
//! command line (`--detail-file`, `plan register FILE`, `--token-file`, `diff A B`) go
//! through [`read_named`]: regular files only, read with a byte limit, so `/dev/zero` or a
//! FIFO is refused at once instead of filling memory or hanging (`-` reads stdin, bounded).

use std::fs::{File, OpenOptions};
use std::io::{self, Read};
use std::os::fd::AsRawFd;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// Where project files may live: the root and the directories the operator configured.
/// Checked on the *opened* file (its real path, from `/proc/self/fd`), so there is no gap
/// between the check and the use: a ledger, channel, plan or config replaced by a symlink
/// leaving the project at any moment is refused at its next open.
#[derive(Debug, Clone, Default)]
pub struct Jail {
    bases: Vec<PathBuf>,
}

impl Jail {
    /// A jail of `bases` (resolved now; a base that does not exist yet is kept as given).
    pub fn new<'a>(bases: impl IntoIterator<Item = &'a Path>) -> Jail {
        Jail {
            bases: bases
                .into_iter()
                .map(|b| b.canonicalize().unwrap_or_else(|_| b.to_path_buf()))
                .collect(),
        }
    }

    /// Refuses `file` (opened from `shown`) unless it really lies under a base.
    pub fn check(&self, file: &File, shown: &Path) -> io::Result<()> {
        let Ok(real) = std::fs::read_link(format!("/proc/self/fd/{}", file.as_raw_fd())) else {
            return Ok(()); // no /proc: the startup check (Paths::confine) stands alone
        };
        if self.bases.iter().any(|b| real.starts_with(b)) {
            return Ok(());
        }
        Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            format!(
                "{} resolves to {}, outside the project root; refusing to read or write \
                 through a link that leaves the project. Fix: remove the link, or configure \
                 the location explicitly (--ledger / --war-rooms / .agents/warroom.yaml)",
                shown.display(),
                real.display()
            ),
        ))
    }
}

/// [`open_read`], then the jail's check on the opened file.
pub fn open_read_in(path: &Path, jail: Option<&Jail>) -> io::Result<File> {
    let file = open_read(path)?;
    if let Some(j) = jail {
        j.check(&file, path)?;
    }
    Ok(file)
}

/// [`open_append`], then the jail's check on the opened file.
pub fn open_append_in(path: &Path, jail: Option<&Jail>) -> io::Result<File> {
    let file = open_append(path)?;
    if let Some(j) = jail {
        j.check(&file, path)?;
    }
    Ok(file)
}

/// [`read_to_string`] of a file that must lie in the jail.
pub fn read_to_string_in(path: &Path, jail: Option<&Jail>) -> io::Result<String> {
    let mut out = String::new();
    open_read_in(path, jail)?.read_to_string(&mut out)?;
    Ok(out)
}

fn refuse_unless_regular(file: File, path: &Path) -> io::Result<File> {
    let kind = file.metadata()?.file_type();
    if kind.is_file() {
        return Ok(file);
    }
    use std::os::unix::fs::FileTypeExt;
    let what = if kind.is_fifo() {
        "a FIFO"
    } else if kind.is_socket() {
        "a socket"
    } else if kind.is_dir() {
        "a directory"
    } else if kind.is_char_device() || kind.is_block_device() {
        "a device"
    } else {
        "not a regular file"
    };
    Err(io::Error::new(
        io::ErrorKind::InvalidInput,
        format!(
            "{} is {what}, not a regular file; refusing to use it (it could block forever). \
             Fix: replace it with a regular file",
            path.display()
        ),
    ))
}

/// Opens a project file for reading, never blocking; refuses non-regular files.
pub fn open_read(path: &Path) -> io::Result<File> {
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)?;
    refuse_unless_regular(file, path)
}

/// Opens (creating) a project file for appending and reading, never blocking; refuses
/// non-regular files.
pub fn open_append(path: &Path) -> io::Result<File> {
    let file = OpenOptions::new()
        .create(true)
        .append(true)
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)?;
    refuse_unless_regular(file, path)
}

/// Reads a whole project file, never blocking; refuses non-regular files.
pub fn read(path: &Path) -> io::Result<Vec<u8>> {
    let mut out = Vec::new();
    open_read(path)?.read_to_end(&mut out)?;
    Ok(out)
}

/// Reads a whole project file as UTF-8, never blocking; refuses non-regular files.
pub fn read_to_string(path: &Path) -> io::Result<String> {
    let mut out = String::new();
    open_read(path)?.read_to_string(&mut out)?;
    Ok(out)
}

/// The PID holding a `flock` write lock on `file`, from Linux's `/proc/locks`
/// (`1: FLOCK  ADVISORY  WRITE 1234 fd:01:5678 0 EOF`; waiters are marked `->`).
pub fn lock_holder(file: &File) -> Option<u32> {
    let ino = file.metadata().ok()?.ino();
    let locks = std::fs::read_to_string("/proc/locks").ok()?;
    locks.lines().find_map(|l| {
        let f: Vec<&str> = l.split_whitespace().collect();
        if f.get(1) == Some(&"->") || f.get(3) != Some(&"WRITE") {
            return None;
        }
        let inode: u64 = f.get(5)?.rsplit(':').next()?.parse().ok()?;
        (inode == ino).then(|| f.get(4)?.parse().ok()).flatten()
    })
}

/// This process's real user id (no `/proc` needed, so it works on macOS too).
pub fn current_uid() -> u32 {
    rustix::process::getuid().as_raw()
}

/// Reads a file a user named on the command line (`what` says which option, for errors):
/// a regular file of at most `limit` bytes, or standard input for `-` (also at most
/// `limit`). Anything else — a FIFO, a device such as `/dev/zero`, a directory — is
/// refused with a message naming the option, and an over-limit file is refused, never cut.
pub fn read_named(path: &Path, what: &str, limit: u64) -> io::Result<Vec<u8>> {
    let named = |e: io::Error| io::Error::new(e.kind(), format!("{what} {}: {e}", path.display()));
    let mut out = Vec::new();
    if path.as_os_str() == "-" {
        io::stdin().lock().take(limit + 1).read_to_end(&mut out)?;
    } else {
        let file = open_read(path).map_err(named)?;
        file.take(limit + 1).read_to_end(&mut out).map_err(named)?;
    }
    if out.len() as u64 > limit {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "{what} {}: larger than the limit of {limit} bytes; refusing to read it. Fix: \
                 give a smaller file",
                path.display()
            ),
        ));
    }
    Ok(out)
}

/// [`read_named`] as UTF-8 text.
pub fn read_named_text(path: &Path, what: &str, limit: u64) -> io::Result<String> {
    String::from_utf8(read_named(path, what, limit)?).map_err(|_| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("{what} {}: not UTF-8 text", path.display()),
        )
    })
}

/// Bytes of one file read at offsets: how a file-backed index reads its entries' lines
/// back. The storage seam gives the production one (`store::jsonl::ReadBack`, opened
/// through the project's jail); nothing else opens the ledger.
pub trait ReadAt: std::fmt::Debug + Send + Sync {
    /// Fills `buf` with the file's bytes at `offset`.
    fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()>;
    /// The file's path, for errors.
    fn path(&self) -> &Path;
}
