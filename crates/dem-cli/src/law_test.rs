//! `dem law-test FILE`: drive one contact through the motion a test file prescribes and
//! write what the law returned, one CSV row per step (see `dem_core::step::law_tester`).

use dem_core::files::output::write_atomic;
use dem_core::step::law_tester::{LawTest, Record};
use dem_core::{DemError, PluginSet};
use std::path::Path;

/// Runs the test in `path` with `plugins` (plus the libraries the file lists); writes the
/// CSV to `out`, or to standard output.
pub fn run(path: &Path, out: Option<&Path>, mut plugins: PluginSet) -> Result<(), DemError> {
    let test = LawTest::load(path)?;
    let base = path.parent().unwrap_or(Path::new("."));
    for p in &test.plugins {
        plugins.load(&base.join(p))?;
    }
    let records = test.run(&plugins)?;
    let mut csv = String::from(Record::CSV_HEADER);
    csv.push('\n');
    for r in &records {
        csv.push_str(&r.csv_row());
        csv.push('\n');
    }
    match out {
        Some(file) => write_atomic(file, csv.as_bytes()).map_err(|source| DemError::Io {
            path: file.to_path_buf(),
            source,
        })?,
        None => print!("{csv}"),
    }
    tracing::info!(
        "{}: {} steps, {} with contact",
        path.display(),
        records.len(),
        records.iter().filter(|r| r.contact).count()
    );
    Ok(())
}
