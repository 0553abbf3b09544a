//! Fuzz target: a hook's stdin (any bytes, as the binary reads them: lossy UTF-8) is read or
//! refused, never a panic; what is read names each file once, trimmed and non-empty, and
//! an input made of the fields read gives them back.
#![no_main]
use goldfish_session::hooks::HookInput;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let Ok(input) = HookInput::parse(&text) else {
        return;
    };
    for (i, f) in input.files.iter().enumerate() {
        assert!(!f.is_empty() && f.trim() == f, "a file is trimmed and non-empty: {f:?}");
        assert!(!input.files[..i].contains(f), "each file once: {f:?}");
    }
    let again = serde_json::json!({
        "session_id": input.session,
        "cwd": input.cwd,
        "prompt": input.prompt,
        "source": input.source,
        "tool_input": {"file_path": input.files.first()},
    });
    let back = HookInput::parse(&again.to_string()).expect("its own fields read back");
    assert_eq!(back.session, input.session);
    assert_eq!(back.prompt, input.prompt);
    assert_eq!(back.cwd, input.cwd);
    assert_eq!(back.files.first(), input.files.first());
});
