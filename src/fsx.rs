//! Opening project files without ever blocking on them.
//!
//! A FIFO (or a device, socket or directory) placed where the project expects a file —
//! the ledger, a channel, a plan, a room `config.json`, `DAG.json`, `warroom.yaml` —
//! would make a plain `open` or `read` wait forever for a writer, hanging every call of
//! every agent (with the daemon, all of them at once). Every project file is therefore
//! opened with `O_NONBLOCK` (which never blocks on a FIFO and changes nothing for regular
//! files) and refused unless `fstat` says it is a regular file. Paths a user names on the
//! command line (`--detail-file`, `plan register FILE`) are read as given: a pipe there
//! (`<(…)`) is intended.

use std::fs::{File, OpenOptions};
use std::io::{self, Read};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

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
