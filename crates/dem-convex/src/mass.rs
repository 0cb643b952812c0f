//! Exact mass properties of a polyhedron from its surface, and its principal frame.
//!
//! The divergence theorem turns the volume integrals of 1, x and x xᵀ into sums over
//! the faces; with each polygon fanned into triangles and each triangle coned to a
//! reference point this is a sum over signed tetrahedra, each integrated exactly by
//! the covariance of the canonical tetrahedron (Tonon 2004):
//! `∫ x xᵀ dV = det/120 · (Σ vᵢ vᵢᵀ + (Σ vᵢ)(Σ vᵢ)ᵀ)` over the three surface vertices
//! taken relative to the reference point (the fourth corner is the reference point).
//! The reference point is the vertex mean, which keeps round-off small.
//! All quantities are per unit density.

use crate::polyhedron::Polyhedron;
use nalgebra::{Matrix3, Point3, Rotation3, UnitQuaternion, Vector3};

/// Volume, centroid and inertia tensor per unit density.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MassProperties {
    /// Volume (length³).
    pub volume: f64,
    /// Centroid (length, frame of the polyhedron).
    pub centroid: Point3<f64>,
    /// Inertia tensor about the centroid per unit density (length⁵), axes of the
    /// polyhedron's frame. Multiply by the density (mass/length³) for kg·m².
    pub inertia: Matrix3<f64>,
}

/// Principal frame: `inertia = rotation · diag(moments) · rotationᵀ`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PrincipalFrame {
    /// Principal moments per unit density, ascending (length⁵).
    pub moments: Vector3<f64>,
    /// Proper rotation (det = +1) whose columns are the principal axes in the
    /// polyhedron's frame.
    pub rotation: UnitQuaternion<f64>,
}

impl MassProperties {
    /// Mass properties of `poly` (see the module documentation for the method).
    pub fn of(poly: &Polyhedron) -> Self {
        let verts = poly.vertices();
        let mut o = Vector3::zeros();
        for v in verts {
            o += v.coords;
        }
        o /= verts.len() as f64;
        // Integrate in units of the body size l (then volume × l³, centroid × l,
        // inertia × l⁵), so that tiny or huge bodies neither underflow nor overflow.
        let l = poly.diameter();
        let l = if l > 0.0 && l.is_finite() { l } else { 1.0 };
        let mut vol6 = 0.0; // 6 × volume
        let mut first = Vector3::zeros(); // 24 × ∫ x dV
        let mut second = Matrix3::zeros(); // 120 × ∫ x xᵀ dV
        for f in poly.faces() {
            let a = (verts[f.vertices[0]].coords - o) / l;
            for k in 1..f.vertices.len() - 1 {
                let b = (verts[f.vertices[k]].coords - o) / l;
                let c = (verts[f.vertices[k + 1]].coords - o) / l;
                let det = a.dot(&b.cross(&c));
                let s = a + b + c;
                vol6 += det;
                first += det * s;
                second += det
                    * (a * a.transpose()
                        + b * b.transpose()
                        + c * c.transpose()
                        + s * s.transpose());
            }
        }
        let volume = vol6 / 6.0;
        let c_rel = first / 24.0 / volume;
        let cov = second / 120.0 - volume * c_rel * c_rel.transpose();
        let inertia = Matrix3::identity() * cov.trace() - cov;
        MassProperties {
            volume: volume * l.powi(3),
            centroid: (o + c_rel * l).into(),
            inertia: inertia * l.powi(5),
        }
    }

    /// Principal moments and axes of the inertia tensor.
    pub fn principal(&self) -> PrincipalFrame {
        let sym = 0.5 * (self.inertia + self.inertia.transpose());
        let eig = sym.symmetric_eigen();
        let mut order = [0usize, 1, 2];
        order.sort_by(|&i, &j| eig.eigenvalues[i].total_cmp(&eig.eigenvalues[j]));
        let mut m = Matrix3::zeros();
        let mut moments = Vector3::zeros();
        for (col, &i) in order.iter().enumerate() {
            m.set_column(col, &eig.eigenvectors.column(i));
            moments[col] = eig.eigenvalues[i];
        }
        if m.determinant() < 0.0 {
            let c = -m.column(2);
            m.set_column(2, &c);
        }
        let rotation = UnitQuaternion::from_rotation_matrix(&Rotation3::from_matrix_unchecked(m));
        PrincipalFrame { moments, rotation }
    }
}

impl Polyhedron {
    /// Mass properties per unit density.
    pub fn mass_properties(&self) -> MassProperties {
        MassProperties::of(self)
    }

    /// Volume (length³).
    pub fn volume(&self) -> f64 {
        self.signed_volume()
    }

    /// The body expressed in its principal frame (centroid at the origin, inertia
    /// diagonal and ascending), together with the pose that maps the principal frame
    /// back to the original one: `original = pose * principal`.
    pub fn to_principal(&self) -> (Polyhedron, PrincipalFrame, nalgebra::Isometry3<f64>) {
        let mp = self.mass_properties();
        let frame = mp.principal();
        let pose = nalgebra::Isometry3::from_parts(mp.centroid.coords.into(), frame.rotation);
        (self.transformed(&pose.inverse()), frame, pose)
    }
}
