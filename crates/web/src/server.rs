//! The HTTP side: axum routes over the page functions, the host and method checks, and the
//! [`Server`] that binds and runs them.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use axum::Router;
use axum::extract::{Path, Query, Request, State};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::get;

use crate::html::{STYLE, not_found};
use crate::{ActivityQuery, App, Error, Page, TimelineQuery};

/// The content security policy of every answer: no script at all, styles and images only
/// from this server (inline SVG is markup, not an image), forms only to it, no framing.
const CSP: &str = "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; \
                   base-uri 'none'; frame-ancestors 'none'";

/// The router: every page under `GET` (and `HEAD`), behind the host and method checks.
pub fn router(app: App) -> Router {
    let app = Arc::new(app);
    Router::new()
        .route("/", get(timeline))
        .route("/activity", get(activity))
        .route("/w/{ws}", get(workspace))
        .route("/w/{ws}/tidy", get(tidy))
        .route("/w/{ws}/plans/{id}", get(plan))
        .route("/w/{ws}/checkpoints/{id}", get(checkpoint))
        .route("/journals", get(journals))
        .route("/journals/{name}", get(archived_journal))
        .route("/worktrees/{n}", get(worktree))
        .route("/static/style.css", get(style))
        .fallback(fallback)
        .layer(middleware::from_fn_with_state(Arc::clone(&app), guard))
        .with_state(app)
}

type Shared = State<Arc<App>>;

/// Renders a page on the blocking pool (pages read files) and answers with it.
async fn render<F>(app: Arc<App>, f: F) -> Response
where
    F: FnOnce(&App) -> Page + Send + 'static,
{
    match tokio::task::spawn_blocking(move || f(&app)).await {
        Ok(page) => respond(page),
        Err(e) => {
            eprintln!("goldfish serve: a page failed to render: {e}");
            plain(
                StatusCode::INTERNAL_SERVER_ERROR,
                "the page failed to render\n",
            )
        }
    }
}

fn with_headers(mut r: Response) -> Response {
    let h = r.headers_mut();
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CSP),
    );
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    r
}

fn respond(page: Page) -> Response {
    let status = StatusCode::from_u16(page.status).unwrap_or(StatusCode::OK);
    with_headers(
        (
            status,
            [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
            page.html,
        )
            .into_response(),
    )
}

fn plain(status: StatusCode, text: &'static str) -> Response {
    with_headers(
        (
            status,
            [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
            text,
        )
            .into_response(),
    )
}

/// Refuses what this server never does: a method other than `GET`/`HEAD` (405), a request
/// with more than one `Host` header (400: which one counts is ambiguous), a `Host` that is
/// not one of its names (403, against DNS rebinding), and an absolute-form target
/// (`GET http://host/ HTTP/1.1`) whose host is not one of them either (403, as a foreign
/// `Host`: such a target overrides the header).
async fn guard(State(app): Shared, req: Request, next: Next) -> Response {
    if req.method() != Method::GET && req.method() != Method::HEAD {
        let mut r = plain(
            StatusCode::METHOD_NOT_ALLOWED,
            "goldfish serve is read-only: only GET and HEAD are accepted\n",
        );
        r.headers_mut()
            .insert(header::ALLOW, HeaderValue::from_static("GET, HEAD"));
        return r;
    }
    let hosts = req.headers().get_all(header::HOST);
    if hosts.iter().count() > 1 {
        return plain(
            StatusCode::BAD_REQUEST,
            "a request may carry one Host header, not several\n",
        );
    }
    let allowed = |h: &str| {
        app.allowed_hosts()
            .iter()
            .any(|a| a.eq_ignore_ascii_case(h))
    };
    let host_ok = hosts
        .iter()
        .next()
        .and_then(|h| h.to_str().ok())
        .is_some_and(allowed);
    // An absolute-form target names the host itself; it must be one of ours too (with its
    // port, as the Host header would: `http://127.0.0.1:7373/`).
    let target_ok = req.uri().authority().is_none_or(|a| allowed(a.as_str()));
    if !host_ok || !target_ok {
        return plain(
            StatusCode::FORBIDDEN,
            "goldfish serve answers only requests addressed to its own address (Host header)\n",
        );
    }
    next.run(req).await
}

async fn timeline(State(app): Shared, Query(q): Query<TimelineQuery>) -> Response {
    render(app, move |a| crate::timeline(a, &q)).await
}

async fn activity(State(app): Shared, Query(q): Query<ActivityQuery>) -> Response {
    render(app, move |a| crate::activity(a, &q)).await
}

async fn workspace(State(app): Shared, Path(ws): Path<String>) -> Response {
    render(app, move |a| crate::workspace(a, &ws)).await
}

async fn tidy(State(app): Shared, Path(ws): Path<String>) -> Response {
    render(app, move |a| crate::tidy(a, &ws)).await
}

async fn plan(State(app): Shared, Path((ws, id)): Path<(String, String)>) -> Response {
    render(app, move |a| crate::plan(a, &ws, &id)).await
}

/// The checkpoint page's query: the day the checkpoint was saved on.
#[derive(Debug, serde::Deserialize)]
struct DayQuery {
    day: Option<String>,
}

async fn checkpoint(
    State(app): Shared,
    Path((ws, id)): Path<(String, String)>,
    Query(q): Query<DayQuery>,
) -> Response {
    render(app, move |a| {
        crate::checkpoint(a, &ws, &id, q.day.as_deref())
    })
    .await
}

async fn journals(State(app): Shared) -> Response {
    render(app, crate::journals).await
}

async fn archived_journal(State(app): Shared, Path(name): Path<String>) -> Response {
    render(app, move |a| crate::archived_journal(a, &name)).await
}

async fn worktree(State(app): Shared, Path(n): Path<String>) -> Response {
    render(app, move |a| match n.parse::<usize>() {
        Ok(n) => crate::worktree(a, n),
        Err(_) => not_found(&format!("{n:?} is not a worktree number.")),
    })
    .await
}

async fn style() -> Response {
    with_headers(([(header::CONTENT_TYPE, "text/css; charset=utf-8")], STYLE).into_response())
}

async fn fallback(req: Request) -> Response {
    let path = req.uri().path().to_string();
    respond(not_found(&format!("Nothing is served at {path}.")))
}

/// The server's bounds against slow, idle and many clients, and against the memory of many
/// pages rendered at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Limits {
    /// How long a client may take to send a request's headers, counted from when the server
    /// starts waiting for them: a client trickling one byte a second is cut off, and so is
    /// a kept-alive connection idle this long. Default 10 seconds.
    pub header_timeout: Duration,
    /// Connections open at once (default 512). A client arriving at the bound is never
    /// left waiting behind idle or slow ones: the oldest connection that has sent no
    /// complete request yet is closed to make room (when every one has, the oldest closes
    /// once its answer is sent). An open connection costs little (about 10 KiB; its
    /// request head may take at most 64 KiB), so the bound caps memory and descriptors
    /// rather than who gets served.
    pub max_connections: usize,
    /// Pages rendered at once (default 1). A page over all the store's checkpoints holds
    /// them while it renders (about 150 MiB for 100,000 checkpoints); more requests wait
    /// their turn rather than each holding its own copy, so memory stays bounded however
    /// many clients ask at once (20 clients over 100,000 checkpoints: 254 MiB at the peak,
    /// where one thread per request reached 3.1 GiB), and fewer rendering threads leave the
    /// allocator fewer per-thread arenas holding freed memory afterwards.
    pub max_renders: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            header_timeout: Duration::from_secs(10),
            max_connections: 512,
            max_renders: 1,
        }
    }
}

/// A bound, not yet running server.
#[derive(Debug)]
pub struct Server {
    listener: std::net::TcpListener,
    addr: SocketAddr,
    app: App,
    limits: Limits,
}

impl Server {
    /// Binds `addr` (port 0 picks a free one) for `app`, and adds the bound address to the
    /// hosts it answers, with `localhost:PORT` for a loopback address, and `localhost`,
    /// `127.0.0.1` and `[::1]` (with the port) for an unspecified one (`0.0.0.0`, `::`).
    ///
    /// # Errors
    ///
    /// [`Error::Bind`] naming the address and saying why: the port is in use, needs
    /// privileges, or the machine has no such address.
    pub fn bind(mut app: App, addr: SocketAddr) -> Result<Server, Error> {
        let bind_error = |source: std::io::Error| {
            let message = match source.kind() {
                std::io::ErrorKind::AddrInUse => format!(
                    "port {} is already in use by another program; choose another with --port",
                    addr.port()
                ),
                std::io::ErrorKind::PermissionDenied => format!(
                    "not permitted to listen on port {} (ports under 1024 need privileges); choose another with --port",
                    addr.port()
                ),
                std::io::ErrorKind::AddrNotAvailable => {
                    format!("this machine has no address {}", addr.ip())
                }
                _ => source.to_string(),
            };
            Error::Bind {
                addr,
                message,
                source,
            }
        };
        let listener = std::net::TcpListener::bind(addr).map_err(bind_error)?;
        listener.set_nonblocking(true).map_err(bind_error)?;
        let bound = listener.local_addr().map_err(bind_error)?;
        app.allowed_hosts.push(bound.to_string());
        let port = bound.port();
        if bound.ip().is_loopback() {
            app.allowed_hosts.push(format!("localhost:{port}"));
        } else if bound.ip().is_unspecified() {
            // Every address of the machine: this machine's own names work as usual; the
            // names others use must be given (`App::with_allowed_host`).
            for host in ["localhost", "127.0.0.1", "[::1]"] {
                app.allowed_hosts.push(format!("{host}:{port}"));
            }
        }
        Ok(Server {
            listener,
            addr: bound,
            app,
            limits: Limits::default(),
        })
    }

    /// Runs with `limits` instead of [`Limits::default`] (a zero count is taken as 1).
    pub fn with_limits(mut self, limits: Limits) -> Server {
        self.limits = limits;
        self
    }

    /// The address bound (with the port chosen when 0 was asked).
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// The URL of the timeline: `http://ADDR/`.
    pub fn url(&self) -> String {
        format!("http://{}/", self.addr)
    }

    /// Serves until the process ends, on a single-threaded runtime; pages render on its
    /// blocking pool, whose [`Limits::max_renders`] threads are all that ever render. Each
    /// connection is HTTP/1 with [`Limits::header_timeout`]; at most
    /// [`Limits::max_connections`] are open at once, the oldest idle one making room for a
    /// new client at the bound.
    ///
    /// # Errors
    ///
    /// [`Error::Io`] when the runtime cannot start or the listener fails.
    pub fn run(self) -> Result<(), Error> {
        let Server {
            listener,
            app,
            limits,
            ..
        } = self;
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_io()
            .enable_time()
            .max_blocking_threads(limits.max_renders.max(1))
            .build()?;
        runtime.block_on(async move {
            let listener = tokio::net::TcpListener::from_std(listener)?;
            serve(listener, router(app), limits).await
        })?;
        Ok(())
    }
}

/// The most a request's head (request line and headers) may take: hyper's read buffer stops
/// there (`431` beyond), so a client trickling headers holds at most this much however long
/// it trickles, rather than hyper's default of about 400 KiB. Far above what a browser sends.
const MAX_REQUEST_HEAD: usize = 64 * 1024;

/// One open connection, as the accept loop sees it: whether a request has reached the
/// router yet, and how to ask its task to close it.
#[derive(Debug, Default)]
struct Slot {
    /// No request has reached the router yet: the client is idle since it connected, or
    /// still sending its first request's headers. Closing it loses nothing of anyone's.
    fresh: std::sync::atomic::AtomicBool,
    /// Already asked to close (it is not asked twice, and another is chosen next time).
    closing: std::sync::atomic::AtomicBool,
    /// Wakes the connection's task to close it.
    close: tokio::sync::Notify,
}

/// The open connections, oldest first.
#[derive(Debug, Default)]
struct Open {
    slots: std::sync::Mutex<std::collections::VecDeque<Arc<Slot>>>,
}

impl Open {
    fn add(&self) -> Arc<Slot> {
        let slot = Arc::new(Slot::default());
        slot.fresh.store(true, Ordering::Relaxed);
        self.lock().push_back(Arc::clone(&slot));
        slot
    }

    fn remove(&self, slot: &Arc<Slot>) {
        self.lock().retain(|s| !Arc::ptr_eq(s, slot));
    }

    /// Asks the oldest connection with no request yet to close, or else the oldest one not
    /// asked already (it closes once its answer is sent, or at once when idle between
    /// requests). Returns whether one was asked.
    fn evict_one(&self) -> bool {
        let slots = self.lock();
        let open = || slots.iter().filter(|s| !s.closing.load(Ordering::Relaxed));
        let victim = open()
            .find(|s| s.fresh.load(Ordering::Relaxed))
            .or_else(|| open().next());
        match victim {
            Some(slot) => {
                slot.closing.store(true, Ordering::Relaxed);
                slot.close.notify_one();
                true
            }
            None => false,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, std::collections::VecDeque<Arc<Slot>>> {
        // The list is only pushed to, filtered and searched: a panic elsewhere while it was
        // held leaves it whole.
        self.slots
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// The accept loop: one task per connection, each holding a permit of `limits`' connection
/// bound until it closes. At the bound, a new client is not left waiting behind idle ones:
/// the oldest connection that has sent no request yet is closed to make room (or, when every
/// connection has, the oldest one once its answer is sent), so idle and slow clients cannot
/// starve others however many they open, and what they cost stays bounded by the limit.
async fn serve(
    listener: tokio::net::TcpListener,
    router: Router,
    limits: Limits,
) -> std::io::Result<()> {
    use hyper::service::Service as _;
    use hyper_util::rt::{TokioIo, TokioTimer};
    use hyper_util::service::TowerToHyperService;

    let permits = Arc::new(tokio::sync::Semaphore::new(limits.max_connections.max(1)));
    let open = Arc::new(Open::default());
    loop {
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            Err(e) => {
                // Out of descriptors, or a connection reset before it was accepted: the
                // listener itself is fine. An idle connection's descriptor is worth more to
                // the client waiting; then wait a little rather than spin.
                eprintln!("goldfish serve: cannot accept a connection: {e}");
                open.evict_one();
                tokio::time::sleep(Duration::from_millis(10)).await;
                continue;
            }
        };
        let permit = match Arc::clone(&permits).try_acquire_owned() {
            Ok(permit) => permit,
            Err(_) => {
                open.evict_one();
                Arc::clone(&permits)
                    .acquire_owned()
                    .await
                    .map_err(std::io::Error::other)?
            }
        };
        let slot = open.add();
        let service = {
            let slot = Arc::clone(&slot);
            let router = TowerToHyperService::new(router.clone());
            hyper::service::service_fn(move |req: hyper::Request<hyper::body::Incoming>| {
                slot.fresh.store(false, Ordering::Relaxed);
                router.call(req)
            })
        };
        let mut builder = hyper::server::conn::http1::Builder::new();
        builder
            .timer(TokioTimer::new())
            .header_read_timeout(limits.header_timeout)
            .max_buf_size(MAX_REQUEST_HEAD);
        let open = Arc::clone(&open);
        tokio::spawn(async move {
            let connection = builder.serve_connection(TokioIo::new(stream), service);
            let mut connection = std::pin::pin!(connection);
            let mut asked = std::pin::pin!(slot.close.notified());
            let closed = std::future::poll_fn(|cx| {
                if connection.as_mut().poll(cx).is_ready() {
                    return std::task::Poll::Ready(true);
                }
                asked.as_mut().poll(cx).map(|()| false)
            })
            .await;
            if !closed && !slot.fresh.load(Ordering::Relaxed) {
                // A request has been answered or is being answered: finish it, then close.
                connection.as_mut().graceful_shutdown();
                let _ = connection.await;
            }
            // A client that goes away or times out ends only its own connection; one with no
            // request yet is closed by dropping it. The socket is closed (dropped with the
            // connection) before the slot is given back.
            open.remove(&slot);
            drop(permit);
        });
    }
}
