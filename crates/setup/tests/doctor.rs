//! `doctor` in a temporary home with a made-up `PATH`.

use std::error::Error as StdError;
use std::ffi::OsString;
use std::fs;
use std::path::Path;

use goldfish_setup::{Env, Finding, Status, doctor, find_on_path};

type Result<T = ()> = std::result::Result<T, Box<dyn StdError>>;

fn finding<'a>(findings: &'a [Finding], check: &str) -> Result<&'a Finding> {
    findings
        .iter()
        .find(|f| f.check == check)
        .ok_or_else(|| format!("no {check} finding in {findings:?}").into())
}

#[cfg(unix)]
fn executable(path: &Path) -> Result {
    use std::os::unix::fs::PermissionsExt;
    fs::write(path, "#!/bin/sh\nexit 0\n")?;
    fs::set_permissions(path, fs::Permissions::from_mode(0o755))?;
    Ok(())
}

#[cfg(unix)]
#[test]
fn every_check_reports_what_to_do() -> Result {
    use std::os::unix::fs::PermissionsExt;

    let home = tempfile::tempdir()?;
    let bin = home.path().join("bin");
    fs::create_dir(&bin)?;
    let mut env = Env::with_home(home.path());
    env.path = Some(bin.clone().into_os_string());

    // Nothing installed yet.
    let findings = doctor(&env);
    assert_eq!(findings.len(), 6, "{findings:?}");
    let binary = finding(&findings, "binary")?;
    assert_eq!(binary.status, Status::Fail);
    assert!(binary.fix.as_deref().is_some_and(|f| f.contains("PATH")));
    assert_eq!(
        finding(&findings, "store")?.status,
        Status::Ok,
        "a missing store is created later"
    );
    for client in ["claude", "codex", "cursor"] {
        let f = finding(&findings, client)?;
        assert_eq!(f.status, Status::Warn, "{f}");
        assert_eq!(
            f.fix.as_deref(),
            Some(
                format!("goldfish setup {client} (skip this if you do not use {client})").as_str()
            )
        );
    }
    assert_eq!(
        finding(&findings, "git")?.status,
        Status::Warn,
        "git is not in the made-up PATH"
    );

    // Installed, a readable store, one client registered, one broken, one without goldfish.
    executable(&bin.join("goldfish"))?;
    let store = home.path().join(".goldfish");
    fs::create_dir(&store)?;
    fs::set_permissions(&store, fs::Permissions::from_mode(0o755))?;
    fs::write(
        home.path().join(".claude.json"),
        "{\"mcpServers\": {\"goldfish\": {\"command\": \"goldfish\", \"args\": [\"mcp\"]}}}",
    )?;
    fs::create_dir(home.path().join(".cursor"))?;
    fs::write(
        home.path().join(".cursor/mcp.json"),
        "{\n  \"mcpServers\": {\n}",
    )?;
    fs::create_dir(home.path().join(".codex"))?;
    fs::write(home.path().join(".codex/config.toml"), "model = \"o3\"\n")?;

    let findings = doctor(&env);
    assert_eq!(finding(&findings, "binary")?.status, Status::Ok);
    let store_finding = finding(&findings, "store")?;
    assert_eq!(store_finding.status, Status::Warn, "{store_finding}");
    assert!(
        store_finding
            .fix
            .as_deref()
            .is_some_and(|f| f.starts_with("make it private: chmod 700"))
    );
    assert_eq!(finding(&findings, "claude")?.status, Status::Ok);
    let cursor = finding(&findings, "cursor")?;
    assert_eq!(cursor.status, Status::Fail, "{cursor}");
    assert!(cursor.detail.contains("mcp.json:3:"), "{cursor}");
    let codex = finding(&findings, "codex")?;
    assert_eq!(
        (codex.status, codex.fix.as_deref()),
        (Status::Warn, Some("goldfish setup codex"))
    );

    fs::set_permissions(&store, fs::Permissions::from_mode(0o700))?;
    assert_eq!(finding(&doctor(&env), "store")?.status, Status::Ok);

    // A registered absolute path that is gone.
    fs::write(
        home.path().join(".claude.json"),
        "{\"mcpServers\": {\"goldfish\": {\"command\": \"/nonexistent/goldfish\", \"args\": [\"mcp\"]}}}",
    )?;
    assert_eq!(finding(&doctor(&env), "claude")?.status, Status::Fail);
    Ok(())
}

#[cfg(unix)]
#[test]
fn git_is_found_and_run_when_on_path() -> Result {
    let system_path = std::env::var_os("PATH");
    let Some(git) = find_on_path("git", system_path.as_deref()) else {
        // The suite needs git elsewhere; without it this check has nothing to find.
        return Err("git is not installed on this machine".into());
    };
    let home = tempfile::tempdir()?;
    let mut env = Env::with_home(home.path());
    env.path = git.parent().map(|d| OsString::from(d.as_os_str()));
    let f = doctor(&env)
        .into_iter()
        .find(|f| f.check == "git")
        .ok_or("no git finding")?;
    assert_eq!(f.status, Status::Ok, "{f}");
    assert!(f.detail.starts_with("git version"), "{f}");
    Ok(())
}

#[cfg(unix)]
#[test]
fn a_store_that_is_a_file_fails() -> Result {
    let home = tempfile::tempdir()?;
    let file = home.path().join("store-file");
    fs::write(&file, "")?;
    let mut env = Env::with_home(home.path());
    env.goldfish_home = Some(file.into_os_string());
    let f = doctor(&env)
        .into_iter()
        .find(|f| f.check == "store")
        .ok_or("no store finding")?;
    assert_eq!(f.status, Status::Fail);
    assert!(f.detail.ends_with("is not a directory"), "{f}");
    Ok(())
}
