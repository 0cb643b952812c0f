//! Parameters from the scene's RON text.

use serde::de::DeserializeOwned;

/// Parses `text` (the verbatim `params` block of the scene, possibly empty) into `P`.
/// Empty text means `P::default()`. Optional fields may be written without `Some(..)`. Errors carry line and column within `text`.
pub fn parse_params<P: DeserializeOwned + Default>(text: &str) -> Result<P, String> {
    if text.trim().is_empty() {
        return Ok(P::default());
    }
    ron::Options::default()
        .with_default_extension(ron::extensions::Extensions::IMPLICIT_SOME)
        .from_str(text)
        .map_err(|e| {
            format!(
                "params {}:{}: {}",
                e.span.start.line, e.span.start.col, e.code
            )
        })
}

/// The default parameters as RON text, for the catalogue.
pub(crate) fn default_text<P: serde::Serialize + Default>() -> String {
    ron::to_string(&P::default()).unwrap_or_else(|e| format!("<unprintable defaults: {e}>"))
}
