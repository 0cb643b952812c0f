//! The L6Geom incremental update (Woo's contact geometry, reference 002): one
//! implementation for every geometry functor.
//!
//! A functor gives the current contact point `c`, normal `n` and gap directly; this module
//! carries the local frame `T` along with the rigid motion of the pair and integrates the
//! tangential displacement `u_t` and the relative rotation `phi` from mid-step velocities:
//!
//! 1. bending rotation `o_r = n_prev x n`; mid-step normal `n_mid = (n_prev + n)/2`,
//!    renormalised; twist rotation `o_t = n_mid (n_mid . (w1 + w2)/2) dt`;
//! 2. branch vectors `b1 = r1 n`, `b2 = -r2 n` (`no_ratch`) or `b_i = c - x_i`;
//! 3. relative velocity `v_r = (v2 + w2 x b2) - (v1 + w1 x b1)`, normal part removed;
//! 4. rows 1 and 2 of `T` rotated by `-(row x o_r) - (row x o_t)`, row 0 set to `n`,
//!    `T` re-orthonormalised; mid-step frame `T_mid = slerp(T_prev, T, 1/2)`;
//! 5. `u_dot = T_mid v_r`, with the normal rate replaced by `(gap - gap_prev)/dt`
//!    (or, with `point_rate`, by `n_mid . v_r`, the normal velocity of the contact point,
//!    with the point and the body positions taken at mid-step);
//!    `u += u_dot dt` for the tangential part, `u_x = gap` (direct);
//!    `phi_dot = T_mid (w2 - w1)`, `phi += phi_dot dt`.
//!
//! At onset (contact creation) the frame is built deterministically: local `x = n`, local
//! `y = n x e_y` if `|n_y| < |n_z|`, else `n x e_z`, orthonormalised; `z = x x y`. The rates
//! at onset are evaluated directly from the body velocities (not left at zero).

use crate::scene::L6Options;
use dem_api::{L6Geom, RawGeom};
use nalgebra::{Matrix3, Quaternion, RowVector3, UnitQuaternion, Vector3};
use serde::{Deserialize, Serialize};

/// Kinematics of one body for the update: position at t, velocities at t - dt/2.
#[derive(Clone, Copy, Debug)]
pub struct BodyKin {
    /// Position, m.
    pub pos: Vector3<f64>,
    /// Velocity, m/s.
    pub vel: Vector3<f64>,
    /// Angular velocity, rad/s.
    pub angvel: Vector3<f64>,
}

/// Per-contact tracked geometry.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize)]
pub struct L6State {
    /// Global-to-local rotation; row 0 is the normal.
    pub frame: Matrix3<f64>,
    /// Contact point, m.
    pub point: Vector3<f64>,
    /// Generalized displacement (x: gap; y, z: integrated), m.
    pub u: Vector3<f64>,
    /// Relative rotation, rad.
    pub phi: Vector3<f64>,
    /// Rate of `u` at t - dt/2, m/s.
    pub u_dot: Vector3<f64>,
    /// Rate of `phi` at t - dt/2, rad/s.
    pub phi_dot: Vector3<f64>,
    /// Equivalent radii, m.
    pub lens: [f64; 2],
    /// Contact area, m^2.
    pub area: f64,
    /// The unit quaternion of `frame` as the next update's half-way rotation needs it,
    /// kept from this update so that it is extracted once per step, not twice; zero when
    /// not known (a state built by hand or read from a checkpoint), and then extracted.
    /// Always `quaternion(frame)` when set, so that results do not depend on it.
    #[serde(skip)]
    frame_quat: [f64; 4],
}

/// Equal tracked geometry (the cached quaternion of the frame is not compared: it is a
/// function of the frame).
impl PartialEq for L6State {
    fn eq(&self, o: &Self) -> bool {
        self.frame == o.frame
            && self.point == o.point
            && self.u == o.u
            && self.phi == o.phi
            && self.u_dot == o.u_dot
            && self.phi_dot == o.phi_dot
            && self.lens == o.lens
            && self.area == o.area
    }
}

#[inline]
fn branch(
    raw: &RawGeom,
    body: &BodyKin,
    radius: f64,
    sign: f64,
    n: &Vector3<f64>,
    opt: &L6Options,
) -> Vector3<f64> {
    if opt.no_ratch && radius.is_finite() {
        n * (sign * radius)
    } else {
        raw.point.na() - body.pos
    }
}

#[inline]
fn relative_velocity(
    raw: &RawGeom,
    b1: &BodyKin,
    b2: &BodyKin,
    n: &Vector3<f64>,
    opt: &L6Options,
) -> Vector3<f64> {
    let br1 = branch(raw, b1, raw.radius1, 1.0, n, opt);
    let br2 = branch(raw, b2, raw.radius2, -1.0, n, opt);
    (b2.vel + b2.angvel.cross(&br2)) - (b1.vel + b1.angvel.cross(&br1))
}

/// The deterministic initial frame for normal `n` (unit).
pub fn initial_frame(n: &Vector3<f64>) -> Matrix3<f64> {
    let helper = if n.y.abs() < n.z.abs() {
        Vector3::y()
    } else {
        Vector3::z()
    };
    let mut y = n.cross(&helper);
    y -= n * n.dot(&y);
    let y = y.normalize();
    let z = n.cross(&y);
    Matrix3::from_rows(&[n.transpose(), y.transpose(), z.transpose()])
}

impl L6State {
    /// State of a contact created now from the functor's geometry.
    pub fn create(raw: &RawGeom, b1: &BodyKin, b2: &BodyKin, opt: &L6Options) -> L6State {
        let n = *raw.normal.na();
        let frame = initial_frame(&n);
        let v_r = relative_velocity(raw, b1, b2, &n, opt);
        L6State {
            frame,
            point: *raw.point.na(),
            u: Vector3::new(raw.gap, 0.0, 0.0),
            phi: Vector3::zeros(),
            u_dot: frame * v_r,
            phi_dot: frame * (b2.angvel - b1.angvel),
            lens: [raw.radius1, raw.radius2],
            area: raw.area,
            frame_quat: [0.0; 4],
        }
    }

    /// The unit quaternion of `frame` (cached, or extracted).
    fn frame_quaternion(&self) -> Quaternion<f64> {
        let [w, i, j, k] = self.frame_quat;
        if w == 0.0 && i == 0.0 && j == 0.0 && k == 0.0 {
            quaternion(&self.frame)
        } else {
            Quaternion::new(w, i, j, k)
        }
    }

    /// Advances an existing contact by one step of length `dt` to the functor's current
    /// geometry `raw`.
    pub fn update(&mut self, raw: &RawGeom, b1: &BodyKin, b2: &BodyKin, dt: f64, opt: &L6Options) {
        let n_prev: Vector3<f64> = self.frame.row(0).transpose();
        let n = *raw.normal.na();
        let o_r = n_prev.cross(&n);
        let mut n_mid = if opt.no_mid_normal {
            n_prev
        } else {
            0.5 * (n_prev + n)
        };
        if !opt.no_renorm {
            n_mid *= 1.0 / n_mid.norm();
        }
        let o_t = n_mid * (n_mid.dot(&(0.5 * (b1.angvel + b2.angvel))) * dt);
        let v_r = relative_velocity(raw, b1, b2, &n, opt);
        let v_t = v_r - n_mid * n_mid.dot(&v_r);

        let prev = self.frame;
        // Bending and twist together: v - v x o_r - v x o_t = v - v x (o_r + o_t).
        let o = o_r + o_t;
        let rot = |r: RowVector3<f64>| -> RowVector3<f64> {
            let v = r.transpose();
            (v - v.cross(&o)).transpose()
        };
        let mut frame = Matrix3::from_rows(&[
            n.transpose(),
            rot(prev.row(1).into_owned()),
            rot(prev.row(2).into_owned()),
        ]);
        if !opt.no_renorm {
            frame = orthonormalize(&frame);
        }
        let q = quaternion(&frame);
        let mid = if opt.no_mid_frame {
            prev
        } else {
            slerp_half(self.frame_quaternion(), q)
        };

        let mut u_dot = mid * v_t;
        u_dot.x = if opt.point_rate {
            // Velocities are at t - dt/2: so are the point and the positions used.
            let c = 0.5 * (self.point + raw.point.na());
            let at = |b: &BodyKin| b.vel + b.angvel.cross(&(c - (b.pos - 0.5 * dt * b.vel)));
            n_mid.dot(&(at(b2) - at(b1)))
        } else {
            (raw.gap - self.u.x) / dt
        };
        self.u.y += u_dot.y * dt;
        self.u.z += u_dot.z * dt;
        self.u.x = raw.gap;
        self.phi_dot = mid * (b2.angvel - b1.angvel);
        self.phi += self.phi_dot * dt;
        self.u_dot = u_dot;
        self.frame = frame;
        self.frame_quat = [q.w, q.i, q.j, q.k];
        self.point = *raw.point.na();
        self.lens = [raw.radius1, raw.radius2];
        self.area = raw.area;
    }

    /// Writes the record a law reads into `g`, field by field.
    #[inline]
    pub fn write_api(&self, g: &mut L6Geom) {
        g.frame = self.frame.into();
        g.point = self.point.into();
        g.u = self.u.into();
        g.phi = self.phi.into();
        g.u_dot = self.u_dot.into();
        g.phi_dot = self.phi_dot.into();
        g.lens = self.lens;
        g.area = self.area;
    }
}

/// Re-orthonormalises a frame keeping row 0 (the normal) exact.
fn orthonormalize(m: &Matrix3<f64>) -> Matrix3<f64> {
    let x: Vector3<f64> = m.row(0).transpose();
    let x = x * (1.0 / x.norm());
    let mut y: Vector3<f64> = m.row(1).transpose();
    y -= x * x.dot(&y);
    let y = y * (1.0 / y.norm());
    let z = x.cross(&y);
    Matrix3::from_rows(&[x.transpose(), y.transpose(), z.transpose()])
}

/// The unit quaternion of a rotation matrix (Shepperd's choice of the largest diagonal
/// term, so that the square root is of a number >= 1/4 and one reciprocal serves all
/// components).
fn quaternion(m: &Matrix3<f64>) -> Quaternion<f64> {
    let (m00, m11, m22) = (m[(0, 0)], m[(1, 1)], m[(2, 2)]);
    let trace = m00 + m11 + m22;
    if trace > 0.0 {
        let s = 2.0 * (trace + 1.0).sqrt();
        let r = 1.0 / s;
        Quaternion::new(
            0.25 * s,
            (m[(2, 1)] - m[(1, 2)]) * r,
            (m[(0, 2)] - m[(2, 0)]) * r,
            (m[(1, 0)] - m[(0, 1)]) * r,
        )
    } else if m00 > m11 && m00 > m22 {
        let s = 2.0 * (1.0 + m00 - m11 - m22).sqrt();
        let r = 1.0 / s;
        Quaternion::new(
            (m[(2, 1)] - m[(1, 2)]) * r,
            0.25 * s,
            (m[(0, 1)] + m[(1, 0)]) * r,
            (m[(0, 2)] + m[(2, 0)]) * r,
        )
    } else if m11 > m22 {
        let s = 2.0 * (1.0 + m11 - m00 - m22).sqrt();
        let r = 1.0 / s;
        Quaternion::new(
            (m[(0, 2)] - m[(2, 0)]) * r,
            (m[(0, 1)] + m[(1, 0)]) * r,
            0.25 * s,
            (m[(1, 2)] + m[(2, 1)]) * r,
        )
    } else {
        let s = 2.0 * (1.0 + m22 - m00 - m11).sqrt();
        let r = 1.0 / s;
        Quaternion::new(
            (m[(1, 0)] - m[(0, 1)]) * r,
            (m[(0, 2)] + m[(2, 0)]) * r,
            (m[(1, 2)] + m[(2, 1)]) * r,
            0.25 * s,
        )
    }
}

/// Spherical interpolation half-way between two rotations given as unit quaternions: on
/// the same hemisphere this is exactly `normalize(qa + qb)` (no acos near 1, no round-off
/// growth for the tiny per-step rotations of a contact frame).
fn slerp_half(qa: Quaternion<f64>, mut qb: Quaternion<f64>) -> Matrix3<f64> {
    if qa.dot(&qb) < 0.0 {
        qb = -qb;
    }
    let q = qa + qb;
    let q = q * (1.0 / q.norm());
    UnitQuaternion::new_unchecked(q)
        .to_rotation_matrix()
        .into_inner()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rotations covering every branch of `quaternion` (trace positive, and each diagonal
    /// term the largest), including half turns.
    fn rotations() -> Vec<UnitQuaternion<f64>> {
        let mut out = Vec::new();
        for k in 0..2000 {
            let t = k as f64;
            let axis = Vector3::new(
                (1.3 * t).sin(),
                (0.7 * t + 1.0).cos(),
                (2.1 * t).sin() + 0.1,
            );
            let angle = std::f64::consts::PI * ((0.37 * t).sin().abs());
            out.push(UnitQuaternion::from_axis_angle(
                &nalgebra::Unit::new_normalize(axis),
                angle,
            ));
        }
        for axis in [Vector3::x_axis(), Vector3::y_axis(), Vector3::z_axis()] {
            out.push(UnitQuaternion::from_axis_angle(&axis, std::f64::consts::PI));
        }
        out
    }

    #[test]
    fn quaternion_of_a_matrix_matches_the_rotation() {
        for q in rotations() {
            let m = q.to_rotation_matrix().into_inner();
            let p = quaternion(&m);
            // q and -q are the same rotation.
            let err = (p - q.into_inner()).norm().min((p + q.into_inner()).norm());
            assert!(err < 1e-14, "{q:?}: {p:?}");
        }
    }

    #[test]
    fn half_slerp_is_the_rotation_midway() {
        let rots = rotations();
        for w in rots.windows(2) {
            let (a, b) = (
                w[0],
                w[0] * UnitQuaternion::from_scaled_axis(w[1].scaled_axis() * 0.3),
            );
            let (ma, mb) = (
                a.to_rotation_matrix().into_inner(),
                b.to_rotation_matrix().into_inner(),
            );
            let half = UnitQuaternion::from_scaled_axis((a.inverse() * b).scaled_axis() * 0.5);
            let expected = (a * half).to_rotation_matrix().into_inner();
            let got = slerp_half(quaternion(&ma), quaternion(&mb));
            assert!(
                (got - expected).amax() < 1e-14,
                "{}",
                (got - expected).amax()
            );
        }
    }
}
