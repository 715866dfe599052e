//! Opening a file a user names, without waiting for a writer.
//!
//! Opening a named pipe (a FIFO) for reading blocks until some process opens it for writing,
//! for ever if none does: `webmcp-check check --scenario-file some-fifo` would hang before
//! reading a byte. [`open`] opens a FIFO without waiting and then reads it as usual, so a
//! FIFO nobody writes to reads as empty (and is refused as such), while a pipe with a writer
//! (`--scenario-file <(cat s.json)`, `/dev/stdin`) is read to its end as before. A writer
//! that keeps a pipe open and writes nothing is waited for, as `cat` would.

use std::fs::File;
use std::io;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::os::unix::io::AsRawFd;
use std::path::Path;

/// Opens `path` for reading; a FIFO is opened without waiting for a writer.
pub fn open(path: &Path) -> io::Result<File> {
    let is_fifo = std::fs::metadata(path).is_ok_and(|m| m.file_type().is_fifo());
    if !is_fifo {
        return File::open(path);
    }
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)?;
    // Reads block again: a FIFO without a writer reads as its end, one with a writer waits
    // for its bytes.
    let fd = file.as_raw_fd();
    // SAFETY: fcntl on a descriptor this function owns, with integer arguments only.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    if flags < 0 || unsafe { libc::fcntl(fd, libc::F_SETFL, flags & !libc::O_NONBLOCK) } < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(file)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};

    fn fifo(dir: &Path) -> std::path::PathBuf {
        let path = dir.join("fifo");
        let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        path
    }

    fn scratch(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("webmcp-input-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn a_fifo_without_a_writer_reads_as_empty_at_once() {
        let dir = scratch("no-writer");
        let path = fifo(&dir);
        let mut text = String::new();
        open(&path).unwrap().read_to_string(&mut text).unwrap();
        assert_eq!(text, "");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_fifo_with_a_writer_is_read_to_its_end() {
        let dir = scratch("writer");
        let path = fifo(&dir);
        // A writer holds the FIFO open before the reader comes, as a shell's `<(...)` does
        // (opened for reading and writing, which on Linux does not wait).
        let mut writer = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(&path)
            .unwrap();
        let mut reader = open(&path).unwrap();
        // It writes in two parts: the reader waits for both, not only for what was there.
        let writing = std::thread::spawn(move || {
            writer.write_all(b"{\"tabs\":").unwrap();
            std::thread::sleep(std::time::Duration::from_millis(50));
            writer.write_all(b"[]}").unwrap();
        });
        let mut text = String::new();
        reader.read_to_string(&mut text).unwrap();
        writing.join().unwrap();
        assert_eq!(text, "{\"tabs\":[]}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_regular_file_and_a_missing_one_open_as_before() {
        let dir = scratch("regular");
        let path = dir.join("f.json");
        std::fs::write(&path, "{}").unwrap();
        let mut text = String::new();
        open(&path).unwrap().read_to_string(&mut text).unwrap();
        assert_eq!(text, "{}");
        let missing = open(&dir.join("missing")).unwrap_err();
        assert_eq!(missing.kind(), io::ErrorKind::NotFound);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
