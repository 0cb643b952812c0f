//! The module graph of a crate, read from its source: which module names which.
//!
//! A reference is a path that starts with `crate::`, `super::`, `self::` or the name of a
//! child module (in `use` lines, with their `{..}` groups, and inline in code). Each is
//! resolved to the module path it names, and counted as an arrow between two children of
//! every folder the two share: `crate::engines::contacts` naming
//! `crate::model::blocks::CHUNK` is an arrow `engines -> model` among the crate's
//! top-level modules. The folder's own file (`lib.rs`, `mod.rs`, or `name.rs` beside
//! `name/`) is the node `self`; its `mod` lines are not arrows, the names it uses from
//! its children are. A name taken through a re-export (`pub use`) counts as taken from
//! the module that defines it; a re-export alone is a facade, not an arrow.
//!
//! This reads text, not the compiler's resolution: a glob import or a macro that builds
//! a path can hide an arrow. Comments, string literals and inline `mod name { .. }`
//! blocks (unit tests) are skipped.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// A module's path inside its crate: `["contacts", "step"]`; the crate root is `[]`.
pub type ModPath = Vec<String>;

/// Every source file of a crate's `src/`, with its module path.
pub fn files(src: &Path) -> Vec<(ModPath, PathBuf)> {
    let mut out = Vec::new();
    walk(src, src, &mut out);
    out.sort();
    out
}

fn walk(src: &Path, dir: &Path, out: &mut Vec<(ModPath, PathBuf)>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            walk(src, &path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push((module_path(src, &path), path));
        }
    }
}

/// `src/a/b.rs` is `[a, b]`; `src/a/mod.rs` and `src/a.rs` are `[a]`; `src/lib.rs` is `[]`.
fn module_path(src: &Path, file: &Path) -> ModPath {
    let rel = file.strip_prefix(src).expect("file under src");
    let mut parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().trim_end_matches(".rs").to_string())
        .collect();
    if matches!(
        parts.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        parts.pop();
    }
    parts
}

/// The code of a file with comments and string and char literals blanked out.
fn code_only(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < b.len() {
        if b[i..].starts_with(b"//") {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if b[i..].starts_with(b"/*") {
            let mut depth = 0;
            while i < b.len() {
                if b[i..].starts_with(b"/*") {
                    depth += 1;
                    i += 2;
                } else if b[i..].starts_with(b"*/") {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if b[i] == b'r' && i + 1 < b.len() && (b[i + 1] == b'"' || b[i + 1] == b'#') {
            // A raw string: r"..", r#".."#.
            let mut j = i + 1;
            let mut hashes = 0;
            while j < b.len() && b[j] == b'#' {
                hashes += 1;
                j += 1;
            }
            if j < b.len() && b[j] == b'"' {
                let close: Vec<u8> = std::iter::once(b'"')
                    .chain(std::iter::repeat_n(b'#', hashes))
                    .collect();
                j += 1;
                while j < b.len() && !b[j..].starts_with(&close) {
                    j += 1;
                }
                i = j + close.len();
                out.push(' ');
            } else {
                out.push('r');
                i += 1;
            }
        } else if b[i] == b'"' {
            i += 1;
            while i < b.len() && b[i] != b'"' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
            out.push(' ');
        } else if b[i] == b'\'' && i + 2 < b.len() && (b[i + 2] == b'\'' || b[i + 1] == b'\\') {
            // A char literal ('a', '\n', '\''); lifetimes ('a) pass through.
            i += 1;
            while i < b.len() && b[i] != b'\'' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
            out.push(' ');
        } else {
            let ch = text[i..].chars().next().expect("char");
            out.push(ch);
            i += ch.len_utf8();
        }
    }
    out
}

/// The code without its inline `mod name { .. }` blocks (unit tests): their `super::`
/// is the file itself, and tests are not floors of the house.
fn without_inline_modules(code: &str) -> Vec<char> {
    let chars: Vec<char> = code.chars().collect();
    let mut out = Vec::with_capacity(chars.len());
    let mut i = 0;
    while i < chars.len() {
        let at_word = i == 0 || !is_ident(chars[i - 1]);
        if at_word && chars[i..].starts_with(&['m', 'o', 'd']) {
            let mut j = i + 3;
            let gap = j;
            while j < chars.len() && chars[j].is_whitespace() {
                j += 1;
            }
            let name = j;
            while j < chars.len() && is_ident(chars[j]) {
                j += 1;
            }
            let named = j > name && name > gap;
            while j < chars.len() && chars[j].is_whitespace() {
                j += 1;
            }
            if named && j < chars.len() && chars[j] == '{' {
                i = matching_brace(chars.as_slice(), j) + 1;
                continue;
            }
        }
        out.push(chars[i]);
        i += 1;
    }
    out
}

/// The index of the `}` that closes the `{` at `open` (the end of the text if none).
fn matching_brace(chars: &[char], open: usize) -> usize {
    let mut depth = 0;
    for (j, &c) in chars.iter().enumerate().skip(open) {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return j;
                }
            }
            _ => {}
        }
    }
    chars.len()
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The module paths a file names, resolved from its own path `here`.
/// A path whose first segment is a child module of `here` (`use error::DemError;` in
/// `lib.rs`) counts too; `modules` are the module paths of the crate. Each path comes
/// with what kind of reference it is.
pub fn references(
    here: &ModPath,
    text: &str,
    modules: &BTreeSet<ModPath>,
) -> BTreeSet<(ModPath, Kind)> {
    let chars = without_inline_modules(&code_only(text));
    let exports = reexport_spans(&chars);
    let in_export = |i: usize| exports.iter().any(|&(a, b)| a <= i && i < b);
    // The words of the code outside the re-exports: a re-exported name that the file
    // also uses itself is a use as well as a facade.
    let mut words = BTreeSet::new();
    let mut w = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if is_ident(c) && !in_export(i) {
            w.push(c);
        } else if !w.is_empty() {
            words.insert(std::mem::take(&mut w));
        }
    }
    let kind = |i: usize, path: &ModPath| match (in_export(i), path.last()) {
        (false, _) => Kind::Use,
        (true, Some(name)) if words.contains(name) => Kind::ExportAndUse,
        (true, _) => Kind::Export,
    };
    let mut found = BTreeSet::new();
    let mut i = 0;
    while i < chars.len() {
        let start_ok = i == 0 || !(is_ident(chars[i - 1]) || chars[i - 1] == ':');
        if start_ok && is_ident(chars[i]) {
            let (path, end) = read_path(&chars, i);
            let group = end < chars.len() && chars[end] == '{';
            if let Some(base) = resolve_root(here, &path, modules, group) {
                let rest = &path[base.1..];
                if end < chars.len() && chars[end] == '{' {
                    for group in read_group(&chars, end + 1) {
                        let mut full = base.0.clone();
                        full.extend(rest.iter().cloned());
                        full.extend(group.into_iter().filter(|s| s != "self"));
                        let e = kind(i, &full);
                        found.insert((full, e));
                    }
                } else {
                    let mut full = base.0.clone();
                    full.extend(rest.iter().cloned());
                    let e = kind(i, &full);
                    found.insert((full, e));
                }
            }
            i = end.max(i + 1);
        } else {
            i += 1;
        }
    }
    found
}

/// How a file names a path.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    /// A use: an import, or a path in the code.
    Use,
    /// A re-export (`pub use`) of a name the file does not use itself.
    Export,
    /// A re-export of a name the file uses too.
    ExportAndUse,
}

/// The spans of the `pub use ..;` statements (any `pub(..)` too).
fn reexport_spans(chars: &[char]) -> Vec<(usize, usize)> {
    let text: String = chars.iter().collect();
    let mut out = Vec::new();
    let mut from = 0;
    // Char indices: the text is rebuilt from chars, so byte offsets are mapped back.
    let index_of = |byte: usize| text[..byte].chars().count();
    while let Some(at) = text[from..].find("pub") {
        let start = from + at;
        from = start + 3;
        let before_ok = start == 0 || !is_ident(text[..start].chars().next_back().unwrap_or(' '));
        let mut rest = text[start + 3..].trim_start();
        if rest.starts_with('(') {
            let Some(close) = rest.find(')') else {
                continue;
            };
            rest = rest[close + 1..].trim_start();
        }
        if !before_ok || !rest.starts_with("use") || rest[3..].starts_with(is_ident) {
            continue;
        }
        let use_at = text.len() - rest.len();
        let end = text[use_at..].find(';').map_or(text.len(), |e| use_at + e);
        out.push((index_of(start), index_of(end)));
        from = end;
    }
    out
}

/// Reads `a::b::c` from `i`; returns the segments and the index after the last `::`
/// (pointing at `{` for a group) or after the last segment.
fn read_path(chars: &[char], mut i: usize) -> (Vec<String>, usize) {
    let mut segs = Vec::new();
    loop {
        let s = i;
        while i < chars.len() && is_ident(chars[i]) {
            i += 1;
        }
        segs.push(chars[s..i].iter().collect());
        if i + 1 < chars.len() && chars[i] == ':' && chars[i + 1] == ':' {
            let mut j = i + 2;
            while j < chars.len() && chars[j].is_whitespace() {
                j += 1;
            }
            if j < chars.len() && is_ident(chars[j]) {
                i = j;
                continue;
            }
            return (segs, j);
        }
        return (segs, i);
    }
}

/// The paths of a `{..}` group starting after its `{`, nested groups flattened.
fn read_group(chars: &[char], mut i: usize) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    loop {
        while i < chars.len() && (chars[i].is_whitespace() || chars[i] == ',') {
            i += 1;
        }
        if i >= chars.len() || chars[i] == '}' {
            return out;
        }
        if !is_ident(chars[i]) {
            // `*` and the like: skip one character.
            i += 1;
            continue;
        }
        let (path, end) = read_path(chars, i);
        if end < chars.len() && chars[end] == '{' {
            let inner = read_group(chars, end + 1);
            for p in inner {
                let mut full = path.clone();
                full.extend(p);
                out.push(full);
            }
            i = matching_brace(chars, end) + 1;
        } else {
            out.push(path);
            i = end;
            // Skip an `as name`.
            let mut j = i;
            while j < chars.len() && chars[j].is_whitespace() {
                j += 1;
            }
            if chars[j..].starts_with(&['a', 's'])
                && chars.get(j + 2).is_some_and(|c| c.is_whitespace())
            {
                j += 2;
                while j < chars.len() && (chars[j].is_whitespace() || is_ident(chars[j])) {
                    j += 1;
                }
                i = j;
            }
        }
    }
}

/// Where a path starting `crate`, `super`, `self` or a child module points (`group`: it
/// is followed by `::{..}`), and how many segments that prefix took. Other paths (external crates, locals) are `None`.
fn resolve_root(
    here: &ModPath,
    path: &[String],
    modules: &BTreeSet<ModPath>,
    group: bool,
) -> Option<(ModPath, usize)> {
    if path.len() > 1 || group {
        let mut child = here.clone();
        child.push(path[0].clone());
        if modules.contains(&child) {
            return Some((child, 1));
        }
    }
    match path.first().map(String::as_str) {
        Some("crate") => Some((Vec::new(), 1)),
        Some("self") if path.len() > 1 => Some((here.clone(), 1)),
        Some("super") => {
            let mut base = here.clone();
            let mut n = 0;
            while path.get(n).map(String::as_str) == Some("super") {
                base.pop();
                n += 1;
            }
            Some((base, n))
        }
        _ => None,
    }
}

/// The arrows among the children of the folder `parent`: `from -> to` with the names
/// that carry each. A child is a module of the folder; `self` is the folder's own file.
pub type Arrows = BTreeMap<(String, String), BTreeSet<String>>;

/// The arrows among the children of every folder of a crate, keyed by the folder's path.
///
/// A folder's own file that re-exports a child's item (`pub use child::Item;`) and does
/// not use it itself draws no arrow by it (a facade, not a use), and a name taken through such a re-export counts
/// as taken from the child that defines it.
pub fn graphs(src: &Path) -> BTreeMap<ModPath, Arrows> {
    let files = files(src);
    let modules: BTreeSet<ModPath> = files.iter().map(|(m, _)| m.clone()).collect();
    let refs: Vec<(ModPath, BTreeSet<(ModPath, Kind)>)> = files
        .iter()
        .map(|(here, file)| {
            let text = fs::read_to_string(file).expect("readable source");
            (here.clone(), references(here, &text, &modules))
        })
        .collect();
    // (folder, name) -> the path a folder's own file re-exports under that name.
    let mut exports: BTreeMap<(ModPath, String), ModPath> = BTreeMap::new();
    for (here, found) in &refs {
        for (target, kind) in found {
            if *kind != Kind::Use && target.len() > here.len() && target.starts_with(here) {
                let name = target.last().expect("a path").clone();
                exports.insert((here.clone(), name), target.clone());
            }
        }
    }
    let mut out: BTreeMap<ModPath, Arrows> = BTreeMap::new();
    for (here, found) in &refs {
        for (target, kind) in found {
            for depth in 0..=here.len() {
                let parent = &here[..depth];
                if *kind == Kind::Export && depth == here.len() {
                    continue;
                }
                let mut target = target.clone();
                // Follow re-exports of the folder's own file to the defining child.
                for _ in 0..8 {
                    if !target.starts_with(parent) || target.len() <= depth {
                        break;
                    }
                    let mut child = parent.to_vec();
                    child.push(target[depth].clone());
                    if modules.contains(&child) {
                        break;
                    }
                    match exports.get(&(parent.to_vec(), target[depth].clone())) {
                        Some(to) if to != &target[..depth + 1] => {
                            let mut t = to.clone();
                            t.extend(target[depth + 1..].iter().cloned());
                            target = t;
                        }
                        _ => break,
                    }
                }
                if !target.starts_with(parent) || target.len() <= depth {
                    continue;
                }
                let from = here.get(depth).cloned().unwrap_or_else(|| "self".into());
                let mut child = parent.to_vec();
                child.push(target[depth].clone());
                let to = if modules.contains(&child) {
                    target[depth].clone()
                } else {
                    "self".into()
                };
                if from != to {
                    let at = if to == "self" { depth } else { depth + 1 };
                    let name = target.get(at).cloned().unwrap_or_default();
                    out.entry(parent.to_vec())
                        .or_default()
                        .entry((from, to))
                        .or_default()
                        .insert(name);
                }
            }
        }
    }
    out
}

/// The circles (strongly connected components of two or more) of a graph, by Tarjan.
pub fn circles(arrows: &Arrows) -> Vec<Vec<String>> {
    let mut nodes: BTreeSet<&String> = BTreeSet::new();
    for (a, b) in arrows.keys() {
        nodes.insert(a);
        nodes.insert(b);
    }
    let nodes: Vec<&String> = nodes.into_iter().collect();
    let index_of = |n: &String| nodes.iter().position(|m| *m == n).expect("node");
    let mut next: Vec<Vec<usize>> = vec![Vec::new(); nodes.len()];
    for (a, b) in arrows.keys() {
        next[index_of(a)].push(index_of(b));
    }
    struct Tarjan<'a> {
        next: &'a [Vec<usize>],
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on_stack: Vec<bool>,
        stack: Vec<usize>,
        count: usize,
        out: Vec<Vec<usize>>,
    }
    impl Tarjan<'_> {
        fn visit(&mut self, v: usize) {
            self.index[v] = Some(self.count);
            self.low[v] = self.count;
            self.count += 1;
            self.stack.push(v);
            self.on_stack[v] = true;
            for k in 0..self.next[v].len() {
                let w = self.next[v][k];
                match self.index[w] {
                    None => {
                        self.visit(w);
                        self.low[v] = self.low[v].min(self.low[w]);
                    }
                    Some(iw) if self.on_stack[w] => self.low[v] = self.low[v].min(iw),
                    _ => {}
                }
            }
            if Some(self.low[v]) == self.index[v] {
                let mut scc = Vec::new();
                loop {
                    let w = self.stack.pop().expect("stack");
                    self.on_stack[w] = false;
                    scc.push(w);
                    if w == v {
                        break;
                    }
                }
                if scc.len() > 1 {
                    self.out.push(scc);
                }
            }
        }
    }
    let mut t = Tarjan {
        next: &next,
        index: vec![None; nodes.len()],
        low: vec![0; nodes.len()],
        on_stack: vec![false; nodes.len()],
        stack: Vec::new(),
        count: 0,
        out: Vec::new(),
    };
    for v in 0..nodes.len() {
        if t.index[v].is_none() {
            t.visit(v);
        }
    }
    let mut out: Vec<Vec<String>> = t
        .out
        .into_iter()
        .map(|scc| {
            let mut names: Vec<String> = scc.into_iter().map(|i| nodes[i].clone()).collect();
            names.sort();
            names
        })
        .collect();
    out.sort();
    out
}
