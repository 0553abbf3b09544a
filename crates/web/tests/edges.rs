//! The server's edges over raw sockets: slow and idle clients are cut off, connections are
//! bounded, ambiguous or foreign hosts refused.

use std::io::{ErrorKind, Read as _, Write as _};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use goldfish_web::{App, Limits, Server};

use crate::util::{TestResult, raw, sample, serve};

/// How long a test waits for something the server must do before calling it a failure:
/// far above any bound under test, so a loaded machine never fails it by luck.
const PATIENCE: Duration = Duration::from_secs(60);

/// Serves `app` with `limits` on a free loopback port.
fn serve_with(app: App, limits: Limits) -> SocketAddr {
    let server = Server::bind(app, SocketAddr::from(([127, 0, 0, 1], 0)))
        .expect("bind a free port")
        .with_limits(limits);
    let addr = server.local_addr();
    std::thread::spawn(move || server.run());
    addr
}

fn limits(header_timeout: Duration, max_connections: usize) -> Limits {
    let mut limits = Limits::default();
    limits.header_timeout = header_timeout;
    limits.max_connections = max_connections;
    limits
}

/// Whether the server has closed `s`: a read returns end of file (or a reset) at once.
fn closed_now(s: &TcpStream) -> bool {
    s.set_nonblocking(true).expect("non-blocking");
    let mut buf = [0u8; 256];
    let mut s = s;
    loop {
        match s.read(&mut buf) {
            Ok(0) => return true,
            Ok(_) => continue,
            Err(e) if e.kind() == ErrorKind::WouldBlock => return false,
            Err(_) => return true,
        }
    }
}

/// Everything the server sends on `s` until it closes it; an error when it keeps it open
/// for [`PATIENCE`].
fn read_until_closed(mut s: &TcpStream) -> std::io::Result<Vec<u8>> {
    s.set_nonblocking(false)?;
    s.set_read_timeout(Some(PATIENCE))?;
    let mut all = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        match s.read(&mut buf) {
            Ok(0) => return Ok(all),
            Ok(n) => all.extend_from_slice(&buf[..n]),
            Err(e) if e.kind() == ErrorKind::ConnectionReset => return Ok(all),
            Err(e) => return Err(e),
        }
    }
}

#[test]
fn two_host_headers_are_a_bad_request() -> TestResult {
    let dir = tempfile::tempdir()?;
    sample(dir.path());
    let addr = serve(App::new(dir.path()));
    for (first, second) in [
        (addr.to_string(), addr.to_string()),
        (addr.to_string(), "evil.example".to_string()),
        ("evil.example".to_string(), addr.to_string()),
    ] {
        let a = raw(
            addr,
            &format!(
                "GET / HTTP/1.1\r\nHost: {first}\r\nHost: {second}\r\nConnection: close\r\n\r\n"
            ),
        );
        assert_eq!(a.status, 400, "{first} / {second}: {}", a.head);
        assert!(!a.body.contains("checkpoint"), "nothing of the store");
    }
    Ok(())
}

#[test]
fn an_absolute_target_must_name_the_server_itself() -> TestResult {
    let dir = tempfile::tempdir()?;
    sample(dir.path());
    let addr = serve(App::new(dir.path()));
    let port = addr.port();
    for target in [
        "http://evil.example/".to_string(),
        format!("http://evil.example:{port}/"),
        format!("http://127.0.0.1:{}/w/api", port.wrapping_add(1)),
    ] {
        let a = raw(
            addr,
            &format!("GET {target} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"),
        );
        assert_eq!(a.status, 403, "{target}");
        assert!(
            !a.body.contains("checkpoint"),
            "{target}: nothing of the store"
        );
    }
    for target in [
        format!("http://{addr}/"),
        format!("http://localhost:{port}/w/api"),
    ] {
        let a = raw(
            addr,
            &format!("GET {target} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"),
        );
        assert_eq!(a.status, 200, "{target}");
    }
    Ok(())
}

/// A client trickling its headers one byte at a time is cut off after the header timeout,
/// however long it keeps trickling.
#[test]
fn a_slow_client_is_cut_off_after_the_header_timeout() -> TestResult {
    let dir = tempfile::tempdir()?;
    sample(dir.path());
    let timeout = Duration::from_secs(1);
    let addr = serve_with(App::new(dir.path()), limits(timeout, 64));
    let mut s = TcpStream::connect(addr)?;
    let start = Instant::now();
    s.write_all(format!("GET / HTTP/1.1\r\nHost: {addr}\r\nX-Slow: ").as_bytes())?;
    s.set_read_timeout(Some(Duration::from_millis(200)))?;
    let mut buf = [0u8; 256];
    let cut_off = loop {
        assert!(start.elapsed() < PATIENCE, "still open after {PATIENCE:?}");
        if s.write_all(b"a").is_err() {
            break true;
        }
        match s.read(&mut buf) {
            Ok(0) => break true,
            Ok(_) => continue,
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {}
            Err(_) => break true,
        }
    };
    assert!(cut_off);
    assert!(start.elapsed() >= timeout, "closed before the timeout");
    Ok(())
}

/// Idle connections are closed after the header timeout, and no more than the bound are
/// open at once: with two idle connections holding both slots, a third client is answered
/// once an idle one has been closed to make room for it.
#[test]
fn idle_connections_are_bounded_and_closed() -> TestResult {
    let dir = tempfile::tempdir()?;
    sample(dir.path());
    let addr = serve_with(App::new(dir.path()), limits(Duration::from_secs(1), 2));
    let idle = [TcpStream::connect(addr)?, TcpStream::connect(addr)?];
    let mut third = TcpStream::connect(addr)?;
    third.set_read_timeout(Some(PATIENCE))?;
    third.write_all(
        format!("GET / HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n").as_bytes(),
    )?;
    let mut answer = String::new();
    third.read_to_string(&mut answer)?;
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer:.200}");
    assert!(
        idle.iter().any(closed_now),
        "the third client was served while both idle connections held their slots"
    );
    // And the other idle one goes too, in its turn, never having been answered.
    for s in &idle {
        assert_eq!(
            read_until_closed(s)?,
            Vec::<u8>::new(),
            "an idle connection got an answer"
        );
    }
    Ok(())
}

/// A kept-alive connection is answered, then closed once idle for the header timeout.
#[test]
fn a_kept_alive_connection_is_closed_when_idle() -> TestResult {
    let dir = tempfile::tempdir()?;
    sample(dir.path());
    let addr = serve_with(App::new(dir.path()), limits(Duration::from_secs(1), 64));
    let mut s = TcpStream::connect(addr)?;
    s.set_read_timeout(Some(PATIENCE))?;
    s.write_all(format!("GET /static/style.css HTTP/1.1\r\nHost: {addr}\r\n\r\n").as_bytes())?;
    // Answered, then closed by the server once idle (an error here: still open).
    let all = read_until_closed(&s)?;
    let text = String::from_utf8_lossy(&all);
    assert!(text.starts_with("HTTP/1.1 200"), "{text:.200}");
    assert!(
        !text.to_ascii_lowercase().contains("connection: close"),
        "kept alive"
    );
    Ok(())
}

/// Opens `n` connections to `addr`, each within what is left of [`PATIENCE`]: an error when
/// the server lets them wait (a listen queue full because it admits no more).
fn open_connections(addr: SocketAddr, n: usize) -> std::io::Result<Vec<TcpStream>> {
    let start = Instant::now();
    (0..n)
        .map(|_| {
            let left = PATIENCE.checked_sub(start.elapsed()).unwrap_or_default();
            TcpStream::connect_timeout(&addr, left.max(Duration::from_millis(1)))
        })
        .collect()
}

/// Asks for the timeline on a new connection; the status, once answered, and how long the
/// answer took from the connection's opening.
fn timeline_status(addr: SocketAddr) -> Result<(u16, Duration), Box<dyn std::error::Error>> {
    let start = Instant::now();
    let mut s = TcpStream::connect_timeout(&addr, PATIENCE)?;
    s.set_read_timeout(Some(PATIENCE))?;
    s.write_all(format!("GET / HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n").as_bytes())?;
    let mut answer = String::new();
    s.read_to_string(&mut answer)
        .map_err(|e| format!("no answer within {PATIENCE:?}: {e}"))?;
    let status = answer
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| format!("not an HTTP answer: {answer:.200}"))?;
    Ok((status, start.elapsed()))
}

/// Starts a request's headers on each of `slow` and keeps trickling one byte to each every
/// 100 ms until the returned flag is set (a write to a closed connection is ignored).
fn trickle(addr: SocketAddr, slow: Vec<TcpStream>) -> Arc<AtomicBool> {
    let stop = Arc::new(AtomicBool::new(false));
    let done = Arc::clone(&stop);
    let mut slow = slow;
    for s in &mut slow {
        let _ = s.write_all(format!("GET / HTTP/1.1\r\nHost: {addr}\r\nX-Slow: ").as_bytes());
    }
    std::thread::spawn(move || {
        while !done.load(Ordering::Relaxed) {
            for s in &mut slow {
                let _ = s.write_all(b"a");
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    });
    stop
}

/// With 200 idle connections and 200 trickling their headers open (and a header timeout
/// that cuts none of them off while the test runs), another client's page still arrives:
/// with the connections' default bound, nobody waits behind them.
#[test]
fn idle_and_slow_clients_do_not_keep_another_waiting() -> TestResult {
    let dir = tempfile::tempdir()?;
    sample(dir.path());
    let mut limits = Limits::default();
    limits.header_timeout = Duration::from_secs(3600);
    let addr = serve_with(App::new(dir.path()), limits);
    let idle = open_connections(addr, 200)?;
    let slow = open_connections(addr, 200)?;
    let stop = trickle(addr, slow);
    let result = timeline_status(addr);
    stop.store(true, Ordering::Relaxed);
    let (status, took) = result?;
    assert_eq!(status, 200);
    eprintln!("the page arrived in {took:?} beside 200 idle and 200 slow connections");
    drop(idle);
    Ok(())
}

/// At the bound, the oldest connection that has sent no complete request makes room for a
/// new client; one that has been answered and is kept alive is passed over while another
/// has sent nothing, and the others stay open.
#[test]
fn at_the_bound_the_oldest_connection_without_a_request_makes_room() -> TestResult {
    let dir = tempfile::tempdir()?;
    sample(dir.path());
    let addr = serve_with(App::new(dir.path()), limits(Duration::from_secs(3600), 4));
    // The oldest: answered once, then kept alive.
    let mut kept = TcpStream::connect(addr)?;
    kept.write_all(format!("GET /static/style.css HTTP/1.1\r\nHost: {addr}\r\n\r\n").as_bytes())?;
    kept.set_read_timeout(Some(PATIENCE))?;
    let mut first = [0u8; 12];
    kept.read_exact(&mut first)?;
    assert_eq!(&first, b"HTTP/1.1 200");
    // Then one trickling its headers, and two idle.
    let slow = TcpStream::connect(addr)?;
    let stop = trickle(addr, vec![slow.try_clone()?]);
    let idle = [TcpStream::connect(addr)?, TcpStream::connect(addr)?];
    // Four open: the next client is the fifth.
    let result = timeline_status(addr);
    stop.store(true, Ordering::Relaxed);
    assert_eq!(result?.0, 200);
    // The slow one was the oldest without a request: closed without an answer.
    let rest = read_until_closed(&slow)?;
    assert!(
        !String::from_utf8_lossy(&rest).contains("HTTP/1.1"),
        "an unfinished request was answered"
    );
    assert!(
        !idle.iter().any(closed_now),
        "only one connection made room"
    );
    assert!(!closed_now(&kept), "the kept-alive one was passed over");
    Ok(())
}
