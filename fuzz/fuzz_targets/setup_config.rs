//! Fuzz target: setup's JSON (Claude Code, Cursor) and TOML (Codex) editors never panic,
//! and what they accept they edit consistently: after registering, the file parses and reads
//! back the server registered; registering again changes nothing; removing leaves no
//! registration, and removing again changes nothing.
#![no_main]
use goldfish_setup::{Client, Server, register, registration, unregister};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    // The first byte picks a command so the fuzzer also edits a stale registration.
    let mut server = Server::default();
    if data.first().is_some_and(|b| b % 2 == 1) {
        server.command = "/opt/gold fish/\"bin\"".to_owned();
    }
    for client in [Client::Claude, Client::Codex] {
        let _ = registration(client, text);
        if let Ok(removed) = unregister(client, text) {
            assert_eq!(
                registration(client, &removed).ok().flatten(),
                None,
                "{client:?}: removed, yet still registered"
            );
            assert_eq!(
                unregister(client, &removed).ok().as_deref(),
                Some(removed.as_str()),
                "{client:?}: removing twice changed the file"
            );
        }
        let Ok(added) = register(client, text, &server) else {
            continue;
        };
        assert_eq!(
            registration(client, &added).ok().flatten().as_ref(),
            Some(&server),
            "{client:?}: registered, but reads back otherwise:\n{added}"
        );
        assert_eq!(
            register(client, &added, &server).ok().as_deref(),
            Some(added.as_str()),
            "{client:?}: registering twice changed the file"
        );
        let removed = unregister(client, &added).expect("a file setup wrote can be edited again");
        assert_eq!(
            registration(client, &removed).ok().flatten(),
            None,
            "{client:?}: removed, yet still registered"
        );
    }
});
