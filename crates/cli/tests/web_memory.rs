//! `goldfish serve`'s memory does not grow with the store: the same concurrent load over a
//! small store and over one twelve times larger leaves the server's peak and settled RSS
//! within a few MiB of each other. Before pages were read one day file at a time, a timeline
//! page held every checkpoint of the store (about 150 MB over 100,000), so the larger store
//! cost tens of MiB more. Linux only (RSS from `/proc`).

use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Stdio};
use std::time::Duration;

use crate::util::{Env, TestResult, corpus_an_hour_old, write_day_files};

/// The pages each client asks for: the timeline's first page and a later one (both read the
/// whole window), and the activity chart over ten years.
const PAGES: [&str; 3] = ["/", "/?page=4", "/activity?weeks=520"];
/// Clients at once.
const CLIENTS: usize = 6;

/// The evaluation corpus copied `copies` times (each copy a day further back, with its own
/// ids), written as day files under `home`.
fn store(home: &Path, copies: usize) -> TestResult {
    let base = corpus_an_hour_old()?;
    let mut all = Vec::with_capacity(base.len() * copies);
    for copy in 0..copies {
        for c in &base {
            let mut c = c.clone();
            c.timestamp -= chrono::TimeDelta::days(i64::try_from(copy * 400)?);
            c.id = format!("{}-{copy}", c.id);
            all.push(c);
        }
    }
    write_day_files(home, &all)
}

/// A `goldfish serve` process, killed when dropped.
struct Served(Child);

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `VmRSS` or `VmHWM` of `pid`, in KiB.
fn status_kib(pid: u32, field: &str) -> Result<u64, Box<dyn std::error::Error>> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/status"))?;
    let value = text
        .lines()
        .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
        .ok_or_else(|| format!("no {field} in /proc/{pid}/status"))?;
    Ok(value.trim().trim_end_matches(" kB").trim().parse()?)
}

/// One `GET` with `Connection: close`: its status code.
fn get(addr: &str, target: &str) -> Result<u16, String> {
    let mut s = TcpStream::connect(addr).map_err(|e| format!("connect {addr}: {e}"))?;
    // Generous: a loaded machine is slow, and a hung server fails the test instead of
    // hanging it.
    s.set_read_timeout(Some(Duration::from_secs(600)))
        .map_err(|e| e.to_string())?;
    s.write_all(
        format!("GET {target} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n").as_bytes(),
    )
    .map_err(|e| e.to_string())?;
    let mut bytes = Vec::new();
    s.read_to_end(&mut bytes)
        .map_err(|e| format!("{target}: {e}"))?;
    let head = String::from_utf8_lossy(&bytes[..bytes.len().min(16)]).to_string();
    head.split(' ')
        .nth(1)
        .and_then(|c| c.parse().ok())
        .ok_or_else(|| format!("{target}: no status line in {head:?}"))
}

/// Serves a store of `copies` copies of the corpus, loads it with [`CLIENTS`] clients at once
/// (each asking for every page of [`PAGES`]), and returns the peak and the settled RSS above
/// the server's RSS before the load, in KiB.
fn load(copies: usize) -> Result<(u64, u64), Box<dyn std::error::Error>> {
    let env = Env::new()?;
    store(env.home(), copies)?;
    let mut child = env
        .cmd(&["serve", "--port", "0"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()?;
    let stderr = child.stderr.take().ok_or("no stderr")?;
    let served = Served(child);
    let mut line = String::new();
    BufReader::new(stderr).read_line(&mut line)?;
    let addr = line
        .split_whitespace()
        .find_map(|w| w.strip_prefix("http://"))
        .ok_or_else(|| format!("no URL in {line:?}"))?
        .trim_end_matches('/')
        .to_string();
    let pid = served.0.id();
    // One small page first, so that what any request needs once (the stylesheet, the
    // runtime's first buffers) is in the baseline.
    assert_eq!(get(&addr, "/static/style.css")?, 200);
    let before = status_kib(pid, "VmRSS")?;
    std::thread::scope(|scope| -> TestResult {
        let clients: Vec<_> = (0..CLIENTS)
            .map(|_| {
                scope.spawn(|| -> Result<(), String> {
                    for page in PAGES {
                        let status = get(&addr, page)?;
                        if status != 200 {
                            return Err(format!("{page}: status {status}"));
                        }
                    }
                    Ok(())
                })
            })
            .collect();
        for c in clients {
            c.join().map_err(|_| "a client thread panicked")??;
        }
        Ok(())
    })?;
    let peak = status_kib(pid, "VmHWM")?;
    let after = status_kib(pid, "VmRSS")?;
    Ok((peak.saturating_sub(before), after.saturating_sub(before)))
}

#[test]
#[cfg(target_os = "linux")]
fn serve_memory_does_not_grow_with_the_store() -> TestResult {
    // 1,974 and 23,688 checkpoints, bodies as in real use.
    let (small_peak, small_after) = load(1)?;
    let (large_peak, large_after) = load(12)?;
    eprintln!(
        "above the RSS before the load, KiB: small store peak {small_peak}, after {small_after}; \
         twelve times larger: peak {large_peak}, after {large_after}"
    );
    // Reading every checkpoint at once, the larger store's pages held about 20 MiB more; one
    // day file at a time they cost the same, give or take allocator noise.
    let margin = 8 * 1024;
    assert!(
        large_peak <= small_peak + margin,
        "peak RSS grew with the store: {small_peak} KiB over 1,974 checkpoints, {large_peak} KiB over 23,688"
    );
    assert!(
        large_after <= small_after + margin,
        "RSS after the load grew with the store: {small_after} KiB over 1,974 checkpoints, {large_after} KiB over 23,688"
    );
    Ok(())
}
