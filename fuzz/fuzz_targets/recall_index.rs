//! Fuzz target: recall_index. Arbitrary bytes read as a recall index file (header, meta,
//! files, entries, vocabulary, every term's postings) must never panic: a search reading
//! a damaged index gets an error that makes it rebuild, never a crash.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = goldfish_recall::read_index_bytes(data);
});
