//! `goldfish mcp` driven by the MCP Inspector's command line (`@modelcontextprotocol/inspector
//! --cli`, from npm), a second client that is not ours: tools/list, tools/call of every tool,
//! resources/list, resources/templates/list and resources/read.
//!
//! The pinned package is installed once with npm into a directory under the target directory
//! (later runs are offline). Needs `npm` (and node) the first time; a missing npm fails the
//! test with what to install: it is an acceptance criterion and must not silently pass.
//!
//! The Inspector's client (the TypeScript SDK) lists the tools before each call and validates
//! `structuredContent` against the tool's `outputSchema` itself (a mismatch is an error);
//! the checks here repeat that at the top level, so they hold whatever the client does.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::util::{Env, TestResult, bin};

/// The pinned Inspector: 0.17.x runs on Node 20 (later majors need Node 22).
const INSPECTOR_VERSION: &str = "0.17.5";

/// Installs the Inspector once.
fn inspector() -> Result<PathBuf, Box<dyn std::error::Error>> {
    crate::util::npm_install(
        "the MCP Inspector test",
        "mcp-inspector",
        "@modelcontextprotocol/inspector",
        INSPECTOR_VERSION,
        "mcp-inspector",
    )
}

/// Runs the Inspector CLI against `goldfish mcp` in `env`; `args` follow `--method`.
fn inspect(program: &Path, env: &Env, args: &[&str]) -> Result<Value, Box<dyn std::error::Error>> {
    let home = format!("GOLDFISH_HOME={}", env.home().display());
    let out = Command::new(program)
        .arg("--cli")
        .args(["-e", &home, "-e", "GOLDFISH_WORKSPACE=inspector"])
        .arg(bin())
        .arg("mcp")
        .arg("--method")
        .args(args)
        .current_dir(env.cwd.path())
        .output()?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        return Err(format!(
            "inspector {args:?} failed ({:?}):\n{stdout}\n{}",
            out.status.code(),
            String::from_utf8_lossy(&out.stderr)
        )
        .into());
    }
    serde_json::from_str(&stdout)
        .map_err(|e| format!("inspector {args:?}: not JSON ({e}): {stdout}").into())
}

/// The JSON Schema type name of `v`.
fn type_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_u64() || n.is_i64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// A successful call's structured content: present, every required key there, no key the
/// schema does not name, and each top-level value of the declared type.
fn check_structured(tool: &str, schema: &Value, result: &Value) -> TestResult {
    if result["isError"] == true {
        return Err(format!("{tool} failed: {result}").into());
    }
    let content = result["structuredContent"]
        .as_object()
        .ok_or_else(|| format!("{tool}: no structuredContent in {result}"))?;
    let props = schema["properties"].as_object().ok_or("no properties")?;
    for key in schema["required"].as_array().into_iter().flatten() {
        let key = key.as_str().ok_or("required key")?;
        if !content.contains_key(key) {
            return Err(format!("{tool}: required `{key}` missing from {result}").into());
        }
    }
    for (key, value) in content {
        let declared = props
            .get(key)
            .ok_or_else(|| format!("{tool}: `{key}` is not in the output schema"))?;
        if let Some(t) = declared["type"].as_str() {
            let actual = type_of(value);
            if t != actual && !(t == "number" && actual == "integer") {
                return Err(format!("{tool}: `{key}` is {actual}, the schema says {t}").into());
            }
        }
    }
    Ok(())
}

#[test]
fn inspector_cli_lists_calls_and_reads() -> TestResult {
    let program = inspector()?;
    let env = Env::new()?;

    let tools = inspect(&program, &env, &["tools/list"])?;
    let tools = tools["tools"].as_array().ok_or("no tools")?;
    let mut names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    names.sort_unstable();
    assert_eq!(names, ["checkpoint", "forget", "plan", "recall"]);
    let schema_of = |name: &str| -> Value {
        tools
            .iter()
            .find(|t| t["name"] == name)
            .map(|t| t["outputSchema"].clone())
            .unwrap_or(Value::Null)
    };
    for tool in tools {
        let name = tool["name"].as_str().unwrap_or_default();
        assert!(tool["title"].is_string(), "{name}: no title");
        assert_eq!(tool["outputSchema"]["type"], "object", "{name}");
        assert_eq!(tool["annotations"]["openWorldHint"], false, "{name}");
    }
    let recall = tools
        .iter()
        .find(|t| t["name"] == "recall")
        .ok_or("recall")?;
    assert_eq!(recall["annotations"]["readOnlyHint"], true);
    assert_eq!(recall["annotations"]["idempotentHint"], true);

    let r = inspect(
        &program,
        &env,
        &[
            "tools/call",
            "--tool-name",
            "checkpoint",
            "--tool-arg",
            "description=Checked with the Inspector",
            "--tool-arg",
            r#"tags=["inspector","mcp"]"#,
        ],
    )?;
    check_structured("checkpoint", &schema_of("checkpoint"), &r)?;
    let id = r["structuredContent"]["id"].as_str().ok_or("no id")?;
    assert!(
        r["content"][0]["text"]
            .as_str()
            .is_some_and(|t| t.contains(id)),
        "{r}"
    );

    for args in [
        &[
            "--tool-arg",
            "action=save",
            "--tool-arg",
            "title=Inspector plan",
            "--tool-arg",
            "content=- [x] list\n- [ ] call",
        ][..],
        &["--tool-arg", "action=get"][..],
        &["--tool-arg", "action=list"][..],
    ] {
        let mut all = vec!["tools/call", "--tool-name", "plan"];
        all.extend_from_slice(args);
        let r = inspect(&program, &env, &all)?;
        check_structured("plan", &schema_of("plan"), &r)?;
    }
    let r = inspect(&program, &env, &["tools/call", "--tool-name", "recall"])?;
    check_structured("recall", &schema_of("recall"), &r)?;
    assert_eq!(
        r["structuredContent"]["active_plan"]["title"],
        "Inspector plan"
    );
    assert_eq!(r["structuredContent"]["checkpoints"][0]["id"], id);

    let listed = inspect(&program, &env, &["resources/list"])?;
    let uris: Vec<&str> = listed["resources"]
        .as_array()
        .ok_or("no resources")?
        .iter()
        .filter_map(|r| r["uri"].as_str())
        .collect();
    assert!(uris.contains(&"goldfish://inspector/plan"), "{uris:?}");
    assert!(
        uris.contains(&"goldfish://inspector/checkpoints"),
        "{uris:?}"
    );
    let templates = inspect(&program, &env, &["resources/templates/list"])?;
    assert!(
        templates
            .to_string()
            .contains("goldfish://{workspace}/plans/{id}"),
        "{templates}"
    );
    for (uri, needle) in [
        ("goldfish://inspector/plan", "Inspector plan"),
        (
            "goldfish://inspector/checkpoints",
            "Checked with the Inspector",
        ),
        ("goldfish://inspector/plans/inspector-plan", "- [ ] call"),
    ] {
        let read = inspect(&program, &env, &["resources/read", "--uri", uri])?;
        let text = read["contents"][0]["text"].as_str().unwrap_or_default();
        assert!(text.contains(needle), "{uri}: {read}");
    }
    Ok(())
}
