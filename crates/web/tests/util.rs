//! A store with known checkpoints, a server on a free port, and raw HTTP requests.

use std::io::{Read as _, Write as _};
use std::net::{SocketAddr, TcpStream};

use chrono::{DateTime, TimeZone as _, Utc};
use goldfish_store::{Checkpoint, Store};
use goldfish_web::{App, Server};

pub(crate) type TestResult = Result<(), Box<dyn std::error::Error>>;

/// The fixed "now" of the test stores: Monday 2 March 2026, noon UTC.
pub(crate) fn now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 3, 2, 12, 0, 0)
        .single()
        .expect("a valid date")
}

/// A checkpoint `hours` before [`now`].
pub(crate) fn checkpoint(ws: &str, hours: i64, description: &str, tags: &[&str]) -> Checkpoint {
    let ts = now() - chrono::Duration::hours(hours);
    let id = format!("{}-{ws}{hours}", ts.format("%Y%m%dT%H%M%S%3fZ"));
    let mut c = Checkpoint::new(id, ts, ws, description);
    c.tags = tags.iter().map(|t| (*t).to_string()).collect();
    c
}

/// Writes `checkpoints` into a store at `root`.
pub(crate) fn store_with(root: &std::path::Path, checkpoints: &[Checkpoint]) -> Store {
    let store = Store::open(root).expect("open the store");
    for c in checkpoints {
        store.import_checkpoint(c).expect("import a checkpoint");
    }
    store
}

/// The default test store: two workspaces over three days, and hostile text.
pub(crate) fn sample(root: &std::path::Path) -> Store {
    store_with(
        root,
        &[
            checkpoint(
                "api",
                1,
                "Fixed the auth timeout\nRefresh tokens now last 60 min.",
                &["auth", "bug-fix"],
            ),
            checkpoint(
                "api",
                3,
                "Refactored database queries\nFewer round trips.",
                &["database"],
            ),
            checkpoint("web", 26, "Login page redesign", &["ui"]),
            checkpoint("web", 50, "Set up the CI pipeline", &["ci"]),
        ],
    )
}

/// Serves `app` on a free loopback port from a background thread; returns its address. The
/// listener is bound before this returns, so requests queue until the thread accepts them.
pub(crate) fn serve(app: App) -> SocketAddr {
    let server =
        Server::bind(app, SocketAddr::from(([127, 0, 0, 1], 0))).expect("bind a free port");
    let addr = server.local_addr();
    std::thread::spawn(move || server.run());
    addr
}

/// An HTTP answer.
#[derive(Debug)]
pub(crate) struct Answer {
    pub(crate) status: u16,
    pub(crate) head: String,
    pub(crate) body: String,
}

impl Answer {
    /// The value of a header (name without regard to case).
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        self.head.lines().skip(1).find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.trim().eq_ignore_ascii_case(name).then(|| v.trim())
        })
    }
}

/// Sends `raw` (a whole request) and reads the whole answer (the server closes the
/// connection after it, as each request asks).
pub(crate) fn raw(addr: SocketAddr, request: &str) -> Answer {
    let mut s = TcpStream::connect(addr).expect("connect");
    s.write_all(request.as_bytes()).expect("send the request");
    let mut bytes = Vec::new();
    s.read_to_end(&mut bytes).expect("read the answer");
    let text = String::from_utf8(bytes).expect("a UTF-8 answer");
    let (head, body) = text.split_once("\r\n\r\n").expect("a head and a body");
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .expect("a status line");
    Answer {
        status,
        head: head.to_string(),
        body: body.to_string(),
    }
}

/// `method target` with the server's own `Host`.
pub(crate) fn request(addr: SocketAddr, method: &str, target: &str) -> Answer {
    raw(
        addr,
        &format!(
            "{method} {target} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n"
        ),
    )
}

/// `GET target`.
pub(crate) fn get(addr: SocketAddr, target: &str) -> Answer {
    request(addr, "GET", target)
}
