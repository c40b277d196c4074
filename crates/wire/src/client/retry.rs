//! When and how long to wait before sending a request again.

use std::time::Duration;

use tack_protocol::{ErrorKind, ModelError};

/// Retry policy for one sampling request.
///
/// The client retries only before the first byte of a response body, where sending again
/// cannot duplicate output the engine has already seen: connection failures, 429 (honouring
/// `Retry-After` up to `max_delay`), 5xx and overload, and a 2xx whose body ended or broke
/// before its first byte. Never for 400/401/403/404, quota or context-length errors (they
/// would fail the same way again), nor after a timeout once the request was sent (the server
/// may still be working on it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Attempts in total, the first included (1 = never retry).
    pub max_attempts: u32,
    /// Backoff before the second attempt; doubles per attempt.
    pub base_delay: Duration,
    /// Longest backoff, and the longest `Retry-After` the client waits for itself (a longer
    /// one is returned to the caller as the error, with its `retry_after_ms`).
    pub max_delay: Duration,
}

impl Default for RetryPolicy {
    /// 4 attempts, 500 ms doubling, at most 30 s.
    fn default() -> Self {
        RetryPolicy {
            max_attempts: 4,
            base_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(30),
        }
    }
}

impl RetryPolicy {
    /// A policy that never retries.
    pub fn none() -> Self {
        RetryPolicy {
            max_attempts: 1,
            ..RetryPolicy::default()
        }
    }

    /// How long to wait before attempt `attempt + 1` after `attempt` (1-based) failed with
    /// `error`, or `None` when it must not be retried.
    pub fn delay_after(&self, attempt: u32, error: &ModelError) -> Option<Duration> {
        if attempt >= self.max_attempts || !is_retryable(error) {
            return None;
        }
        match error.retry_after_ms {
            Some(ms) => {
                let wait = Duration::from_millis(u64::from(ms));
                (wait <= self.max_delay).then_some(wait)
            }
            None => Some(self.backoff(attempt)),
        }
    }

    /// Exponential backoff with jitter: `base · 2^(attempt-1)`, capped at `max_delay`, then a
    /// uniformly random point in its upper half (so concurrent clients spread out but never
    /// retry sooner than half the nominal delay).
    pub fn backoff(&self, attempt: u32) -> Duration {
        let exp = attempt.saturating_sub(1).min(20);
        let nominal = self
            .base_delay
            .saturating_mul(1u32 << exp)
            .min(self.max_delay);
        let half = nominal / 2;
        half + half.mul_f64(fastrand::f64())
    }
}

/// Whether an error before the first body byte may be retried.
fn is_retryable(error: &ModelError) -> bool {
    error.retryable
        && matches!(
            error.kind,
            ErrorKind::RateLimit
                | ErrorKind::Overloaded
                | ErrorKind::ServerError
                | ErrorKind::Unreachable
                | ErrorKind::Timeout
                | ErrorKind::StreamTruncated
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_within_bounds() {
        let p = RetryPolicy {
            max_attempts: 10,
            base_delay: Duration::from_millis(100),
            max_delay: Duration::from_millis(1000),
        };
        for (attempt, nominal) in [(1, 100), (2, 200), (3, 400), (4, 800), (5, 1000), (9, 1000)] {
            let d = p.backoff(attempt);
            assert!(d >= Duration::from_millis(nominal / 2), "{attempt}: {d:?}");
            assert!(d <= Duration::from_millis(nominal), "{attempt}: {d:?}");
        }
    }

    #[test]
    fn only_transient_errors_are_retried() {
        let p = RetryPolicy::default();
        for kind in [
            ErrorKind::Auth,
            ErrorKind::BadRequest,
            ErrorKind::ContextLengthExceeded,
            ErrorKind::QuotaExhausted,
            ErrorKind::FormatError,
            ErrorKind::Cancelled,
        ] {
            assert_eq!(
                p.delay_after(1, &ModelError::new(kind, "x")),
                None,
                "{kind}"
            );
        }
        assert!(
            p.delay_after(1, &ModelError::new(ErrorKind::ServerError, "x"))
                .is_some()
        );
        assert!(
            p.delay_after(4, &ModelError::new(ErrorKind::ServerError, "x"))
                .is_none()
        );
    }

    #[test]
    fn retry_after_is_honoured_up_to_the_cap() {
        let p = RetryPolicy::default();
        let mut e = ModelError::new(ErrorKind::RateLimit, "x");
        e.retry_after_ms = Some(1200);
        assert_eq!(p.delay_after(1, &e), Some(Duration::from_millis(1200)));
        e.retry_after_ms = Some(120_000);
        assert_eq!(p.delay_after(1, &e), None);
    }
}
