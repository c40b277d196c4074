//! Decision time of saved rules: `RuleSet::judge` on classified command lines, with no rules
//! and with 1,000 rules (900 allow rules over 300 programs, 100 deny rules), so the cost of a
//! large rule file shows against the same lines with none.
//!
//! Classification is done once up front: the gate classifies every command anyway, and the
//! question here is what the rules add on top of it. The lines are a plain command an allow
//! rule covers, a compound line with a part no rule covers, and a line a deny rule refuses.

// `criterion_group!` generates an undocumented public function.
#![allow(missing_docs)]

use std::hint::black_box;
use std::path::Path;

use criterion::{Criterion, criterion_group, criterion_main};
use tack_engine::command_safety::{CommandSite, classify_in};
use tack_engine::rules::RuleSet;
use tack_protocol::{Rule, RuleDecision};

const WORKSPACE: &str = "/home/dev/app";

fn rule(decision: RuleDecision, words: &[&str], workspace: Option<&str>) -> Rule {
    Rule {
        decision,
        command: words.iter().map(|w| (*w).to_string()).collect(),
        workspace: workspace.map(str::to_string),
    }
}

/// 1,000 rules: 900 allow rules (three subcommands each of 300 programs, a third of them
/// scoped to a workspace), the real ones among them, and 100 deny rules.
fn thousand_rules() -> Vec<Rule> {
    let mut rules = vec![
        rule(RuleDecision::Allow, &["npm", "test"], None),
        rule(RuleDecision::Allow, &["git", "diff"], Some(WORKSPACE)),
        rule(RuleDecision::Allow, &["cargo", "check"], None),
        rule(RuleDecision::Deny, &["git", "push"], None),
    ];
    for p in 0..300 {
        for sub in ["build", "test", "lint"] {
            if rules.len() >= 900 {
                break;
            }
            let program = format!("tool{p}");
            let scope = (p % 3 == 0).then_some("/srv/other");
            rules.push(rule(RuleDecision::Allow, &[&program, sub], scope));
        }
    }
    for d in 0..(1000 - rules.len()) {
        let program = format!("danger{d}");
        rules.push(rule(RuleDecision::Deny, &[&program, "--force"], None));
    }
    rules
}

fn bench_judge(c: &mut Criterion) {
    let workspace = Path::new(WORKSPACE);
    let site = CommandSite {
        workspace,
        cwd: workspace,
        home: None,
    };
    let lines = [
        ("covered", "npm test -- --watch"),
        (
            "compound-uncovered",
            "git diff --stat && cargo check -p x && make",
        ),
        ("denied", "git status && git push origin main"),
    ];
    let empty = RuleSet::new([]);
    let full = RuleSet::new(thousand_rules());
    assert_eq!(full.len(), 1000);
    let mut group = c.benchmark_group("rules_judge");
    for (name, line) in lines {
        let assessment = classify_in(line, &site);
        group.bench_function(format!("{name}/0-rules"), |b| {
            b.iter(|| black_box(empty.judge(black_box(&assessment), workspace)))
        });
        group.bench_function(format!("{name}/1000-rules"), |b| {
            b.iter(|| black_box(full.judge(black_box(&assessment), workspace)))
        });
    }
    group.finish();
    // For scale: what the classifier itself costs on the compound line.
    c.bench_function("classify_in/compound-uncovered", |b| {
        b.iter(|| black_box(classify_in(black_box(lines[1].1), &site)))
    });
}

criterion_group!(benches, bench_judge);
criterion_main!(benches);
