//! The session's event channel to its front ends: ordered, bounded, coalescing.
//!
//! A session reports everything on one channel ([`EventReceiver`]), read by `tack exec`'s
//! loop, the desktop's forwarding task and tests. The producer (the turn loop, a running
//! command) can be far faster than any reader: `cat /dev/zero` writes gigabytes a minute, a
//! model can stream a million one-character deltas. An unbounded channel turned that into
//! unbounded memory, so this one keeps its size proportional to what a reader can use:
//!
//! - **Deltas coalesce.** A text, reasoning or tool-output delta that follows a delta of the
//!   same stream (same turn, same call) still waiting in the queue is joined onto it. A slow
//!   reader therefore gets fewer, larger deltas; the text and its order are unchanged.
//! - **At most ~20 deltas a second per stream.** A delta is handed out at once when its
//!   stream has been quiet for [`DELTA_INTERVAL`]; otherwise it waits (collecting what follows)
//!   until that interval has passed, or until any other event queues up behind it (which it
//!   must precede). A UI cannot show more, and the per-event cost of serialising and sending
//!   to a web view is what made fine-grained streams expensive.
//! - **Tool output shown live is capped per event**: one coalesced tool-output delta keeps at
//!   most [`MAX_OUTPUT_DELTA_BYTES`], the newest, and begins with a marker saying how many bytes
//!   were not shown. The model's copy is unaffected (the tool's own head+tail cap makes it),
//!   and the completed output item carries that. Model text and reasoning deltas are never
//!   cut: they are the message being written, bounded by the wire's response caps.
//! - **Nothing else is ever dropped or merged**: completed items, approval requests, questions
//!   and turn ends are queued as they are. What bounds them is the turn itself (they are
//!   copies of history). For producers that can wait, [`EventSender::room`] waits while the
//!   queue holds [`HIGH_WATER`] entries, so a reader that stops reading slows the model stream
//!   and a running command (whose pipe then fills and blocks it) instead of filling memory.
//!
//! Sending never blocks: the turn loop emits from synchronous code. Waiting for room is a
//! separate, explicit step at the places where waiting is safe.

use std::collections::{HashMap, VecDeque};
use std::pin::pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use tack_protocol::EngineEvent;
use tokio::sync::Notify;
use tokio::time::Instant;

/// Shortest time between two deltas of one stream handed to the reader (20 a second).
pub const DELTA_INTERVAL: Duration = Duration::from_millis(50);

/// Most bytes of tool output one coalesced delta carries; older bytes of a backlog are left out
/// (with a marker). 64 KiB every [`DELTA_INTERVAL`] is more than a person can read.
pub const MAX_OUTPUT_DELTA_BYTES: usize = 64 * 1024;

/// Queue length at which [`EventSender::room`] makes producers wait.
pub const HIGH_WATER: usize = 1024;

/// Which delta stream an event belongs to; only consecutive deltas of one stream coalesce.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum StreamKey {
    Text(String),
    Reasoning(String),
    Output(String, String),
}

fn stream_key(event: &EngineEvent) -> Option<StreamKey> {
    match event {
        EngineEvent::TextDelta { turn_id, .. } => Some(StreamKey::Text(turn_id.clone())),
        EngineEvent::ReasoningDelta { turn_id, .. } => Some(StreamKey::Reasoning(turn_id.clone())),
        EngineEvent::ToolOutputDelta {
            turn_id, call_id, ..
        } => Some(StreamKey::Output(turn_id.clone(), call_id.clone())),
        _ => None,
    }
}

/// The text a delta carries.
fn delta_text(event: &mut EngineEvent) -> Option<&mut String> {
    match event {
        EngineEvent::TextDelta { text, .. } | EngineEvent::ReasoningDelta { text, .. } => {
            Some(text)
        }
        EngineEvent::ToolOutputDelta { chunk, .. } => Some(chunk),
        _ => None,
    }
}

struct Entry {
    event: EngineEvent,
    key: Option<StreamKey>,
    /// Bytes of tool output left out of this delta (the reader is told at release).
    omitted: usize,
}

#[derive(Default)]
struct Queue {
    entries: VecDeque<Entry>,
    /// When each stream last had a delta handed out.
    released: HashMap<StreamKey, Instant>,
    sender_alive: bool,
    receiver_alive: bool,
    stats: ChannelStats,
}

/// Counters of what the channel did (for benchmarks and diagnostics).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct ChannelStats {
    /// Events sent.
    pub sent: u64,
    /// Deltas joined onto a queued one instead of queued themselves.
    pub coalesced: u64,
    /// Bytes of tool output not shown live (the output item still has its capped text).
    pub omitted_bytes: u64,
    /// The longest the queue has been.
    pub peak_len: usize,
}

struct Shared {
    queue: Mutex<Queue>,
    /// Wakes the reader: something was queued, or the sender is gone.
    queued: Notify,
    /// Wakes producers waiting in [`EventSender::room`].
    drained: Notify,
}

fn lock(shared: &Shared) -> MutexGuard<'_, Queue> {
    // Every critical section is short and panic-free; a poisoned lock still holds a queue.
    shared.queue.lock().unwrap_or_else(|p| p.into_inner())
}

/// A new channel.
pub(crate) fn channel() -> (EventSender, EventReceiver) {
    let shared = Arc::new(Shared {
        queue: Mutex::new(Queue {
            sender_alive: true,
            receiver_alive: true,
            ..Queue::default()
        }),
        queued: Notify::new(),
        drained: Notify::new(),
    });
    (
        EventSender {
            shared: shared.clone(),
        },
        EventReceiver { shared },
    )
}

/// The sending half, owned by the session. Dropping it ends the stream once it is read.
pub(crate) struct EventSender {
    shared: Arc<Shared>,
}

impl EventSender {
    /// Queues `event`, joining it onto the queued delta of the same stream when there is one.
    /// Never blocks; without a reader the event is discarded (the session log has everything).
    pub(crate) fn send(&self, mut event: EngineEvent) {
        let mut guard = lock(&self.shared);
        // Borrowed apart so a queued entry and the counters can be changed together.
        let queue = &mut *guard;
        if !queue.receiver_alive {
            return;
        }
        queue.stats.sent += 1;
        let key = stream_key(&event);
        if let Some(key) = &key
            && let Some(last) = queue.entries.back_mut()
            && last.key.as_ref() == Some(key)
            && let Some(text) = delta_text(&mut event)
            && let Some(joined) = delta_text(&mut last.event)
        {
            joined.push_str(text);
            if matches!(key, StreamKey::Output(..)) && joined.len() > MAX_OUTPUT_DELTA_BYTES {
                let cut = ceil_char_boundary(joined, joined.len() - MAX_OUTPUT_DELTA_BYTES);
                joined.drain(..cut);
                last.omitted += cut;
                queue.stats.omitted_bytes += cut as u64;
            }
            queue.stats.coalesced += 1;
        } else {
            queue.entries.push_back(Entry {
                event,
                key,
                omitted: 0,
            });
            queue.stats.peak_len = queue.stats.peak_len.max(queue.entries.len());
        }
        drop(guard);
        self.shared.queued.notify_one();
    }

    /// Waits while the queue holds [`HIGH_WATER`] entries or more and someone reads it: the
    /// backpressure point for producers that can wait (the model stream, command output).
    pub(crate) async fn room(&self) {
        loop {
            let mut drained = pin!(self.shared.drained.notified());
            drained.as_mut().enable();
            {
                let queue = lock(&self.shared);
                if !queue.receiver_alive || queue.entries.len() < HIGH_WATER {
                    return;
                }
            }
            drained.await;
        }
    }

    /// What the channel has done so far.
    pub(crate) fn stats(&self) -> ChannelStats {
        lock(&self.shared).stats
    }
}

impl Drop for EventSender {
    fn drop(&mut self) {
        lock(&self.shared).sender_alive = false;
        self.shared.queued.notify_one();
    }
}

/// The receiving half: a session's [`EngineEvent`]s in order (deltas possibly joined).
pub struct EventReceiver {
    shared: Arc<Shared>,
}

/// What the reader may take now.
// Built and matched at once, never stored: boxing the event would only add an allocation.
#[allow(clippy::large_enum_variant)]
enum Ready {
    Event(EngineEvent),
    /// The front delta's stream spoke too recently: wait until then (or for more events).
    At(Instant),
    Empty,
    Closed,
}

impl EventReceiver {
    /// The next event; `None` once the session is gone and everything was read. Cancel-safe:
    /// an event is only taken from the queue when it is returned.
    pub async fn recv(&mut self) -> Option<EngineEvent> {
        let shared = self.shared.clone();
        loop {
            let mut queued = pin!(shared.queued.notified());
            queued.as_mut().enable();
            match self.take(Instant::now()) {
                Ready::Event(event) => return Some(event),
                Ready::Closed => return None,
                Ready::Empty => queued.await,
                Ready::At(at) => {
                    tokio::select! {
                        () = queued => {}
                        () = tokio::time::sleep_until(at) => {}
                    }
                }
            }
        }
    }

    /// The next event if one can be taken now (a delta whose stream spoke in the last
    /// [`DELTA_INTERVAL`] waits unless the session is gone).
    pub fn try_recv(&mut self) -> Option<EngineEvent> {
        match self.take(Instant::now()) {
            Ready::Event(event) => Some(event),
            _ => None,
        }
    }

    /// What the channel has done so far.
    pub fn stats(&self) -> ChannelStats {
        lock(&self.shared).stats
    }

    fn take(&mut self, now: Instant) -> Ready {
        let mut queue = lock(&self.shared);
        let Some(front) = queue.entries.front() else {
            return if queue.sender_alive {
                Ready::Empty
            } else {
                Ready::Closed
            };
        };
        if let Some(key) = &front.key
            // Something queued behind it: it can grow no more and must go first.
            && queue.entries.len() == 1
            && queue.sender_alive
            && let Some(&last) = queue.released.get(key)
            && now < last + DELTA_INTERVAL
        {
            return Ready::At(last + DELTA_INTERVAL);
        }
        let Some(mut entry) = queue.entries.pop_front() else {
            return Ready::Empty;
        };
        if let Some(key) = entry.key.take() {
            if queue.released.len() > 256 {
                // Streams of finished calls; what matters is only the last interval.
                queue
                    .released
                    .retain(|_, at| now.saturating_duration_since(*at) < DELTA_INTERVAL);
            }
            queue.released.insert(key, now);
        }
        let wake = queue.entries.len() < HIGH_WATER;
        drop(queue);
        if wake {
            self.shared.drained.notify_waiters();
        }
        if entry.omitted > 0
            && let Some(chunk) = delta_text(&mut entry.event)
        {
            chunk.insert_str(
                0,
                &format!(
                    "[… {} bytes of output not shown live (the output arrived faster than it \
                     could be displayed) …]\n",
                    entry.omitted
                ),
            );
        }
        Ready::Event(entry.event)
    }
}

impl Drop for EventReceiver {
    fn drop(&mut self) {
        let mut queue = lock(&self.shared);
        queue.receiver_alive = false;
        queue.entries.clear();
        drop(queue);
        self.shared.drained.notify_waiters();
    }
}

/// The smallest index `>= at` that is a char boundary of `s`.
fn ceil_char_boundary(s: &str, at: usize) -> usize {
    let mut i = at.min(s.len());
    while !s.is_char_boundary(i) {
        i += 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(t: &str) -> EngineEvent {
        EngineEvent::TextDelta {
            turn_id: "t".into(),
            text: t.into(),
        }
    }

    fn output(call: &str, chunk: &str) -> EngineEvent {
        EngineEvent::ToolOutputDelta {
            turn_id: "t".into(),
            call_id: call.into(),
            chunk: chunk.into(),
        }
    }

    fn started() -> EngineEvent {
        EngineEvent::TurnStarted {
            turn_id: "t".into(),
        }
    }

    #[tokio::test]
    async fn consecutive_deltas_of_a_stream_join_and_keep_their_order() {
        let (tx, mut rx) = channel();
        tx.send(started());
        for piece in ["a", "b", "c"] {
            tx.send(text(piece));
        }
        tx.send(output("c1", "x"));
        tx.send(output("c1", "y"));
        tx.send(text("d"));
        drop(tx);
        let mut got = Vec::new();
        while let Some(ev) = rx.recv().await {
            got.push(ev);
        }
        assert_eq!(
            got,
            vec![started(), text("abc"), output("c1", "xy"), text("d")]
        );
    }

    #[tokio::test]
    async fn a_stream_gets_at_most_one_delta_per_interval() {
        let (tx, mut rx) = channel();
        tx.send(text("a"));
        assert_eq!(rx.try_recv(), Some(text("a")), "the first goes out at once");
        tx.send(text("b"));
        // Right after the last one, the next waits (and collects what follows).
        assert_eq!(rx.try_recv(), None, "too soon after the last");
        tx.send(text("c"));
        assert_eq!(rx.recv().await, Some(text("bc")));
        // Another event behind a waiting delta releases it: order comes first.
        tx.send(text("d"));
        tx.send(started());
        assert_eq!(rx.try_recv(), Some(text("d")));
        assert_eq!(rx.try_recv(), Some(started()));
    }

    #[tokio::test]
    async fn a_tool_output_backlog_keeps_its_newest_bytes_and_says_what_it_left_out() {
        let (tx, mut rx) = channel();
        tx.send(started());
        let piece = "é".repeat(1000); // 2,000 bytes, two-byte characters
        for _ in 0..100 {
            tx.send(output("c1", &piece));
        }
        drop(tx);
        assert_eq!(rx.recv().await, Some(started()));
        let Some(EngineEvent::ToolOutputDelta { chunk, .. }) = rx.recv().await else {
            panic!("expected the output delta");
        };
        let (marker, kept) = chunk.split_once('\n').unwrap();
        let omitted: usize = marker
            .trim_start_matches("[… ")
            .split(' ')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        assert!(kept.len() <= MAX_OUTPUT_DELTA_BYTES, "{}", kept.len());
        assert_eq!(omitted + kept.len(), 200_000);
        assert!(kept.chars().all(|c| c == 'é'));
        assert_eq!(rx.stats().omitted_bytes, omitted as u64);
    }

    #[tokio::test]
    async fn items_and_approvals_are_never_merged_or_dropped() {
        let (tx, mut rx) = channel();
        for i in 0..5000 {
            tx.send(output("c1", "x"));
            tx.send(EngineEvent::InputQueued {
                turn_id: "t".into(),
                text: i.to_string(),
            });
        }
        drop(tx);
        let mut queued = 0;
        while let Some(ev) = rx.recv().await {
            if let EngineEvent::InputQueued { text, .. } = ev {
                assert_eq!(text, queued.to_string());
                queued += 1;
            }
        }
        assert_eq!(queued, 5000);
    }

    #[tokio::test]
    async fn room_waits_for_a_reader_that_falls_behind() {
        let (tx, mut rx) = channel();
        for i in 0..HIGH_WATER {
            tx.send(EngineEvent::InputQueued {
                turn_id: "t".into(),
                text: i.to_string(),
            });
        }
        let tx = Arc::new(tx);
        let waiting = tokio::spawn({
            let tx = tx.clone();
            async move { tx.room().await }
        });
        tokio::task::yield_now().await;
        assert!(
            !waiting.is_finished(),
            "a full queue makes the producer wait"
        );
        rx.recv().await;
        waiting.await.unwrap();
        // Without a reader nobody waits.
        drop(rx);
        tx.room().await;
    }
}
