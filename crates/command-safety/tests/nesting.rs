//! Deeply nested command lines terminate, on a small stack, and ask for approval.

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests fail loudly by design

use proptest::prelude::*;
use std::path::Path;
use tack_command_safety::{CommandClass, CommandSite, classify, classify_in};

/// A small stack, well below a tokio worker's 2 MiB, so that an unbounded recursion fails here.
const STACK: usize = 256 * 1024;

fn on_small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(STACK)
        .spawn(f)
        .unwrap()
        .join()
        .expect("the classifier overflowed its stack or panicked")
}

fn nest(open: &str, middle: &str, close: &str, depth: usize) -> String {
    format!("{}{middle}{}", open.repeat(depth), close.repeat(depth))
}

/// Shapes a model could nest: an opening, a middle, a closing, and whether bash runs the
/// middle as a command.
const SHAPES: &[(&str, &str, &str, bool)] = &[
    ("echo $(", "x", ")", true),
    ("((", "1", "))", false),
    ("echo $((", "1", "))", false),
    ("( ", "ls", " )", true),
    ("{ ", "ls", "; }", true),
    ("echo `", "x", "`", false),
    ("bash -c '", "ls", "'", false),
    ("echo \"$(", "x", ")\"", true),
    ("if true; then ", "ls", "; fi", true),
    ("cat <(", "ls", ")", true),
    ("echo ${x:-", "y", "}", false),
    ("[[ ", "-n x", " ]]", false),
    ("a[", "1", "]=1", false),
    ("echo {a,", "b", "}", false),
    ("! ", "ls", "", false),
    ("ls | ", "ls", "", true),
    ("ls && ", "ls", "", true),
    ("x=$(", "ls", ")", true),
    ("while ", "ls", "; do :; done", true),
    ("echo $(( $(", "1", ") ))", true),
];

#[test]
fn ten_thousand_deep_is_dangerous_not_a_crash() {
    for &(open, _, close, runs) in SHAPES {
        let command = nest(open, "rm -r x", close, 10_000);
        let (class, reason) = on_small_stack(move || {
            let site = CommandSite {
                workspace: Path::new("/w"),
                cwd: Path::new("/w"),
                home: None,
            };
            let a = classify_in(&command, &site);
            let b = classify(&command);
            assert_eq!(a.class, b.class.max(a.class));
            (b.class, b.reason)
        });
        assert!(
            !runs || class >= CommandClass::Mutating,
            "{open}…{close} 10,000 deep: {class} ({reason})"
        );
    }
}

#[test]
fn deep_substitutions_say_why() {
    let command = nest("echo $(", "x", ")", 10_000);
    let got = on_small_stack(move || classify(&command));
    assert_eq!(got.class, CommandClass::Dangerous, "{}", got.reason);
    assert!(got.reason.contains("too deeply nested"), "{}", got.reason);
}

#[test]
fn shallow_nesting_is_still_judged() {
    let got = classify(&nest("echo $(", "ls", ")", 5));
    assert_eq!(got.class, CommandClass::ReadOnly, "{}", got.reason);
    let got = classify(&nest("echo $(", "rm -r x", ")", 5));
    assert_eq!(got.class, CommandClass::Dangerous, "{}", got.reason);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Any shape, at any depth up to past the limit, terminates on a small stack.
    #[test]
    fn any_nesting_depth_terminates(shape in 0..SHAPES.len(), depth in 0usize..400, inner in 0usize..3) {
        let (open, _, close, runs) = SHAPES[shape];
        let middle = ["ls", "rm -r x", "$X"][inner];
        let command = nest(open, middle, close, depth);
        let class = on_small_stack(move || classify(&command).class);
        if runs && inner > 0 && depth > 0 {
            prop_assert!(class >= CommandClass::Mutating);
        }
    }
}
