//! Coarse-grained fields ([`crate::engines::coarse_grain`]) as a VTK image (`.vti`) for
//! ParaView: one point per grid cell centre, point data `density` (kg/m^3), `velocity`
//! (m/s), `kinetic_stress`, `contact_stress` and `stress` (Pa, compression positive, 9
//! components by rows), in the binary appended layout of [`crate::files::vtk`].

use crate::engines::coarse_grain::Fields;
use crate::files::vtk::{appended, section, Array, Values};
use nalgebra::Matrix3;
use std::fmt::Write;

fn tensors(name: &'static str, values: &[Matrix3<f64>]) -> Array {
    Array {
        name: name.into(),
        components: 9,
        // By rows (nalgebra stores columns).
        values: Values::F64(
            values
                .iter()
                .flat_map(|m| (0..3).flat_map(move |i| (0..3).map(move |j| m[(i, j)])))
                .collect(),
        ),
    }
}

/// The `.vti` file content of `fields`.
pub fn image(fields: &Fields) -> Vec<u8> {
    let grid = &fields.grid;
    let h = grid.spacing();
    let origin = [0, 1, 2].map(|k| grid.min[k] + 0.5 * h[k]);
    let [nx, ny, nz] = grid.cells;
    let extent = format!("0 {} 0 {} 0 {}", nx - 1, ny - 1, nz - 1);
    let stress: Vec<Matrix3<f64>> = fields
        .kinetic_stress
        .iter()
        .zip(&fields.contact_stress)
        .map(|(k, c)| k + c)
        .collect();
    let arrays = [
        Array {
            name: "density".into(),
            components: 1,
            values: Values::F64(fields.density.clone()),
        },
        Array {
            name: "velocity".into(),
            components: 3,
            values: Values::F64(
                fields
                    .velocity
                    .iter()
                    .flat_map(|v| [v.x, v.y, v.z])
                    .collect(),
            ),
        },
        tensors("kinetic_stress", &fields.kinetic_stress),
        tensors("contact_stress", &fields.contact_stress),
        tensors("stress", &stress),
    ];
    let mut xml = String::from(
        "<?xml version=\"1.0\"?>\n<VTKFile type=\"ImageData\" version=\"1.0\" \
         byte_order=\"LittleEndian\" header_type=\"UInt64\">\n",
    );
    let _ = writeln!(
        xml,
        "  <ImageData WholeExtent=\"{extent}\" Origin=\"{:e} {:e} {:e}\" Spacing=\"{:e} {:e} \
         {:e}\">\n    <Piece Extent=\"{extent}\">",
        origin[0], origin[1], origin[2], h[0], h[1], h[2]
    );
    let mut data = Vec::new();
    section(&mut xml, &mut data, "PointData", &arrays);
    xml.push_str("    </Piece>\n  </ImageData>\n");
    appended(xml, &data)
}
