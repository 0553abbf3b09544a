//! Every kind, one by one: a secret it finds, a near miss it leaves, and turning it off.

use goldfish_redact::{Config, Kind, Redactor};

use crate::table::{AWS_ID, AWS_SECRET, fake, jwt, key_block};

/// For each kind: texts holding exactly one secret of it, and near misses holding none.
fn examples(kind: Kind) -> (Vec<String>, Vec<String>) {
    let s = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    match kind {
        Kind::PrivateKey => (
            vec![
                key_block("RSA ", "\n", true),
                key_block("ENCRYPTED ", "\n", false),
            ],
            s(&[
                "-----BEGIN PRIVATE KEY----- is how the block starts",
                "PRIVATE KEY",
            ]),
        ),
        Kind::AwsAccessKeyId => (
            vec![format!("id {AWS_ID}."), "ASIAQ7FAKE2EXAMPLE99".to_string()],
            s(&[
                "AKIAIOSFODNN7EXAMPL",
                "xAKIAIOSFODNN7EXAMPLE",
                "AKIAiosfodnn7example",
            ]),
        ),
        Kind::AwsSecretAccessKey => (
            vec![
                format!("aws_secret_access_key={AWS_SECRET}"),
                format!("AWS key: {AWS_SECRET}"),
            ],
            vec![
                format!("{AWS_SECRET} with no name before it"),
                "aws key: da39a3ee5e6b4b0d3255bfef95601890afd80709".to_string(),
            ],
        ),
        Kind::GithubToken => (
            vec![
                format!("{}_{}", "ghu", fake(36, 1)),
                format!("({}_{})", "github_pat", fake(30, 2)),
            ],
            vec![
                format!("{}_{}", "ghp", fake(35, 1)),
                format!("x{}_{}", "ghp", fake(36, 1)),
            ],
        ),
        Kind::GitlabToken => (
            vec![format!("{}-{}", "glpat", fake(20, 3))],
            vec![format!("{}-{}", "glpat", fake(19, 3))],
        ),
        Kind::GoogleOauthToken => (
            vec![
                format!("token={}.{}", "ya29", fake(40, 6)),
                format!(
                    "Authorization header {}.{}-{}",
                    "ya29",
                    fake(20, 2),
                    fake(30, 3)
                ),
            ],
            vec![
                format!("{}.{}", "ya29", fake(19, 6)),
                format!("x{}.{}", "ya29", fake(40, 6)),
            ],
        ),
        Kind::SlackToken => (
            vec![
                format!("{}-{}", "xoxa", fake(20, 4)),
                format!("{}-{}", "xoxs", fake(12, 5)),
            ],
            vec![
                format!("{}-{}", "xoxz", fake(20, 4)),
                "xoxb-123".to_string(),
            ],
        ),
        Kind::SlackWebhook => (
            vec![format!("https://hooks.slack.com/workflows/{}", fake(30, 6))],
            s(&[
                "https://hooks.slack.com/",
                "https://api.slack.com/messaging/webhooks",
            ]),
        ),
        Kind::StripeKey => (
            vec![format!("{}_{}_{}", "rk", "test", fake(24, 7))],
            vec![
                format!("{}_{}_{}", "pk", "test", fake(24, 7)),
                "sk_live_short".to_string(),
            ],
        ),
        Kind::Jwt => (
            vec![jwt()],
            s(&[
                "eyJhbGciOiJIUzI1NiJ9.e30",
                "eyJ.eyJ.sig",
                "eyJhbGciOiJIUzI1NiJ9",
            ]),
        ),
        Kind::BearerToken => (
            vec![
                format!("Authorization: Basic {}", "dXNlcjpwYXNzd29yZA=="),
                format!("bearer {}", fake(20, 8)),
            ],
            s(&[
                "Authorization: Bearer YOUR_TOKEN_HERE",
                "Bearer authenticationMiddleware",
            ]),
        ),
        Kind::UrlCredentials => (
            s(&[
                "amqp://guest:Gu3st-pw@rabbit:5672",
                "ftp://ann:s3cr3t@files.local/x",
            ]),
            s(&[
                "https://ann@files.local",
                "ftp://ann:pass@files.local",
                "https://a.b:80/@x",
            ]),
        ),
        Kind::SecretAssignment => (
            s(&[
                "PGPASSWORD=Zk38-vvQ",
                "private_key: 'k8#Lm2pQz'",
                "DB_PASS=Xy7zQ9wL",
            ]),
            s(&[
                "bypass=Xy7zQ9wL",
                "password: null",
                "token=123456",
                "passwords: 3",
            ]),
        ),
        Kind::Private => (
            s(&[
                "deploy to <private>10.0.0.7 as root</private> tonight",
                "```\n<private>a <private>nested</private> b</private>\n```",
            ]),
            s(&[
                "<Private>x</Private>",
                "a </private> b",
                "the <private > tag",
            ]),
        ),
        Kind::PrivateUnclosed => (
            s(&["a <private>b\nc", "<private><private>x</private>"]),
            s(&["private>", "<privat"]),
        ),
        _ => panic!("{kind} has no examples: add them here and in tests/table.rs"),
    }
}

#[test]
fn every_kind_finds_its_secrets_and_leaves_its_near_misses() {
    let all = crate::redactor();
    for kind in Kind::ALL {
        let (secrets, misses) = examples(kind);
        assert!(!secrets.is_empty() && !misses.is_empty(), "{kind}");
        let mut config = Config::default();
        config.disabled.push(kind);
        let without = Redactor::new(&config);
        for text in secrets {
            let found = all.redact(&text);
            assert_eq!(
                found.kinds(),
                [kind],
                "{kind} in {text:?}: {:?}",
                found.findings
            );
            assert_eq!(found.findings.len(), 1, "{kind} in {text:?}");
            assert!(found.text.contains(&format!("[REDACTED:{}]", kind.name())));
            // Turned off, the kind is left, whatever else is found; a private span cannot
            // be turned off.
            let left = without.redact(&text);
            assert_eq!(
                left.findings.iter().any(|f| f.kind == kind),
                kind.is_private(),
                "{kind} off in {text:?}"
            );
        }
        for text in misses {
            let found = all.redact(&text);
            assert!(
                found.is_clean(),
                "{kind} near miss {text:?}: {:?}",
                found.findings
            );
        }
    }
}
