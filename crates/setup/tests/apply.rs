//! `apply` on fixture configs of each client, compared with golden files byte for byte.
//!
//! Set `GOLDFISH_BLESS=1` to rewrite the golden `*.registered.*` files after an intended
//! change of output, then review their diff.

use std::error::Error as StdError;
use std::fs;
use std::path::{Path, PathBuf};

use goldfish_setup::{Action, Change, Client, ErrorKind, Options, Server, apply, backup_path};

type Result<T = ()> = std::result::Result<T, Box<dyn StdError>>;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

fn options(config: &Path, action: Action) -> Options {
    let mut options = Options::default();
    options.config = Some(config.to_path_buf());
    options.action = action;
    options
}

/// The golden result of registering into fixture `name` (`x.json` → `x.registered.json`).
fn golden(name: &str, actual: &str) -> Result<String> {
    let (stem, ext) = name.rsplit_once('.').ok_or("fixture without extension")?;
    let path = fixture(&format!("{stem}.registered.{ext}"));
    if std::env::var_os("GOLDFISH_BLESS").is_some() {
        fs::write(&path, actual)?;
    }
    Ok(fs::read_to_string(&path)?)
}

/// Every fixture that setup must accept: register (golden), again (unchanged), remove
/// (original bytes back), remove again (unchanged).
#[test]
fn register_twice_then_remove_restores_the_original() -> Result {
    let table = [
        (Client::Claude, "claude-other-servers.json"),
        (Client::Claude, "claude-no-servers.json"),
        (Client::Cursor, "cursor-other-servers.json"),
        (Client::Codex, "codex-comments.toml"),
    ];
    for (client, name) in table {
        let dir = tempfile::tempdir()?;
        let config = dir.path().join(name);
        let original = fs::read_to_string(fixture(name))?;
        fs::write(&config, &original)?;

        let outcome = apply(client, &options(&config, Action::Register))?;
        assert_eq!(outcome.change, Change::Added, "{name}");
        assert!(outcome.written);
        let registered = fs::read_to_string(&config)?;
        assert_eq!(
            registered,
            golden(name, &registered)?,
            "{name}: golden file"
        );
        assert_eq!(
            fs::read_to_string(backup_path(&config))?,
            original,
            "{name}: backup"
        );

        let again = apply(client, &options(&config, Action::Register))?;
        assert_eq!(
            (again.change, again.written),
            (Change::Unchanged, false),
            "{name}"
        );
        assert_eq!(
            fs::read_to_string(&config)?,
            registered,
            "{name}: second run"
        );

        let removed = apply(client, &options(&config, Action::Remove))?;
        assert_eq!(removed.change, Change::Removed, "{name}");
        assert_eq!(
            fs::read_to_string(&config)?,
            original,
            "{name}: remove restores"
        );

        let nothing = apply(client, &options(&config, Action::Remove))?;
        assert_eq!(nothing.change, Change::Unchanged, "{name}");
    }
    Ok(())
}

/// An absent file is created (private), an empty one filled; removing leaves no trace of
/// goldfish (a JSON file with nothing else goes away, a TOML one is left empty).
#[test]
fn absent_and_empty_files() -> Result {
    for client in Client::ALL {
        for start in [None, Some("")] {
            let dir = tempfile::tempdir()?;
            let config = dir.path().join("sub").join("config");
            if let Some(text) = start {
                fs::create_dir_all(dir.path().join("sub"))?;
                fs::write(&config, text)?;
            }
            let outcome = apply(client, &options(&config, Action::Register))?;
            assert_eq!(outcome.change, Change::Added, "{client} {start:?}");
            assert_eq!(
                outcome.backup.is_some(),
                start.is_some(),
                "{client} {start:?}"
            );
            let text = fs::read_to_string(&config)?;
            assert_eq!(
                goldfish_setup::registration(client, &text)?,
                Some(Server::default()),
                "{client} {start:?}: {text}"
            );
            #[cfg(unix)]
            if start.is_none() {
                use std::os::unix::fs::PermissionsExt;
                assert_eq!(fs::metadata(&config)?.permissions().mode() & 0o777, 0o600);
            }
            apply(client, &options(&config, Action::Remove))?;
            match client {
                Client::Codex => assert_eq!(fs::read_to_string(&config)?, ""),
                _ => assert!(!config.exists(), "{client}: the empty JSON file is removed"),
            }
        }
    }
    Ok(())
}

/// A file that does not parse is refused with its line, and nothing is written (no backup
/// either).
#[test]
fn malformed_is_refused_with_the_line() -> Result {
    let table = [
        (Client::Cursor, "cursor-malformed.json", 4),
        (Client::Codex, "codex-malformed.toml", 3),
    ];
    for (client, name, line) in table {
        let dir = tempfile::tempdir()?;
        let config = dir.path().join(name);
        let original = fs::read(fixture(name))?;
        fs::write(&config, &original)?;
        for action in [Action::Register, Action::Remove] {
            let err = match apply(client, &options(&config, action)) {
                Err(e) => e,
                Ok(o) => return Err(format!("{name}: accepted, {o:?}").into()),
            };
            assert_eq!(err.kind(), ErrorKind::Malformed, "{name}");
            assert_eq!(err.line(), Some(line), "{name}: {err}");
            let message = err.to_string();
            assert!(
                message.starts_with(&format!("{}:{line}: ", config.display())),
                "{message}"
            );
            assert!(message.contains("nothing was written"), "{message}");
            assert_eq!(fs::read(&config)?, original, "{name}: untouched");
            assert!(!backup_path(&config).exists(), "{name}: no backup");
        }
    }
    Ok(())
}

/// A read-only file is refused with a message saying so; it and its directory are untouched.
#[test]
fn read_only_is_refused() -> Result {
    for client in Client::ALL {
        let dir = tempfile::tempdir()?;
        let config = dir.path().join("config");
        let original = match client {
            Client::Codex => "model = \"o3\"\n",
            _ => "{\"theme\": \"dark\"}\n",
        };
        fs::write(&config, original)?;
        let mut permissions = fs::metadata(&config)?.permissions();
        permissions.set_readonly(true);
        fs::set_permissions(&config, permissions)?;

        let err = match apply(client, &options(&config, Action::Register)) {
            Err(e) => e,
            Ok(o) => return Err(format!("{client}: wrote a read-only file, {o:?}").into()),
        };
        assert!(err.is_read_only(), "{client}: {err}");
        assert!(err.to_string().contains("read-only"), "{err}");
        assert_eq!(fs::read_to_string(&config)?, original);
        assert!(!backup_path(&config).exists());
        // A dry run still shows what would change.
        let mut dry = options(&config, Action::Register);
        dry.dry_run = true;
        assert_eq!(apply(client, &dry)?.change, Change::Added);
    }
    Ok(())
}

/// A dry run returns the diff and writes nothing.
#[test]
fn dry_run_shows_a_unified_diff() -> Result {
    let dir = tempfile::tempdir()?;
    let config = dir.path().join("config.toml");
    let original = fs::read_to_string(fixture("codex-comments.toml"))?;
    fs::write(&config, &original)?;
    let mut dry = options(&config, Action::Register);
    dry.dry_run = true;
    let outcome = apply(Client::Codex, &dry)?;
    assert_eq!((outcome.change, outcome.written), (Change::Added, false));
    let header = format!("--- {0}\n+++ {0}\n@@ ", config.display());
    assert!(outcome.diff.starts_with(&header), "{}", outcome.diff);
    assert!(
        outcome
            .diff
            .contains("\n+[mcp_servers.goldfish]\n+command = \"goldfish\"\n+args = [\"mcp\"]\n"),
        "{}",
        outcome.diff
    );
    assert!(
        !outcome
            .diff
            .lines()
            .any(|l| l.starts_with('-') && !l.starts_with("---"))
    );
    assert_eq!(fs::read_to_string(&config)?, original);
    assert!(!backup_path(&config).exists());
    Ok(())
}

/// Another command registered under `goldfish` is corrected in place; its other keys stay.
#[test]
fn a_stale_registration_is_updated() -> Result {
    let dir = tempfile::tempdir()?;
    let config = dir.path().join("config.toml");
    fs::write(
        &config,
        "[mcp_servers.goldfish]\ncommand = \"/old/goldfish\"\nargs = [\"mcp\"]\nstartup_timeout_sec = 20 # slow disk\n",
    )?;
    let mut opts = options(&config, Action::Register);
    opts.server = Server::at(Path::new("/usr/local/bin/goldfish"));
    let outcome = apply(Client::Codex, &opts)?;
    assert_eq!(outcome.change, Change::Updated);
    assert_eq!(
        fs::read_to_string(&config)?,
        "[mcp_servers.goldfish]\ncommand = \"/usr/local/bin/goldfish\"\nargs = [\"mcp\"]\nstartup_timeout_sec = 20 # slow disk\n"
    );
    Ok(())
}

/// A config that is a symbolic link (a dotfiles repository) stays a link; its target changes.
#[cfg(unix)]
#[test]
fn a_symbolic_link_is_followed() -> Result {
    let dir = tempfile::tempdir()?;
    let target = dir.path().join("dotfiles-mcp.json");
    fs::write(&target, "{}\n")?;
    let link = dir.path().join("mcp.json");
    std::os::unix::fs::symlink(&target, &link)?;
    let outcome = apply(Client::Cursor, &options(&link, Action::Register))?;
    assert_eq!(outcome.path, fs::canonicalize(&target)?);
    assert!(fs::symlink_metadata(&link)?.file_type().is_symlink());
    assert!(fs::read_to_string(&target)?.contains("\"goldfish\""));
    Ok(())
}

/// Without `--config`, each client's documented file under the given home is edited.
#[test]
fn documented_location_under_home() -> Result {
    let home = tempfile::tempdir()?;
    for client in Client::ALL {
        let mut opts = Options::default();
        opts.env = goldfish_setup::Env::with_home(home.path());
        let outcome = apply(client, &opts)?;
        assert_eq!(outcome.path, client.config_path(&opts.env)?);
        assert!(outcome.path.starts_with(home.path()));
        assert!(outcome.path.exists(), "{client}");
    }
    assert!(home.path().join(".claude.json").exists());
    assert!(home.path().join(".codex/config.toml").exists());
    assert!(home.path().join(".cursor/mcp.json").exists());
    Ok(())
}

#[test]
fn snippet_is_the_common_mcp_servers_json() -> Result {
    let snippet = goldfish_setup::print_snippet(&Server::default());
    let value: serde_json::Value = serde_json::from_str(&snippet)?;
    assert_eq!(
        value,
        serde_json::json!({"mcpServers": {"goldfish": {"command": "goldfish", "args": ["mcp"]}}})
    );
    Ok(())
}
