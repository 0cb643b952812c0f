//! Clump templates from CSV: one member sphere per row.
//!
//! Format: lines starting with `#` are comments; the first other line is the header, the
//! column names `x`, `y`, `z` (centre in the template frame, m) and `radius` (m), in any
//! order, nothing else; each further line is one member. Errors name the file and line.

use super::Member;
use crate::support::error::DemError;
use crate::support::table::Table;
use nalgebra::Vector3;
use std::path::Path;

const COLUMNS: [&str; 4] = ["x", "y", "z", "radius"];

/// Reads the members of a template file.
pub fn read(path: &Path) -> Result<Vec<Member>, DemError> {
    let text = std::fs::read_to_string(path).map_err(|e| DemError::Io {
        path: path.to_path_buf(),
        source: e,
    })?;
    parse(&text, path)
}

/// [`read`] from text; `path` names the source in errors.
pub fn parse(text: &str, path: &Path) -> Result<Vec<Member>, DemError> {
    let table = Table::parse(text, path, "`x,y,z,radius`")?;
    let need = "need x, y, z, radius";
    let mut index = [0usize; 4];
    for (k, name) in COLUMNS.iter().enumerate() {
        index[k] = table.require(name, need)?;
    }
    table.only(&COLUMNS, need)?;
    let mut out = Vec::new();
    for row in &table.rows {
        let mut v = [0.0; 4];
        for (k, &i) in index.iter().enumerate() {
            v[k] = table.number(row, i, COLUMNS[k])?;
        }
        if v[3] <= 0.0 {
            return Err(table.error(
                row.line,
                format!("column `radius`: {} is not positive", v[3]),
            ));
        }
        out.push(Member {
            center: Vector3::new(v[0], v[1], v[2]),
            radius: v[3],
        });
    }
    if out.is_empty() {
        return Err(table.error(table.header_line, "no member rows after the header"));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_members_in_any_column_order() {
        let m = parse(
            "# rice\nradius,x,y,z\n1e-3,0,0,0\n1e-3, 1.5e-3,0,0\n",
            Path::new("r.csv"),
        )
        .unwrap();
        assert_eq!(m.len(), 2);
        assert_eq!(m[1].center, Vector3::new(1.5e-3, 0.0, 0.0));
        assert_eq!(m[1].radius, 1e-3);
    }

    #[test]
    fn bad_rows_name_file_and_line() {
        let cases = [
            ("x,y,z\n0,0,0\n", "t.csv:1: no column `radius`"),
            (
                "x,y,z,radius,vx\n0,0,0,1,0\n",
                "t.csv:1: unknown column `vx`",
            ),
            (
                "x,y,z,radius\n0,0,0,1\n0,0,0,-1\n",
                "t.csv:3: column `radius`: -1 is not positive",
            ),
            (
                "x,y,z,radius\n0,0,zz,1\n",
                "t.csv:2: column `z`: `zz` is not a number",
            ),
            ("x,y,z,radius\n0,0,0\n", "t.csv:2: 3 values"),
            ("# nothing\nx,y,z,radius\n", "t.csv:2: no member rows"),
        ];
        for (text, want) in cases {
            let e = parse(text, Path::new("t.csv")).unwrap_err().to_string();
            assert!(e.contains(want), "{e} lacks {want}");
        }
    }
}
