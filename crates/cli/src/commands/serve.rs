//! `goldfish serve`: clap → [`goldfish_web::App`], bind, one call to run.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};

use goldfish_web::{App, Server};

use crate::cli::ServeArgs;
use crate::context::Context;

/// `goldfish serve`: serves until the process is stopped.
pub(crate) fn run(ctx: &Context, a: ServeArgs) -> anyhow::Result<()> {
    let ip = a.bind.unwrap_or(IpAddr::V4(Ipv4Addr::LOCALHOST));
    let semantic = ctx.clone();
    let mut app = App::new(&ctx.home)
        .with_cwd(&ctx.cwd)
        .with_semantic(move || semantic.semantic());
    if let Some((workspace, dir)) = crate::freshness::known_project(ctx) {
        app = app.with_repository(workspace, dir);
    }
    for wt in &a.worktree {
        app = app.with_worktree(ctx.worktree(Some(wt)));
    }
    for host in a.allow_host {
        app = app.with_allowed_host(host);
    }
    let server = Server::bind(app, SocketAddr::new(ip, a.port))?;
    if !ip.is_loopback() {
        eprintln!(
            "goldfish: warning: listening on {ip}, not a loopback address: anyone who can reach \
             this machine can read the store; requests must be addressed to {ip}, localhost or \
             a host given with --allow-host NAME:PORT"
        );
    }
    let url = server.url();
    eprintln!(
        "goldfish: serving {} read-only at {url} (Ctrl-C stops)",
        ctx.home.display()
    );
    if a.open {
        open_browser(&url);
    }
    Ok(server.run()?)
}

/// Opens `url` with the desktop's opener; a failure is a warning, the server keeps running.
fn open_browser(url: &str) {
    let opener = if cfg!(target_os = "macos") {
        "open"
    } else if cfg!(windows) {
        "explorer"
    } else {
        "xdg-open"
    };
    if let Err(e) = std::process::Command::new(opener)
        .arg(url)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
    {
        eprintln!("goldfish: warning: cannot open a browser ({opener}: {e}); open {url} yourself");
    }
}
