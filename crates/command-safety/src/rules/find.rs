//! `find`: its expression's actions (`-delete`, `-exec`, `-fprint`).

use crate::verdicts::part;
use crate::verdicts::{Judged, worst};
use crate::walker::Walker;
use crate::words::{Word, join_words};
use crate::{CommandClass, CommandPart};

impl<'s> Walker<'s> {
    pub(crate) fn judge_find(&self, args: &[Word], nested: &mut Vec<CommandPart>) -> Judged {
        use CommandClass::{Dangerous, Mutating, ReadOnly};
        let p = Some("find");
        let mut verdicts = vec![(ReadOnly, "`find` only lists files".to_string())];
        let mut effects: Vec<String> = Vec::new();
        let mut i = 0;
        while i < args.len() {
            let v = args[i].value.as_str();
            match v {
                "-delete" => verdicts.push((
                    Dangerous,
                    "`find -delete` deletes every file it matches".to_string(),
                )),
                "-fprint" | "-fprint0" | "-fprintf" | "-fls" => {
                    let target = args.get(i + 1).map(|w| w.value.as_str()).unwrap_or("?");
                    verdicts.push((Mutating, format!("`find {v}` writes the file `{target}`")));
                }
                "-exec" | "-execdir" | "-ok" | "-okdir" => {
                    let start = i + 1;
                    let mut end = start;
                    while end < args.len() && !matches!(args[end].value.as_str(), ";" | "+") {
                        end += 1;
                    }
                    let inner = &args[start..end];
                    effects.push(format!(
                        "`find {v}` runs `{}`",
                        inner.first().map_or("?", |w| w.value.as_str())
                    ));
                    if inner.is_empty() {
                        verdicts.push((Mutating, format!("`find {v}` without a command")));
                    } else {
                        let judged = self.judge(inner, nested);
                        nested.push(part(
                            &join_words(inner),
                            judged.program.as_deref(),
                            judged.class,
                            judged.reason.clone(),
                        ));
                        verdicts.push((
                            judged.class,
                            format!("`find {v}` runs `{}`: {}", inner[0].value, judged.reason),
                        ));
                    }
                    i = end;
                }
                _ => {}
            }
            i += 1;
        }
        let (class, reason) = worst(verdicts);
        let mut judged = Judged::new(p, class, reason);
        if class >= Mutating {
            effects.insert(0, judged.reason.clone());
        }
        if !effects.is_empty() {
            judged.side_effect = Some(effects.join("; "));
        }
        judged
    }
}

impl<'s> Walker<'s> {
    /// `fd -x CMD`/`--exec-batch CMD`: the command is every word after the option (up to a
    /// `;`), run per match. `None` without one.
    pub(crate) fn judge_fd(
        &self,
        program: &str,
        args: &[Word],
        nested: &mut Vec<CommandPart>,
    ) -> Option<Judged> {
        use CommandClass::Mutating;
        let p = Some(program);
        let values: Vec<&str> = args.iter().map(|w| w.value.as_str()).collect();
        let at = values.iter().position(|v| {
            matches!(*v, "-x" | "--exec" | "-X" | "--exec-batch")
                || v.starts_with("--exec=")
                || v.starts_with("--exec-batch=")
                || (v.starts_with('-') && !v.starts_with("--") && v.contains(['x', 'X']))
        })?;
        let end = values[at..]
            .iter()
            .position(|v| *v == ";")
            .map_or(values.len(), |e| at + e);
        let inner = args.get(at + 1..end).unwrap_or(&[]);
        let mut verdicts = vec![(
            Mutating,
            format!("`{program} --exec` runs a command on every match"),
        )];
        if !inner.is_empty() {
            let judged = self.judge(inner, nested);
            nested.push(part(
                &join_words(inner),
                judged.program.as_deref(),
                judged.class,
                judged.reason.clone(),
            ));
            verdicts.push((
                judged.class,
                format!(
                    "`{program} --exec` runs `{}`: {}",
                    inner[0].value, judged.reason
                ),
            ));
        }
        let (class, reason) = worst(verdicts);
        let mut judged = Judged::new(p, class, reason);
        judged.side_effect = Some(format!("`{program} --exec` runs a command on every match"));
        Some(judged)
    }
}
