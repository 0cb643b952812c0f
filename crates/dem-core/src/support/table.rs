//! Tables of numbers in the CSV files a scene reads (spheres, clump templates): lines
//! starting with `#` and blank lines are skipped; the first other line is the header, a
//! comma-separated list of column names; each further line is a row with one value per
//! column. Plain numbers only (no quoting), so the split is by hand. Every error names the
//! file and the line.

use crate::support::error::DemError;
use std::path::Path;

/// One data row: its line number in the file (from 1) and its cells, trimmed.
pub struct Row<'a> {
    /// Line number in the file.
    pub line: usize,
    /// The cells, in header order.
    pub cells: Vec<&'a str>,
}

/// A table read from text, its rows checked to have as many cells as the header has
/// columns.
pub struct Table<'a> {
    path: &'a Path,
    /// Line number of the header.
    pub header_line: usize,
    header: &'a str,
    names: Vec<&'a str>,
    /// The data rows, in file order.
    pub rows: Vec<Row<'a>>,
}

impl<'a> Table<'a> {
    /// Splits `text` (read from `path`, which errors name); `example` is a header shown
    /// when there is none.
    pub fn parse(text: &'a str, path: &'a Path, example: &str) -> Result<Table<'a>, DemError> {
        let mut lines = text
            .lines()
            .enumerate()
            .map(|(i, l)| (i + 1, l.trim()))
            .filter(|(_, l)| !l.is_empty() && !l.starts_with('#'));
        let Some((header_line, header)) = lines.next() else {
            return Err(error(path, 1, format!("no header line ({example})")));
        };
        let names: Vec<&str> = header.split(',').map(str::trim).collect();
        let mut rows = Vec::new();
        for (line, row) in lines {
            let cells: Vec<&str> = row.split(',').map(str::trim).collect();
            if cells.len() != names.len() {
                return Err(error(
                    path,
                    line,
                    format!(
                        "{} values, the header has {} columns",
                        cells.len(),
                        names.len()
                    ),
                ));
            }
            rows.push(Row { line, cells });
        }
        Ok(Table {
            path,
            header_line,
            header,
            names,
            rows,
        })
    }

    /// An error at `line` of the file.
    pub fn error(&self, line: usize, msg: impl std::fmt::Display) -> DemError {
        error(self.path, line, msg)
    }

    /// The index of the column `name`, if the header has it (an error if it has it twice).
    pub fn find(&self, name: &str) -> Result<Option<usize>, DemError> {
        let found: Vec<usize> = (0..self.names.len())
            .filter(|&i| self.names[i] == name)
            .collect();
        match found.as_slice() {
            [] => Ok(None),
            [i] => Ok(Some(*i)),
            _ => Err(self.error(self.header_line, format!("column `{name}` appears twice"))),
        }
    }

    /// The index of the column `name`, which the header must have (`need` lists the
    /// required columns in the error).
    pub fn require(&self, name: &str, need: &str) -> Result<usize, DemError> {
        self.find(name)?.ok_or_else(|| {
            self.error(
                self.header_line,
                format!(
                    "no column `{name}` in the header `{}` ({need})",
                    self.header
                ),
            )
        })
    }

    /// Refuses a column not in `known` (`read` says what is read, in the error).
    pub fn only(&self, known: &[&str], read: &str) -> Result<(), DemError> {
        match self.names.iter().find(|n| !known.contains(n)) {
            Some(other) => Err(self.error(
                self.header_line,
                format!(
                    "unknown column `{other}` in the header `{}` ({read})",
                    self.header
                ),
            )),
            None => Ok(()),
        }
    }

    /// The finite number in column `i` (named `name`) of `row`.
    pub fn number(&self, row: &Row, i: usize, name: &str) -> Result<f64, DemError> {
        let cell = row.cells[i];
        let x: f64 = cell.parse().map_err(|_| {
            self.error(
                row.line,
                format!("column `{name}`: `{cell}` is not a number"),
            )
        })?;
        if !x.is_finite() {
            return Err(self.error(row.line, format!("column `{name}`: {x} is not finite")));
        }
        Ok(x)
    }
}

fn error(path: &Path, line: usize, msg: impl std::fmt::Display) -> DemError {
    DemError::Scene(format!("{}:{line}: {msg}", path.display()))
}
