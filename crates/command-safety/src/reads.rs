//! Which files a known read-only command reads (see [`super::classify_in`] for the rules);
//! [`super::site`] tells whether they are inside the workspace.

use super::site::PathItem;
use super::{Listing, Word};

/// `test` operators that look at a file.
pub(super) const FILE_TESTS: [&str; 20] = [
    "-a", "-b", "-c", "-d", "-e", "-f", "-g", "-h", "-k", "-p", "-r", "-s", "-u", "-w", "-x", "-G",
    "-L", "-N", "-O", "-S",
];

/// How a read-only program's words name the files it reads. Option lists are option words
/// separated by spaces.
#[derive(Default)]
struct Operands {
    /// Options whose value (the next word, or attached) is not a path.
    values: &'static str,
    /// Options whose value (the next word, after `=`, or attached) is a path.
    paths: &'static str,
    /// Options taking two words, neither a path (`jq --arg NAME VALUE`).
    pairs: &'static str,
    /// Options taking a name and then a path (`jq --rawfile NAME FILE`).
    name_then_path: &'static str,
    /// Options after which the operands are not paths (`jq --args`).
    stop: &'static str,
    /// The first operand is a pattern, script or filter, unless one of these options is
    /// given (`grep -e PATTERN PATH`).
    pattern_unless: Option<&'static str>,
    /// Operands like `name=value` are assignments (`awk`).
    assignments: bool,
    /// Reads the working directory when no path is given.
    lists_cwd: bool,
}

/// Whether `option` is one of the space-separated `options`.
fn listed(options: &str, option: &str) -> bool {
    options.split_ascii_whitespace().any(|o| o == option)
}

fn operands_of(program: &str) -> Option<Operands> {
    let o = |values, paths| Operands {
        values,
        paths,
        ..Operands::default()
    };
    let listing = |values, paths| Operands {
        lists_cwd: true,
        ..o(values, paths)
    };
    let search = |values, paths, pattern_unless| Operands {
        pattern_unless: Some(pattern_unless),
        ..listing(values, paths)
    };
    Some(match program {
        "ls" | "dir" | "vdir" => listing(
            "-I --ignore --hide -T --tabsize -w --width --block-size --format --sort --time \
             --time-style --quoting-style --indicator-style",
            "",
        ),
        "tree" => listing(
            "-L -P -I -H -T --charset --filelimit --timefmt --sort",
            "--fromfile",
        ),
        "exa" | "eza" => listing(
            "-L --level -I --ignore-glob -s --sort -t --time -w --width --time-style",
            "",
        ),
        "du" => listing(
            "-d --max-depth -B --block-size -t --threshold --exclude --time-style",
            "-X --exclude-from --files0-from",
        ),
        "df" => o("-t --type -x --exclude-type -B --block-size --output", ""),
        "head" | "tail" => o(
            "-n -c --lines --bytes -s --sleep-interval --pid --max-unchanged-stats",
            "",
        ),
        "cut" => o(
            "-d -f -b -c --delimiter --fields --bytes --characters --output-delimiter",
            "",
        ),
        "column" => o(
            "-s -o -c -N -W -H -R -E -l -T -d --separator --output-separator --table-columns \
             --output-width --table-name",
            "",
        ),
        "paste" => o("-d --delimiters", ""),
        "join" => o("-t -j -1 -2 -o -e -a -v", ""),
        "sort" => o(
            "-t -k -S -T --field-separator --key --buffer-size --temporary-directory \
             --parallel --batch-size",
            "--files0-from",
        ),
        "uniq" => o("-f -s -w --skip-fields --skip-chars --check-chars", ""),
        "nl" => o("-s -d -b -f -h -i -l -n -v -w", ""),
        "od" => o("-t -A -j -N -w -S", ""),
        "hexdump" => o("-e -n -s", "-f"),
        "xxd" => o("-c -g -l -s -o -n", ""),
        "fold" => o("-w --width", ""),
        "fmt" => o("-w -p -g --width --prefix --goal", ""),
        "expand" | "unexpand" => o("-t --tabs", ""),
        "diff" => o(
            "-C -U -I -x -L -F -W --label --ignore-matching-lines --exclude \
             --show-function-line --line-format --old-line-format --new-line-format \
             --unchanged-line-format --horizon-lines --tabsize --width",
            "-X --exclude-from --from-file --to-file",
        ),
        "cmp" => o("-i -n --ignore-initial --bytes", ""),
        "date" => o(
            "-d --date -I --iso-8601 --rfc-3339",
            "-f --file -r --reference",
        ),
        "comm" => o("--output-delimiter", ""),
        "stat" => o("-c --format --printf", ""),
        "file" => o(
            "-F -e -P --separator --exclude --parameter",
            "-m --magic-file -f --files-from",
        ),
        "bat" | "batcat" => o(
            "-l --language -H --highlight-line -r --line-range --style --theme -m \
             --map-syntax --tabs --wrap --terminal-width --color --decorations --paging \
             --italic-text --file-name",
            "",
        ),
        "strings" => o("-n -t -e -T --bytes --radix --encoding --target", ""),
        "lsof" => o("-p -u -c -g -d -s -F -r -T -D", ""),
        "man" => o(
            "-S -s -L -m -e -R -p -r -E",
            "-M -C --manpath --config-file",
        ),
        "realpath" | "readlink" => o("", "--relative-to --relative-base"),
        "wc" => o("", "--files0-from"),
        "shasum" => o("-a --algorithm", ""),
        "cat" | "tac" | "rev" | "less" | "more" | "zcat" | "bzcat" | "xzcat" | "md5sum"
        | "sha1sum" | "sha224sum" | "sha256sum" | "sha384sum" | "sha512sum" | "b2sum" | "cksum"
        | "cd" | "pushd" => o("", ""),
        // `grep` reads the working directory only with `-r` (see `read_operands`).
        "grep" | "egrep" | "fgrep" | "zgrep" => Operands {
            lists_cwd: false,
            ..search(
                "-e --regexp -m --max-count -A -B -C --after-context --before-context \
                 --context -d --directories -D --devices --exclude --include --exclude-dir \
                 --label --binary-files --group-separator",
                "-f --file --exclude-from",
                "-e --regexp -f --file",
            )
        },
        "rg" => search(
            "-e --regexp -g --glob --iglob -t --type -T --type-not --type-add --type-clear \
             -A -B -C --after-context --before-context --context -m --max-count -M \
             --max-columns -j --threads -d --max-depth --maxdepth -E --encoding --sort \
             --sortr -r --replace --colors --context-separator --field-match-separator \
             --field-context-separator --path-separator --pre-glob --engine \
             --dfa-size-limit --regex-size-limit --max-filesize",
            "-f --file --ignore-file",
            "-e --regexp -f --file --files --type-list",
        ),
        "ag" => search(
            "-A -B -C -m --depth -G --file-search-regex -g --ignore --ignore-dir",
            "-p --path-to-ignore",
            "-g",
        ),
        "ack" => search(
            "-t --type --ignore-dir --ignore-file -A -B -C -m --match -g",
            "",
            "--match -f -g",
        ),
        "fd" | "fdfind" => search(
            "-e --extension -t --type -E --exclude -d --max-depth --min-depth --exact-depth \
             -S --size --changed-within --changed-before --change-newer-than \
             --change-older-than -o --owner -j --threads -c --color --max-results \
             --max-buffer-time --format --and --path-separator --batch-size",
            "--base-directory --search-path --ignore-file",
            "",
        ),
        "sed" => Operands {
            values: "-e --expression -l --line-length",
            paths: "-f --file",
            pattern_unless: Some("-e --expression -f --file"),
            ..Operands::default()
        },
        "awk" | "gawk" | "mawk" | "nawk" => Operands {
            values: "-F -v --assign --field-separator",
            paths: "-f --file",
            pattern_unless: Some("-f --file"),
            assignments: true,
            ..Operands::default()
        },
        "jq" => Operands {
            values: "--indent",
            paths: "-f --from-file -L",
            pairs: "--arg --argjson",
            name_then_path: "--slurpfile --rawfile",
            stop: "--args --jsonargs",
            pattern_unless: Some("-f --from-file"),
            ..Operands::default()
        },
        _ => return None,
    })
}

/// The files a known read-only program reads, from its words (see [`super::classify_in`]); `None`
/// when it reads none (`echo`, `date`).
pub(super) fn read_operands(program: &str, args: &[Word]) -> Option<Vec<PathItem>> {
    match program {
        "find" => return Some(find_operands(args)),
        "git" => return Some(git_operands(args)),
        "test" => {
            let mut items = Vec::new();
            for (i, w) in args.iter().enumerate() {
                let next = args.get(i + 1);
                if FILE_TESTS.contains(&w.value.as_str()) {
                    items.extend(next.and_then(PathItem::from_word));
                } else if matches!(w.value.as_str(), "-nt" | "-ot" | "-ef") {
                    items.extend(i.checked_sub(1).and_then(|p| PathItem::from_word(&args[p])));
                    items.extend(next.and_then(PathItem::from_word));
                }
            }
            return Some(items);
        }
        _ => {}
    }
    let spec = operands_of(program)?;
    let mut items = Vec::new();
    let mut operands: Vec<&Word> = Vec::new();
    let mut pattern_given = false;
    let mut recursive = false;
    let mut i = 0;
    while i < args.len() {
        let word = &args[i];
        let v = word.value.as_str();
        i += 1;
        if !word.literal || v == "-" || !v.starts_with('-') {
            operands.push(word);
            continue;
        }
        if v == "--" {
            operands.extend(&args[i..]);
            break;
        }
        if listed(spec.stop, v) {
            break;
        }
        if let Some(long) = v.strip_prefix("--") {
            let (name, attached) = match long.split_once('=') {
                Some((n, a)) => (n, Some(a)),
                None => (long, None),
            };
            // GNU abbreviations: `--from=x` is `--from-file=x` when it names one option.
            let full = canonical_long(&spec, &v[..name.len() + 2]);
            let option = full.as_str();
            recursive |= matches!(name, "recursive" | "dereference-recursive")
                || (name == "directories" && attached == Some("recurse"));
            pattern_given |= spec.pattern_unless.is_some_and(|p| listed(p, option));
            if listed(spec.paths, option) {
                match attached {
                    Some(a) => items.push(PathItem::literal(a)),
                    None => {
                        items.extend(args.get(i).and_then(PathItem::from_word));
                        i += 1;
                    }
                }
            } else if attached.is_none() && listed(spec.values, option) {
                i += 1;
            } else if listed(spec.pairs, option) {
                i += 2;
            } else if listed(spec.name_then_path, option) {
                items.extend(args.get(i + 1).and_then(PathItem::from_word));
                i += 2;
            }
            continue;
        }
        // A group of single-letter options; a letter taking a value takes the rest of the
        // group, or the next word.
        for (at, letter) in v.char_indices().skip(1) {
            let option = format!("-{letter}");
            let rest = &v[at + letter.len_utf8()..];
            recursive |= matches!(letter, 'r' | 'R');
            pattern_given |= spec.pattern_unless.is_some_and(|p| listed(p, &option));
            let is_path = listed(spec.paths, &option);
            if is_path || listed(spec.values, &option) {
                if rest.is_empty() {
                    if is_path {
                        items.extend(args.get(i).and_then(PathItem::from_word));
                    }
                    i += 1;
                } else if is_path {
                    items.push(PathItem::literal(rest));
                }
                break;
            }
        }
    }
    let mut operands = operands.into_iter();
    if spec.pattern_unless.is_some() && !pattern_given {
        let pattern = operands.next();
        // `getline < FILE` in an awk program reads a file the words do not show.
        if spec.assignments && pattern.is_some_and(|w| w.value.contains("getline")) {
            items.push(PathItem::unknown("getline"));
        }
    }
    let before = items.len();
    for word in operands {
        if spec.assignments && is_assignment(&word.value) {
            continue;
        }
        items.extend(PathItem::from_word(word));
    }
    let no_paths = items.len() == before;
    let greps_tree = matches!(program, "grep" | "egrep" | "fgrep") && recursive;
    if no_paths && (spec.lists_cwd || greps_tree) {
        items.push(PathItem::literal("."));
    }
    if no_paths && program == "cd" {
        items.push(PathItem::literal("~"));
    }
    if program == "cd" {
        for item in &mut items {
            // `cd -` goes back to `$OLDPWD`.
            if item.path.as_deref() == Some("-") {
                item.path = None;
            }
        }
    }
    Some(items)
}

/// The long option of `spec` that `option` abbreviates: itself when listed or when it
/// abbreviates none, else the first listed option it is a prefix of (an ambiguous
/// abbreviation is read as one it could be, preferring options that name paths).
fn canonical_long(spec: &Operands, option: &str) -> String {
    let lists = [
        spec.paths,
        spec.values,
        spec.pairs,
        spec.name_then_path,
        spec.stop,
    ];
    if lists.iter().any(|l| listed(l, option)) || option.len() < 4 {
        return option.to_string();
    }
    lists
        .iter()
        .flat_map(|l| l.split_ascii_whitespace())
        .find(|o| o.starts_with("--") && o.starts_with(option))
        .unwrap_or(option)
        .to_string()
}

fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty()
            && !name.starts_with(|c: char| c.is_ascii_digit())
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

/// `find [-H|-L|-P] [-D x] [-Olevel] START… EXPRESSION`: the starting points (`.` when none),
/// and files named by `-newer`-like tests.
fn find_operands(args: &[Word]) -> Vec<PathItem> {
    let (mut items, mut i) = find_start_points(args);
    while i < args.len() {
        let v = args[i].value.as_str();
        let names_file = matches!(
            v,
            "-newer" | "-anewer" | "-cnewer" | "-samefile" | "-files0-from"
        ) || (v.len() == 8 && v.starts_with("-newer") && !v.ends_with('t'));
        if names_file {
            items.extend(args.get(i + 1).and_then(PathItem::from_word));
            i += 1;
        }
        i += 1;
    }
    items
}

/// `git`: `-C DIR`, `--git-dir`, `--work-tree` (else the repository of the working
/// directory), the operands of `--no-index`, and `git config --file FILE`. Other operands
/// are revisions or paths inside the repository, which git itself refuses to leave.
fn git_operands(args: &[Word]) -> Vec<PathItem> {
    let mut items = Vec::new();
    let mut i = 0;
    let mut placed = false;
    while let Some(w) = args.get(i) {
        let v = w.value.as_str();
        match v {
            "-C" | "--git-dir" | "--work-tree" => {
                items.extend(args.get(i + 1).and_then(PathItem::from_word));
                placed = true;
                i += 2;
            }
            "--namespace" | "-c" | "--config-env" => i += 2,
            _ if v.starts_with("--git-dir=") || v.starts_with("--work-tree=") => {
                items.extend(v.split_once('=').map(|(_, p)| PathItem::literal(p)));
                placed = true;
                i += 1;
            }
            _ if v.starts_with('-') => i += 1,
            _ => break,
        }
    }
    if !placed {
        items.push(PathItem::literal("."));
    }
    let sub = args.get(i).map(|w| w.value.as_str());
    let rest = args.get(i + 1..).unwrap_or(&[]);
    // `git diff A B` compares files on disk when one is outside the work tree, as if
    // `--no-index` were given; revisions never start with `/`, `~` or `../`.
    if sub == Some("diff") || rest.iter().any(|w| w.value == "--no-index") {
        items.extend(
            rest.iter()
                .filter(|w| !w.literal || !w.value.starts_with('-'))
                .filter_map(PathItem::from_word),
        );
    }
    if sub == Some("config") {
        for (j, w) in rest.iter().enumerate() {
            if matches!(w.value.as_str(), "-f" | "--file" | "--blob") {
                items.extend(rest.get(j + 1).and_then(PathItem::from_word));
            } else if let Some(p) = w.value.strip_prefix("--file=") {
                items.push(PathItem::literal(p));
            }
        }
    }
    items
}

/// What a read-only program writes on its output, for `… | xargs cat` (see [`Listing`]).
/// `stdin`: it reads no file, so it filters its input.
pub(super) fn listing(program: &str, values: &[&str], stdin: bool) -> Listing {
    let any = |flags: &[&str]| values.iter().any(|v| flags.contains(v));
    let short = |letters: &str| {
        values.iter().any(|v| {
            v.starts_with('-')
                && !v.starts_with("--")
                && v[1..].chars().any(|c| letters.contains(c))
        })
    };
    let lists_names = match program {
        "grep" | "egrep" | "fgrep" | "zgrep" => {
            short("lL") || any(&["--files-with-matches", "--files-without-match"])
        }
        "rg" => any(&[
            "-l",
            "--files-with-matches",
            "--files-without-match",
            "--files",
        ]),
        "ag" | "ack" => short("lLfg") || any(&["--files-with-matches", "--files-without-matches"]),
        _ => false,
    };
    match program {
        // `-ls`, `-printf`, `--list-details`, `--format` and `-exec` print more than names
        // (`-ls` shows where a link points).
        "find"
            if !values.iter().any(|v| {
                matches!(
                    *v,
                    "-ls"
                        | "-fls"
                        | "-printf"
                        | "-fprintf"
                        | "-exec"
                        | "-execdir"
                        | "-ok"
                        | "-okdir"
                )
            }) =>
        {
            Listing::PathsInside
        }
        "fd" | "fdfind"
            if !any(&[
                "-l",
                "--list-details",
                "--format",
                "-x",
                "--exec",
                "-X",
                "--exec-batch",
            ]) =>
        {
            Listing::PathsInside
        }
        "git" if values.iter().find(|v| !v.starts_with('-')) == Some(&"ls-files") => {
            Listing::PathsInside
        }
        _ if lists_names => Listing::PathsInside,
        "grep" | "egrep" | "fgrep" | "rg" if stdin && !short("o") && !any(&["--only-matching"]) => {
            Listing::InputLines
        }
        "sort" | "uniq" | "head" | "tail" | "cat" | "tac" if stdin => Listing::InputLines,
        _ => Listing::Other,
    }
}

/// The starting points of `find` (`.` when none), and the index of the first word of its
/// expression.
pub(super) fn find_start_points(args: &[Word]) -> (Vec<PathItem>, usize) {
    let mut items = Vec::new();
    let mut i = 0;
    while let Some(v) = args.get(i).map(|w| w.value.as_str()) {
        match v {
            "-H" | "-L" | "-P" => i += 1,
            "-D" => i += 2,
            _ if v.starts_with("-O") => i += 1,
            _ => break,
        }
    }
    while let Some(w) = args.get(i) {
        let v = w.value.as_str();
        if w.literal && (v.starts_with('-') || matches!(v, "(" | "!" | ")" | ",")) {
            break;
        }
        items.extend(PathItem::from_word(w));
        i += 1;
    }
    if items.is_empty() {
        items.push(PathItem::literal("."));
    }
    (items, i)
}
