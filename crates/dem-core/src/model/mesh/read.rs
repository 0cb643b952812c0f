//! Reading triangles from STL (binary or ASCII, with the `stl_io` crate) and Wavefront OBJ
//! (with `tobj`; polygons are triangulated). A binary STL whose length does not match the
//! triangle count of its header is refused (a triangle is never dropped). Every triangle
//! is checked: a non-finite
//! coordinate or a degenerate (zero-area) triangle is refused with the file name and the
//! triangle's index (counting from 0, in file order).

use crate::support::error::DemError;
use std::path::Path;

/// A triangle as read: three vertices, m (before the scene's transform).
pub type Triangle = [[f64; 3]; 3];

fn error(path: &Path, msg: impl std::fmt::Display) -> DemError {
    DemError::Scene(format!("{}: {msg}", path.display()))
}

/// Reads the triangles of an `.stl` or `.obj` file and checks them.
pub fn read_triangles(path: &Path) -> Result<Vec<Triangle>, DemError> {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    if !matches!(ext.as_deref(), Some("stl" | "obj")) {
        return Err(error(
            path,
            "unknown mesh format: the file name must end in .stl or .obj",
        ));
    }
    let bytes = std::fs::read(path).map_err(|source| DemError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    parse_triangles(&bytes, path)
}

/// [`read_triangles`] of a file's content; `path` names it in errors and gives its format
/// (by its extension, `.stl` or `.obj`).
pub fn parse_triangles(bytes: &[u8], path: &Path) -> Result<Vec<Triangle>, DemError> {
    let obj = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("obj"));
    let tris = if obj {
        read_obj(bytes, path)?
    } else {
        read_stl(bytes, path)?
    };
    if tris.is_empty() {
        return Err(error(path, "the mesh has no triangles"));
    }
    for (i, t) in tris.iter().enumerate() {
        check(t).map_err(|why| error(path, format!("triangle {i} (0-based): {why}")))?;
    }
    Ok(tris)
}

/// Why a triangle is unusable (a non-finite coordinate, zero area), if it is.
pub fn check(t: &Triangle) -> Result<(), String> {
    if t.iter().flatten().any(|x| !x.is_finite()) {
        return Err(format!("non-finite coordinate in {t:?}"));
    }
    let d = |i: usize, j: usize| [0, 1, 2].map(|k| t[j][k] - t[i][k]);
    let (u, v) = (d(0, 1), d(0, 2));
    let cross = [
        u[1] * v[2] - u[2] * v[1],
        u[2] * v[0] - u[0] * v[2],
        u[0] * v[1] - u[1] * v[0],
    ];
    let area2 = cross.iter().map(|c| c * c).sum::<f64>().sqrt();
    let longest = [d(0, 1), d(1, 2), d(2, 0)]
        .iter()
        .map(|e| e.iter().map(|c| c * c).sum::<f64>())
        .fold(0.0, f64::max);
    // Zero area, or so thin that its normal is round-off.
    if area2 <= 1e-12 * longest {
        return Err(format!("degenerate (zero-area) triangle {t:?}"));
    }
    Ok(())
}

/// Why `bytes` is not a binary STL file whose length matches its triangle count, if it is
/// not (an ASCII file, all ASCII and starting with `solid`, is not checked here).
fn binary_length_mismatch(bytes: &[u8]) -> Option<String> {
    if bytes.trim_ascii_start().starts_with(b"solid") && bytes.is_ascii() {
        return None;
    }
    let Some(count) = bytes.get(80..84) else {
        return Some(format!(
            "not a valid STL file: {} bytes, neither ASCII STL (which starts with `solid`) \
             nor binary STL (an 84-byte header, then 50 bytes per triangle)",
            bytes.len()
        ));
    };
    let n = u32::from_le_bytes(count.try_into().expect("4 bytes")) as u64;
    let (want, len) = (84 + 50 * n, bytes.len() as u64);
    if want == len {
        return None;
    }
    let held = if (len - 84) % 50 == 0 {
        format!(", room for {} triangles", (len - 84) / 50)
    } else {
        String::new()
    };
    Some(format!(
        "not a valid STL file: its binary header gives {n} triangles, which take 84 + 50 x \
         {n} = {want} bytes, but the file has {len} bytes{held}"
    ))
}

fn read_stl(bytes: &[u8], path: &Path) -> Result<Vec<Triangle>, DemError> {
    if let Some(why) = binary_length_mismatch(bytes) {
        return Err(error(path, why));
    }
    let mut cursor = std::io::Cursor::new(bytes);
    let reader = stl_io::create_stl_reader(&mut cursor)
        .map_err(|e| error(path, format!("not a valid STL file: {e}")))?;
    let mut tris = Vec::new();
    for (i, t) in reader.enumerate() {
        let t = t.map_err(|e| error(path, format!("triangle {i} (0-based): {e}")))?;
        tris.push(t.vertices.map(|v| v.0.map(f64::from)));
    }
    Ok(tris)
}

fn read_obj(bytes: &[u8], path: &Path) -> Result<Vec<Triangle>, DemError> {
    let options = tobj::LoadOptions {
        triangulate: true,
        ..Default::default()
    };
    // Materials (`mtllib`) are not used.
    let (models, _materials) =
        tobj::load_obj_buf(&mut std::io::Cursor::new(bytes), &options, |_| {
            Err(tobj::LoadError::OpenFileFailed)
        })
        .map_err(|e| error(path, format!("not a readable OBJ file: {e}")))?;
    let mut tris = Vec::new();
    for m in &models {
        let pos = &m.mesh.positions;
        for face in m.mesh.indices.chunks_exact(3) {
            let vertex = |i: u32| -> Result<[f64; 3], DemError> {
                let i = 3 * i as usize;
                pos.get(i..i + 3)
                    .map(|p| [p[0], p[1], p[2]])
                    .ok_or_else(|| {
                        error(
                            path,
                            format!(
                                "triangle {} (0-based): vertex index out of range",
                                tris.len()
                            ),
                        )
                    })
            };
            tris.push([vertex(face[0])?, vertex(face[1])?, vertex(face[2])?]);
        }
    }
    Ok(tris)
}
