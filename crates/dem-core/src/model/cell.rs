//! The periodic cell: a parallelepiped spanned by the columns of the cell matrix `H`
//! (edge vectors `a`, `b`, `c`, m; origin at the global origin), periodic along any subset
//! of its edges, deformed by an imposed velocity gradient `L`: the cell velocity is
//! `dH/dt = L H`.
//!
//! Time stepping follows the particles' leap-frog: `H` lives at full steps, the cell
//! velocity `Hdot` at half steps. After the particles' step, `Hdot(t+dt/2) = L H(t)` and
//! `H(t+dt) = H(t) + Hdot(t+dt/2) dt`. The image of a particle by the lattice shift `s`
//! (integers, zero along the non-periodic edges) sits at `x + H s` and moves with
//! `v + Hdot s`: its affine velocity. Particle velocities are absolute (no streaming
//! velocity is subtracted): a particle at rest stays at rest until a contact moves it.
//!
//! Large shear: a cell sheared without end would tilt without end, and its images would
//! come ever closer in space. Whenever edge `j` leans over a periodic edge `i` by more than
//! [`FLIP_TILT`] of that edge (`|a_j . a_i| / |a_i|^2`), the cell is *flipped*: `a_j` is
//! replaced by `a_j - k a_i` with `k` the nearest integer. The lattice `H Z^3` is the same,
//! so the periodic system is physically unchanged; lattice shifts are re-expressed
//! (`s' = M^-1 s` with `H' = H M`), the cell velocity too (`Hdot' = Hdot M`), and the
//! particles are wrapped into the new cell at the broad-phase rebuild that comes with the
//! flip. A simple shear thus runs to any strain (Lees-Edwards' boundaries with the
//! "flip" of LAMMPS' triclinic boxes).

use nalgebra::{Matrix3, Vector3};
use serde::{Deserialize, Serialize};

/// Edge tilt beyond which the cell is flipped (see the module documentation): after a
/// flip the tilt is below `1 - FLIP_TILT`, so that a cell shearing back and forth does not
/// flip at every step.
pub const FLIP_TILT: f64 = 0.6;

/// The scene's `cell` block.
#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct CellSpec {
    /// The edge vectors `a`, `b`, `c` (the columns of `H`), m.
    pub edges: [[f64; 3]; 3],
    /// Which edges are periodic: letters of `xyz` for `a`, `b`, `c` (`"xyz"`: all).
    pub periodic: String,
    /// Velocity gradient `L`, by rows (`L[i][j] = d v_i / d x_j`), 1/s. Simple shear of
    /// rate `g` in x with gradient along y: `((0, g, 0), (0, 0, 0), (0, 0, 0))`.
    #[serde(default)]
    pub velocity_gradient: [[f64; 3]; 3],
    /// Stages of servo-controlled loading (see [`crate::engines::servo`]); when given, they set the
    /// gradient instead of `velocity_gradient`.
    #[serde(default)]
    pub stages: Vec<Stage>,
}

/// The cell's state (saved in checkpoints).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Cell {
    /// Cell matrix at t: columns are the edge vectors, m.
    pub h: Matrix3<f64>,
    /// Cell velocity `dH/dt` at t - dt/2, m/s.
    pub hdot: Matrix3<f64>,
    /// Imposed velocity gradient, 1/s.
    pub gradient: Matrix3<f64>,
    /// Which edges are periodic.
    pub periodic: [bool; 3],
    /// Number of flips so far.
    pub flips: u64,
}

/// A lattice shift: cells along `a`, `b`, `c`.
pub type Shift = [i32; 3];

impl Cell {
    /// The cell of a scene's `cell` block, with `Hdot(-dt/2) = L H(0)`; the error names
    /// the field.
    pub fn from_spec(spec: &CellSpec) -> Result<Cell, String> {
        let mut periodic = [false; 3];
        for c in spec.periodic.chars() {
            let k = match c {
                'x' => 0,
                'y' => 1,
                'z' => 2,
                other => {
                    return Err(format!(
                        "cell.periodic: `{other}` is not an edge (letters of xyz)"
                    ))
                }
            };
            periodic[k] = true;
        }
        if !periodic.iter().any(|&p| p) {
            return Err("cell.periodic: no periodic edge (letters of xyz)".into());
        }
        let h = Matrix3::from_fn(|i, j| spec.edges[j][i]);
        let gradient = Matrix3::from_fn(|i, j| spec.velocity_gradient[i][j]);
        if !h.iter().chain(gradient.iter()).all(|x| x.is_finite()) {
            return Err("cell: edges and velocity_gradient must be finite".into());
        }
        if h.determinant().is_nan() || h.determinant() <= 0.0 {
            return Err(format!(
                "cell.edges: the edges must span a volume (a right-handed cell of positive \
                 volume), det = {:e} m^3",
                h.determinant()
            ));
        }
        Ok(Cell {
            hdot: gradient * h,
            h,
            gradient,
            periodic,
            flips: 0,
        })
    }

    /// Volume, m^3.
    pub fn volume(&self) -> f64 {
        self.h.determinant()
    }

    /// Offset of the image by `s`, m.
    pub fn offset(&self, s: Shift) -> Vector3<f64> {
        self.h * shift_vector(s)
    }

    /// Affine velocity of the image by `s` (relative to the particle), m/s.
    pub fn offset_velocity(&self, s: Shift) -> Vector3<f64> {
        self.hdot * shift_vector(s)
    }

    /// Distance between the two faces of the cell across edge `k` (the cell's thickness
    /// along the normal of the faces spanned by the other two edges), m.
    pub fn width(&self, k: usize) -> f64 {
        let (i, j) = ((k + 1) % 3, (k + 2) % 3);
        self.volume() / self.h.column(i).cross(&self.h.column(j)).norm()
    }

    /// Fractional coordinates of `x`.
    pub fn fractional(&self, inverse: &Matrix3<f64>, x: &Vector3<f64>) -> Vector3<f64> {
        inverse * x
    }

    /// The inverse of `H`.
    pub fn inverse(&self) -> Matrix3<f64> {
        self.h.try_inverse().unwrap_or_else(Matrix3::zeros)
    }

    /// The lattice shift that brings `x` into the cell along its periodic edges: `x - H w`
    /// has fractional coordinates in `[0, 1)` there.
    pub fn wrap_shift(&self, inverse: &Matrix3<f64>, x: &Vector3<f64>) -> Shift {
        let f = inverse * x;
        std::array::from_fn(|k| {
            if self.periodic[k] {
                f[k].floor() as i32
            } else {
                0
            }
        })
    }

    /// The lattice offsets `H k` (`k` integers, zero along the non-periodic edges, not all
    /// zero) by which an image of a particle of the cell can land in the box `[lo, hi]`, m.
    /// A particle counts as in the cell from fractional coordinate -0.5 to 1.5 along each
    /// periodic edge: particles are wrapped only at broad-phase rebuilds, and may be out by
    /// up to a skin in between. An inlet keeps clear of these images.
    pub fn offsets_into(&self, lo: &Vector3<f64>, hi: &Vector3<f64>) -> Vec<Vector3<f64>> {
        let inverse = self.inverse();
        let (mut fmin, mut fmax) = (
            Vector3::repeat(f64::INFINITY),
            Vector3::repeat(f64::NEG_INFINITY),
        );
        for corner in 0..8 {
            let x = Vector3::from_fn(|i, _| if corner & (1 << i) != 0 { hi[i] } else { lo[i] });
            let f = inverse * x;
            fmin = fmin.inf(&f);
            fmax = fmax.sup(&f);
        }
        // f + k in [fmin, fmax] for some f in [-0.5, 1.5].
        let range = |i: usize| -> std::ops::RangeInclusive<i32> {
            match self.periodic[i] {
                true => (fmin[i] - 1.5).ceil() as i32..=(fmax[i] + 0.5).floor() as i32,
                false => 0..=0,
            }
        };
        let mut out = Vec::new();
        for kx in range(0) {
            for ky in range(1) {
                for kz in range(2) {
                    if [kx, ky, kz] != [0; 3] {
                        out.push(self.offset([kx, ky, kz]));
                    }
                }
            }
        }
        out
    }

    /// Advances the cell by one step with the imposed gradient: `Hdot(t+dt/2) = L H(t)`,
    /// `H(t+dt) = H(t) + Hdot dt`. Returns `Hdot(t-dt/2)`.
    pub fn advance(&mut self, dt: f64) -> Matrix3<f64> {
        let old = self.hdot;
        self.hdot = self.gradient * self.h;
        self.h += self.hdot * dt;
        old
    }

    /// The flip the cell needs now (see the module documentation), if any: `(i, j, k)`
    /// for `a_j -> a_j - k a_i`.
    pub fn flip_due(&self) -> Option<(usize, usize, i32)> {
        for j in 0..3 {
            for i in 0..3 {
                if i == j || !self.periodic[i] || !self.periodic[j] {
                    continue;
                }
                let (ai, aj) = (self.h.column(i), self.h.column(j));
                let tilt = aj.dot(&ai) / ai.norm_squared();
                if tilt.abs() > FLIP_TILT {
                    return Some((i, j, tilt.round() as i32));
                }
            }
        }
        None
    }

    /// Flips the cell: `a_j -> a_j - k a_i` (and the cell velocity alike). Returns the map
    /// of old lattice shifts to new ones.
    pub fn flip(&mut self, (i, j, k): (usize, usize, i32)) -> impl Fn(Shift) -> Shift {
        let kf = k as f64;
        let (hi, vi) = (
            self.h.column(i).into_owned(),
            self.hdot.column(i).into_owned(),
        );
        let hj = self.h.column(j) - hi * kf;
        let vj = self.hdot.column(j) - vi * kf;
        self.h.set_column(j, &hj);
        self.hdot.set_column(j, &vj);
        self.flips += 1;
        // H s = H' s' with H' = H M, M = I - k e_i e_j^T: s' = s + k s_j e_i.
        move |s: Shift| {
            let mut t = s;
            t[i] += k * s[j];
            t
        }
    }
}

/// A shift as a vector of reals.
pub fn shift_vector(s: Shift) -> Vector3<f64> {
    Vector3::new(s[0] as f64, s[1] as f64, s[2] as f64)
}

/// One stage of the cell's loading.
#[derive(Deserialize, Serialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Stage {
    /// Velocity gradient by rows, 1/s (its diagonal entry is ignored where a target
    /// stress is given).
    #[serde(default)]
    pub velocity_gradient: [[f64; 3]; 3],
    /// Target normal stress along x, y, z (Pa, compression positive), or `None` for the
    /// gradient's rate.
    #[serde(default)]
    pub stress: [Option<f64>; 3],
    /// Strain rate at 100 % stress error, 1/s.
    #[serde(default = "one")]
    pub gain: f64,
    /// Largest strain rate the servo sets, 1/s.
    pub max_rate: f64,
    /// The stage ends when all of these hold (never, if empty).
    #[serde(default)]
    pub until: Vec<Until>,
}

fn one() -> f64 {
    1.0
}

/// A condition ending a stage.
#[derive(Deserialize, Serialize, Debug, Clone, Copy, PartialEq)]
pub enum Until {
    /// Mean net force on the particles over their mean contact force below this.
    Unbalanced(f64),
    /// Every controlled stress within this fraction of its target.
    StressReached(f64),
    /// The edge (0 = x, 1 = y, 2 = z) strained by this much since the stage started
    /// (`H_kk / H_kk(start) - 1`); reached when the strain passes it.
    Strain(u8, f64),
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sheared(gamma: f64) -> Cell {
        Cell::from_spec(&CellSpec {
            edges: [[1.0, 0.0, 0.0], [gamma, 2.0, 0.0], [0.0, 0.0, 3.0]],
            periodic: "xy".into(),
            velocity_gradient: [[0.0, 0.5, 0.0], [0.0; 3], [0.0; 3]],
            stages: Vec::new(),
        })
        .unwrap()
    }

    #[test]
    fn a_flip_keeps_the_lattice() {
        let mut c = sheared(1.3);
        // Tilt of b over a: 1.3 / 1 > FLIP_TILT.
        let due = c.flip_due().unwrap();
        assert_eq!(due, (0, 1, 1));
        let old = c.clone();
        let map = c.flip(due);
        assert!((c.h[(0, 1)] - 0.3).abs() < 1e-15);
        for s in [[1, 0, 0], [0, 1, 0], [1, -1, 0], [-2, 3, 0]] {
            let d = old.offset(s) - c.offset(map(s));
            assert!(d.norm() < 1e-14, "{s:?}");
            let v = old.offset_velocity(s) - c.offset_velocity(map(s));
            assert!(v.norm() < 1e-14, "{s:?}");
        }
        assert!(c.flip_due().is_none());
        assert!((c.volume() - old.volume()).abs() < 1e-14);
    }

    #[test]
    fn widths_are_the_face_distances() {
        let c = sheared(0.5);
        // Faces spanned by b and c are the planes x = y/4 (+1): distance 1/|(1, -1/4)|.
        assert!((c.width(0) - 1.0 / (1.0f64 + 1.0 / 16.0).sqrt()).abs() < 1e-15);
        assert!((c.width(1) - 2.0).abs() < 1e-15);
        assert!((c.width(2) - 3.0).abs() < 1e-15);
    }

    #[test]
    fn bad_cells_are_refused() {
        let mut spec = CellSpec {
            edges: [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
            periodic: "xw".into(),
            velocity_gradient: [[0.0; 3]; 3],
            stages: Vec::new(),
        };
        assert!(Cell::from_spec(&spec).unwrap_err().contains("`w`"));
        spec.periodic = "x".into();
        spec.edges[2] = [0.0, 0.0, -1.0];
        assert!(Cell::from_spec(&spec).unwrap_err().contains("cell.edges"));
    }
}
