//! Loads a running `goldfish serve` with concurrent HTTP clients on loopback and reports its
//! resident memory: idle, after the same pages one at a time, at its peak under load, and
//! after the load.
//!
//! Usage: `web-load --goldfish BIN --home DIR [--clients N] [--rounds N] [--json]`
//!
//! Starts `BIN serve --port 0` over the store at DIR (`GOLDFISH_HOME`), requests a mix of
//! pages (timeline first page and page 20, a search, the activity chart, a workspace) once
//! each in turn, then from N clients at once (default 20), each requesting the whole mix
//! `rounds` times (default 3), then waits up to 10 s for the memory to settle. Memory is
//! read from `/proc/PID/status` (Linux): `VmRSS` now, `VmHWM` for the peak. Every request
//! has a 300 s timeout and must answer 200; the server is stopped at the end.

use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::net::{SocketAddr, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

const USAGE: &str = "usage: web-load --goldfish BIN --home DIR [--clients N] [--rounds N] [--json]";

/// A kibibyte figure of `/proc/PID/status` (`VmRSS`, `VmHWM`), in bytes.
fn status_bytes(pid: u32, field: &str) -> Result<u64, String> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/status"))
        .map_err(|e| format!("/proc/{pid}/status: {e} (Linux only)"))?;
    text.lines()
        .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|v| v.trim().trim_end_matches(" kB").trim().parse::<u64>().ok())
        .map(|kb| kb * 1024)
        .ok_or_else(|| format!("no {field} in /proc/{pid}/status"))
}

/// `GET target` with the server's own `Host`: the status and the whole answer.
fn get(addr: SocketAddr, target: &str) -> Result<(u16, Vec<u8>), String> {
    let mut s = TcpStream::connect(addr).map_err(|e| format!("connect {addr}: {e}"))?;
    s.set_read_timeout(Some(Duration::from_secs(300)))
        .map_err(|e| e.to_string())?;
    s.write_all(
        format!("GET {target} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n").as_bytes(),
    )
    .map_err(|e| format!("send {target}: {e}"))?;
    let mut bytes = Vec::new();
    s.read_to_end(&mut bytes)
        .map_err(|e| format!("read {target}: {e}"))?;
    let status = std::str::from_utf8(&bytes[..bytes.len().min(16)])
        .ok()
        .and_then(|h| h.split(' ').nth(1))
        .and_then(|c| c.parse().ok())
        .ok_or_else(|| format!("{target}: no status line"))?;
    Ok((status, bytes))
}

/// Stops the server when dropped.
struct Serving(Child);

impl Drop for Serving {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn mib(bytes: u64) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}

fn run(
    bin: PathBuf,
    home: PathBuf,
    clients: usize,
    rounds: usize,
    json: bool,
) -> Result<(), String> {
    let mut child = Command::new(&bin)
        .args(["serve", "--port", "0"])
        .env("GOLDFISH_HOME", &home)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", bin.display()))?;
    let stderr = child.stderr.take().ok_or("no stderr")?;
    let server = Serving(child);
    let pid = server.0.id();
    let mut lines = BufReader::new(stderr).lines();
    let addr: SocketAddr = loop {
        let line = lines
            .next()
            .ok_or("the server ended before printing its address")?
            .map_err(|e| e.to_string())?;
        if let Some(rest) = line.split("http://").nth(1) {
            let a = rest.split('/').next().unwrap_or_default();
            break a.parse().map_err(|e| format!("{a:?}: {e}"))?;
        }
    };
    // Keep draining its stderr so it never blocks on a full pipe.
    std::thread::spawn(move || for _ in lines {});
    let idle = status_bytes(pid, "VmRSS")?;
    // A workspace to ask for: the first one the timeline links to.
    let (_, first) = get(addr, "/")?;
    let body = first.len();
    let ws = String::from_utf8_lossy(&first)
        .split("href=\"/w/")
        .nth(1)
        .and_then(|r| r.split('"').next())
        .unwrap_or("none")
        .to_string();
    let pages = [
        "/".to_string(),
        "/?page=20".to_string(),
        "/?q=auth+token+timeout".to_string(),
        "/activity?weeks=52".to_string(),
        format!("/w/{ws}"),
    ];
    let started = Instant::now();
    for p in &pages {
        let (status, _) = get(addr, p)?;
        if status != 200 {
            return Err(format!("{p}: status {status}"));
        }
    }
    let sequential_time = started.elapsed();
    let sequential_rss = status_bytes(pid, "VmRSS")?;
    let sequential_peak = status_bytes(pid, "VmHWM")?;

    let started = Instant::now();
    let workers: Vec<_> = (0..clients)
        .map(|i| {
            let pages = pages.clone();
            std::thread::spawn(move || -> Result<usize, String> {
                let mut n = 0;
                for r in 0..rounds {
                    for k in 0..pages.len() {
                        // Each client starts the mix at a different page.
                        let p = &pages[(i + r + k) % pages.len()];
                        let (status, _) = get(addr, p)?;
                        if status != 200 {
                            return Err(format!("{p}: status {status}"));
                        }
                        n += 1;
                    }
                }
                Ok(n)
            })
        })
        .collect();
    let mut sampled_peak = 0u64;
    while workers.iter().any(|w| !w.is_finished()) {
        sampled_peak = sampled_peak.max(status_bytes(pid, "VmRSS")?);
        std::thread::sleep(Duration::from_millis(20));
    }
    let mut requests = 0;
    for w in workers {
        requests += w.join().map_err(|_| "a client panicked")??;
    }
    let load_time = started.elapsed();
    let peak = status_bytes(pid, "VmHWM")?.max(sampled_peak);
    // After the load: the lowest RSS seen while it settles (up to 10 s).
    let mut after = status_bytes(pid, "VmRSS")?;
    let settle = Instant::now();
    while settle.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(250));
        after = after.min(status_bytes(pid, "VmRSS")?);
    }
    drop(server);
    if json {
        println!(
            "{{\"clients\":{clients},\"requests\":{requests},\"idle_rss\":{idle},\"sequential_rss\":{sequential_rss},\"sequential_peak\":{sequential_peak},\"load_peak_rss\":{peak},\"after_rss\":{after},\"sequential_ms\":{},\"load_ms\":{},\"first_page_bytes\":{body}}}",
            sequential_time.as_millis(),
            load_time.as_millis()
        );
    } else {
        println!("pages: {pages:?}");
        println!("idle:                      {:8.1} MiB", mib(idle));
        println!(
            "one at a time:             {:8.1} MiB now, {:.1} MiB peak ({} pages in {:.1} s)",
            mib(sequential_rss),
            mib(sequential_peak),
            pages.len(),
            sequential_time.as_secs_f64()
        );
        println!(
            "{clients} clients at once:      {:8.1} MiB peak ({requests} requests in {:.1} s)",
            mib(peak),
            load_time.as_secs_f64()
        );
        println!("after the load:            {:8.1} MiB", mib(after));
    }
    Ok(())
}

fn main() -> ExitCode {
    let mut bin = None;
    let mut home = None;
    let mut clients = 20usize;
    let mut rounds = 3usize;
    let mut json = false;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--goldfish" => bin = args.next().map(PathBuf::from),
            "--home" => home = args.next().map(PathBuf::from),
            "--clients" => clients = args.next().and_then(|v| v.parse().ok()).unwrap_or(0),
            "--rounds" => rounds = args.next().and_then(|v| v.parse().ok()).unwrap_or(0),
            "--json" => json = true,
            other => {
                eprintln!("web-load: unknown argument {other:?}\n{USAGE}");
                return ExitCode::from(2);
            }
        }
    }
    let (Some(bin), Some(home)) = (bin, home) else {
        eprintln!("web-load: --goldfish and --home are required\n{USAGE}");
        return ExitCode::from(2);
    };
    if clients == 0 || rounds == 0 || clients > 200 || rounds > 100 {
        eprintln!("web-load: --clients 1..=200 and --rounds 1..=100\n{USAGE}");
        return ExitCode::from(2);
    }
    match run(bin, home, clients, rounds, json) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("web-load: {e}");
            ExitCode::FAILURE
        }
    }
}
