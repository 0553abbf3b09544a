//! The table tests: true secrets in realistic sentences, and look-alikes that must stay.
//!
//! Tokens are put together at run time from parts (and AWS's documented example key), so that
//! this file does not itself look like a leak to a secret scanner.

use goldfish_redact::{Config, Finding, Kind, Redactor};

/// `n` base62 characters of a fixed, varied sequence starting at `seed`.
pub(crate) fn fake(n: usize, seed: usize) -> String {
    const CYCLE: &[u8] = b"aB3dE5fG7hJ9kL1mN2pQ4rS6tU8vW0xYz";
    (0..n)
        .map(|i| CYCLE[(seed + i * 7) % CYCLE.len()] as char)
        .collect()
}

/// The documented example keys of AWS.
pub(crate) const AWS_ID: &str = "AKIAIOSFODNN7EXAMPLE";
pub(crate) const AWS_SECRET: &str = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";

/// jwt.io's example token, in its three parts.
pub(crate) fn jwt() -> String {
    [
        "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9",
        "eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ",
        "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
    ]
    .join(".")
}

/// A private key block of `kind` (`RSA `, `OPENSSH `, ``) with `sep` between lines.
pub(crate) fn key_block(kind: &str, sep: &str, end: bool) -> String {
    let mut lines = vec![format!("-----BEGIN {kind}{}-----", "PRIVATE KEY")];
    for seed in 0..4 {
        lines.push(format!("MII{}", fake(61, seed)));
    }
    lines.push(format!("{}==", fake(10, 9)));
    if end {
        lines.push(format!("-----END {kind}{}-----", "PRIVATE KEY"));
    }
    lines.join(sep)
}

/// A text and the secrets in it, each appearing in it exactly once.
struct Case {
    text: String,
    secrets: Vec<(Kind, String)>,
}

fn case(text: String, secrets: &[(Kind, &str)]) -> Case {
    Case {
        text,
        secrets: secrets.iter().map(|(k, s)| (*k, s.to_string())).collect(),
    }
}

fn true_secrets() -> Vec<Case> {
    use Kind::*;
    let ghp = format!("{}_{}", "ghp", fake(36, 1));
    let gho = format!("{}_{}", "gho", fake(36, 2));
    let ghs = format!("{}_{}", "ghs", fake(36, 3));
    let ghr = format!("{}_{}", "ghr", fake(40, 4));
    let pat = format!("{}_{}_{}", "github_pat", fake(22, 5), fake(59, 6));
    let glpat = format!("{}-{}", "glpat", fake(20, 7));
    let glpat2 = format!("{}-{}", "glpat", fake(26, 8));
    let xoxb = format!("{}-1234567890-{}", "xoxb", fake(24, 9));
    let xoxp = format!("{}-2222222222-3333333333-{}", "xoxp", fake(32, 10));
    let hook = format!(
        "T0000{}/B0000{}/{}",
        fake(4, 1).to_uppercase(),
        "9ZZ",
        fake(24, 11)
    );
    let sk_live = format!("{}_{}_{}", "sk", "live", fake(24, 12));
    let rk_live = format!("{}_{}_{}", "rk", "live", fake(24, 13));
    let sk_test = format!("{}_{}_{}", "sk", "test", fake(30, 14));
    let jwt = jwt();
    let asia = "ASIAQ7FAKE2EXAMPLE99";
    let key = key_block("RSA ", "\n", true);
    let ssh = key_block("OPENSSH ", "\r\n", true);
    let escaped = key_block("", "\\n", true);
    let truncated = key_block("EC ", "\n", false);
    // Cut off, with `\n` escapes, and escaped once more by a format that escapes backslashes.
    let truncated_escaped = key_block("OPENSSH ", "\\n", false);
    let truncated_twice = key_block("OPENSSH ", "\\\\n", false);
    let google = format!("{}.{}", "ya29", fake(48, 19));
    let bearer = format!("{}.{}-{}", fake(12, 15), fake(8, 16), fake(10, 17));
    let token_scheme = fake(40, 18);
    vec![
        case(
            format!("The CI job used {AWS_ID} for the upload step."),
            &[(AwsAccessKeyId, AWS_ID)],
        ),
        case(
            format!("export AWS_ACCESS_KEY_ID={asia}"),
            &[(AwsAccessKeyId, asia)],
        ),
        case(
            format!(r#"{{"AccessKeyId": "{AWS_ID}", "Expiration": "2026-03-17T10:00:00Z"}}"#),
            &[(AwsAccessKeyId, AWS_ID)],
        ),
        case(
            format!(
                "[default]\naws_access_key_id = {AWS_ID}\naws_secret_access_key = {AWS_SECRET}\n"
            ),
            &[(AwsAccessKeyId, AWS_ID), (AwsSecretAccessKey, AWS_SECRET)],
        ),
        case(
            format!("note: the aws secret key is {AWS_SECRET} so rotate it today"),
            &[(AwsSecretAccessKey, AWS_SECRET)],
        ),
        case(
            format!("env: AWS_SECRET_ACCESS_KEY=\"{AWS_SECRET}\" in the runner"),
            &[(AwsSecretAccessKey, AWS_SECRET)],
        ),
        case(
            format!("pushed with {ghp} from the laptop"),
            &[(GithubToken, &ghp)],
        ),
        case(
            format!(r#"{{"access_token":"{gho}","scope":"repo"}}"#),
            &[(GithubToken, &gho)],
        ),
        case(
            format!("git clone https://x-access-token:{ghs}@github.com/org/repo.git"),
            &[(GithubToken, &ghs)],
        ),
        case(format!("refresh ({ghr}) expired"), &[(GithubToken, &ghr)]),
        case(format!("GH_TOKEN={pat} gh pr list"), &[(GithubToken, &pat)]),
        case(
            format!("curl -H 'PRIVATE-TOKEN: {glpat}' https://gitlab.example.com/api/v4/projects"),
            &[(GitlabToken, &glpat)],
        ),
        case(
            format!("The GitLab token {glpat2} has api scope."),
            &[(GitlabToken, &glpat2)],
        ),
        case(format!("SLACK_BOT_TOKEN: {xoxb}"), &[(SlackToken, &xoxb)]),
        case(
            format!("posting as user {xoxp}, then retrying"),
            &[(SlackToken, &xoxp)],
        ),
        case(
            format!("alerts go to https://hooks.slack.com/services/{hook} now"),
            &[(SlackWebhook, &hook)],
        ),
        case(
            format!("stripe.api_key = \"{sk_live}\""),
            &[(StripeKey, &sk_live)],
        ),
        case(
            format!("the restricted key {rk_live} reads charges only"),
            &[(StripeKey, &rk_live)],
        ),
        case(
            format!("tests run against {sk_test}."),
            &[(StripeKey, &sk_test)],
        ),
        case(
            format!("decoded {jwt} to check the exp claim"),
            &[(Jwt, &jwt)],
        ),
        case(
            format!("Set-Cookie: session={jwt}; HttpOnly"),
            &[(Jwt, &jwt)],
        ),
        case(
            format!("Authorization: Bearer {bearer}"),
            &[(BearerToken, &bearer)],
        ),
        case(
            format!("curl -H \"authorization: token {token_scheme}\" https://api.example.com"),
            &[(BearerToken, &token_scheme)],
        ),
        case(
            format!("the log showed Bearer {} in the request", fake(32, 19)),
            &[(BearerToken, &fake(32, 19))],
        ),
        case(
            "DATABASE_URL=postgres://app:Sup3rS3cret@db.internal:5432/app".to_string(),
            &[(UrlCredentials, "Sup3rS3cret")],
        ),
        case(
            "cache at redis://:p4ssw0rdX@cache.local:6379/0 is shared".to_string(),
            &[(UrlCredentials, "p4ssw0rdX")],
        ),
        case(
            "mirror https://deploy:t0k3n-ab%40cd@git.example.org/repo.git daily".to_string(),
            &[(UrlCredentials, "t0k3n-ab%40cd")],
        ),
        case(
            "password=hunter2hunter2\n".to_string(),
            &[(SecretAssignment, "hunter2hunter2")],
        ),
        case(
            "db_password: 'Xk9#mP2$vL'".to_string(),
            &[(SecretAssignment, "Xk9#mP2$vL")],
        ),
        case(
            r#"{"apiKey": "a1b2c3d4e5f6g7h8i9j0", "region": "eu"}"#.to_string(),
            &[(SecretAssignment, "a1b2c3d4e5f6g7h8i9j0")],
        ),
        case(
            "SECRET_KEY = 'django-insecure-x8#k2!p'".to_string(),
            &[(SecretAssignment, "django-insecure-x8#k2!p")],
        ),
        case(
            "in the notes: passwd: correcthorsebatterystaple (old)".to_string(),
            &[(SecretAssignment, "correcthorsebatterystaple")],
        ),
        case(
            format!("export OPENAI_API_KEY={}-{}-{}", "sk", "proj", fake(40, 21)),
            &[(
                SecretAssignment,
                &format!("{}-{}-{}", "sk", "proj", fake(40, 21)),
            )],
        ),
        case(
            format!(
                "//registry.npmjs.org/:_authToken={}_{}",
                "npm",
                fake(36, 22)
            ),
            &[(SecretAssignment, &format!("{}_{}", "npm", fake(36, 22)))],
        ),
        case(
            format!(r#"headers: {{"Authorization": "Bearer {}"}}"#, fake(30, 23)),
            &[(BearerToken, &fake(30, 23))],
        ),
        case(
            "api_key = cfg.api_key = s3cr3tV4lue, said the old config".to_string(),
            &[(SecretAssignment, "s3cr3tV4lue")],
        ),
        case(
            "ran ./deploy --token=Zq9xW2pLm4Rt --verbose".to_string(),
            &[(SecretAssignment, "Zq9xW2pLm4Rt")],
        ),
        case(
            "GET /token?client_id=web&client_secret=AbCdEf123456GhIjKl&grant_type=code".to_string(),
            &[(SecretAssignment, "AbCdEf123456GhIjKl")],
        ),
        case(
            format!("the deploy key:\n{key}\nwas in the repo"),
            &[(PrivateKey, &key)],
        ),
        case(format!("id_ed25519 =\r\n{ssh}\r\n"), &[(PrivateKey, &ssh)]),
        // The key and the assigned value overlap: the finding covers both, named by the key.
        case(
            format!(r#"{{"private_key": "{escaped}\n", "type": "service"}}"#),
            &[(PrivateKey, &format!("{escaped}\\n"))],
        ),
        case(
            format!(r#"{{"pem": "{escaped}", "type": "service"}}"#),
            &[(PrivateKey, &escaped)],
        ),
        case(
            format!("pasted half a key:\n{truncated}\n\nthen stopped"),
            &[(PrivateKey, &truncated)],
        ),
        case(
            format!("key: {truncated_escaped}"),
            &[(PrivateKey, &truncated_escaped)],
        ),
        case(
            format!("- decision: {truncated_twice}"),
            &[(PrivateKey, &truncated_twice)],
        ),
        case(
            format!("curl -d token={google} https://oauth2.example.com/tokeninfo"),
            &[(GoogleOauthToken, &google)],
        ),
        case(
            format!("two at once: {AWS_ID} and {ghp}, both rotated"),
            &[(AwsAccessKeyId, AWS_ID), (GithubToken, &ghp)],
        ),
    ]
}

fn look_alikes() -> Vec<String> {
    let words = [
        "fixed in 3f2a9c1, reverted in 3f2a9c1e",
        "commit da39a3ee5e6b4b0d3255bfef95601890afd80709 on main",
        "commit: da39a3ee5e6b4b0d3255bfef95601890afd80709",
        "request 123e4567-e89b-12d3-a456-426614174000 failed",
        "id: 123e4567-e89b-12d3-a456-426614174000",
        "edited src/auth/token.rs and crates/store/src/secret.rs",
        "credentials: ~/.aws/credentials",
        "ssl_key: /etc/ssl/private/server.key",
        "token_file=./secrets/token.txt",
        "the password field must be hashed before the password is stored",
        "rotate the api key every 90 days; the secret lives in vault",
        "api_key: <redacted>",
        "api_key: \"<your-api-key>\"",
        "password=",
        "password=****",
        "password: ${DB_PASSWORD}",
        "password=changeme",
        "password = os.environ[\"DB_PASSWORD\"]",
        "password: get_password()",
        "password: config.database.password",
        "token: <your-token>",
        "AKIA keys are long-term; ASIA ones are temporary",
        "the header starts with eyJ, which is {\" in base64",
        "header eyJhbGciOiJIUzI1NiJ9 alone is no token",
        "released v1.4.2, then 1.0.0-beta.3+exp.sha.5114f85, regex 1.11",
        "mail alice.smith@example.com or bob+ci@example.org",
        "https://github.com/goldfish-memory/goldfish/pull/42",
        "https://example.com:8443/path@v2 and ssh://git@github.com:22/org/repo.git",
        "git@github.com:org/repo.git",
        "Bearer tokens expire after an hour",
        "Authorization: Bearer <token>",
        "Authorization: Bearer $TOKEN",
        "tokenizer: bert-base-uncased, max_tokens=4096",
        "ghp_123 is too short to be a token, so is github_pat_",
        "glpat- tokens need the api scope; xoxb- tokens belong to bots",
        "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA\n-----END PUBLIC KEY-----",
        "-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQUF\n-----END CERTIFICATE-----",
        "PWD=/home/alice/project OLDPWD=/home/alice",
        "image sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        "secret: true, token: null, password: required",
        "password_hint: the pet's name",
        "aws_region=us-east-1",
        "redis://localhost:6379/0",
        "postgres://user:password@localhost/db",
        "[REDACTED:github-token] was in the log, and [REDACTED:jwt] too",
        "digest 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
        "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
        "the class PasswordResetTokenGenerator and fn verify_api_key(key: &str)",
    ];
    let mut out: Vec<String> = words.iter().map(|s| s.to_string()).collect();
    out.push(format!("{}_{}_{}", "pk", "live", fake(24, 20)));
    out.push(format!(
        "the aws secret key digest is {}",
        "da39a3ee5e6b4b0d3255bfef95601890afd80709"
    ));
    out
}

#[test]
fn true_secrets_are_redacted() {
    let redactor = crate::redactor();
    let cases = true_secrets();
    assert!(cases.len() >= 30);
    for Case { text, secrets } in cases {
        let mut expected = text.clone();
        let mut findings = Vec::new();
        for (kind, secret) in &secrets {
            let at = text
                .find(secret.as_str())
                .unwrap_or_else(|| panic!("{secret} not in {text}"));
            findings.push(Finding {
                kind: *kind,
                range: at..at + secret.len(),
            });
            expected = expected.replacen(secret.as_str(), &format!("[REDACTED:{kind}]"), 1);
        }
        findings.sort_by_key(|f| f.range.start);
        let redacted = redactor.redact(&text);
        assert_eq!(redacted.text, expected, "in {text:?}");
        assert_eq!(redacted.findings, findings, "in {text:?}");
        // Once is enough: the output is left as it is.
        let again = redactor.redact(&redacted.text);
        assert!(
            again.is_clean(),
            "{:?} found again in {:?}",
            again.findings,
            redacted.text
        );
    }
}

#[test]
fn look_alikes_are_left_alone() {
    let redactor = crate::redactor();
    let cases = look_alikes();
    assert!(cases.len() >= 30);
    for text in cases {
        let redacted = redactor.redact(&text);
        assert_eq!(redacted.findings, [], "in {text:?}");
        assert!(matches!(redacted.text, std::borrow::Cow::Borrowed(_)));
    }
}

#[test]
fn a_disabled_kind_is_left_and_the_others_still_redacted() {
    let mut config = Config::default();
    config.disabled = vec![Kind::Jwt, Kind::Jwt];
    let redactor = Redactor::new(&config);
    assert_eq!(redactor.disabled(), [Kind::Jwt]);
    let text = format!("{} and {AWS_ID}", jwt());
    let redacted = redactor.redact(&text);
    assert_eq!(
        redacted.text,
        format!("{} and [REDACTED:aws-access-key-id]", jwt())
    );
    assert_eq!(crate::redactor().redact(&text).findings.len(), 2);
}

#[test]
fn in_place() {
    let mut field = format!("key {AWS_ID} here");
    let findings = crate::redactor().redact_in_place(&mut field);
    assert_eq!(field, "key [REDACTED:aws-access-key-id] here");
    assert_eq!(
        findings,
        [Finding {
            kind: Kind::AwsAccessKeyId,
            range: 4..24
        }]
    );
    let mut clean = "nothing here".to_string();
    let before = clean.as_ptr();
    assert!(crate::redactor().redact_in_place(&mut clean).is_empty());
    assert_eq!((clean.as_str(), clean.as_ptr()), ("nothing here", before));
}

#[test]
fn summary_and_json() {
    let redactor = crate::redactor();
    let ghp = format!("{}_{}", "ghp", fake(36, 1));
    let text = format!("{AWS_ID} {ghp} {ghp}x {}", "plain");
    let redacted = redactor.redact(&text);
    assert_eq!(
        redacted.summary(),
        "redacted 3 secrets: aws-access-key-id, github-token ×2"
    );
    assert_eq!(redactor.redact("nothing").summary(), "nothing redacted");
    let one = redactor.redact(AWS_ID);
    assert_eq!(one.summary(), "redacted 1 secret: aws-access-key-id");
    let json = serde_json::to_value(&one.findings).unwrap();
    assert_eq!(
        json,
        serde_json::json!([{"kind": "aws-access-key-id", "range": {"start": 0, "end": 20}}])
    );
}
