//! Config checks at load time: a provider's base URL that is not http(s), or not a URL, is a
//! load error pointing at its line and column; duplicate provider ids and user providers
//! that replace a built-in load with warnings naming both.
// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use tack_engine::config::{Config, ConfigError};

fn provider(id: &str, url: &str) -> String {
    format!(
        "[[providers]]\nid = \"{id}\"\nname = \"Mine {id}\"\nbase_url = \"{url}\"\nwire = \"chat\"\nmodel = \"m\"\n\n"
    )
}

fn load(text: &str) -> Result<(Config, Vec<String>), ConfigError> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.toml");
    std::fs::write(&path, text).unwrap();
    Config::load_with_warnings(&path)
        .map(|(c, w)| (c, w.into_iter().map(|w| w.to_string()).collect()))
}

#[test]
fn base_urls_that_are_not_http_urls_are_load_errors_with_line_and_column() {
    for (url, why) in [
        ("file:///etc/passwd", "the scheme `file`"),
        ("ftp://host/v1", "the scheme `ftp`"),
        ("javascript://x", "the scheme `javascript`"),
        ("localhost:8080/v1", "is not a URL"),
        ("not a url", "is not a URL"),
        ("http:///v1", "has no host"),
        ("http://host:99999/v1", "invalid port"),
        ("http://ho st/v1", "spaces"),
    ] {
        let text = format!(
            "default_provider = \"ok\"\n\n{}{}",
            provider("ok", "http://127.0.0.1:8000/v1"),
            provider("bad", url)
        );
        let err = load(&text).unwrap_err();
        let ConfigError::Parse {
            line,
            column,
            message,
            ..
        } = &err
        else {
            panic!("{url}: {err}");
        };
        // `base_url` of the second provider: line 1, a blank, the first entry and a blank, then `[[providers]]`, `id`, `name`.
        assert_eq!(*line, Some(13), "{url}: {err}");
        assert_eq!(*column, Some(12), "{url}: {err}");
        assert!(message.contains("provider `bad`"), "{url}: {message}");
        assert!(message.contains(why), "{url}: {message}");
        // The plain loader refuses it the same way.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        std::fs::write(&path, &text).unwrap();
        assert!(Config::load(&path).is_err(), "{url}");
    }
    // Inline tables are pointed at too.
    let err = load("providers = [ { id = \"x\", name = \"X\", base_url = \"gopher://h\", wire = \"chat\", model = \"m\" } ]\n").unwrap_err();
    assert!(
        matches!(
            err,
            ConfigError::Parse {
                line: Some(1),
                column: Some(50),
                ..
            }
        ),
        "{err:?}"
    );
    // Good URLs load without warnings.
    for url in [
        "http://127.0.0.1:8000/v1",
        "https://api.example.com/v1",
        "HTTPS://[::1]:443/v1",
    ] {
        let (_, warnings) = load(&provider("mine", url)).unwrap();
        assert!(warnings.is_empty(), "{url}: {warnings:?}");
    }
}

#[test]
fn duplicate_ids_and_shadowed_built_ins_are_warnings_naming_both() {
    let text = format!(
        "{}{}{}",
        provider("work", "http://a/v1"),
        provider("work", "http://b/v1"),
        provider("openai", "http://proxy/v1")
    );
    let (config, warnings) = load(&text).unwrap();
    assert_eq!(config.providers.len(), 3);
    assert_eq!(warnings.len(), 2, "{warnings:?}");
    assert!(
        warnings[0].starts_with(
            "line 9: provider id `work` is defined twice: `Mine work` (line 2) and `Mine work`"
        ),
        "{}",
        warnings[0]
    );
    assert!(warnings[1].starts_with("line 16: provider `openai` (`Mine openai`, http://proxy/v1) replaces the built-in provider `openai`"), "{}", warnings[1]);
}
