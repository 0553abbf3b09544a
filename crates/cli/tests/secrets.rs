//! Every kind of secret, planted in every path that writes the store or the worktree's
//! logs, is found nowhere afterwards: not in any file of the store, the worktree's
//! `JOURNAL.md` and `GOBLIN_NOTES.md`, nor in any object of the synced store's git repository.
//! The paths: `goldfish checkpoint` (description, tags), the MCP `checkpoint` and
//! `plan` tools, `goldfish plan save`, `goldfish journal`, `goldfish notes decision
//! --reason`, `goldfish import jsonl` (every field of a checkpoint record and a plan
//! record), and the sync merge driver (a version of a day file written by hand on another
//! machine, merged in). A private span (`<private>` … `</private>`, and one never closed)
//! is planted beside them and must be found nowhere either.

use std::path::Path;
use std::process::Command;

use goldfish_store::goldfish_redact::{Config, Kind, Redactor};
use serde_json::json;

use crate::mcp_replies::call_tools;
use crate::util::{Env, TestResult};

/// A base64-looking run of `n` characters, different for each `seed` (built at run time so
/// that no scanner takes this file for a leak).
fn fake(n: usize, seed: usize) -> String {
    const CYCLE: &[u8] = b"aB3dE5fG7hJ9kL1mN2pQ4rS6tU8vW0xYzC";
    (0..n)
        .map(|i| CYCLE[(seed * 5 + i * 7) % CYCLE.len()] as char)
        .collect()
}

/// One planted secret: its kind, how it is written in text, and the part that must never be
/// stored (`needle`).
struct Secret {
    kind: Kind,
    text: String,
    needle: String,
}

/// One secret of every kind the redactor knows, and a private span closed and one never
/// closed, last, so that it drops no other example (the test fails when a kind is added
/// without one here).
fn secrets() -> Vec<Secret> {
    let s = |kind, text: String, needle: String| Secret { kind, text, needle };
    let key_line = format!("MII{}", fake(61, 1));
    let aws_id = format!("AKIA{}", "Q7PLANTEDKEY2XY9");
    let aws_secret = fake(40, 2).replace('a', "/");
    let ghp = format!("{}_{}", "ghp", fake(36, 3));
    let glpat = format!("{}-{}", "glpat", fake(24, 4));
    // Letters and digits only: the shape the assignment rule once let through.
    let google = format!("{}.{}", "ya29", fake(44, 5).replace(['/', '+'], "k"));
    let slack = format!("{}-{}-{}", "xoxb", "123456789012", fake(24, 6));
    let hook = format!("T{}/B{}/{}", "0PLANT01", "0PLANT02", fake(24, 7));
    let stripe = format!("{}_{}_{}", "sk", "live", fake(28, 8));
    let jwt_sig = fake(43, 9);
    let jwt = format!(
        "{}.{}.{jwt_sig}",
        "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9", "eyJzdWIiOiJwbGFudGVkIn0"
    );
    let bearer = format!("{}{}", fake(20, 10), "Zz90");
    let url_password = format!("Pw{}", fake(14, 11));
    let assigned = format!("Hunter{}", fake(16, 12));
    let private = "the staging box is at 10.0.0.7, ssh as opsadmin".to_string();
    let unclosed = "my home address is 1 Elm Street".to_string();
    let all = vec![
        // Cut off and with literal `\n` escapes: the hardest shape of a pasted key.
        s(
            Kind::PrivateKey,
            format!(
                "-----BEGIN OPENSSH {}-----\\n{key_line}\\n{}\\n{}==",
                "PRIVATE KEY",
                fake(64, 13),
                fake(10, 14)
            ),
            key_line,
        ),
        s(Kind::AwsAccessKeyId, aws_id.clone(), aws_id),
        s(
            Kind::AwsSecretAccessKey,
            format!("aws_secret_access_key={aws_secret}"),
            aws_secret,
        ),
        s(Kind::GithubToken, ghp.clone(), ghp),
        s(Kind::GitlabToken, glpat.clone(), glpat),
        s(Kind::GoogleOauthToken, format!("token={google}"), google),
        s(Kind::SlackToken, slack.clone(), slack),
        s(
            Kind::SlackWebhook,
            format!("https://hooks.slack.com/services/{hook}"),
            hook,
        ),
        s(Kind::StripeKey, stripe.clone(), stripe),
        s(Kind::Jwt, jwt, jwt_sig),
        s(
            Kind::BearerToken,
            format!("Authorization: Bearer {bearer}"),
            bearer,
        ),
        s(
            Kind::UrlCredentials,
            format!("https://deploy:{url_password}@git.example.com/x.git"),
            url_password,
        ),
        s(
            Kind::SecretAssignment,
            format!("password={assigned}"),
            assigned,
        ),
        // In a code fence: still private.
        s(
            Kind::Private,
            format!("```<private>{private}</private>```"),
            private,
        ),
        s(
            Kind::PrivateUnclosed,
            format!("<private>{unclosed}"),
            unclosed,
        ),
    ];
    let mut kinds: Vec<Kind> = all.iter().map(|s| s.kind).collect();
    kinds.dedup();
    let mut every = Kind::ALL.to_vec();
    every.sort();
    kinds.sort();
    assert_eq!(kinds, every, "one planted secret per kind");
    all
}

/// Every secret's text, one per line, and a check that the redactor finds each alone as
/// its kind (so a miss below is a path that skipped redaction, not a bad example).
fn planted(secrets: &[Secret]) -> String {
    let redactor = Redactor::new(&Config::default());
    for secret in secrets {
        let found = redactor.redact(&secret.text);
        assert!(
            found.findings.iter().any(|f| f.kind == secret.kind)
                && !found.text.contains(&secret.needle),
            "the example of {} is not redacted by the library: {}",
            secret.kind,
            secret.text
        );
    }
    secrets
        .iter()
        .map(|s| format!("{} leaked here", s.text))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The bytes of every file under `dir` (all of them: day files, plans, settings, `.git`).
fn all_bytes(dir: &Path, out: &mut Vec<u8>) -> TestResult {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        let meta = std::fs::symlink_metadata(&path)?;
        if meta.is_dir() {
            all_bytes(&path, out)?;
        } else if meta.is_file() {
            out.extend(std::fs::read(&path)?);
            out.push(b'\n');
        }
    }
    Ok(())
}

/// Every object of the git repository at `repo`, decompressed (`git cat-file --batch`).
fn git_objects(repo: &Path) -> Result<Vec<u8>, Box<dyn std::error::Error>> {
    let out = Command::new("git")
        .arg("-C")
        .arg(repo)
        .args(["cat-file", "--batch-all-objects", "--batch", "--unordered"])
        .output()?;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    Ok(out.stdout)
}

/// The needles found in `haystack`, as `kind (where)`.
fn leaks(secrets: &[Secret], haystack: &[u8], place: &str) -> Vec<String> {
    let text = String::from_utf8_lossy(haystack);
    secrets
        .iter()
        .filter(|s| text.contains(&s.needle))
        .map(|s| format!("{} ({place})", s.kind))
        .collect()
}

fn git(dir: &Path, args: &[&str]) -> Result<String, Box<dyn std::error::Error>> {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["-c", "user.name=t", "-c", "user.email=t@localhost"])
        .args(args)
        .output()?;
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

#[test]
fn every_kind_of_secret_in_every_write_path_is_stored_nowhere() -> TestResult {
    let secrets = secrets();
    let text = planted(&secrets);
    let env = Env::new()?;
    let remote = env.cwd.path().join("remote.git");
    git(
        env.cwd.path(),
        &["init", "-q", "--bare", "-b", "main", "remote.git"],
    )?;
    env.ok(&["sync", "init", "--remote", remote.to_str().ok_or("path")?])?;

    // CLI: a checkpoint (description, a tag), a plan, the journal, the notes.
    let ghp = &secrets[3].needle;
    env.ok(&[
        "checkpoint",
        &format!("cli checkpoint\n{text}"),
        "--tags",
        &format!("deploy,{ghp}"),
    ])?;
    env.ok(&[
        "plan",
        "save",
        "--title",
        "Rotate keys",
        "--content",
        &format!("- [ ] rotate\n{text}"),
    ])?;
    env.ok(&["journal", "boot", "rotate the keys", "--approach", "direct"])?;
    for secret in &secrets {
        env.ok(&["journal", "log", &format!("journal entry {}", secret.text)])?;
    }
    env.ok(&["notes", "init", "SEC-1", "--objective", "rotate keys"])?;
    for secret in &secrets {
        env.ok(&[
            "notes",
            "decision",
            "keep it",
            &format!("--reason={}", secret.text),
        ])?;
    }

    // MCP: a typed checkpoint and a plan.
    call_tools(
        &env,
        &[
            (
                "checkpoint",
                json!({"description": format!("mcp checkpoint\n{text}"), "type": "decision",
                       "decision": text, "context": text, "alternatives": [text],
                       "tags": ["mcp"]}),
            ),
            (
                "plan",
                json!({"action": "save", "title": "MCP plan", "content": text}),
            ),
        ],
    )?;

    // Import: every field of a checkpoint record and a plan record.
    let records = [
        json!({"kind": "checkpoint", "workspace": "test", "id": "imported-1",
               "timestamp": "2026-03-01T10:00:00Z", "type": "decision",
               "description": format!("imported\n{text}"),
               "tags": [ghp], "branch": secrets[6].needle, "commit": "0c541c7",
               "files": [format!("src/{}.rs", secrets[8].needle)],
               "context": text, "decision": text, "alternatives": [text], "impact": text,
               "evidence": [text], "symbols": [secrets[1].needle], "next": text,
               "unknowns": [text], "extra": {"Note": secrets[5].text}}),
        json!({"kind": "plan", "workspace": "test", "id": "imported-plan",
               "title": format!("plan {}", secrets[1].needle), "status": "active",
               "created": "2026-03-01T10:00:00Z", "updated": "2026-03-01T10:00:00Z",
               "tags": [ghp], "content": text, "extra": {"owner": secrets[12].text}}),
    ];
    // The source lives apart: it is the one place the secrets may stay.
    let source = tempfile::tempdir()?;
    let file = source.path().join("import.jsonl");
    std::fs::write(
        &file,
        records.iter().map(|r| format!("{r}\n")).collect::<String>(),
    )?;
    let report = env.json(&["import", "jsonl", file.to_str().ok_or("path")?])?;
    assert!(
        report["redacted"].as_array().is_some_and(|r| r.len() == 2),
        "the import reports both records it redacted: {report}"
    );
    let out = env.ok(&["import", "jsonl", file.to_str().ok_or("path")?])?;
    assert!(out.contains("already there"), "{out}");

    env.ok(&["sync"])?;

    let mut bytes = Vec::new();
    all_bytes(env.home(), &mut bytes)?;
    all_bytes(env.cwd.path(), &mut bytes)?;
    let mut found = leaks(&secrets, &bytes, "files");
    found.extend(leaks(&secrets, &git_objects(env.home())?, "store history"));
    found.extend(leaks(&secrets, &git_objects(&remote)?, "remote history"));
    assert!(found.is_empty(), "secrets found: {found:?}");
    Ok(())
}

#[test]
fn the_merge_driver_redacts_what_another_machine_wrote_by_hand() -> TestResult {
    let secrets = secrets();
    let text = planted(&secrets);
    let (a, b) = (Env::new()?, Env::new()?);
    let remote = a.cwd.path().join("remote.git");
    git(
        a.cwd.path(),
        &["init", "-q", "--bare", "-b", "main", "remote.git"],
    )?;
    let remote = remote.to_str().ok_or("path")?;
    a.ok(&["sync", "init", "--remote", remote])?;
    a.ok(&["checkpoint", "first on a", "--workspace", "shared"])?;
    a.ok(&["sync"])?;
    b.ok(&["sync", "init", "--remote", remote])?;
    b.ok(&["sync"])?;
    // Both machines change the same day file: b by hand (an older tool, an editor), with
    // every kind of secret in it, committed and pushed without goldfish.
    a.ok(&["checkpoint", "second on a", "--workspace", "shared"])?;
    let day = std::fs::read_dir(b.home().join("shared").join("checkpoints"))?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|e| e == "md"))
        .ok_or("b has the day file")?;
    let mut written = std::fs::read_to_string(&day)?;
    written.push_str(&format!(
        "\n## 23:59 - written by hand\n<!-- id: 20991231T235959000Z-abcdef at: {}T23:59:59.000Z -->\n\n{text}\n",
        day.file_stem().and_then(|s| s.to_str()).ok_or("day name")?
    ));
    std::fs::write(&day, written)?;
    git(b.home(), &["commit", "-qam", "by hand"])?;
    git(b.home(), &["push", "-q", "origin", "main"])?;

    a.ok(&["sync"])?;
    let mut bytes = Vec::new();
    all_bytes(&a.home().join("shared"), &mut bytes)?;
    let found = leaks(&secrets, &bytes, "a's merged day file");
    assert!(found.is_empty(), "secrets found: {found:?}");
    let merged = String::from_utf8_lossy(&bytes);
    assert!(
        merged.contains("written by hand") && merged.contains("second on a"),
        "both sides' entries are kept: {merged}"
    );
    Ok(())
}
