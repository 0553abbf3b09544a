//! Running the real binary in a temporary home.

use std::path::Path;
use std::process::{Command, Output, Stdio};

pub(crate) type TestResult = Result<(), Box<dyn std::error::Error>>;

/// The binary under test.
pub(crate) fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_goldfish")
}

/// A temporary store home and a temporary working directory.
pub(crate) struct Env {
    pub(crate) home: tempfile::TempDir,
    pub(crate) cwd: tempfile::TempDir,
}

impl Env {
    pub(crate) fn new() -> Result<Self, std::io::Error> {
        Ok(Env {
            home: tempfile::tempdir()?,
            cwd: tempfile::tempdir()?,
        })
    }

    pub(crate) fn home(&self) -> &Path {
        self.home.path()
    }

    /// A command with GOLDFISH_HOME set, GOLDFISH_WORKSPACE=test and the temp cwd.
    pub(crate) fn cmd(&self, args: &[&str]) -> Command {
        let mut c = Command::new(bin());
        c.args(args)
            .current_dir(self.cwd.path())
            .env("GOLDFISH_HOME", self.home.path())
            .env("GOLDFISH_WORKSPACE", "test")
            // Never the user's models (`goldfish doctor` looks at them).
            .env("GOLDFISH_MODEL_DIR", self.home.path().join("models"))
            .env_remove("RUST_LOG")
            .stdin(Stdio::null());
        c
    }

    /// Runs `args` and returns the output, whatever the exit code.
    pub(crate) fn run(&self, args: &[&str]) -> Result<Out, std::io::Error> {
        Ok(Out(self.cmd(args).output()?))
    }

    /// Runs `args` with `input` on stdin.
    pub(crate) fn run_stdin(
        &self,
        args: &[&str],
        input: &str,
    ) -> Result<Out, Box<dyn std::error::Error>> {
        use std::io::Write as _;
        let mut child = self
            .cmd(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()?;
        child
            .stdin
            .take()
            .ok_or("no stdin")?
            .write_all(input.as_bytes())?;
        Ok(Out(child.wait_with_output()?))
    }

    /// Runs `args`, requires success, returns stdout.
    pub(crate) fn ok(&self, args: &[&str]) -> Result<String, Box<dyn std::error::Error>> {
        let out = self.run(args)?;
        out.success(args)?;
        Ok(out.stdout())
    }

    /// Runs `args` with `--json`, requires success, parses stdout as one JSON document.
    pub(crate) fn json(
        &self,
        args: &[&str],
    ) -> Result<serde_json::Value, Box<dyn std::error::Error>> {
        let mut all = vec!["--json"];
        all.extend_from_slice(args);
        let text = self.ok(&all)?;
        serde_json::from_str(&text).map_err(|e| format!("{args:?}: not JSON ({e}): {text}").into())
    }

    /// Runs `args`, requires exit code `code` and a stderr containing `needle`.
    pub(crate) fn fails(&self, args: &[&str], code: i32, needle: &str) -> TestResult {
        let out = self.run(args)?;
        let err = out.stderr();
        if out.0.status.code() != Some(code) || !err.contains(needle) {
            return Err(format!(
                "{args:?}: want exit {code} and stderr containing {needle:?}, got {:?}\nstderr: {err}\nstdout: {}",
                out.0.status.code(),
                out.stdout()
            )
            .into());
        }
        if code == 1 && !err.starts_with("goldfish: error: ") {
            return Err(
                format!("{args:?}: stderr does not start with `goldfish: error: `: {err}").into(),
            );
        }
        Ok(())
    }
}

/// A finished process.
pub(crate) struct Out(pub Output);

impl Out {
    pub(crate) fn stdout(&self) -> String {
        String::from_utf8_lossy(&self.0.stdout).into_owned()
    }

    pub(crate) fn stderr(&self) -> String {
        String::from_utf8_lossy(&self.0.stderr).into_owned()
    }

    pub(crate) fn success(&self, what: &[&str]) -> TestResult {
        if self.0.status.success() {
            Ok(())
        } else {
            Err(format!(
                "{what:?} failed with {:?}\nstderr: {}\nstdout: {}",
                self.0.status.code(),
                self.stderr(),
                self.stdout()
            )
            .into())
        }
    }
}

/// Asserts that `haystack` contains every needle.
pub(crate) fn contains_all(haystack: &str, needles: &[&str]) -> TestResult {
    for n in needles {
        if !haystack.contains(n) {
            return Err(format!("missing {n:?} in:\n{haystack}").into());
        }
    }
    Ok(())
}

/// The ids of a `--json` recall's checkpoints, in order.
pub(crate) fn ids(v: &serde_json::Value) -> Vec<String> {
    v["checkpoints"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|c| c["id"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// The recall crate's evaluation corpus, 1,974 real checkpoints of six projects, as
/// checkpoints with their own ids, workspaces and timestamps.
pub(crate) fn corpus() -> Result<Vec<goldfish_store::Checkpoint>, Box<dyn std::error::Error>> {
    let text = include_str!("../../recall/tests/fixtures/nl_corpus.jsonl");
    let mut all = Vec::new();
    for (index, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let at = |e: &dyn std::fmt::Display| format!("nl_corpus.jsonl line {}: {e}", index + 1);
        let v: serde_json::Value = serde_json::from_str(line).map_err(|e| at(&e))?;
        let s = |k: &str| v[k].as_str().unwrap_or_default().to_string();
        let list = |k: &str| -> Vec<String> {
            v[k].as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|x| x.as_str().map(String::from))
                        .collect()
                })
                .unwrap_or_default()
        };
        let ts = goldfish_core::time::parse_utc(&s("timestamp")).map_err(|e| at(&e))?;
        let mut c = goldfish_store::Checkpoint::new(s("id"), ts, s("workspace"), s("description"));
        c.tags = list("tags");
        c.files = list("files");
        c.branch = Some(s("branch")).filter(|b| !b.is_empty());
        c.commit = Some(s("commit")).filter(|b| !b.is_empty());
        all.push(c);
    }
    Ok(all)
}

/// [`corpus`] moved in time so that its newest checkpoint is an hour old.
pub(crate) fn corpus_an_hour_old()
-> Result<Vec<goldfish_store::Checkpoint>, Box<dyn std::error::Error>> {
    let mut all = corpus()?;
    let newest = all
        .iter()
        .map(|c| c.timestamp)
        .max()
        .ok_or("an empty corpus")?;
    let shift = chrono::Utc::now() - chrono::TimeDelta::hours(1) - newest;
    for c in &mut all {
        c.timestamp += shift;
    }
    Ok(all)
}

/// Writes `checkpoints` under `home` as the store's day files, one per workspace and UTC day.
pub(crate) fn write_day_files(
    home: &Path,
    checkpoints: &[goldfish_store::Checkpoint],
) -> Result<(), Box<dyn std::error::Error>> {
    let mut days: std::collections::BTreeMap<
        (String, chrono::NaiveDate),
        Vec<goldfish_store::Checkpoint>,
    > = std::collections::BTreeMap::new();
    for c in checkpoints {
        days.entry((c.workspace.clone(), c.timestamp.date_naive()))
            .or_default()
            .push(c.clone());
    }
    for ((ws, date), mut list) in days {
        list.sort_by_key(|c| c.timestamp);
        let dir = home.join(&ws).join("checkpoints");
        std::fs::create_dir_all(&dir)?;
        std::fs::write(
            dir.join(format!("{date}.md")),
            goldfish_store::format_day_file(date, &list),
        )?;
    }
    Ok(())
}

/// Installs the npm package `package@version` once into `<target tmp>/<dir>` (a lock file
/// serialises parallel test processes; a ready-marker makes later runs offline) and returns
/// `node_modules/.bin/<program>`. A missing npm is an error saying what to install, naming
/// `what` needs it: these tests are acceptance criteria and must not silently pass.
pub(crate) fn npm_install(
    what: &str,
    dir: &str,
    package: &str,
    version: &str,
    program: &str,
) -> Result<std::path::PathBuf, Box<dyn std::error::Error>> {
    let root = Path::new(env!("CARGO_TARGET_TMPDIR"));
    std::fs::create_dir_all(root)?;
    let dir_path = root.join(dir);
    let program = dir_path.join("node_modules/.bin").join(program);
    let ready = dir_path.join(format!(".goldfish-ready-{dir}-{version}"));
    let lock = std::fs::File::create(root.join(format!("{dir}.lock")))?;
    lock.lock()?;
    if ready.exists() && program.exists() {
        return Ok(program);
    }
    let npm = std::env::var("NPM").unwrap_or_else(|_| "npm".to_string());
    if let Err(e) = Command::new(&npm).arg("--version").output() {
        return Err(format!(
            "{what} needs npm (and node) to install {package}, but `{npm} --version` failed: \
             {e}. Install Node.js 20 or later (apt-get install nodejs npm) or set NPM."
        )
        .into());
    }
    std::fs::create_dir_all(&dir_path)?;
    let out = Command::new(&npm)
        .args([
            "install",
            "--no-audit",
            "--no-fund",
            "--loglevel=error",
            "--prefix",
        ])
        .arg(&dir_path)
        .arg(format!("{package}@{version}"))
        .output()?;
    if !out.status.success() || !program.exists() {
        return Err(format!(
            "npm install {package}@{version} failed ({:?}):\n{}\n{}",
            out.status.code(),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
        .into());
    }
    std::fs::File::create(&ready)?;
    Ok(program)
}
