//! The server's edges over raw sockets: slow and idle clients are cut off, connections are
//! bounded, ambiguous or foreign hosts refused.

use std::io::{ErrorKind, Read as _, Write as _};
use std::net::{SocketAddr, TcpStream};
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
/// only once an idle one has been closed.
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
