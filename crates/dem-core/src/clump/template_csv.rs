//! Clump templates from CSV: one member sphere per row.
//!
//! Format: lines starting with `#` are comments; the first other line is the header, the
//! column names `x`, `y`, `z` (centre in the template frame, m) and `radius` (m), in any
//! order, nothing else; each further line is one member. Errors name the file and line.

use super::Member;
use crate::error::DemError;
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
    let at =
        |line: usize, msg: String| DemError::Scene(format!("{}:{line}: {msg}", path.display()));
    let mut rows = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim()))
        .filter(|(_, l)| !l.is_empty() && !l.starts_with('#'));
    let Some((header_line, header)) = rows.next() else {
        return Err(at(1, "no header line (`x,y,z,radius`)".into()));
    };
    let names: Vec<&str> = header.split(',').map(str::trim).collect();
    let mut index = [0usize; 4];
    for (k, name) in COLUMNS.iter().enumerate() {
        let found: Vec<usize> = (0..names.len()).filter(|&i| names[i] == *name).collect();
        match found.as_slice() {
            [i] => index[k] = *i,
            [] => {
                return Err(at(
                    header_line,
                    format!("no column `{name}` in the header `{header}` (need x, y, z, radius)"),
                ))
            }
            _ => return Err(at(header_line, format!("column `{name}` appears twice"))),
        }
    }
    if let Some(other) = names.iter().find(|n| !COLUMNS.contains(n)) {
        return Err(at(
            header_line,
            format!("unknown column `{other}` in the header `{header}` (need x, y, z, radius)"),
        ));
    }
    let mut out = Vec::new();
    for (line, row) in rows {
        let cells: Vec<&str> = row.split(',').map(str::trim).collect();
        if cells.len() != names.len() {
            return Err(at(
                line,
                format!(
                    "{} values, the header has {} columns",
                    cells.len(),
                    names.len()
                ),
            ));
        }
        let mut v = [0.0; 4];
        for (k, &i) in index.iter().enumerate() {
            let x: f64 = cells[i].parse().map_err(|_| {
                at(
                    line,
                    format!("column `{}`: `{}` is not a number", COLUMNS[k], cells[i]),
                )
            })?;
            if !x.is_finite() {
                return Err(at(
                    line,
                    format!("column `{}`: {x} is not finite", COLUMNS[k]),
                ));
            }
            v[k] = x;
        }
        if v[3] <= 0.0 {
            return Err(at(
                line,
                format!("column `radius`: {} is not positive", v[3]),
            ));
        }
        out.push(Member {
            center: Vector3::new(v[0], v[1], v[2]),
            radius: v[3],
        });
    }
    if out.is_empty() {
        return Err(at(header_line, "no member rows after the header".into()));
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
