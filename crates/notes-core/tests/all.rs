//! The one integration-test binary of notes-core (see the modules for what each covers).

mod bad_input;
mod concurrency;
mod crash;
mod golden;
mod manager;
mod props;

/// What every test returns.
pub type TestResult = Result<(), Box<dyn std::error::Error>>;

/// Path of a fixture under `tests/fixtures/`.
pub fn fixture(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

/// A fixture's text.
pub fn read_fixture(name: &str) -> Result<String, std::io::Error> {
    std::fs::read_to_string(fixture(name))
}

/// A manual clock at `t` (RFC 3339).
pub fn clock_at(t: &str) -> std::sync::Arc<goldfish_core::time::ManualClock> {
    let t = goldfish_core::time::parse_utc(t).expect("test timestamps are valid");
    std::sync::Arc::new(goldfish_core::time::ManualClock::new(t))
}

/// Starts this test binary again, running only `test` with `envs` set: how tests get real
/// concurrent processes.
pub fn spawn_self(test: &str, envs: &[(&str, String)]) -> std::io::Result<std::process::Child> {
    let mut cmd = std::process::Command::new(std::env::current_exe()?);
    cmd.args(["--exact", test, "--nocapture", "--test-threads=1"]);
    cmd.stdout(std::process::Stdio::null());
    for (k, v) in envs {
        cmd.env(k, v);
    }
    cmd.spawn()
}
