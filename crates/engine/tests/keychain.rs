//! The keychain round trip against a real Secret Service (gnome-keyring on a D-Bus session).
//!
//! Runs only with `TACK_KEYCHAIN_E2E=1`, which `scripts/test.sh` sets inside
//! `dbus-run-session` after unlocking a throwaway gnome-keyring; elsewhere it prints why it
//! skipped. Without a Secret Service the store must say so clearly instead of failing
//! silently.

use tack_engine::secrets::{ApiKey, KeySource, KeychainStore, SecretStore, resolve_key};

fn enabled() -> bool {
    if std::env::var_os("TACK_KEYCHAIN_E2E").is_some() {
        return true;
    }
    println!(
        "skipped: TACK_KEYCHAIN_E2E not set (needs a Secret Service; scripts/test.sh provides one)"
    );
    false
}

#[test]
fn keys_round_trip_through_the_os_keychain() {
    if !enabled() {
        return;
    }
    let store = KeychainStore;
    let status = store.status();
    assert!(
        status.available,
        "Secret Service not available: {:?}",
        status.message
    );
    let provider = format!("tack-test-{}", std::process::id());
    let canary = ApiKey::new("sk-canary-keychain-0123456789");
    store.delete(&provider).unwrap();
    assert_eq!(store.get(&provider).unwrap(), None);
    store.set(&provider, &canary).unwrap();
    // A fresh store (a fresh keyring::Entry) reads what the first one wrote.
    assert_eq!(KeychainStore.get(&provider).unwrap(), Some(canary.clone()));
    let (key, source) = resolve_key(&KeychainStore, &provider, Some("TACK_TEST_UNSET_ENV"));
    assert_eq!(source, KeySource::Keychain);
    assert_eq!(key.unwrap().last4(), "6789");
    store
        .set(&provider, &ApiKey::new("sk-replaced-9999"))
        .unwrap();
    assert_eq!(
        store.get(&provider).unwrap().unwrap().expose(),
        "sk-replaced-9999"
    );
    store.delete(&provider).unwrap();
    assert_eq!(KeychainStore.get(&provider).unwrap(), None);
    // Deleting twice is not an error.
    store.delete(&provider).unwrap();
}

#[test]
fn a_missing_secret_service_is_reported_not_hidden() {
    if std::env::var_os("TACK_KEYCHAIN_E2E").is_some() {
        println!("skipped: a Secret Service is present in this run");
        return;
    }
    // Point D-Bus at nothing: the store must report itself unavailable with a reason.
    // (Only meaningful where no session bus exists; on a desktop it may be available.)
    let status = KeychainStore.status();
    if !status.available {
        // Only the reason: the window puts it into its own sentence with the advice.
        let message = status.message.unwrap_or_default();
        assert!(!message.is_empty());
        assert!(!message.contains("environment variable"), "{message}");
        assert!(!message.contains("not available"), "{message}");
    }
}
