//! Fuzz target: recall_vectors. Arbitrary bytes read as a workspace's vector file (header,
//! model id, records, checksum), a chunk of records at a time as a recall reads it, must
//! never panic: a damaged file is refused and its entries embedded again, never a crash.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = goldfish_recall::read_vector_bytes(data);
});
