//! The text of a scene before it is parsed.
//!
//! A scene file is UTF-8 text with LF or CRLF line endings; a leading byte-order mark is
//! accepted (some Windows editors write one). Invalid UTF-8 and line endings of carriage
//! returns alone are refused with the line and column where they start, rather than
//! reported by the parser as a confusing syntax error at `1:1`.
//!
//! Text quoted from a scene in a message is made readable by [`crate::support::quoted`].

use crate::support::error::DemError;
use std::path::Path;

/// The UTF-8 byte-order mark.
const BOM: char = '\u{feff}';

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

/// Parses a RON file's text as dem reads its inputs (implicit `Some`); errors name
/// `origin`, the line, the column and the field.
pub fn parse_ron<T: serde::de::DeserializeOwned>(text: &str, origin: &Path) -> Result<T, DemError> {
    let text = scene_text(text, origin)?;
    ron::Options::default()
        .with_default_extension(ron::extensions::Extensions::IMPLICIT_SOME)
        .from_str(text)
        .map_err(|e| DemError::Parse {
            path: origin.to_path_buf(),
            line: e.span.start.line,
            col: e.span.start.col,
            message: e.code.to_string(),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

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
