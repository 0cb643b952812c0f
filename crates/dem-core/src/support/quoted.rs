//! Text from a scene quoted in a message (a name, an identifier), made [`readable`]:
//! invisible characters are escaped, so that `unknown material 'steel\u{200b}'` shows
//! why `steel` is unknown, and a very long word is cut, so that a 10 MB identifier does
//! not make a 10 MB message.

/// Longest run of characters without white space that a message quotes whole (a long path
/// is one run).
const LONGEST_WORD: usize = 200;

/// Characters kept of a longer run.
const KEPT: usize = 120;

/// Is `c` a character that prints as nothing or moves the text: a control character other
/// than a tab or a line feed, or a format character (zero-width spaces and joiners,
/// direction marks and overrides, the soft hyphen, the byte-order mark)?
fn invisible(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t')
        || matches!(c,
            '\u{00ad}' | '\u{034f}' | '\u{061c}' | '\u{115f}' | '\u{1160}' | '\u{17b4}'
            | '\u{17b5}' | '\u{180e}' | '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}'
            | '\u{2060}'..='\u{206f}' | '\u{3164}' | '\u{feff}' | '\u{ffa0}'
            | '\u{fff9}'..='\u{fffb}')
}

/// `s` as a message quotes it: invisible characters escaped (`\u{200b}`), and every run of
/// more than 200 characters without white space cut to its first 120, with the count.
pub fn readable(s: &str) -> String {
    let mut out = String::with_capacity(s.len().min(4096));
    // The current run: its first `LONGEST_WORD` characters and its length.
    let mut head: Vec<char> = Vec::with_capacity(LONGEST_WORD);
    let mut count = 0usize;
    let flush = |out: &mut String, head: &mut Vec<char>, count: &mut usize| {
        if *count > LONGEST_WORD {
            for &c in &head[..KEPT] {
                push(out, c);
            }
            out.push_str(&format!("... ({count} characters)"));
        } else {
            for &c in head.iter() {
                push(out, c);
            }
        }
        head.clear();
        *count = 0;
    };
    for c in s.chars() {
        if c.is_whitespace() && !invisible(c) {
            flush(&mut out, &mut head, &mut count);
            out.push(c);
        } else {
            if head.len() < LONGEST_WORD {
                head.push(c);
            }
            count += 1;
        }
    }
    flush(&mut out, &mut head, &mut count);
    out
}

/// Appends `c`, escaped when [`invisible`].
fn push(out: &mut String, c: char) {
    if invisible(c) {
        out.push_str(&format!("\\u{{{:x}}}", c as u32));
    } else {
        out.push(c);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invisible_characters_are_escaped() {
        assert_eq!(
            readable("unknown material 'steel\u{200b}'"),
            "unknown material 'steel\\u{200b}'"
        );
        assert_eq!(readable("a\u{7}b\tc\nd"), "a\\u{7}b\tc\nd");
    }

    #[test]
    fn long_words_are_cut_and_short_ones_kept() {
        let long = format!("unknown field `{}`, expected one of", "x".repeat(10_000));
        let r = readable(&long);
        assert!(r.len() < 200, "{r}");
        // The run is the backquotes, the x's and the comma.
        assert!(r.contains("... (10003 characters)"), "{r}");
        assert!(r.ends_with(" expected one of"), "{r}");
        let near = "y".repeat(190);
        assert_eq!(readable(&format!("a {near} b")), format!("a {near} b"));
        assert_eq!(readable("plain text"), "plain text");
    }
}
