//! `goldfish signal …` and `goldfish pipeline …`, over `goldfish_signals`.

use std::fmt::Write as _;
use std::path::Path;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{Context as _, bail};
use goldfish_core::time::format_utc;
use goldfish_signals::{
    CancelOutcome, Pipeline, PipelineRunner, PresentSignal, RunEvent, RunnerOptions, ScanReport,
    Signal, SignalDir, SignalKind, Stage,
};
use serde_json::{Map, Value, json};

use crate::args::stdin_if_dash;
use crate::cli::{PipelineArgs, PipelineCommand, SignalArgs, SignalCommand, SignalEmitArgs};
use crate::context::Context;
use crate::output::Report;

fn kind_of(s: &str) -> anyhow::Result<SignalKind> {
    Ok(s.parse::<SignalKind>()?)
}

/// `goldfish signal …`.
pub(crate) fn signal(ctx: &Context, a: SignalArgs) -> anyhow::Result<Report> {
    let worktree = ctx.worktree(a.worktree.as_deref());
    let dir = SignalDir::new(&worktree);
    match a.command {
        SignalCommand::Emit(e) => emit(&dir, e),
        SignalCommand::List => {
            let mut text = String::new();
            let mut items = Vec::new();
            for p in dir.present() {
                match &p.signal {
                    Ok(s) => {
                        let body = s.to_value();
                        let _ = writeln!(
                            text,
                            "{}{}",
                            p.kind,
                            body.as_ref().map(|b| format!(" {b}")).unwrap_or_default()
                        );
                        items.push(json!({"kind": p.kind.file_name(), "path": p.path, "body": body, "valid": true}));
                    }
                    Err(e) => {
                        let _ = writeln!(text, "{} INVALID: {e}", p.kind);
                        items.push(json!({"kind": p.kind.file_name(), "path": p.path, "valid": false, "error": e.to_string()}));
                    }
                }
            }
            if items.is_empty() {
                let _ = writeln!(text, "No signals in {}", dir.path().display());
            }
            Ok(Report::new(
                text,
                json!({"dir": dir.path(), "signals": items}),
            ))
        }
        SignalCommand::Clear { kinds } => {
            let removed: Vec<SignalKind> = if kinds.is_empty() {
                dir.clear_all()?
            } else {
                let mut removed = Vec::new();
                for k in kinds {
                    let kind = kind_of(&k)?;
                    if dir.clear(kind)? {
                        removed.push(kind);
                    }
                }
                removed
            };
            let names: Vec<&str> = removed.iter().map(|k| k.file_name()).collect();
            let text = if names.is_empty() {
                "No signals removed.".to_string()
            } else {
                format!("Removed: {}", names.join(", "))
            };
            Ok(Report::new(text, json!({"removed": names})))
        }
    }
}

/// Parses `KEY=VALUE` flags into a JSON object; VALUE is JSON when it parses, text otherwise.
fn fields_to_object(fields: &[String]) -> anyhow::Result<Map<String, Value>> {
    let mut obj = Map::new();
    for f in fields {
        let Some((key, value)) = f.split_once('=') else {
            bail!("field {f:?} is not KEY=VALUE (e.g. -f commits=3 or -f reason=\"flaky test\")");
        };
        let key = key.trim();
        if key.is_empty() {
            bail!("field {f:?} has an empty key");
        }
        let value = serde_json::from_str::<Value>(value)
            .unwrap_or_else(|_| Value::String(value.to_string()));
        obj.insert(key.to_string(), value);
    }
    Ok(obj)
}

fn emit(dir: &SignalDir, e: SignalEmitArgs) -> anyhow::Result<Report> {
    let kind = kind_of(&e.kind)?;
    let text = match (e.body, e.body_file) {
        (Some(text), _) => Some(stdin_if_dash(text)?),
        (None, Some(path)) => Some(
            std::fs::read_to_string(&path)
                .with_context(|| format!("cannot read --body-file {}", path.display()))?,
        ),
        (None, None) => None,
    };
    let body: Option<Value> = match text {
        Some(text) if text.trim().is_empty() => None,
        Some(text) => Some(serde_json::from_str(&text).map_err(|err| {
            anyhow::anyhow!("malformed JSON body for {kind}: {err}; nothing was written")
        })?),
        None if !e.field.is_empty() => Some(Value::Object(fields_to_object(&e.field)?)),
        None => None,
    };
    let signal = Signal::from_value(kind, body).map_err(|err| {
        anyhow::anyhow!("{err}").context(format!("invalid {kind} body; nothing was written"))
    })?;
    let (path, signal) = dir.emit_stamped(signal)?;
    let text = format!("Emitted {kind} → {}", path.display());
    Ok(Report::new(
        text,
        json!({"kind": kind.file_name(), "path": path, "body": signal.to_value()}),
    ))
}

/// `pipeline --json`: the pipeline as it serialises (the shape of `pipeline.json`).
fn pipeline_json(p: &Pipeline) -> anyhow::Result<Value> {
    Ok(serde_json::to_value(p)?)
}

fn pipeline_text(p: &Pipeline) -> String {
    let mut s = format!("Stage: {}", p.stage().as_str());
    let _ = write!(s, " (retries {}/{})", p.retries(), p.max_retries());
    if let Some(reason) = p.reason() {
        let _ = write!(s, " — {reason}");
    }
    let _ = write!(
        s,
        "\nStarted {} · updated {}",
        format_utc(&p.started_at()),
        format_utc(&p.updated_at())
    );
    s
}

/// What the stage waits for, and which of those signals are already there.
fn waiting_text(p: &Pipeline, pending: &[PresentSignal]) -> String {
    if p.is_terminal() {
        return String::new();
    }
    let missing: Vec<&str> = goldfish_signals::expected_signals(p.stage())
        .iter()
        .filter(|k| !pending.iter().any(|s| s.kind == **k))
        .map(|k| k.file_name())
        .collect();
    let mut s = String::new();
    if !pending.is_empty() {
        let present: Vec<String> = pending
            .iter()
            .map(|p| match &p.signal {
                Ok(_) => p.kind.file_name().to_string(),
                Err(e) => format!("{} (unreadable: {e})", p.kind.file_name()),
            })
            .collect();
        let _ = write!(
            s,
            "\nPresent, not applied yet: {} (`goldfish pipeline advance` applies it now; a running `goldfish pipeline watch` does so by itself)",
            present.join(", ")
        );
    }
    if pending.is_empty() && !missing.is_empty() {
        let _ = write!(s, "\nWaiting for: {}", missing.join(" or "));
    }
    s
}

fn report_problems(report: &ScanReport) {
    for p in &report.problems {
        crate::output::eprintln_inert!("goldfish: warning: {p}");
    }
}

fn no_pipeline(worktree: &Path) -> anyhow::Error {
    anyhow::anyhow!(
        "no pipeline in {}: start one with `goldfish pipeline start`",
        worktree.display()
    )
}

/// Exit codes of `goldfish pipeline watch` (also in its `--help` and the README).
pub(crate) mod watch_exit {
    /// The pipeline reached DONE.
    pub(crate) const DONE: u8 = 0;
    /// The pipeline ended FAILED (too many retries).
    pub(crate) const FAILED: u8 = 3;
    /// The pipeline was cancelled.
    pub(crate) const CANCELLED: u8 = 4;
    /// `--timeout` passed before the pipeline ended.
    pub(crate) const TIMEOUT: u8 = 5;
}

/// `goldfish pipeline …`.
pub(crate) fn pipeline(ctx: &Context, a: PipelineArgs) -> anyhow::Result<Report> {
    let worktree = ctx.worktree(a.worktree.as_deref());
    match a.command {
        PipelineCommand::Start => {
            let runner = PipelineRunner::start(&worktree, RunnerOptions::default())?;
            let p = runner.pipeline();
            Ok(Report::new(
                format!(
                    "Pipeline started in {}\n{}{}",
                    worktree.display(),
                    pipeline_text(p),
                    waiting_text(p, &[])
                ),
                pipeline_json(p)?,
            ))
        }
        PipelineCommand::Status => {
            let view = PipelineRunner::inspect(&worktree)?.ok_or_else(|| no_pipeline(&worktree))?;
            let p = &view.pipeline;
            let mut json = pipeline_json(p)?;
            json["pending"] = view
                .pending
                .iter()
                .map(|s| json!({"kind": s.kind.file_name(), "path": s.path, "valid": s.signal.is_ok()}))
                .collect::<Vec<_>>()
                .into();
            Ok(Report::new(
                format!("{}{}", pipeline_text(p), waiting_text(p, &view.pending)),
                json,
            ))
        }
        PipelineCommand::Advance => {
            PipelineRunner::status(&worktree)?.ok_or_else(|| no_pipeline(&worktree))?;
            let mut options = RunnerOptions::default();
            options.use_events = false;
            let mut runner = PipelineRunner::open(&worktree, options)?;
            let reports = runner.advance()?;
            let mut moves = Vec::new();
            for r in &reports {
                report_problems(r);
                if let Some(t) = &r.transition {
                    moves.push(format!("{} → {}", t.from.as_str(), t.to.as_str()));
                }
            }
            let p = runner.pipeline();
            let head = if moves.is_empty() {
                "No signal to apply.".to_string()
            } else {
                format!("Applied: {}", moves.join(", "))
            };
            let view = PipelineRunner::inspect(&worktree)?.ok_or_else(|| no_pipeline(&worktree))?;
            Ok(Report::new(
                format!(
                    "{head}\n{}{}",
                    pipeline_text(p),
                    waiting_text(p, &view.pending)
                ),
                pipeline_json(p)?,
            ))
        }
        PipelineCommand::Watch { interval, timeout } => watch(ctx, &worktree, interval, timeout),
        PipelineCommand::Cancel => {
            match PipelineRunner::request_cancel(
                &worktree,
                "cancelled with `goldfish pipeline cancel`",
            )? {
                CancelOutcome::Cancelled(p) => Ok(Report::new(
                    format!("Pipeline cancelled.\n{}", pipeline_text(&p)),
                    pipeline_json(&p)?,
                )),
                CancelOutcome::Requested(path) => Ok(Report::new(
                    format!(
                        "A `goldfish pipeline watch` is driving this pipeline; cancel requested through {}",
                        path.display()
                    ),
                    json!({"requested": path}),
                )),
                CancelOutcome::AlreadyEnded(stage) => {
                    bail!(
                        "the pipeline already ended at {}; nothing to cancel",
                        stage.as_str()
                    )
                }
                CancelOutcome::NoPipeline => {
                    bail!("no pipeline in {} to cancel", worktree.display())
                }
                other => bail!("unexpected cancel outcome: {other:?}"),
            }
        }
    }
}

/// One line per event of the runner, printed as it happens: on stdout for people, on stderr
/// with `--json` (stdout then carries only the final document).
fn print_event(json: bool, line: &str) {
    use std::io::Write as _;
    if json {
        crate::output::eprintln_inert!("goldfish: {line}");
    } else {
        let mut out = std::io::stdout().lock();
        // A closed pipe must not stop the runner; the final report meets the same pipe.
        let _ = writeln!(out, "{}", goldfish_core::inert(line)).and_then(|()| out.flush());
    }
}

fn watch(
    ctx: &Context,
    worktree: &Path,
    interval: f64,
    timeout: Option<f64>,
) -> anyhow::Result<Report> {
    if !(interval.is_finite() && interval > 0.0) {
        bail!("--interval must be a positive number of seconds");
    }
    if let Some(t) = timeout
        && !(t.is_finite() && t >= 0.0)
    {
        bail!("--timeout must be a number of seconds, 0 or more");
    }
    PipelineRunner::status(worktree)?.ok_or_else(|| no_pipeline(worktree))?;
    let mut options = RunnerOptions::default();
    options.poll_interval = Duration::from_secs_f64(interval);
    options.deadline = timeout.map(|t| Instant::now() + Duration::from_secs_f64(t));
    let mut runner = PipelineRunner::open(worktree, options)?;
    let json = ctx.json;
    let p = runner
        .run_until_terminal(|event| match event {
            RunEvent::StageStarted(start) => match &start.transition {
                None => print_event(
                    json,
                    &format!(
                        "Watching {} at {}",
                        worktree.display(),
                        start.stage.as_str()
                    ),
                ),
                Some(t) => {
                    let by = t
                        .signal
                        .as_ref()
                        .map(|s| format!(" ({})", s.kind().file_name()))
                        .unwrap_or_default();
                    let reason = t
                        .reason
                        .as_deref()
                        .map(|r| format!(" — {r}"))
                        .unwrap_or_default();
                    print_event(
                        json,
                        &format!("{} → {}{by}{reason}", t.from.as_str(), t.to.as_str()),
                    );
                }
            },
            RunEvent::Scanned(report) => report_problems(report),
            _ => {}
        })?
        .clone();
    let code = match p.stage() {
        Stage::Done => watch_exit::DONE,
        Stage::Failed => watch_exit::FAILED,
        Stage::Cancelled => watch_exit::CANCELLED,
        _ => watch_exit::TIMEOUT,
    };
    let mut text = pipeline_text(&p);
    if !p.is_terminal() {
        let _ = write!(
            text,
            "\nStopped watching: --timeout passed before the pipeline ended."
        );
    }
    Ok(Report::new(text, pipeline_json(&p)?).with_code(ExitCode::from(code)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_flags() {
        let f = |v: &[&str]| fields_to_object(&v.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        let obj = f(&[
            "commits=3",
            "reason=flaky login",
            "screenshots=[\"a.png\"]",
            "x=",
        ])
        .unwrap();
        assert_eq!(
            Value::Object(obj),
            json!({"commits": 3, "reason": "flaky login", "screenshots": ["a.png"], "x": ""})
        );
        assert!(f(&["novalue"]).is_err());
        assert!(f(&["=3"]).is_err());
    }
}
