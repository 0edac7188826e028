//! Running the binary the way a user does, from the repository root.

use assert_cmd::Command;
use std::ops::Deref;
use std::path::{Path, PathBuf};

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The binary, run from the repository root with a fixed `TZ` so nothing
/// depends on the machine's zone.
pub fn postmortem() -> Command {
    let mut cmd = Command::cargo_bin("postmortem").expect("binary builds");
    cmd.current_dir(root())
        .env("TZ", "America/New_York")
        .env_remove("RUST_BACKTRACE");
    cmd
}

/// Run and return (exit code, stdout, stderr).
pub fn run(args: &[&str]) -> (i32, String, String) {
    let out = postmortem().args(args).output().expect("runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `../shared/corpus`, when this checkout has it (CI does).
pub fn corpus() -> Option<PathBuf> {
    let p = root().join("../shared/corpus");
    p.is_dir().then_some(p)
}

/// A directory of one test's own, removed when the test ends, also when it
/// fails: a suite run leaves nothing behind in the temporary folder.
pub struct Scratch(tempfile::TempDir);

/// A fresh scratch directory; `name` only makes a stray one recognisable.
pub fn scratch(name: &str) -> Scratch {
    Scratch(
        tempfile::Builder::new()
            .prefix(&format!("postmortem-{name}-"))
            .tempdir()
            .expect("a scratch directory"),
    )
}

impl Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        self.0.path()
    }
}

impl AsRef<Path> for Scratch {
    fn as_ref(&self) -> &Path {
        self.0.path()
    }
}

/// One file written in a scratch directory of its own, which goes with it.
pub struct ScratchFile {
    _dir: Scratch,
    path: PathBuf,
}

/// `content` written as `name` in a fresh scratch directory.
pub fn scratch_file(name: &str, content: impl AsRef<[u8]>) -> ScratchFile {
    let dir = scratch("file");
    let path = dir.join(name);
    std::fs::write(&path, content).expect("write");
    ScratchFile { _dir: dir, path }
}

impl ScratchFile {
    /// The path as the command line takes it.
    pub fn arg(&self) -> &str {
        self.path.to_str().expect("a UTF-8 temporary path")
    }
}

impl Deref for ScratchFile {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.path
    }
}

impl AsRef<Path> for ScratchFile {
    fn as_ref(&self) -> &Path {
        &self.path
    }
}
