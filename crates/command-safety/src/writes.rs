//! Which files a known file-changing command writes, creates, moves or deletes (see
//! [`super::classify_in`] for the rules); [`super::site`] tells whether they are inside the
//! workspace.
//!
//! Only the words that name what changes count: the destination of `cp`, every operand of
//! `rm`, the archive `tar c` writes and the directory `tar x` fills, not the files read on the
//! way. A command not listed here has no known targets (`cargo build`, `make`): the working
//! directory check in [`super::classify_in`] still applies to it.

use super::Word;
use super::reads::find_start_points;
use super::site::PathItem;

/// The words of a command line split into options (with the values of those that take one)
/// and operands.
struct Parsed<'w> {
    /// `-x` or `--long`, with a value when the option takes one.
    options: Vec<(String, Option<PathItem>)>,
    operands: Vec<&'w Word>,
}

impl Parsed<'_> {
    fn has(&self, names: &[&str]) -> bool {
        self.options
            .iter()
            .any(|(n, _)| names.contains(&n.as_str()))
    }

    /// The values of the options in `names`.
    fn values_of(&self, names: &[&str]) -> Vec<PathItem> {
        self.options
            .iter()
            .filter(|(n, _)| names.contains(&n.as_str()))
            .filter_map(|(_, v)| v.clone())
            .collect()
    }

    fn operand_items(&self) -> Vec<PathItem> {
        self.operands
            .iter()
            .filter_map(|w| PathItem::from_word(w))
            .collect()
    }
}

/// Whether `option` is one of the space-separated `options`.
fn listed(options: &str, option: &str) -> bool {
    options.split_ascii_whitespace().any(|o| o == option)
}

/// The listed long option `name` abbreviates (the first one it is a prefix of, so an
/// ambiguous abbreviation reads as one of the options it could be); `name` itself when it is
/// listed or abbreviates none.
fn canonical(options: &str, name: &str) -> String {
    if listed(options, name) || name.len() < 4 {
        return name.to_string();
    }
    options
        .split_ascii_whitespace()
        .find(|o| o.starts_with("--") && o.starts_with(name))
        .unwrap_or(name)
        .to_string()
}

/// Splits words the way getopt-style programs read them: `--` ends the options; a long option
/// takes its value after `=`, or the next word when listed in `takes_value`; in a group of
/// single letters, a letter listed in `takes_value` takes the rest of the group, or the next
/// word. A word that is not literal, `-`, or does not start with `-` is an operand.
fn parse<'w>(args: &'w [Word], takes_value: &str) -> Parsed<'w> {
    let mut parsed = Parsed {
        options: Vec::new(),
        operands: Vec::new(),
    };
    let mut i = 0;
    while i < args.len() {
        let word = &args[i];
        let v = word.value.as_str();
        i += 1;
        if !word.literal || v == "-" || !v.starts_with('-') {
            parsed.operands.push(word);
            continue;
        }
        if v == "--" {
            parsed.operands.extend(&args[i..]);
            break;
        }
        if v.starts_with("--") {
            // GNU abbreviations: `--target=DIR` is `--target-directory=DIR`.
            let (name, value) = match v.split_once('=') {
                Some((n, value)) => (n, Some(value)),
                None => (v, None),
            };
            let name = canonical(takes_value, name);
            let v = name.as_str();
            match value {
                Some(value) => parsed
                    .options
                    .push((name.clone(), Some(PathItem::literal(value)))),
                None if listed(takes_value, v) => {
                    parsed
                        .options
                        .push((v.to_string(), args.get(i).and_then(PathItem::from_word)));
                    i += 1;
                }
                None => parsed.options.push((v.to_string(), None)),
            }
            continue;
        }
        for (at, letter) in v.char_indices().skip(1) {
            let option = format!("-{letter}");
            if listed(takes_value, &option) {
                let rest = &v[at + letter.len_utf8()..];
                let value = if rest.is_empty() {
                    i += 1;
                    args.get(i - 1).and_then(PathItem::from_word)
                } else {
                    Some(PathItem::literal(rest))
                };
                parsed.options.push((option, value));
                break;
            }
            parsed.options.push((option, None));
        }
    }
    parsed
}

/// The paths a known file-changing program writes, creates, moves or deletes, from its words;
/// `None` for a program this module does not know. Paths that only the running program
/// decides (`cargo build`, the files inside a patch) are not listed.
pub(super) fn write_operands(program: &str, args: &[Word]) -> Option<Vec<PathItem>> {
    let entries = |items: Vec<PathItem>| items.into_iter().map(PathItem::into_entry).collect();
    Some(match program {
        "cp" | "mv" | "ln" | "install" => copy_targets(program, args),
        "rm" | "unlink" | "rmdir" => entries(parse(args, "").operand_items()),
        "shred" => entries(parse(args, "-n --iterations -s --size").operand_items()),
        "touch" => parse(args, "-d --date -r --reference -t").operand_items(),
        "mkdir" => parse(args, "-m --mode").operand_items(),
        "truncate" => parse(args, "-s --size -r --reference").operand_items(),
        "tee" => parse(args, "").operand_items(),
        "chmod" | "chown" | "chgrp" => owner_or_mode_targets(program, args),
        "dd" => args
            .iter()
            .filter(|w| w.value.starts_with("of="))
            .map(
                |w| match w.path.as_deref().and_then(|p| p.strip_prefix("of=")) {
                    Some(path) => PathItem::literal(path),
                    None => PathItem::unknown(&w.value),
                },
            )
            .collect(),
        "rsync" | "scp" => remote_copy_targets(program, args),
        "tar" | "gtar" | "bsdtar" => tar_targets(args),
        "unzip" => unzip_targets(args),
        "sed" => sed_in_place_targets(args),
        "git" => git_targets(args),
        "curl" => parse(
            args,
            "-A -b -C -d -e -E -F -H -K -m -P -Q -r -t -T -u -U -w -x -X -y -Y -z -o -D -c \
             --output --dump-header --cookie-jar --trace --trace-ascii --stderr --libcurl \
             --output-dir --etag-save --hsts --alt-svc --data --data-raw --data-binary \
             --data-urlencode --header --user-agent --url --request --user --form --referer \
             --cookie --config --max-time --json --proxy --upload-file --connect-timeout \
             --retry",
        )
        .values_of(&[
            "-o",
            "-D",
            "-c",
            "--output",
            "--dump-header",
            "--cookie-jar",
            "--trace",
            "--trace-ascii",
            "--stderr",
            "--libcurl",
            "--output-dir",
            "--etag-save",
            "--hsts",
            "--alt-svc",
        ]),
        "wget" => parse(
            args,
            "-O -o -a -P -e -t -T -w -Q -U -i -B -D -X -I -A -R -l --output-document \
             --output-file --append-output --directory-prefix --execute --tries --timeout \
             --wait --quota --user-agent --input-file --base --domains --header --user \
             --password --post-data --post-file --load-cookies --save-cookies",
        )
        .values_of(&[
            "-O",
            "-o",
            "-a",
            "-P",
            "--output-document",
            "--output-file",
            "--append-output",
            "--directory-prefix",
            "--save-cookies",
        ]),
        "patch" => {
            let parsed = parse(
                args,
                "-d --directory -o --output -B --prefix -r --reject-file -p --strip -F --fuzz \
                 -D --ifdef -V --version-control -z --suffix -Y --basename-prefix -i --input \
                 -g --get --quoting-style",
            );
            let mut items = parsed.values_of(&[
                "-d",
                "--directory",
                "-o",
                "--output",
                "-B",
                "--prefix",
                "-r",
                "--reject-file",
            ]);
            // `patch [OPTIONS] [ORIGINALFILE [PATCHFILE]]`: the first operand is patched.
            items.extend(parsed.operands.first().and_then(|w| PathItem::from_word(w)));
            items
        }
        "sort" => parse(
            args,
            "-t -k -S -T -o --field-separator --key --buffer-size --temporary-directory \
             --parallel --batch-size --files0-from --compress-program --output",
        )
        .values_of(&["-o", "--output"]),
        // `uniq IN OUT`, `xxd IN OUT`: the second operand is written.
        "uniq" => second_operand(&parse(
            args,
            "-f -s -w --skip-fields --skip-chars --check-chars",
        )),
        "xxd" => second_operand(&parse(args, "-c -g -l -s -o -n")),
        "tree" => parse(
            args,
            "-L -P -I -H -T -o --charset --filelimit --timefmt --sort --fromfile",
        )
        .values_of(&["-o"]),
        "find" => find_targets(args),
        // `split IN PREFIX`: the pieces are written beside `PREFIX` (`x` in the working
        // directory when not given).
        "split" => {
            let parsed = parse(
                args,
                "-a -b -C -l -n -t --suffix-length --bytes --line-bytes --lines --number \
                 --separator --additional-suffix --filter",
            );
            match parsed.operands.get(1) {
                Some(prefix) => PathItem::from_word(prefix).into_iter().collect(),
                None => vec![PathItem::literal("x")],
            }
        }
        // `mktemp [-p DIR | --tmpdir[=DIR]] [TEMPLATE]`: `$TMPDIR` or `/tmp` unless a
        // template without `-t`/`--tmpdir` names a place.
        "mktemp" => {
            let parsed = parse(args, "-p --tmpdir --suffix");
            let mut items = parsed.values_of(&["-p", "--tmpdir"]);
            let in_tmp = parsed.has(&["-t", "--tmpdir"]) || parsed.operands.is_empty();
            if items.is_empty() && in_tmp {
                items.push(PathItem::unknown("$TMPDIR"));
            } else if items.is_empty() {
                items.extend(parsed.operand_items());
            }
            items
        }
        "time" => parse(args, "-o --output -f --format").values_of(&["-o", "--output"]),
        // `make -C DIR` builds in `DIR`.
        "make" | "gmake" => parse(
            args,
            "-C --directory -f --file --makefile -I --include-dir -o --old-file -W --what-if \
             --new-file --assume-new --assume-old --eval",
        )
        .values_of(&["-C", "--directory"]),
        _ => return None,
    })
}

/// Whether file names appended to the command (as `xargs` does) are among what it changes:
/// `xargs rm`, `xargs sed -i …`, but not `xargs cp -t DIR`, whose added names are sources.
pub(super) fn input_names_targets(program: &str, args: &[Word]) -> bool {
    match program {
        "rm" | "unlink" | "rmdir" | "shred" | "touch" | "mkdir" | "truncate" | "tee" | "chmod"
        | "chown" | "chgrp" | "mv" => true,
        "cp" | "ln" | "install" => {
            !parse(args, "-t --target-directory -S --suffix").has(&["-t", "--target-directory"])
        }
        "sed" => args.iter().any(|w| {
            w.value == "--in-place"
                || w.value.starts_with("--in-place=")
                || (w.value.starts_with('-')
                    && !w.value.starts_with("--")
                    && w.value[1..].starts_with(|c: char| c != 'e' && c != 'f')
                    && w.value.contains('i'))
        }),
        _ => false,
    }
}

fn second_operand(parsed: &Parsed<'_>) -> Vec<PathItem> {
    parsed
        .operands
        .get(1)
        .and_then(|w| PathItem::from_word(w))
        .into_iter()
        .collect()
}

/// `cp`/`mv`/`ln`/`install`: the destination (the last operand, or `-t DIR`); for `mv` also
/// the sources, which it removes; for `install -d` every operand, each a directory it creates.
fn copy_targets(program: &str, args: &[Word]) -> Vec<PathItem> {
    let takes_value = if program == "install" {
        "-t --target-directory -S --suffix -m --mode -o --owner -g --group --strip-program"
    } else {
        "-t --target-directory -S --suffix"
    };
    let parsed = parse(args, takes_value);
    let mut items = parsed.values_of(&["-t", "--target-directory"]);
    let targeted = parsed.has(&["-t", "--target-directory"]);
    let mut operands = parsed.operand_items();
    if program == "install" && parsed.has(&["-d", "--directory"]) {
        items.extend(operands);
        return items;
    }
    let destination = if targeted || operands.len() < 2 {
        None
    } else {
        operands.pop()
    };
    if program == "mv" {
        items.extend(operands.into_iter().map(PathItem::into_entry));
    }
    items.extend(destination);
    items
}

/// `chmod MODE FILE…`, `chown OWNER FILE…`, `chgrp GROUP FILE…` (no mode or owner with
/// `--reference=FILE`). A `chmod` mode may start with `-` (`chmod -x f`).
fn owner_or_mode_targets(program: &str, args: &[Word]) -> Vec<PathItem> {
    let flags = if program == "chmod" {
        "cfvR"
    } else {
        "cfvRhHLP"
    };
    let mut reference = false;
    let mut operands: Vec<&Word> = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let word = &args[i];
        let v = word.value.as_str();
        i += 1;
        if !word.literal {
            operands.push(word);
        } else if v == "--" {
            operands.extend(&args[i..]);
            break;
        } else if v.starts_with("--") {
            if v == "--reference" {
                reference = true;
                i += 1;
            } else if v.starts_with("--reference=") {
                reference = true;
            } else if v == "--from" {
                i += 1;
            }
        } else if v.len() > 1 && v.starts_with('-') && v[1..].chars().all(|c| flags.contains(c)) {
        } else {
            operands.push(word);
        }
    }
    operands
        .into_iter()
        .skip(usize::from(!reference))
        .filter_map(PathItem::from_word)
        .collect()
}

/// `rsync SRC… DEST`, `scp SRC… DEST`: the destination when it is on this machine, and the
/// files `rsync` keeps beside it (`--log-file`, `--backup-dir`, `--temp-dir`).
fn remote_copy_targets(program: &str, args: &[Word]) -> Vec<PathItem> {
    let parsed = if program == "rsync" {
        parse(
            args,
            "-e --rsh -f --filter --exclude --include --exclude-from --include-from \
             --files-from -T --temp-dir -B --block-size -M --remote-option --log-file \
             --backup-dir --partial-dir --compare-dest --copy-dest --link-dest --rsync-path \
             --chmod --chown --timeout --bwlimit --port --password-file --out-format \
             --log-file-format --suffix --max-size --min-size --max-delete --modify-window \
             --usermap --groupmap --info --debug",
        )
    } else {
        parse(args, "-c -D -F -i -J -l -o -P -S -X")
    };
    let mut items = parsed.values_of(&[
        "--log-file",
        "--backup-dir",
        "-T",
        "--temp-dir",
        "--partial-dir",
    ]);
    if parsed.operands.len() >= 2
        && let Some(destination) = parsed.operands.last()
        && !is_remote(&destination.value)
    {
        items.extend(PathItem::from_word(destination));
    }
    items
}

/// `host:path`, `user@host:path`, `host::module`, `rsync://…`, `scp://…`.
fn is_remote(operand: &str) -> bool {
    if operand.contains("://") || operand.contains("::") {
        return true;
    }
    operand
        .split_once(':')
        .is_some_and(|(host, _)| !host.is_empty() && !host.contains('/'))
}

/// `tar`: the archive (`-f`) when creating, appending or updating, and the directory
/// (`-C`/`--directory`) it extracts into. The old form `tar xf ARCHIVE` takes the values of
/// its letters from the words that follow, in order.
fn tar_targets(args: &[Word]) -> Vec<PathItem> {
    const TAKES_VALUE: &str = "fCbTXNgKVLFHI";
    let mut writes_archive = false;
    let mut extracts = false;
    let mut archives: Vec<PathItem> = Vec::new();
    let mut directories: Vec<PathItem> = Vec::new();
    let mut mode = |letter: char| match letter {
        'c' | 'r' | 'u' | 'A' => writes_archive = true,
        'x' => extracts = true,
        _ => {}
    };
    let mut keep = |letter: char, value: Option<PathItem>| match letter {
        'f' => archives.extend(value),
        'C' => directories.extend(value),
        _ => {}
    };
    let mut i = 0;
    if let Some(first) = args.first()
        && first.literal
        && !first.value.starts_with('-')
    {
        i = 1;
        for letter in first.value.chars() {
            mode(letter);
            if TAKES_VALUE.contains(letter) {
                keep(letter, args.get(i).and_then(PathItem::from_word));
                i += 1;
            }
        }
    }
    while i < args.len() {
        let word = &args[i];
        let v = word.value.as_str();
        i += 1;
        if !word.literal || v == "-" || !v.starts_with('-') {
            continue;
        }
        if v == "--" {
            break;
        }
        if let Some(long) = v.strip_prefix("--") {
            let (name, attached) = match long.split_once('=') {
                Some((n, a)) => (n, Some(PathItem::literal(a))),
                None => (long, None),
            };
            let value = |i: &mut usize| {
                attached.clone().or_else(|| {
                    *i += 1;
                    args.get(*i - 1).and_then(PathItem::from_word)
                })
            };
            match name {
                "create" | "append" | "update" | "concatenate" | "catenate" | "delete" => mode('c'),
                "extract" | "get" => mode('x'),
                "file" => keep('f', value(&mut i)),
                "directory" => keep('C', value(&mut i)),
                _ => {}
            }
            continue;
        }
        for (at, letter) in v.char_indices().skip(1) {
            mode(letter);
            if TAKES_VALUE.contains(letter) {
                let rest = &v[at + letter.len_utf8()..];
                let value = if rest.is_empty() {
                    i += 1;
                    args.get(i - 1).and_then(PathItem::from_word)
                } else {
                    Some(PathItem::literal(rest))
                };
                keep(letter, value);
                break;
            }
        }
    }
    let mut items = Vec::new();
    if writes_archive {
        items.extend(archives);
    }
    if extracts {
        items.extend(directories);
    }
    items
}

/// `unzip ARCHIVE -d DIR`: the directory it extracts into (nothing when it only lists, tests
/// or prints).
fn unzip_targets(args: &[Word]) -> Vec<PathItem> {
    let mut items = Vec::new();
    let mut only_reads = false;
    let mut i = 0;
    while i < args.len() {
        let word = &args[i];
        let v = word.value.as_str();
        i += 1;
        if !word.literal || !v.starts_with('-') || v.starts_with("--") {
            continue;
        }
        for (at, letter) in v.char_indices().skip(1) {
            match letter {
                'l' | 't' | 'p' | 'v' | 'Z' | 'z' => only_reads = true,
                'd' | 'P' => {
                    let rest = &v[at + 1..];
                    let value = if rest.is_empty() {
                        i += 1;
                        args.get(i - 1).and_then(PathItem::from_word)
                    } else {
                        Some(PathItem::literal(rest))
                    };
                    if letter == 'd' {
                        items.extend(value);
                    }
                    break;
                }
                _ => {}
            }
        }
    }
    if only_reads { Vec::new() } else { items }
}

/// `sed -i SCRIPT FILE…`: the files it edits (the first operand is the script unless `-e` or
/// `-f` gave it); nothing without `-i`.
fn sed_in_place_targets(args: &[Word]) -> Vec<PathItem> {
    let mut in_place = false;
    let mut script_given = false;
    let mut operands: Vec<&Word> = Vec::new();
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
        if let Some(long) = v.strip_prefix("--") {
            let (name, attached) = match long.split_once('=') {
                Some((n, _)) => (n, true),
                None => (long, false),
            };
            match name {
                "in-place" => in_place = true,
                "expression" | "file" => {
                    script_given = true;
                    i += usize::from(!attached);
                }
                "line-length" => i += usize::from(!attached),
                _ => {}
            }
            continue;
        }
        for (at, letter) in v.char_indices().skip(1) {
            let rest_empty = at + 1 == v.len();
            match letter {
                // The rest of the group is the backup suffix.
                'i' => {
                    in_place = true;
                    break;
                }
                'e' | 'f' => {
                    script_given = true;
                    i += usize::from(rest_empty);
                    break;
                }
                'l' => {
                    i += usize::from(rest_empty);
                    break;
                }
                _ => {}
            }
        }
    }
    if !in_place {
        return Vec::new();
    }
    operands
        .into_iter()
        .skip(usize::from(!script_given))
        .filter_map(PathItem::from_word)
        .collect()
}

/// `git`: the repository it is pointed at (`-C`, `--git-dir`, `--work-tree`), the directory
/// `clone`, `init` and `worktree add` create, and `--output`/`-o` files.
fn git_targets(args: &[Word]) -> Vec<PathItem> {
    let mut items = Vec::new();
    let mut i = 0;
    while let Some(w) = args.get(i) {
        let v = w.value.as_str();
        match v {
            "-C" | "--git-dir" | "--work-tree" => {
                items.extend(args.get(i + 1).and_then(PathItem::from_word));
                i += 2;
            }
            "--namespace" | "-c" | "--config-env" => i += 2,
            _ if v.starts_with("--git-dir=") || v.starts_with("--work-tree=") => {
                items.extend(v.split_once('=').map(|(_, p)| PathItem::literal(p)));
                i += 1;
            }
            _ if v.starts_with('-') => i += 1,
            _ => break,
        }
    }
    let sub = args.get(i).map(|w| w.value.as_str());
    let rest = args.get(i + 1..).unwrap_or(&[]);
    match sub {
        Some("clone") => {
            let parsed = parse(
                rest,
                "-b --branch -o --origin -c --config --depth --reference --reference-if-able \
                 --separate-git-dir -u --upload-pack -j --jobs --template --filter \
                 --shallow-since --shallow-exclude --server-option --bundle-uri",
            );
            items.extend(parsed.values_of(&["--separate-git-dir"]));
            items.extend(second_operand(&parsed));
        }
        Some("init") => {
            let parsed = parse(
                rest,
                "--template --separate-git-dir -b --initial-branch --object-format",
            );
            items.extend(parsed.values_of(&["--separate-git-dir"]));
            items.extend(parsed.operand_items().into_iter().take(1));
        }
        Some("worktree") if rest.first().is_some_and(|w| w.value == "add") => {
            let parsed = parse(&rest[1..], "-b -B --reason");
            items.extend(parsed.operand_items().into_iter().take(1));
        }
        Some("bundle") if rest.first().is_some_and(|w| w.value == "create") => {
            items.extend(
                rest.get(1..)
                    .unwrap_or(&[])
                    .iter()
                    .find(|w| !w.value.starts_with('-'))
                    .and_then(PathItem::from_word),
            );
        }
        Some("config") => {
            let parsed = parse(rest, "-f --file --blob --type --default --comment");
            items.extend(parsed.values_of(&["-f", "--file"]));
        }
        Some("archive" | "format-patch" | "bundle") => {
            let parsed = parse(rest, "-o --output --prefix --format --remote --exec");
            items.extend(parsed.values_of(&["-o", "--output"]));
        }
        _ => {
            let parsed = parse(rest, "--output");
            items.extend(parsed.values_of(&["--output"]));
        }
    }
    items
}

/// `find`: the files `-fprint`/`-fls` write, and with `-exec`/`-ok` the starting points,
/// since the command runs on what is found there.
fn find_targets(args: &[Word]) -> Vec<PathItem> {
    let (start, from) = find_start_points(args);
    let mut items = Vec::new();
    let mut runs = false;
    let mut i = from;
    while i < args.len() {
        match args[i].value.as_str() {
            "-fprint" | "-fprint0" | "-fprintf" | "-fls" => {
                items.extend(args.get(i + 1).and_then(PathItem::from_word));
                i += 1;
            }
            "-exec" | "-execdir" | "-ok" | "-okdir" => runs = true,
            _ => {}
        }
        i += 1;
    }
    if runs {
        items.extend(start);
    }
    items
}
