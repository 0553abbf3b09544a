//! `goldfish signal …` and `goldfish pipeline …`, over `goldfish_signals`.

use std::fmt::Write as _;
use std::path::Path;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{Context as _, bail};
use goldfish_signals::{
    CancelOutcome, ErrorKind, Pipeline, PipelineRunner, RunnerOptions, ScanReport, Signal,
    SignalDir, SignalKind,
};
use notes_core::time::format_utc;
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
    let body: Option<Value> = match (e.body, e.field.is_empty()) {
        (Some(text), _) => {
            let text = stdin_if_dash(text)?;
            if text.trim().is_empty() {
                None
            } else {
                let value: Value = serde_json::from_str(&text).map_err(|err| {
                    anyhow::anyhow!("malformed JSON body for {kind}: {err}; nothing was written")
                })?;
                Some(value)
            }
        }
        (None, false) => Some(Value::Object(fields_to_object(&e.field)?)),
        (None, true) => None,
    };
    let body = body.map(|mut b| {
        if let Value::Object(obj) = &mut b {
            obj.entry("completed_at")
                .or_insert_with(|| Value::String(format_utc(&chrono::Utc::now())));
        }
        b
    });
    let signal = Signal::from_value(kind, body).map_err(|err| {
        anyhow::anyhow!("{err}").context(format!("invalid {kind} body; nothing was written"))
    })?;
    let path = dir.emit(&signal)?;
    let value = signal.to_value();
    let text = format!("Emitted {kind} → {}", path.display());
    Ok(Report::new(
        text,
        json!({"kind": kind.file_name(), "path": path, "body": value}),
    ))
}

fn pipeline_json(p: &Pipeline) -> Value {
    serde_json::from_str(&p.to_json()).unwrap_or(Value::Null)
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
    if !p.is_terminal() {
        let expected: Vec<&str> = p
            .stage()
            .expected_signals()
            .iter()
            .map(|k| k.file_name())
            .collect();
        let _ = write!(s, "\nWaiting for: {}", expected.join(" or "));
    }
    s
}

fn report_problems(report: &ScanReport) {
    for p in &report.problems {
        eprintln!("goldfish: warning: {p}");
    }
}

/// `goldfish pipeline …`.
pub(crate) fn pipeline(ctx: &Context, a: PipelineArgs) -> anyhow::Result<Report> {
    let worktree = ctx.worktree(a.worktree.as_deref());
    match a.command {
        PipelineCommand::Start => {
            let runner = PipelineRunner::start(&worktree, RunnerOptions::default())?;
            let p = runner.pipeline().clone();
            Ok(Report::new(
                format!(
                    "Pipeline started in {}\n{}",
                    worktree.display(),
                    pipeline_text(&p)
                ),
                pipeline_json(&p),
            ))
        }
        PipelineCommand::Status => {
            let Some(p) = status(&worktree)? else {
                bail!(
                    "no pipeline in {}: start one with `goldfish pipeline start`",
                    worktree.display()
                );
            };
            Ok(Report::new(pipeline_text(&p), pipeline_json(&p)))
        }
        PipelineCommand::Watch { interval, timeout } => watch(&worktree, interval, timeout),
        PipelineCommand::Cancel => {
            match PipelineRunner::request_cancel(
                &worktree,
                "cancelled with `goldfish pipeline cancel`",
            )? {
                CancelOutcome::Cancelled(p) => Ok(Report::new(
                    format!("Pipeline cancelled.\n{}", pipeline_text(&p)),
                    pipeline_json(&p),
                )),
                CancelOutcome::Requested(path) => Ok(Report::new(
                    format!(
                        "A runner is watching this pipeline; cancel requested through {}",
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

/// The pipeline after applying the signals present, or as persisted when a runner holds it.
fn status(worktree: &Path) -> anyhow::Result<Option<Pipeline>> {
    let Some(persisted) = PipelineRunner::status(worktree)? else {
        return Ok(None);
    };
    if persisted.is_terminal() {
        return Ok(Some(persisted));
    }
    let mut options = RunnerOptions::default();
    options.use_events = false;
    match PipelineRunner::open(worktree, options) {
        Ok(mut runner) => {
            let report = runner.scan_once()?;
            report_problems(&report);
            Ok(Some(runner.pipeline().clone()))
        }
        // A `pipeline watch` elsewhere drives it: show what it persisted.
        Err(e) if matches!(e.kind(), ErrorKind::Locked) => Ok(Some(persisted)),
        Err(e) => Err(e.into()),
    }
}

fn watch(worktree: &Path, interval: f64, timeout: Option<f64>) -> anyhow::Result<Report> {
    if !(interval.is_finite() && interval > 0.0) {
        bail!("--interval must be a positive number of seconds");
    }
    let mut options = RunnerOptions::default();
    options.poll_interval = Duration::from_secs_f64(interval);
    PipelineRunner::status(worktree)?.with_context(|| {
        format!(
            "no pipeline in {}: start one with `goldfish pipeline start`",
            worktree.display()
        )
    })?;
    let mut runner = PipelineRunner::open(worktree, options)?;
    let deadline = timeout.map(|t| Instant::now() + Duration::from_secs_f64(t.max(0.0)));
    eprintln!(
        "goldfish: watching {} at {}",
        worktree.display(),
        runner.stage().as_str()
    );
    loop {
        let report = runner.scan_once()?;
        report_problems(&report);
        if let Some(t) = &report.transition {
            eprintln!("goldfish: {} → {}", t.from.as_str(), t.to.as_str());
            if !runner.pipeline().is_terminal() {
                continue;
            }
        }
        if runner.pipeline().is_terminal() {
            break;
        }
        let mut wait = Duration::from_secs_f64(interval);
        if let Some(r) = report.rescan_after {
            wait = wait.min(r);
        }
        if let Some(d) = deadline {
            let now = Instant::now();
            if now >= d {
                break;
            }
            wait = wait.min(d - now);
        }
        std::thread::sleep(wait);
    }
    let p = runner.pipeline().clone();
    let code = match p.stage().as_str() {
        "DONE" => ExitCode::SUCCESS,
        _ if !p.is_terminal() => ExitCode::from(3),
        _ => ExitCode::FAILURE,
    };
    Ok(Report::new(pipeline_text(&p), pipeline_json(&p)).with_code(code))
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
