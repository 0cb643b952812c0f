//! `Simulation.coarse_grain`: the coarse-grained fields of the particles (density,
//! velocity, stress) on a grid, as numpy arrays indexed `[i, j, k]` along x, y, z, and
//! written as a VTK image on request.

use crate::simulation::{value_error, PySimulation};
use dem_core::engines::coarse_grain::{Grid, Kernel};
use dem_core::files::output::write_atomic;
use dem_core::files::vti::image;
use numpy::ndarray::{Array, IxDyn};
use numpy::IntoPyArray;
use pyo3::exceptions::PyOSError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::path::PathBuf;

/// An array of shape `(nx, ny, nz) + tail` from values stored x fastest, then y, then z,
/// each point's `tail` values together.
fn grid_array<'py>(
    py: Python<'py>,
    values: Vec<f64>,
    cells: [usize; 3],
    tail: &[usize],
) -> Bound<'py, PyAny> {
    let mut shape = vec![cells[2], cells[1], cells[0]];
    shape.extend_from_slice(tail);
    let a = Array::from_shape_vec(IxDyn(&shape), values).expect("one value per point");
    // Stored (z, y, x, tail): swap to (x, y, z, tail).
    let mut axes: Vec<usize> = vec![2, 1, 0];
    axes.extend(3..shape.len());
    a.permuted_axes(IxDyn(&axes))
        .as_standard_layout()
        .into_owned()
        .into_pyarray(py)
        .into_any()
}

#[pymethods]
impl PySimulation {
    /// Coarse-grained fields of the particles now (see docs/python.md): density, velocity,
    /// kinetic and contact stress at the centres of `cells` cells of the box `[min, max]`,
    /// smoothed by `kernel` (`"lucy"`: `size` is its cutoff, m; `"gaussian"`: `size` is its
    /// width, m, cut at `widths` widths). With `vti`, also writes them there as a VTK image.
    #[pyo3(signature = (min, max, cells, kernel = "lucy", size = None, widths = 3.0, vti = None))]
    // The arguments are the Python signature's.
    #[allow(clippy::too_many_arguments)]
    fn coarse_grain<'py>(
        &self,
        py: Python<'py>,
        min: [f64; 3],
        max: [f64; 3],
        cells: [usize; 3],
        kernel: &str,
        size: Option<f64>,
        widths: f64,
        vti: Option<PathBuf>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let size = size.ok_or_else(|| {
            value_error(
                "coarse_grain: give the kernel's size (m): Lucy's cutoff or the Gaussian's width"
                    .into(),
            )
        })?;
        let kernel = match kernel {
            "lucy" => Kernel::Lucy { cutoff: size },
            "gaussian" => Kernel::Gaussian {
                width: size,
                cutoff: widths,
            },
            other => {
                return Err(value_error(format!(
                    "coarse_grain: unknown kernel {other:?}: \"lucy\" or \"gaussian\""
                )))
            }
        };
        let grid = Grid { min, max, cells };
        let f = {
            let g = self.lock()?;
            py.detach(|| g.sim.coarse_grain(grid, kernel))
                .map_err(value_error)?
        };
        if let Some(path) = vti {
            write_atomic(&path, &image(&f))
                .map_err(|e| PyOSError::new_err(format!("{}: {e}", path.display())))?;
        }
        let flat3 =
            |v: &[nalgebra::Vector3<f64>]| v.iter().flat_map(|x| x.iter().copied()).collect();
        // Matrices by rows (nalgebra stores columns).
        let flat33 = |m: &[nalgebra::Matrix3<f64>]| {
            m.iter()
                .flat_map(|s| s.transpose().iter().copied().collect::<Vec<f64>>())
                .collect()
        };
        let stress: Vec<nalgebra::Matrix3<f64>> = f
            .kinetic_stress
            .iter()
            .zip(&f.contact_stress)
            .map(|(k, c)| k + c)
            .collect();
        let d = PyDict::new(py);
        let h = grid.spacing();
        for (k, name) in ["x", "y", "z"].into_iter().enumerate() {
            let centres: Vec<f64> = (0..cells[k])
                .map(|i| min[k] + (i as f64 + 0.5) * h[k])
                .collect();
            d.set_item(name, centres.into_pyarray(py))?;
        }
        d.set_item("density", grid_array(py, f.density, cells, &[]))?;
        d.set_item("velocity", grid_array(py, flat3(&f.velocity), cells, &[3]))?;
        d.set_item(
            "kinetic_stress",
            grid_array(py, flat33(&f.kinetic_stress), cells, &[3, 3]),
        )?;
        d.set_item(
            "contact_stress",
            grid_array(py, flat33(&f.contact_stress), cells, &[3, 3]),
        )?;
        d.set_item("stress", grid_array(py, flat33(&stress), cells, &[3, 3]))?;
        Ok(d)
    }
}
