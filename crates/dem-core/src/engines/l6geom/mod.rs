//! The L6Geom incremental update (Woo's contact geometry, reference 002): one
//! implementation for every geometry functor.
//!
//! A functor gives the current contact point `c`, normal `n` and gap directly; this module
//! carries the local frame `T` along with the rigid motion of the pair and integrates the
//! tangential displacement `u_t` and the relative rotation `phi` from mid-step velocities:
//!
//! 1. bending rotation `o_r = n_prev x n`; mid-step normal `n_mid = (n_prev + n)/2`,
//!    renormalised; twist rotation `o_t = n_mid (n_mid . (w1 + w2)/2) dt`;
//! 2. branch vectors at mid-step, where the velocities are: `b1 = r1 n_mid`,
//!    `b2 = -r2 n_mid` (`no_ratch`, finite radius) or `b_i = c_mid - x_i,mid`, with
//!    `c_mid = (c_prev + c)/2` and `x_i,mid = x_i - v_i dt/2`;
//! 3. relative velocity `v_r = (v2 + w2 x b2) - (v1 + w1 x b1)`, normal part removed;
//! 4. rows 1 and 2 of `T` rotated by `-(row x o_r) - (row x o_t)`, row 0 set to `n`,
//!    `T` re-orthonormalised; mid-step frame `T_mid = slerp(T_prev, T, 1/2)`;
//! 5. `u_dot = T_mid v_r`, with the normal rate replaced by `(gap - gap_prev)/dt`
//!    (or, with `point_rate`, by `n_mid . v_r`, the normal velocity of the contact point,
//!    with the point and the body positions taken at mid-step);
//!    `u += u_dot dt` for the tangential part, `u_x = gap` (direct);
//!    `phi_dot = T_mid (w2 - w1)`, `phi += phi_dot dt`.
//!
//! **Work consistency.** The law books the tangential force's work as `f . u_dot dt`
//! (trapezoid over the step); the solver applies the force at `t` with the moments of
//! `contact_torques`: the normal part at the contact point, the tangential part with the
//! branch vectors of step 2 taken at `t` (`r_i n` with `no_ratch`). The work the two forces
//! of a step (at `t - dt` and `t`) do on the bodies with the mid-step velocities is then
//! what the law booked, up to a second-order term in `dt`: the mid-step branch vectors and
//! frame are the average of those the two forces act with. Branch vectors at `t` in the
//! kinematics (as in Woo) leave a first-order error; the contact point `c - x_i` for the
//! moment with `no_ratch`'s `r_i n` for the velocity (as in Woo and Yade) leave an error
//! that does not shrink with `dt` at all (`tests/ledger_oblique.rs`). Yade's reason for
//! `no_ratch` (avoidGranularRatcheting) is kept: the branch vectors of the kinematics do
//! not change with the overlap, so a cycle of normal loading and rotation leaves no
//! tangential displacement; the tangential force acts with the same constant lever arms
//! (see `contact_torques` for what that does to angular momentum).
//!
//! At onset (contact creation) the frame is built deterministically: local `x = n`, local
//! `y = n x e_y` if `|n_y| < |n_z|`, else `n x e_z`, orthonormalised; `z = x x y`. The rates
//! at onset are evaluated directly from the body velocities (not left at zero), with the
//! branch vectors at `t`, those the contact's first force acts with.
//!
//! The step is written once, in [`update`], over a number type of [`dem_api::lane`]: `f64` for
//! [`L6State::update`] (one contact), four lanes for the solver's pass over a chunk of
//! contacts stored as columns ([`update::update_block`], compiled for AVX2 and AVX-512 as
//! well as the baseline and chosen at run time). Both give bitwise the same result.

pub(crate) mod hot;
mod options;
pub(crate) mod update;

pub use options::L6Options;

use dem_api::{L6Geom, RawGeom};
use nalgebra::{Matrix3, Vector3};
use serde::{Deserialize, Serialize};
use update::{Rows, V3};

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

/// The functor's geometry as the update reads it.
fn now(raw: &RawGeom) -> update::Now<f64> {
    update::Now {
        normal: v3(raw.normal.na()),
        point: v3(raw.point.na()),
        gap: raw.gap,
        radius: [raw.radius1, raw.radius2],
        area: raw.area,
    }
}

fn kin(b: &BodyKin) -> update::Kin<f64> {
    update::Kin {
        pos: v3(&b.pos),
        vel: v3(&b.vel),
        angvel: v3(&b.angvel),
    }
}

fn v3(v: &Vector3<f64>) -> V3<f64> {
    V3::new(v.x, v.y, v.z)
}

fn vector(v: V3<f64>) -> Vector3<f64> {
    Vector3::new(v.x, v.y, v.z)
}

fn rows(m: &Matrix3<f64>) -> Rows<f64> {
    [0, 1, 2].map(|r| V3::new(m[(r, 0)], m[(r, 1)], m[(r, 2)]))
}

fn matrix(r: &Rows<f64>) -> Matrix3<f64> {
    Matrix3::new(
        r[0].x, r[0].y, r[0].z, r[1].x, r[1].y, r[1].z, r[2].x, r[2].y, r[2].z,
    )
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
        let v_r = vector(update::relative_velocity(
            &now(raw),
            &kin(b1),
            &kin(b2),
            v3(&n),
            opt,
        ));
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

    /// The unit quaternion `[w, i, j, k]` of `frame` (cached, or extracted).
    pub(crate) fn frame_quaternion(&self) -> [f64; 4] {
        if self.frame_quat == [0.0; 4] {
            update::quaternion(&rows(&self.frame))
        } else {
            self.frame_quat
        }
    }

    /// Advances an existing contact by one step of length `dt` to the functor's current
    /// geometry `raw`.
    pub fn update(&mut self, raw: &RawGeom, b1: &BodyKin, b2: &BodyKin, dt: f64, opt: &L6Options) {
        let prev = update::Prev {
            frame: rows(&self.frame),
            quat: self.frame_quaternion(),
            point: v3(&self.point),
            u: v3(&self.u),
            phi: v3(&self.phi),
        };
        let next = update::step(&prev, &now(raw), &kin(b1), &kin(b2), dt, opt);
        self.frame = matrix(&next.frame);
        self.frame_quat = next.quat;
        self.point = vector(next.point);
        self.u = vector(next.u);
        self.phi = vector(next.phi);
        self.u_dot = vector(next.u_dot);
        self.phi_dot = vector(next.phi_dot);
        self.lens = next.lens;
        self.area = next.area;
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

/// The moments about the two bodies' centres of a contact force `f` (global frame, the
/// force on body 2; body 1 gets `-f`), N m: `[b1 x (-f), b2 x f]`.
///
/// They use the branch vectors the update used for the relative velocity `u_dot`, so that
/// the work the force does on the bodies is the work the law books from `u_dot`. The part
/// of `f` along the normal `n` acts at the contact point `point` (branch `point - x_i`):
/// the normal rate is the rate of the gap, whose work-conjugate force acts there. The
/// tangential part acts with the branch vectors of the kinematics: `point - x_i` as well,
/// or with `no_ratch` `r1 n` and `-r2 n` (a body of infinite radius, a wall or a facet,
/// keeps `point - x_i`). With `no_ratch` the two tangential forces then act at points a gap
/// apart along `n` (`x1 + r1 n` and `x2 - r2 n`): the pair receives the couple
/// `gap n x f_t` (zero when the surfaces just touch, of the order of the overlap over the
/// radius times the tangential force's moment otherwise), the price of Yade's
/// anti-ratcheting branch vectors, whose kinematics likewise see a tangential rate
/// `gap w x n` in a rigid rotation `w` of an overlapping pair. Energy is exact; angular
/// momentum changes by that couple. Without `no_ratch` both are exact.
pub(crate) fn contact_torques(
    point: &Vector3<f64>,
    n: &Vector3<f64>,
    lens: [f64; 2],
    pos: [&Vector3<f64>; 2],
    f: &Vector3<f64>,
    opt: &L6Options,
) -> [Vector3<f64>; 2] {
    let [t1, t2] = torques(v3(point), v3(n), lens, [v3(pos[0]), v3(pos[1])], v3(f), opt);
    [vector(t1), vector(t2)]
}

/// [`contact_torques`] written once over lanes: for one contact (`f64`) and for four at a
/// time (the solver's pass over a chunk), bitwise the same.
#[inline(always)]
pub(crate) fn torques<L: dem_api::lane::Lane>(
    point: V3<L>,
    n: V3<L>,
    lens: [L; 2],
    pos: [V3<L>; 2],
    f: V3<L>,
    opt: &L6Options,
) -> [V3<L>; 2] {
    let arm = |i: usize| point.sub(pos[i]);
    let minus = |v: V3<L>| V3::new(-v.x, -v.y, -v.z);
    if !opt.no_ratch {
        return [arm(0).cross(minus(f)), arm(1).cross(f)];
    }
    let f_n = n.scale(n.dot(f));
    let f_t = f.sub(f_n);
    // A body of infinite radius (a wall, a facet) keeps the arm to the contact point.
    let branch = |i: usize, sign: f64| {
        V3::select(lens[i].finite(), n.scale(L::splat(sign) * lens[i]), arm(i))
    };
    [
        minus(arm(0).cross(f_n).add(branch(0, 1.0).cross(f_t))),
        arm(1).cross(f_n).add(branch(1, -1.0).cross(f_t)),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::{Quaternion, UnitQuaternion};

    fn quaternion(m: &Matrix3<f64>) -> Quaternion<f64> {
        let [w, i, j, k] = update::quaternion(&rows(m));
        Quaternion::new(w, i, j, k)
    }

    fn slerp_half(qa: Quaternion<f64>, qb: Quaternion<f64>) -> Matrix3<f64> {
        let q = |q: Quaternion<f64>| [q.w, q.i, q.j, q.k];
        matrix(&update::slerp_half(&q(qa), &q(qb)))
    }

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
