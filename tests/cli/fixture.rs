//! Running the binary the way a user does, from the repository root.

use assert_cmd::Command;
use std::path::PathBuf;

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
