//! Installing the default model from the Hugging Face hub at a pinned revision.

use std::io::Read;
use std::time::Duration;

use sha2::{Digest, Sha256};

use crate::dir::{Copy, ModelDir, ModelStatus, Progress};
use crate::{DEFAULT_MODEL, Error};

/// The hub repository of [`DEFAULT_MODEL`].
pub const HUB_REPO: &str = "sentence-transformers/all-MiniLM-L6-v2";
/// The pinned revision (a commit of [`HUB_REPO`]): files are fetched from it, never from a
/// moving branch.
pub const HUB_REVISION: &str = "c9745ed1d9f207416be6d2e6f8de32d1f16199bf";

/// Every file installed, its size and its SHA-256 at [`HUB_REVISION`].
const FILES: [(&str, u64, &str); 5] = [
    (
        "config.json",
        612,
        "953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41",
    ),
    (
        "model.safetensors",
        90_868_376,
        "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db",
    ),
    (
        "tokenizer.json",
        466_247,
        "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
    ),
    (
        "1_Pooling/config.json",
        190,
        "4be450dde3b0273bb9787637cfbd28fe04a7ba6ab9d36ac48e92b11e350ffc23",
    ),
    (
        "sentence_bert_config.json",
        53,
        "fc1993fde0a95c24ec6c022539d41cf6e2f7c9721e5415d6fb6897472a9cd4b7",
    ),
];

/// Hashes what passes through it.
struct Hashing<R> {
    inner: R,
    hasher: Sha256,
}

impl<R: Read> Read for Hashing<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.hasher.update(&buf[..n]);
        Ok(n)
    }
}

fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    bytes
        .iter()
        .fold(String::with_capacity(bytes.len() * 2), |mut s, b| {
            let _ = write!(s, "{b:02x}");
            s
        })
}

impl ModelDir {
    /// Installs [`DEFAULT_MODEL`] from the Hugging Face hub (`base_url`, normally
    /// `https://huggingface.co`) at [`HUB_REVISION`], checking every file's SHA-256 before the
    /// model replaces any installed one.
    ///
    /// # Errors
    /// A failed download or a digest mismatch, naming the file; an I/O failure.
    pub fn install_from_hub(
        &self,
        base_url: &str,
        progress: &mut dyn FnMut(&Progress),
    ) -> Result<ModelStatus, Error> {
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .timeout_connect(Some(Duration::from_secs(30)))
            .timeout_recv_body(Some(Duration::from_secs(60)))
            .build()
            .into();
        let total: u64 = FILES.iter().map(|f| f.1).sum();
        self.install_with(DEFAULT_MODEL, |staging| {
            let mut done = 0;
            for (file, size, expected) in FILES {
                let url = format!(
                    "{}/{HUB_REPO}/resolve/{HUB_REVISION}/{file}",
                    base_url.trim_end_matches('/')
                );
                let download = |reason: String| Error::Download {
                    url: url.clone(),
                    reason,
                };
                let mut response = agent
                    .get(&url)
                    .call()
                    .map_err(|e| download(e.to_string()))?;
                let body = response.body_mut().with_config().limit(size + 1).reader();
                let mut hashing = Hashing {
                    inner: body,
                    hasher: Sha256::new(),
                };
                let copy = Copy {
                    staging,
                    file,
                    total,
                };
                copy.run(&mut hashing, &mut done, progress, &|e| {
                    download(e.to_string())
                })?;
                let actual = hex(&hashing.hasher.finalize());
                if actual != expected {
                    return Err(Error::Digest {
                        file: file.to_owned(),
                        actual,
                        expected: expected.to_owned(),
                    });
                }
            }
            Ok(())
        })
    }
}
