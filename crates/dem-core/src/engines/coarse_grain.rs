//! Coarse-grained continuum fields of the particles (Goldhirsch 2010; Weinhart, Thornton,
//! Luding and Bokhove 2012, as MercuryDPM computes them): density, velocity and stress on a
//! grid, each particle's mass smeared by a kernel `phi` of unit integral.
//!
//! With `m_i`, `x_i`, `v_i` the mass, position and velocity of particle `i`:
//!
//! - density `rho(r) = sum_i m_i phi(r - x_i)` (kg/m^3);
//! - momentum `p(r) = sum_i m_i v_i phi(r - x_i)`, velocity `V = p / rho` (m/s; zero where
//!   `rho` is);
//! - kinetic stress `sigma_k(r) = sum_i m_i v'_i (x) v'_i phi(r - x_i)` with `v'_i = v_i -
//!   V(r)` the velocity relative to the local mean (Pa);
//! - contact stress `sigma_c(r) = -sum_c sum_b f_b (x) (c - x_b) int_0^1 phi(r - x_b - s (c
//!   - x_b)) ds`: for each contact and each of its particles `b`, the force `f_b` on it
//!   times its branch from its centre to the contact point `c`, spread along that branch
//!   (a contact between two particles is thus spread along the line between their
//!   centres, through the contact point; a wall's side counts nothing). Compression is
//!   positive, as in [`crate::engines::stress`].
//!
//! Integrated over all space, `sigma_c` is the Love-Weber sum `-sum f_b (x) (c - x_b)` of
//! [`crate::engines::stress`] times its volume, and a lattice's density far from its edges
//! is its solid fraction times the material density: the tests check both. The particles
//! are the spheres and polyhedra (walls and facets have no mass to smear), as for the
//! stress. The branch integral is a 3-point Gauss-Legendre rule (exact in total: the
//! weights sum to one).
//!
//! The fields are sampled at the centres of the cells of a box (`Grid`); a kernel's
//! integral over the grid is one to the grid's resolution when the grid's cells are
//! small against the kernel's width and the kernel lies inside the box. In a periodic
//! cell ([`Images`]) each mass and contact side is smeared at every image of it whose
//! kernel reaches the box, so the fields are the cell's periodic fields wherever the box
//! lies; a pressed periodic lattice has its closed-form stress there (tested).

use nalgebra::{Matrix3, Vector3};
use serde::Deserialize;

/// The points where the fields are sampled: the centres of `cells` cells dividing the box
/// `[min, max]` (m).
#[derive(Clone, Copy, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Grid {
    /// Lower corner of the box, m.
    pub min: [f64; 3],
    /// Upper corner of the box, m.
    pub max: [f64; 3],
    /// Cells along x, y, z (each at least 1).
    pub cells: [usize; 3],
}

impl Grid {
    /// Checks the box and the cell counts; the error names the field.
    pub fn check(&self) -> Result<(), String> {
        for k in 0..3 {
            let (lo, hi) = (self.min[k], self.max[k]);
            if !(lo.is_finite() && hi.is_finite() && hi > lo) {
                return Err(format!(
                    "grid: max[{k}] ({hi}) must be finite and above min[{k}] ({lo})"
                ));
            }
        }
        let n = self.cells.iter().try_fold(1usize, |n, &c| n.checked_mul(c));
        match n {
            Some(n) if self.cells.iter().all(|&c| c >= 1) && n <= MAX_POINTS => Ok(()),
            _ => Err(format!(
                "grid: cells {:?} must be at least 1 each and at most {MAX_POINTS} in all",
                self.cells
            )),
        }
    }

    /// Edge of a cell along each axis, m.
    pub fn spacing(&self) -> [f64; 3] {
        [0, 1, 2].map(|k| (self.max[k] - self.min[k]) / self.cells[k] as f64)
    }

    /// Volume of a cell, m^3.
    pub fn cell_volume(&self) -> f64 {
        self.spacing().iter().product()
    }

    /// Number of points.
    pub fn len(&self) -> usize {
        self.cells.iter().product()
    }

    /// Is the grid empty (never, once checked)?
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The point of cell `(i, j, k)` (its centre), m.
    pub fn point(&self, [i, j, k]: [usize; 3]) -> Vector3<f64> {
        let h = self.spacing();
        Vector3::new(
            self.min[0] + (i as f64 + 0.5) * h[0],
            self.min[1] + (j as f64 + 0.5) * h[1],
            self.min[2] + (k as f64 + 0.5) * h[2],
        )
    }

    /// Index of cell `(i, j, k)` in the fields: x fastest, then y, then z (VTK's order).
    pub fn index(&self, [i, j, k]: [usize; 3]) -> usize {
        i + self.cells[0] * (j + self.cells[1] * k)
    }

    /// The cells whose centre may lie within `reach` of `x`, per axis (empty when none).
    fn around(&self, x: &Vector3<f64>, reach: f64) -> [std::ops::Range<usize>; 3] {
        let h = self.spacing();
        [0, 1, 2].map(|k| {
            // Centre of cell i: min + (i + 1/2) h.
            let lo = ((x[k] - reach - self.min[k]) / h[k] - 0.5).ceil().max(0.0);
            let hi = ((x[k] + reach - self.min[k]) / h[k] - 0.5).floor() + 1.0;
            let hi = hi.min(self.cells[k] as f64);
            if lo.is_finite() && hi.is_finite() && hi > lo {
                lo as usize..hi as usize
            } else {
                0..0
            }
        })
    }
}

/// Largest number of grid points a request may hold: 1e7 points, about 3 GB while the
/// fields are made (272 bytes a point).
pub const MAX_POINTS: usize = 10_000_000;

/// Largest number of a periodic cell's images a grid's box may hold (16 per edge).
pub const MAX_IMAGES: usize = 4096;

/// The smoothing kernel: each has unit integral over space. In a scene (`output.fields`):
/// `Lucy(cutoff: 0.003)`, `Gaussian(width: 0.001)` or `Gaussian(width: 0.001, cutoff: 5)`.
#[derive(Clone, Copy, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum Kernel {
    /// `exp(-r^2 / (2 w^2))` cut at `cutoff` widths and scaled to unit integral. MercuryDPM
    /// cuts at 3 widths, where the kernel steps down by 1.1 % of its peak: a lattice's
    /// density then wavers by about 1 %; at 5 widths (a step of 4e-6) by about 5e-6.
    Gaussian {
        /// Standard deviation `w`, m.
        width: f64,
        /// Where it is cut, in widths (3 in MercuryDPM, the default).
        #[serde(default = "three")]
        cutoff: f64,
    },
    /// Lucy's polynomial `105 / (16 pi c^3) (1 + 3 r/c) (1 - r/c)^3` for `r < c`, smooth to
    /// zero at its cutoff `c`, m.
    Lucy {
        /// Cutoff `c`, m.
        cutoff: f64,
    },
}

fn three() -> f64 {
    3.0
}

impl Kernel {
    /// Checks the width; the error names the field.
    pub fn check(&self) -> Result<(), String> {
        let (name, v) = match *self {
            Kernel::Gaussian { width, cutoff } if !(cutoff.is_finite() && cutoff >= 1.0) => {
                return Err(format!(
                    "kernel: the Gaussian's cutoff must be finite and at least 1 width, got \
                     {cutoff} (width {width})"
                ));
            }
            Kernel::Gaussian { width, .. } => ("width", width),
            Kernel::Lucy { cutoff } => ("cutoff", cutoff),
        };
        if v.is_finite() && v > 0.0 {
            Ok(())
        } else {
            Err(format!("kernel: {name} must be finite and > 0, got {v}"))
        }
    }

    /// Distance beyond which the kernel is zero, m.
    pub fn cutoff(&self) -> f64 {
        match *self {
            Kernel::Gaussian { width, cutoff } => cutoff * width,
            Kernel::Lucy { cutoff } => cutoff,
        }
    }

    /// The kernel at distance `r` (m), 1/m^3.
    pub fn value(&self, r: f64) -> f64 {
        let pi = std::f64::consts::PI;
        match *self {
            Kernel::Gaussian { width, cutoff } => {
                let c = cutoff;
                if r >= c * width {
                    return 0.0;
                }
                // The integral of exp(-r^2 / 2w^2) inside the cutoff.
                let inside = libm::erf(c / std::f64::consts::SQRT_2)
                    - (2.0 / pi).sqrt() * c * (-0.5 * c * c).exp();
                let norm = (2.0 * pi * width * width).powf(1.5) * inside;
                (-0.5 * (r / width).powi(2)).exp() / norm
            }
            Kernel::Lucy { cutoff } => {
                let x = r / cutoff;
                if x >= 1.0 {
                    return 0.0;
                }
                105.0 / (16.0 * pi * cutoff.powi(3)) * (1.0 + 3.0 * x) * (1.0 - x).powi(3)
            }
        }
    }
}

/// Gauss-Legendre points on `[0, 1]` and their weights (3 points).
const BRANCH_RULE: [(f64, f64); 3] = [
    (0.112_701_665_379_258_3, 5.0 / 18.0),
    (0.5, 8.0 / 18.0),
    (0.887_298_334_620_741_7, 5.0 / 18.0),
];

/// The fields on a grid's points, in [`Grid::index`] order.
#[derive(Clone, Debug)]
pub struct Fields {
    /// The grid.
    pub grid: Grid,
    /// Density, kg/m^3.
    pub density: Vec<f64>,
    /// Velocity (momentum over density; zero where the density is), m/s.
    pub velocity: Vec<Vector3<f64>>,
    /// Kinetic stress, Pa (compression positive).
    pub kinetic_stress: Vec<Matrix3<f64>>,
    /// Contact stress, Pa (compression positive).
    pub contact_stress: Vec<Matrix3<f64>>,
}

/// A particle as the fields see it.
#[derive(Clone, Copy, Debug)]
pub struct Mass {
    /// Position, m.
    pub pos: Vector3<f64>,
    /// Velocity, m/s.
    pub vel: Vector3<f64>,
    /// Mass, kg.
    pub mass: f64,
}

/// One particle's side of a contact: the force on it, from its centre to the contact
/// point.
#[derive(Clone, Copy, Debug)]
pub struct Side {
    /// The particle's centre, m.
    pub centre: Vector3<f64>,
    /// The contact point, m.
    pub point: Vector3<f64>,
    /// The force on the particle, N.
    pub force: Vector3<f64>,
}

/// A periodic cell's images: every mass and contact side stands again at each shift
/// `h k` (`k` integer, zero along the axes that are not periodic), and a mass moves there
/// with `hdot k` more (Lees-Edwards).
#[derive(Clone, Copy, Debug)]
pub struct Images {
    /// Cell matrix: columns are the edge vectors, m.
    pub h: Matrix3<f64>,
    /// Its rate, m/s.
    pub hdot: Matrix3<f64>,
    /// Which edges are periodic.
    pub periodic: [bool; 3],
}

impl Images {
    /// The shifts `k` that bring `x` within `reach` of the grid's box.
    fn shifts(&self, x: &Vector3<f64>, grid: &Grid, reach: f64) -> Vec<Vector3<f64>> {
        let Some(inverse) = self.h.try_inverse() else {
            return vec![Vector3::zeros()];
        };
        // The box grown by the reach, in cell coordinates relative to x: a parallelepiped
        // whose extremes are at its corners.
        let (mut lo, mut hi) = ([f64::INFINITY; 3], [f64::NEG_INFINITY; 3]);
        for corner in 0..8 {
            let y = Vector3::from_fn(|k, _| match corner >> k & 1 {
                0 => grid.min[k] - reach,
                _ => grid.max[k] + reach,
            });
            let s = inverse * (y - x);
            for k in 0..3 {
                lo[k] = lo[k].min(s[k]);
                hi[k] = hi[k].max(s[k]);
            }
        }
        let range = |k: usize| -> std::ops::RangeInclusive<i64> {
            match self.periodic[k] {
                true => lo[k].ceil() as i64..=hi[k].floor() as i64,
                false => 0..=0,
            }
        };
        let mut out = Vec::new();
        for a in range(0) {
            for b in range(1) {
                for c in range(2) {
                    out.push(Vector3::new(a as f64, b as f64, c as f64));
                }
            }
        }
        out
    }
}

/// The fields of `masses` and contact `sides` on `grid`, smoothed by `kernel`; with
/// `images`, those of their periodic images too.
pub fn coarse_grain(
    masses: impl IntoIterator<Item = Mass>,
    sides: impl IntoIterator<Item = Side>,
    grid: Grid,
    kernel: Kernel,
    images: Option<Images>,
) -> Result<Fields, String> {
    grid.check()?;
    kernel.check()?;
    let n = grid.len();
    let reach = kernel.cutoff();
    // The image shifts of a point that may spread as far as `extra` beyond the kernel.
    let shifts = |x: &Vector3<f64>, extra: f64| match &images {
        Some(im) => im.shifts(x, &grid, reach + extra),
        None => vec![Vector3::zeros()],
    };
    let (h, hdot) = images.map_or((Matrix3::zeros(), Matrix3::zeros()), |im| (im.h, im.hdot));
    if let Some(im) = &images {
        let centre = im.h * Vector3::repeat(0.5);
        let count = im.shifts(&centre, &grid, reach).len();
        if count > MAX_IMAGES {
            return Err(format!(
                "grid: the box, grown by the kernel's reach, holds {count} images of the \
                 periodic cell; at most {MAX_IMAGES}"
            ));
        }
    }
    let mut density = vec![0.0; n];
    let mut momentum = vec![Vector3::zeros(); n];
    let mut mvv = vec![Matrix3::zeros(); n];
    let mut contact_stress = vec![Matrix3::zeros(); n];
    // Adds `w phi(r - x)` times what `add` makes of it to every point within reach of `x`.
    let spread = |x: &Vector3<f64>, add: &mut dyn FnMut(usize, f64)| {
        let [ri, rj, rk] = grid.around(x, reach);
        for k in rk {
            for j in rj.clone() {
                for i in ri.clone() {
                    let at = [i, j, k];
                    let phi = kernel.value((grid.point(at) - x).norm());
                    if phi > 0.0 {
                        add(grid.index(at), phi);
                    }
                }
            }
        }
    };
    for m in masses {
        for k in shifts(&m.pos, 0.0) {
            let vel = m.vel + hdot * k;
            let mv = vel * m.mass;
            let mvv_i = mv * vel.transpose();
            spread(&(m.pos + h * k), &mut |g, phi| {
                density[g] += m.mass * phi;
                momentum[g] += mv * phi;
                mvv[g] += mvv_i * phi;
            });
        }
    }
    for s in sides {
        let branch = s.point - s.centre;
        let moment = -s.force * branch.transpose();
        for k in shifts(&s.centre, branch.norm()) {
            let centre = s.centre + h * k;
            for (t, w) in BRANCH_RULE {
                let x = centre + branch * t;
                spread(&x, &mut |g, phi| contact_stress[g] += moment * (w * phi));
            }
        }
    }
    let velocity: Vec<Vector3<f64>> = density
        .iter()
        .zip(&momentum)
        .map(|(&rho, p)| if rho > 0.0 { p / rho } else { Vector3::zeros() })
        .collect();
    // sum m v' v' phi = sum m v v phi - rho V V.
    let kinetic_stress = mvv
        .iter()
        .zip(&density)
        .zip(&velocity)
        .map(|((s, &rho), v)| s - v * v.transpose() * rho)
        .collect();
    Ok(Fields {
        grid,
        density,
        velocity,
        kinetic_stress,
        contact_stress,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_kernels_have_unit_integral() {
        let gauss = |cutoff| Kernel::Gaussian { width: 0.3, cutoff };
        for kernel in [gauss(3.0), gauss(5.0), Kernel::Lucy { cutoff: 0.7 }] {
            // Radial integral by the midpoint rule on a fine mesh.
            let c = kernel.cutoff();
            let n = 200_000;
            let h = c / n as f64;
            let total: f64 = (0..n)
                .map(|i| {
                    let r = (i as f64 + 0.5) * h;
                    4.0 * std::f64::consts::PI * r * r * kernel.value(r) * h
                })
                .sum();
            assert!((total - 1.0).abs() < 1e-6, "{kernel:?}: {total}");
            assert_eq!(kernel.value(c * 1.000_001), 0.0);
        }
    }

    #[test]
    fn bad_grids_and_kernels_are_named() {
        let grid = Grid {
            min: [0.0; 3],
            max: [1.0, 1.0, 0.0],
            cells: [2, 2, 2],
        };
        assert!(grid.check().unwrap_err().contains("max[2]"));
        let grid = Grid {
            max: [1.0; 3],
            cells: [0, 2, 2],
            ..grid
        };
        assert!(grid.check().unwrap_err().contains("cells"));
        let huge = Grid {
            cells: [usize::MAX, 2, 2],
            ..grid
        };
        assert!(huge.check().is_err());
        assert!(Kernel::Lucy { cutoff: -1.0 }
            .check()
            .unwrap_err()
            .contains("cutoff"));
        assert!(Kernel::Gaussian {
            width: f64::NAN,
            cutoff: 3.0
        }
        .check()
        .is_err());
        let short = Kernel::Gaussian {
            width: 1.0,
            cutoff: 0.5,
        };
        assert!(short.check().unwrap_err().contains("at least 1 width"));
    }

    #[test]
    fn around_finds_every_point_within_reach() {
        let grid = Grid {
            min: [-1.0, 0.0, 2.0],
            max: [1.0, 3.0, 4.0],
            cells: [7, 5, 9],
        };
        let x = Vector3::new(0.1, 1.3, 2.2);
        let reach = 0.8;
        let [ri, rj, rk] = grid.around(&x, reach);
        for i in 0..7 {
            for j in 0..5 {
                for k in 0..9 {
                    let near = (grid.point([i, j, k]) - x).abs().max() <= reach;
                    let listed = ri.contains(&i) && rj.contains(&j) && rk.contains(&k);
                    assert!(!near || listed, "({i}, {j}, {k}) missed");
                }
            }
        }
    }
}
