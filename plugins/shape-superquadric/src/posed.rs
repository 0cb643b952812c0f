//! A superquadric in the global frame: its record and its body's rotation.

use crate::common_normal::Convex;
use crate::real::Dual;
use crate::shape::Superquadric;
use dem_api::nalgebra::{Matrix2, Matrix3, Vector3};
use dem_api::BodyView;

type V = Vector3<f64>;

/// How close to the body's z axis (in the direction's x and y) the support map's
/// Jacobian is taken off the axis, by as much, towards the tangents.
const AXIS: f64 = 1e-9;

/// A superquadric body posed: its support map in global directions.
pub struct Posed<'a> {
    /// The shape.
    pub shape: &'a Superquadric,
    /// Rotation, body to global.
    pub rot: Matrix3<f64>,
}

impl<'a> Posed<'a> {
    /// The superquadric `shape` of body `b`.
    pub fn of(shape: &'a Superquadric, b: &BodyView<'_>) -> Posed<'a> {
        Posed {
            shape,
            rot: b.ori.unit().to_rotation_matrix().into_inner(),
        }
    }
}

impl Convex for Posed<'_> {
    fn support(&self, n: &V) -> V {
        let local = self.rot.tr_mul(n);
        let s = self.shape.support_point([local.x, local.y, local.z]);
        self.rot * V::new(s[0], s[1], s[2])
    }

    fn axes(&self) -> [V; 3] {
        [
            self.rot.column(0).into(),
            self.rot.column(1).into(),
            self.rot.column(2).into(),
        ]
    }

    fn size(&self) -> f64 {
        self.shape.bounding_radius
    }

    /// The support function of the box of the half-axes (which holds the body), or of
    /// the bounding ball if smaller.
    fn bound(&self, n: &V) -> f64 {
        let local = self.rot.tr_mul(n);
        let [a, b, c] = self.shape.a;
        let boxed = a * local.x.abs() + b * local.y.abs() + c * local.z.abs();
        boxed.min(self.shape.bounding_radius)
    }

    fn tangent_jacobian(&self, n: &V, t: &(V, V)) -> Matrix2<f64> {
        let (local, t1, t2) = (
            self.rot.tr_mul(n),
            self.rot.tr_mul(&t.0),
            self.rot.tr_mul(&t.1),
        );
        // Along the body's z axis itself the support map's derivatives across it are lost
        // (the (x, y) plane's norm is 0 there, and so is every derivative taken through
        // it): a body lying exactly on a pole showed a radius of 0, and a law of stiffness
        // `2 E r` let it fall through a floor. They are taken a hair off the axis, where
        // they are their limit: finite for n1 = 2, unbounded for blockier poles (and then
        // bounded by `contact_radius`).
        let local = if local.x.abs().max(local.y.abs()) < AXIS {
            (local + (t1 + t2) * AXIS).normalize()
        } else {
            local
        };
        let d = [0, 1, 2].map(|i| Dual {
            v: local[i],
            d: [t1[i], t2[i]],
        });
        let s = self.shape.support_over(d);
        let ds = |j: usize| V::new(s[0].d[j], s[1].d[j], s[2].d[j]);
        let (c1, c2) = (ds(0), ds(1));
        let off = 0.5 * (t1.dot(&c2) + t2.dot(&c1));
        Matrix2::new(t1.dot(&c1), off, off, t2.dot(&c2))
    }
}
