//! The text of a scene before it is parsed, and text from a scene quoted in a message.
//!
//! A scene file is UTF-8 text with LF or CRLF line endings; a leading byte-order mark is
//! accepted (some Windows editors write one). Invalid UTF-8 and line endings of carriage
//! returns alone are refused with the line and column where they start, rather than
//! reported by the parser as a confusing syntax error at `1:1`.
//!
//! Text quoted from a scene in a message (a name, an identifier) is made [`readable`]:
//! invisible characters are escaped, so that `unknown material 'steel\u{200b}'` shows
//! why `steel` is unknown, and a very long word is cut, so that a 10 MB identifier does
//! not make a 10 MB message.

use crate::error::DemError;
use std::path::Path;

/// The UTF-8 byte-order mark.
const BOM: char = '\u{feff}';

/// Longest run of characters without white space that a message quotes whole (a long path
/// is one run).
const LONGEST_WORD: usize = 200;

/// Characters kept of a longer run.
const KEPT: usize = 120;

/// The scene text of a file's `bytes`: checked UTF-8 (see [`scene_text`]).
pub fn decode(bytes: &[u8], path: &Path) -> Result<String, DemError> {
    match std::str::from_utf8(bytes) {
        Ok(text) => Ok(text.to_string()),
        Err(e) => {
            let at = e.valid_up_to();
            let (line, col) = position(&String::from_utf8_lossy(&bytes[..at]));
            Err(DemError::Parse {
                path: path.to_path_buf(),
                line,
                col,
                message: format!(
                    "invalid UTF-8 at byte offset {at} (byte 0x{:02x}): a scene must be UTF-8 \
                     text",
                    bytes[at]
                ),
            })
        }
    }
}

/// The text to parse of a scene: without a leading byte-order mark. Refuses line endings
/// of carriage returns alone.
pub fn scene_text<'a>(text: &'a str, path: &Path) -> Result<&'a str, DemError> {
    let text = text.strip_prefix(BOM).unwrap_or(text);
    let bytes = text.as_bytes();
    if let Some(at) =
        (0..bytes.len()).find(|&i| bytes[i] == b'\r' && bytes.get(i + 1) != Some(&b'\n'))
    {
        let (line, col) = position(&text[..at]);
        return Err(DemError::Parse {
            path: path.to_path_buf(),
            line,
            col,
            message: "a carriage return without a line feed: the scene's lines must end in \
                      LF or CR LF (this file looks like it uses classic Mac OS line endings, \
                      CR alone)"
                .into(),
        });
    }
    Ok(text)
}

/// Line and column (1-based, in characters) just after `before`.
fn position(before: &str) -> (usize, usize) {
    let line = before.matches('\n').count() + 1;
    let start = before.rfind('\n').map_or(0, |i| i + 1);
    (line, before[start..].chars().count() + 1)
}

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

    #[test]
    fn a_byte_order_mark_is_dropped_and_lone_carriage_returns_are_refused() {
        let p = Path::new("s.ron");
        assert_eq!(scene_text("\u{feff}Scene()", p).unwrap(), "Scene()");
        assert_eq!(scene_text("a\r\nb\r\n", p).unwrap(), "a\r\nb\r\n");
        match scene_text("Scene(\r  gravity: (0, 0, 0),\r)", p) {
            Err(DemError::Parse {
                line, col, message, ..
            }) => {
                assert_eq!((line, col), (1, 7));
                assert!(message.contains("carriage return"), "{message}");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn invalid_utf8_is_located() {
        let bytes = b"Scene(\n  materials: { \"st\xffeel\": () },\n)";
        match decode(bytes, Path::new("s.ron")) {
            Err(DemError::Parse {
                line, col, message, ..
            }) => {
                assert_eq!((line, col), (2, 19), "{message}");
                assert!(
                    message.contains("UTF-8") && message.contains("0xff"),
                    "{message}"
                );
            }
            other => panic!("{other:?}"),
        }
    }
}
