//! What of a checkpoint is embedded ([`embedding_text`]), and the key its vector is cached
//! under ([`text_key`]): the index records the key per entry, the vector file per vector.

use goldfish_store::Checkpoint;

/// The text of a checkpoint that is embedded: its description (title and body), its typed
/// fields and its tags.
#[must_use]
pub fn embedding_text(cp: &Checkpoint) -> String {
    let mut text = cp.description.clone();
    crate::fields::typed_text(cp, |t| {
        text.push('\n');
        text.push_str(t);
    });
    if !cp.tags.is_empty() {
        text.push('\n');
        text.push_str(&cp.tags.join(", "));
    }
    text
}

/// The key of an embedded text in the vector cache: its 64-bit FNV-1a hash (a hash whose
/// output never changes between builds).
#[must_use]
pub fn text_key(text: &str) -> u64 {
    use std::hash::Hasher;
    let mut h = fnv::FnvHasher::default();
    h.write(text.as_bytes());
    h.finish()
}
