//! Particle import from CSV: one sphere per row.
//!
//! Format: lines starting with `#` are comments; the first other line is the header, a
//! comma-separated list of column names; each further line is one sphere. Columns (SI):
//! `x`, `y`, `z` (centre, m; required), `vx`, `vy`, `vz` (velocity at `t = -dt/2`, m/s),
//! `wx`, `wy`, `wz` (angular velocity, rad/s), `radius` (m; else the scene's `radius`).
//! The columns `id`, `fx`, `fy`, `fz` are ignored. With a `kind` column, rows of the other
//! kinds a run writes (`Wall`, `Facet`, `Polyhedron`, `Clump`) are skipped. So the benchmark files
//! (`id,x,y,z,vx,vy,vz`) and the `particles.csv` a run writes (walls included) read as they
//! are. Any other column name (a misspelt `vz`) and any other kind (`sphere`) is an error
//! naming the file and line: a row or a column is never dropped silently.

use crate::error::DemError;
use nalgebra::Vector3;
use std::path::Path;

/// One sphere read from a CSV file.
#[derive(Clone, Debug, PartialEq)]
pub struct CsvSphere {
    /// Centre, m.
    pub center: Vector3<f64>,
    /// Velocity, m/s.
    pub velocity: Vector3<f64>,
    /// Angular velocity, rad/s.
    pub angular_velocity: Vector3<f64>,
    /// Radius, m, if the file gives one.
    pub radius: Option<f64>,
}

const COLUMNS: [&str; 10] = ["x", "y", "z", "vx", "vy", "vz", "wx", "wy", "wz", "radius"];
/// Columns read and then ignored (as `particles.csv` has them), besides `kind`.
const IGNORED: [&str; 4] = ["id", "fx", "fy", "fz"];
/// Kinds of the rows skipped (the other particles `particles.csv` lists).
const SKIPPED_KINDS: [&str; 4] = ["Wall", "Facet", "Polyhedron", "Clump"];

/// Reads the spheres of a CSV file. Errors name the file, the line and the column.
pub fn read(path: &Path) -> Result<Vec<CsvSphere>, DemError> {
    let text = std::fs::read_to_string(path).map_err(|e| DemError::Io {
        path: path.to_path_buf(),
        source: e,
    })?;
    parse(&text, path)
}

/// [`read`] from text; `path` names the source in errors.
pub fn parse(text: &str, path: &Path) -> Result<Vec<CsvSphere>, DemError> {
    let at =
        |line: usize, msg: String| DemError::Scene(format!("{}:{line}: {msg}", path.display()));
    let mut rows = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim()))
        .filter(|(_, l)| !l.is_empty() && !l.starts_with('#'));
    let Some((header_line, header)) = rows.next() else {
        return Err(at(1, "no header line (e.g. `x,y,z,vx,vy,vz`)".into()));
    };
    let names: Vec<&str> = header.split(',').map(str::trim).collect();
    // Column index of each known field.
    let mut index = [None; COLUMNS.len()];
    for (k, name) in COLUMNS.iter().enumerate() {
        let found: Vec<usize> = (0..names.len()).filter(|&i| names[i] == *name).collect();
        match found.as_slice() {
            [] => {}
            [i] => index[k] = Some(*i),
            _ => return Err(at(header_line, format!("column `{name}` appears twice"))),
        }
    }
    for required in 0..3 {
        if index[required].is_none() {
            return Err(at(
                header_line,
                format!(
                    "no column `{}` in the header `{header}` (required: x, y, z)",
                    COLUMNS[required]
                ),
            ));
        }
    }
    if let Some(unknown) = names
        .iter()
        .find(|n| !COLUMNS.contains(n) && !IGNORED.contains(n) && **n != "kind")
    {
        return Err(at(
            header_line,
            format!(
                "unknown column `{unknown}` in the header `{header}` (read: {}; ignored: \
                 kind, {})",
                COLUMNS.join(", "),
                IGNORED.join(", ")
            ),
        ));
    }
    let kind = names.iter().position(|n| *n == "kind");
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
        if let Some(k) = kind {
            match cells[k] {
                "Sphere" => {}
                other if SKIPPED_KINDS.contains(&other) => continue,
                other => {
                    return Err(at(
                        line,
                        format!(
                            "column `kind`: `{other}` is not one of Sphere (read), {} \
                             (skipped)",
                            SKIPPED_KINDS.join(", ")
                        ),
                    ))
                }
            }
        }
        let mut v = [0.0; COLUMNS.len()];
        for (k, slot) in index.iter().enumerate() {
            if let Some(i) = *slot {
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
        }
        let radius = index[9].map(|_| v[9]);
        if let Some(r) = radius {
            if r <= 0.0 {
                return Err(at(line, format!("column `radius`: {r} is not positive")));
            }
        }
        out.push(CsvSphere {
            center: Vector3::new(v[0], v[1], v[2]),
            velocity: Vector3::new(v[3], v[4], v[5]),
            angular_velocity: Vector3::new(v[6], v[7], v[8]),
            radius,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_bench_format_and_names_bad_cells() {
        let text = "# box 0 1 0 1 0 1\nid,x,y,z,vx,vy,vz\n1,0.5,0.25,1e-3,-0.01,0,0.02\n";
        let s = parse(text, Path::new("a.csv")).unwrap();
        assert_eq!(s.len(), 1);
        assert_eq!(s[0].center, Vector3::new(0.5, 0.25, 1e-3));
        assert_eq!(s[0].velocity, Vector3::new(-0.01, 0.0, 0.02));
        assert_eq!(s[0].radius, None);
        let e = parse("x,y,z\n1,2,oops\n", Path::new("b.csv"))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("b.csv:2") && e.contains("`z`") && e.contains("oops"),
            "{e}"
        );
        let e = parse("x,y\n1,2\n", Path::new("c.csv"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("c.csv:1") && e.contains("`z`"), "{e}");
        let e = parse("x,y,z\n1,2\n", Path::new("d.csv"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("d.csv:2"), "{e}");
    }

    #[test]
    fn reads_a_run_output_skipping_walls() {
        let text = "id,kind,x,y,z,vx,vy,vz,wx,wy,wz,radius,fx,fy,fz\n\
                    0,Sphere,5.00884375978415e-4,1,2,3,4,5,6,7,8,5e-4,0,0,0\n\
                    1,Wall,0,0,0,0,0,0,0,0,0,inf,0,0,0\n";
        let s = parse(text, Path::new("particles.csv")).unwrap();
        assert_eq!(s.len(), 1);
        assert_eq!(s[0].center, Vector3::new(5.00884375978415e-4, 1.0, 2.0));
        assert_eq!(s[0].angular_velocity, Vector3::new(6.0, 7.0, 8.0));
        assert_eq!(s[0].radius, Some(5e-4));
    }

    #[test]
    fn unknown_columns_and_kinds_are_refused_with_file_and_line() {
        let e = parse(
            "# spheres\nx,y,z,vx,vy,vzz\n0,0,0,1,2,3\n",
            Path::new("a.csv"),
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("a.csv:2: unknown column `vzz`"), "{e}");
        let text = "id,kind,x,y,z\n0,Sphere,0,0,0\n1,sphere,1,0,0\n";
        let e = parse(text, Path::new("b.csv")).unwrap_err().to_string();
        assert!(
            e.contains("b.csv:3: column `kind`: `sphere` is not one of Sphere"),
            "{e}"
        );
    }
}
