//! Never a guessed workspace: saves from a directory that is not inside a project are refused
//! with the candidates, reads say which workspace they used, and `workspace` takes a name or
//! a project's absolute path — through the CLI and the MCP server alike.

use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};

use crate::mcp_replies::{call_tools_with, text};
use crate::util::{Env, TestResult};

/// A user's home (holding a dotfiles repository, as some do) with a plugin cache under it,
/// a git project and a project marked by `.goldfish/`.
struct Home {
    env: Env,
    user_home: tempfile::TempDir,
}

impl Home {
    fn new() -> Result<Self, Box<dyn std::error::Error>> {
        let h = Home {
            env: Env::new()?,
            user_home: tempfile::tempdir()?,
        };
        let home = h.user_home.path();
        git(home, &["init", "-q"])?;
        std::fs::create_dir_all(home.join(".cache/plugins/goldfish/1.0"))?;
        std::fs::create_dir_all(home.join("src/Reef/crates/core"))?;
        git(&home.join("src/Reef"), &["init", "-q"])?;
        std::fs::create_dir_all(home.join("src/Coral"))?;
        git(&home.join("src/Coral"), &["init", "-q"])?;
        std::fs::create_dir_all(home.join("notes/Tide/.goldfish"))?;
        Ok(h)
    }

    fn plugin_cache(&self) -> std::path::PathBuf {
        self.user_home.path().join(".cache/plugins/goldfish/1.0")
    }

    /// `goldfish args` in `dir`, with no workspace named and HOME the user's home.
    fn cmd(&self, dir: &Path, args: &[&str]) -> Command {
        let mut c = self.env.cmd(args);
        c.current_dir(dir)
            .env_remove("GOLDFISH_WORKSPACE")
            .env("HOME", self.user_home.path());
        c
    }

    fn run(&self, dir: &Path, args: &[&str]) -> Result<std::process::Output, std::io::Error> {
        self.cmd(dir, args).output()
    }

    /// The workspace directories of the store (not `.index`).
    fn workspaces(&self) -> Result<Vec<String>, std::io::Error> {
        let mut names: Vec<String> = std::fs::read_dir(self.env.home())?
            .flatten()
            .filter(|e| e.path().is_dir())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|name| !name.starts_with('.'))
            .collect();
        names.sort();
        Ok(names)
    }
}

fn git(dir: &Path, args: &[&str]) -> TestResult {
    let out = Command::new("git").arg("-C").arg(dir).args(args).output()?;
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).into_owned().into());
    }
    Ok(())
}

fn json_of(out: &std::process::Output) -> Result<Value, Box<dyn std::error::Error>> {
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).into_owned().into());
    }
    Ok(serde_json::from_slice(&out.stdout)?)
}

#[test]
fn cli_checkpoint_outside_a_project_is_refused_with_candidates() -> TestResult {
    let h = Home::new()?;
    let reef = h.user_home.path().join("src/Reef/crates/core");
    // Saved in a project: its workspace; and one with a name, to be offered later.
    let v = json_of(&h.run(&reef, &["--json", "checkpoint", "In the repo"])?)?;
    assert_eq!(v["workspace"], "reef", "{v}");
    let tide = h.user_home.path().join("notes/Tide");
    let v = json_of(&h.run(&tide, &["--json", "checkpoint", "In a .goldfish project"])?)?;
    assert_eq!(v["workspace"], "tide", "{v}");
    std::fs::write(
        h.env.home().join("registry.json"),
        format!(
            r#"{{"projects": [{{"path": "{}", "name": "coral"}}]}}"#,
            h.user_home.path().join("src/Coral").display()
        ),
    )?;
    let before = h.workspaces()?;
    // The plugin cache, the home itself and `/`: none is a project.
    for dir in [
        h.plugin_cache(),
        h.user_home.path().to_path_buf(),
        "/".into(),
    ] {
        for args in [
            &["checkpoint", "Lost?"][..],
            &["plan", "save", "--title", "Lost plan", "-c", "- [ ] x"][..],
        ] {
            let out = h.run(&dir, args)?;
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(
                !out.status.success(),
                "{args:?} in {}: {stderr}",
                dir.display()
            );
            for needle in [
                "no workspace to save to",
                &dir.display().to_string(),
                "not inside a project",
                "Candidates: `reef` (last saved",
                "`tide` (last saved",
                "`coral` (",
            ] {
                assert!(stderr.contains(needle), "{needle:?} in {stderr}");
            }
        }
    }
    assert_eq!(h.workspaces()?, before, "nothing was written");
    // Named by name, by the project's absolute path, or by GOLDFISH_WORKSPACE: saved.
    let cache = h.plugin_cache();
    let reef_path = h.user_home.path().join("src/Reef");
    let v = json_of(&h.run(
        &cache,
        &[
            "--json",
            "-w",
            &reef_path.to_string_lossy(),
            "checkpoint",
            "By path",
        ],
    )?)?;
    assert_eq!(v["workspace"], "reef", "{v}");
    let v = json_of(&h.run(&cache, &["--json", "-w", "tide", "checkpoint", "By name"])?)?;
    assert_eq!(v["workspace"], "tide", "{v}");
    let out = h
        .cmd(&cache, &["--json", "checkpoint", "By env"])
        .env("GOLDFISH_WORKSPACE", &reef_path)
        .output()?;
    assert_eq!(json_of(&out)?["workspace"], "reef");
    // A path that is no directory is refused, naming it.
    let out = h.run(&cache, &["-w", "/no/such/project", "checkpoint", "x"])?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && stderr.contains("\"/no/such/project\" is not a directory"),
        "{stderr}"
    );
    assert_eq!(h.workspaces()?, before);
    Ok(())
}

#[test]
fn cli_recall_outside_a_project_says_what_it_guessed() -> TestResult {
    let h = Home::new()?;
    // The guess is what detection always said (here the dotfiles repository's name).
    let guess = goldfish_store::detect_workspace(&h.plugin_cache());
    let out = h.run(&h.plugin_cache(), &["--json", "recall"])?;
    let v = json_of(&out)?;
    assert_eq!(v["workspace"], guess.as_str(), "{v}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!("workspace `{guess}` is a guess from"))
            && stderr.contains(&h.plugin_cache().display().to_string()),
        "{stderr}"
    );
    // In a project: no note.
    let reef = h.user_home.path().join("src/Reef");
    let out = h.run(&reef, &["recall"])?;
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("# Recall: reef"));
    assert!(!String::from_utf8_lossy(&out.stderr).contains("guess"));
    Ok(())
}

#[test]
fn mcp_tools_outside_a_project_refuse_saves_and_name_their_workspace() -> TestResult {
    let h = Home::new()?;
    let reef = h.user_home.path().join("src/Reef");
    let results = call_tools_with(
        h.cmd(&h.plugin_cache(), &["mcp"]),
        &[
            ("checkpoint", json!({"description": "Lost?"})),
            ("plan", json!({"action": "save", "title": "Lost plan"})),
            ("recall", json!({})),
            (
                "checkpoint",
                json!({"description": "Saved by path", "workspace": reef.to_string_lossy()}),
            ),
            (
                "recall",
                json!({"workspace": reef.join("crates").to_string_lossy()}),
            ),
            ("plan", json!({"action": "list"})),
        ],
    )?;
    for r in &results[..2] {
        assert_eq!(r["isError"], json!(true), "{r}");
        let reply = text(r);
        assert!(
            reply.contains("no workspace to save to")
                && reply.contains(&h.plugin_cache().display().to_string())
                && reply.contains("The store has no workspace yet"),
            "{reply}"
        );
    }
    // A read from the plugin cache names the guessed workspace, in text and structure.
    let recall = &results[2];
    let guess = goldfish_store::detect_workspace(&h.plugin_cache());
    assert_eq!(
        recall["structuredContent"]["scope"],
        guess.as_str(),
        "{recall}"
    );
    let note = recall["structuredContent"]["workspace_note"]
        .as_str()
        .ok_or("a workspace_note")?;
    assert!(note.contains("is a guess from"), "{note}");
    assert!(text(recall).contains(&format!("# Recall: {guess}")) && text(recall).contains(note));
    // By the project's path: saved in, and read from, the project's workspace.
    assert_eq!(results[3]["isError"], json!(false), "{}", text(&results[3]));
    assert_eq!(results[3]["structuredContent"]["workspace"], "reef");
    assert_eq!(results[4]["structuredContent"]["scope"], "reef");
    assert!(
        text(&results[4]).contains("Saved by path"),
        "{}",
        text(&results[4])
    );
    assert_eq!(results[4]["structuredContent"].get("workspace_note"), None);
    let list = &results[5];
    assert_eq!(list["structuredContent"]["workspace"], guess.as_str());
    assert_eq!(list["structuredContent"]["workspace_note"], json!(note));
    assert!(text(list).contains(note), "{}", text(list));
    assert_eq!(h.workspaces()?, ["reef"]);
    Ok(())
}

#[test]
fn the_hook_and_index_take_a_project_path_too() -> TestResult {
    let h = Home::new()?;
    let reef = h.user_home.path().join("src/Reef");
    let v = json_of(&h.run(&reef, &["--json", "checkpoint", "Reef work to restore"])?)?;
    assert_eq!(v["workspace"], "reef", "{v}");
    // From the plugin cache, with GOLDFISH_WORKSPACE set to the project's directory.
    let from_cache = |args: &[&str]| {
        h.cmd(&h.plugin_cache(), args)
            .env("GOLDFISH_WORKSPACE", &reef)
            .output()
    };
    let out = from_cache(&["hook", "session-start"])?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("Reef work to restore"),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = json_of(&from_cache(&["--json", "index", "status"])?)?;
    assert!(v.to_string().contains("\"reef\""), "{v}");
    Ok(())
}

/// `current` and `all` are words of the selector, never workspace names: `--workspace current`
/// saves into the project's workspace, `all` is refused for a save, and nothing is ever written
/// to a workspace named `current` or `all` (by the CLI or the MCP server).
#[test]
fn current_and_all_are_selectors_not_workspace_names() -> TestResult {
    let h = Home::new()?;
    let reef = h.user_home.path().join("src/Reef");
    let v = json_of(&h.run(
        &reef,
        &[
            "--json",
            "--workspace",
            "current",
            "checkpoint",
            "Saved as current",
        ],
    )?)?;
    assert_eq!(v["workspace"], "reef", "{v}");
    // The same through the environment variable, in any case.
    let v = json_of(
        &h.cmd(&reef, &["--json", "checkpoint", "Saved as CURRENT"])
            .env("GOLDFISH_WORKSPACE", "CURRENT")
            .output()?,
    )?;
    assert_eq!(v["workspace"], "reef", "{v}");
    for args in [
        &["--workspace", "all", "checkpoint", "Into all?"][..],
        &["-w", "all", "plan", "save", "--title", "All plan"][..],
    ] {
        let out = h.run(&reef, args)?;
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
        assert!(stderr.contains("`all` selects every workspace"), "{stderr}");
    }
    // The MCP server reads its `workspace` arguments the same way.
    let results = call_tools_with(
        h.cmd(&reef, &["mcp"]),
        &[
            (
                "checkpoint",
                json!({"description": "By MCP as current", "workspace": "current"}),
            ),
            (
                "checkpoint",
                json!({"description": "By MCP into all?", "workspace": "all"}),
            ),
            (
                "plan",
                json!({"action": "save", "title": "MCP all plan", "workspace": "ALL"}),
            ),
        ],
    )?;
    assert_eq!(results[0]["isError"], json!(false), "{}", text(&results[0]));
    assert_eq!(results[0]["structuredContent"]["workspace"], "reef");
    for r in &results[1..] {
        assert_eq!(r["isError"], json!(true), "{r}");
        assert!(text(r).contains("`all` selects every workspace"), "{r}");
    }
    // A project whose directory is named `all` (or `current`) is not a workspace to save to.
    for name in ["all", "Current"] {
        let project = h.user_home.path().join("src").join(name);
        std::fs::create_dir_all(&project)?;
        git(&project, &["init", "-q"])?;
        let out = h.run(
            &project,
            &["checkpoint", "In a project named like a selector"],
        )?;
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{name}: {stderr}");
        assert!(
            stderr.contains("is a reserved word, not a workspace name"),
            "{stderr}"
        );
    }
    assert_eq!(
        h.workspaces()?,
        vec!["reef".to_string()],
        "only reef was written"
    );
    Ok(())
}

/// A workspace named `all` (written by an older version) read from its project directory is
/// that one workspace, not every workspace.
#[test]
fn a_project_named_all_recalls_only_itself() -> TestResult {
    let h = Home::new()?;
    let reef = h.user_home.path().join("src/Reef");
    json_of(&h.run(&reef, &["--json", "checkpoint", "Reef work"])?)?;
    let now = chrono::Utc::now();
    let day = now.date_naive();
    let dir = h.env.home().join("all/checkpoints");
    std::fs::create_dir_all(&dir)?;
    let old = goldfish_store::Checkpoint::new("old-1", now, "all", "Written by an older version");
    std::fs::write(
        dir.join(format!("{day}.md")),
        goldfish_store::format_day_file(day, &[old]),
    )?;
    let project = h.user_home.path().join("src/all");
    std::fs::create_dir_all(&project)?;
    git(&project, &["init", "-q"])?;
    let v = json_of(&h.run(&project, &["--json", "recall"])?)?;
    assert_eq!(v["workspace"], "all", "{v}");
    assert_eq!(v["all_workspaces"], json!(false), "{v}");
    let titles: Vec<&str> = v["checkpoints"]
        .as_array()
        .ok_or("checkpoints")?
        .iter()
        .filter_map(|c| c["description"].as_str())
        .collect();
    assert_eq!(titles, ["Written by an older version"], "{v}");
    // `--workspace all` is every workspace.
    let v = json_of(&h.run(&project, &["--json", "-w", "all", "recall"])?)?;
    assert_eq!(v["all_workspaces"], json!(true), "{v}");
    assert!(v.to_string().contains("Reef work"), "{v}");
    Ok(())
}
