//! Reading `tokenizer.json` quickly when its model is WordPiece (BERT's).
//!
//! The `tokenizers` crate reads a model through two untagged enums: a WordPiece vocabulary
//! of 30,522 words is buffered, copied into a `serde_json::Value` (a sorted map) and only then
//! into the model's hash map, which made parsing all-MiniLM-L6-v2's tokenizer a fifth of a
//! one-shot recall. Here the file is read in one pass into the same parts (normalizer,
//! pre-tokenizer, post-processor, decoder, truncation, padding, added tokens) and the
//! WordPiece vocabulary straight into its map; the tokenizer is then assembled the way
//! `tokenizers` assembles it (its builder, then the added tokens). Any other file, or one this
//! pass cannot read, goes through `tokenizers` itself, which also words the errors.

use serde::Deserialize;
use tokenizers::models::wordpiece::WordPiece;
use tokenizers::{
    AddedToken, DecoderWrapper, ModelWrapper, NormalizerWrapper, PaddingParams,
    PostProcessorWrapper, PreTokenizerWrapper, Tokenizer, TokenizerBuilder, TruncationParams,
};

/// The fields of `tokenizer.json` that `tokenizers` reads, with a WordPiece model.
#[derive(Deserialize)]
struct TokenizerFile {
    version: Option<String>,
    truncation: Option<TruncationParams>,
    padding: Option<PaddingParams>,
    #[serde(default)]
    added_tokens: Vec<AddedTokenWithId>,
    normalizer: Option<NormalizerWrapper>,
    pre_tokenizer: Option<PreTokenizerWrapper>,
    model: WordPieceFile,
    decoder: Option<DecoderWrapper>,
    post_processor: Option<PostProcessorWrapper>,
}

/// An added token as the file lists it (its id is the model's or the next free one, as
/// `tokenizers` decides when it adds it).
#[derive(Deserialize)]
struct AddedTokenWithId {
    #[serde(flatten)]
    token: AddedToken,
}

/// A WordPiece model's fields.
#[derive(Deserialize)]
struct WordPieceFile {
    #[serde(rename = "type")]
    kind: Option<String>,
    unk_token: String,
    continuing_subword_prefix: String,
    max_input_chars_per_word: usize,
    vocab: ahash::AHashMap<String, u32>,
}

/// The tokenizer in `json` (the bytes of a `tokenizer.json`).
pub(crate) fn parse(json: &[u8]) -> tokenizers::Result<Tokenizer> {
    match serde_json::from_slice::<TokenizerFile>(json) {
        Ok(file)
            if file.model.kind.as_deref() == Some("WordPiece")
                && file.version.as_deref().is_none_or(|v| v == "1.0") =>
        {
            build(file)
        }
        _ => Tokenizer::from_bytes(json),
    }
}

fn build(file: TokenizerFile) -> tokenizers::Result<Tokenizer> {
    let model = WordPiece::builder()
        .vocab(file.model.vocab)
        .unk_token(file.model.unk_token)
        .continuing_subword_prefix(file.model.continuing_subword_prefix)
        .max_input_chars_per_word(file.model.max_input_chars_per_word)
        .build()?;
    let tokenizer = TokenizerBuilder::<
        ModelWrapper,
        NormalizerWrapper,
        PreTokenizerWrapper,
        PostProcessorWrapper,
        DecoderWrapper,
    >::new()
    .with_model(ModelWrapper::WordPiece(model))
    .with_normalizer(file.normalizer)
    .with_pre_tokenizer(file.pre_tokenizer)
    .with_post_processor(file.post_processor)
    .with_decoder(file.decoder)
    .with_truncation(file.truncation)
    .with_padding(file.padding)
    .build()?;
    let mut tokenizer = Tokenizer::from(tokenizer);
    let added: Vec<AddedToken> = file.added_tokens.into_iter().map(|t| t.token).collect();
    tokenizer.add_tokens(&added);
    Ok(tokenizer)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A BERT tokenizer as sentence-transformers ships it: normalizer, pre-tokenizer,
    /// template post-processor, decoder, padding, truncation and special tokens.
    const BERT: &str = r###"{
      "version": "1.0",
      "truncation": {"direction": "Right", "max_length": 128, "strategy": "LongestFirst", "stride": 0},
      "padding": {"strategy": {"Fixed": 128}, "direction": "Right", "pad_to_multiple_of": null,
                  "pad_id": 0, "pad_type_id": 0, "pad_token": "[PAD]"},
      "added_tokens": [
        {"id": 0, "content": "[PAD]", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true},
        {"id": 1, "content": "[UNK]", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true},
        {"id": 2, "content": "[CLS]", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true},
        {"id": 3, "content": "[SEP]", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true},
        {"id": 4, "content": "[MASK]", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true},
        {"id": 13, "content": "<new>", "single_word": true, "lstrip": false, "rstrip": false, "normalized": true, "special": false}
      ],
      "normalizer": {"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": true,
                     "strip_accents": null, "lowercase": true},
      "pre_tokenizer": {"type": "BertPreTokenizer"},
      "post_processor": {"type": "TemplateProcessing",
        "single": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": "[SEP]", "type_id": 0}}],
        "pair": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": "[SEP]", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 1}}, {"SpecialToken": {"id": "[SEP]", "type_id": 1}}],
        "special_tokens": {"[CLS]": {"id": "[CLS]", "ids": [2], "tokens": ["[CLS]"]},
                           "[SEP]": {"id": "[SEP]", "ids": [3], "tokens": ["[SEP]"]}}},
      "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": true},
      "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
                "max_input_chars_per_word": 100,
                "vocab": {"[PAD]": 0, "[UNK]": 1, "[CLS]": 2, "[SEP]": 3, "[MASK]": 4, "the": 5,
                          "login": 6, "test": 7, "fail": 8, "##ed": 9, "on": 10, "stag": 11, "##ing": 12}}
    }"###;

    #[test]
    fn a_wordpiece_tokenizer_reads_as_tokenizers_reads_it()
    -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
        let fast = parse(BERT.as_bytes())?;
        let reference = Tokenizer::from_bytes(BERT.as_bytes())?;
        // Every part, the vocabulary and the added tokens with their ids, serialised alike.
        assert_eq!(fast.to_string(false)?, reference.to_string(false)?);
        for text in [
            "The login test FAILED on staging",
            "the <new> test",
            "unknown words [MASK] here",
        ] {
            let (a, b) = (fast.encode(text, true)?, reference.encode(text, true)?);
            assert_eq!(a.get_ids(), b.get_ids(), "{text}");
            assert_eq!(a.get_type_ids(), b.get_type_ids(), "{text}");
            assert_eq!(a.get_attention_mask(), b.get_attention_mask(), "{text}");
        }
        Ok(())
    }

    #[test]
    fn other_files_and_errors_go_through_tokenizers() {
        // A WordPiece model without its type, and a broken file: read (or refused) by
        // `tokenizers` itself, with its words.
        let untyped = BERT.replacen(r#""type": "WordPiece", "unk_token""#, r#""unk_token""#, 1);
        assert_ne!(untyped, BERT);
        let a = parse(untyped.as_bytes()).map(|t| t.to_string(false).ok());
        let b = Tokenizer::from_bytes(untyped.as_bytes()).map(|t| t.to_string(false).ok());
        assert_eq!(a.ok(), b.ok());
        let broken = &BERT[..BERT.len() / 2];
        let a = parse(broken.as_bytes()).err().map(|e| e.to_string());
        let b = Tokenizer::from_bytes(broken.as_bytes())
            .err()
            .map(|e| e.to_string());
        assert!(a.is_some());
        assert_eq!(a, b);
    }
}
