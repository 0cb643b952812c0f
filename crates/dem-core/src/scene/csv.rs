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

use crate::support::error::DemError;
use crate::support::table::Table;
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
    let table = Table::parse(text, path, "e.g. `x,y,z,vx,vy,vz`")?;
    // Column index of each known field.
    let mut index = [None; COLUMNS.len()];
    for (k, name) in COLUMNS.iter().enumerate() {
        index[k] = table.find(name)?;
    }
    for name in &COLUMNS[..3] {
        table.require(name, "required: x, y, z")?;
    }
    let known: Vec<&str> = COLUMNS
        .iter()
        .chain(&IGNORED)
        .chain(&["kind"])
        .copied()
        .collect();
    table.only(
        &known,
        &format!(
            "read: {}; ignored: kind, {}",
            COLUMNS.join(", "),
            IGNORED.join(", ")
        ),
    )?;
    let kind = table.find("kind")?;
    let mut out = Vec::new();
    for row in &table.rows {
        if let Some(k) = kind {
            match row.cells[k] {
                "Sphere" => {}
                other if SKIPPED_KINDS.contains(&other) => continue,
                other => {
                    return Err(table.error(
                        row.line,
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
                v[k] = table.number(row, i, COLUMNS[k])?;
            }
        }
        let radius = index[9].map(|_| v[9]);
        if let Some(r) = radius {
            if r <= 0.0 {
                return Err(table.error(row.line, format!("column `radius`: {r} is not positive")));
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
