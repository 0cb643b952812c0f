//! The rigid body of a clump and its step.
//!
//! # Design
//!
//! The members are ordinary sphere particles, consecutive in storage (as a mesh's facets
//! are), so that the broad phase, the sphere functors, the laws, VTK and the guards see
//! plain spheres. They carry the [`Dofs::MEMBER`] flag: the integrator leaves them alone,
//! and each step [`step`] moves them with their clump. The rigid body itself
//! ([`ClumpBody`], in [`crate::Simulation::clumps`]) holds the clump's state: centroid,
//! velocity, orientation of its principal frame, angular velocity, mass and principal
//! moments. Each step, after the contact forces are gathered on the members:
//!
//! 1. the members' contact forces `f_i` (their force less the weight the gather put on
//!    them) and torques are summed in member order onto the clump: `F = M g + Σ f_i`,
//!    `T = Σ (x_i - X) × f_i + t_i`. Clumps are processed one after the other in storage
//!    order, so the result is independent of the number of threads;
//! 2. the body is advanced by the integrator's own rules: leap-frog translation with
//!    Cundall damping per component, and the rotation of [`crate::engines::rotation`] (an
//!    isotropic clump, such as a single sphere, takes the sphere update);
//! 3. the members are put back on the body: `x_i = X + q b_i`, `v_i = V + w × (x_i - X)`,
//!    `w_i = w`, `q_i = q` (with `b_i` the member's centre in the body frame).
//!
//! The energies of the body (kinetic, rotational, potential, non-viscous) are booked
//! once, for the body; the members book none. A member's mass, as the contact laws
//! see it, is the clump's mass (the mass a contact decelerates).

use super::ClumpTemplate;
use crate::engines::damping::damped;
use crate::engines::integrator::{exp_map, Integrator};
use crate::engines::rotation;
use crate::model::energy::Ledger;
use crate::model::particles::{Dofs, Particles};
use nalgebra::{UnitQuaternion, Vector3};
use std::ops::Range;
use std::sync::Arc;

/// One clump: a rigid body whose members are the particles `members`.
#[derive(Clone, Debug, PartialEq)]
pub struct ClumpBody {
    /// Name of its template in the scene.
    pub template_name: String,
    /// Its shape (members in the body frame).
    pub template: Arc<ClumpTemplate>,
    /// Particle ids of its members, in template order.
    pub members: Range<usize>,
    /// Centroid at t, m.
    pub pos: Vector3<f64>,
    /// Velocity of the centroid at t - dt/2, m/s.
    pub vel: Vector3<f64>,
    /// Orientation of the principal frame at t (body to global).
    pub ori: UnitQuaternion<f64>,
    /// Angular velocity (global) at t - dt/2, rad/s (for an aspherical clump the
    /// midpoint velocity of [`crate::engines::rotation`]).
    pub angvel: Vector3<f64>,
    /// Mass, kg.
    pub mass: f64,
    /// Principal moments of inertia, kg m^2.
    pub inertia: Vector3<f64>,
}

impl ClumpBody {
    /// Puts the members on the body: positions, velocities, orientations and angular
    /// velocities from the body's state.
    pub fn place_members(&self, p: &mut Particles) {
        for (i, m) in self.members.clone().zip(&self.template.members) {
            let r = self.ori * m.center;
            p.pos[i] = self.pos + r;
            p.vel[i] = self.vel + self.angvel.cross(&r);
            p.angvel[i] = self.angvel;
            p.ori[i] = self.ori;
        }
    }

    /// Contact force and torque (about the centroid) on the clump from its members, N
    /// and N m: each member's force less its weight, summed in member order.
    pub fn contact_load(&self, p: &Particles, gravity: &Vector3<f64>) -> [Vector3<f64>; 2] {
        let (mut f, mut t) = (Vector3::zeros(), Vector3::zeros());
        for i in self.members.clone() {
            let fi = p.force[i] - gravity * p.mass[i];
            f += fi;
            t += (p.pos[i] - self.pos).cross(&fi) + p.torque[i];
        }
        [f, t]
    }
}

/// Advances every clump by one step (after [`Integrator::step_in`] has advanced the
/// other particles and set the ledger's kinetic and potential terms, to which the
/// clumps' are added) and moves the members. With `terms` (as long as `clumps`), also
/// gives each clump's own terms of the step, `[kinetic, rotational, potential]` (J), which
/// an inlet or an outlet books as the energy the clump brings or carries out. Returns
/// false when a clump's new state is not finite.
#[must_use]
pub fn step(
    clumps: &mut [ClumpBody],
    p: &mut Particles,
    integ: &Integrator,
    ledger: &mut Ledger,
    mut terms: Option<&mut [[f64; 3]]>,
) -> bool {
    let (dt, g, lambda) = (integ.dt, integ.gravity, integ.damping);
    let mut probe = 0.0;
    for (n, c) in clumps.iter_mut().enumerate() {
        let [contact, torque] = c.contact_load(p, &g);
        let force = g * c.mass + contact;
        let m = c.mass;
        let potential = -m * g.dot(&c.pos);
        let (mut kinetic, mut rotational) = (0.0, 0.0);
        ledger.potential -= m * g.dot(&c.pos);
        for k in 0..3 {
            let (v0, f) = (c.vel[k], force[k]);
            let fd = damped(f, v0, lambda);
            let v1 = v0 + fd * (dt / m);
            ledger.nonviscous -= (fd - f) * 0.5 * (v0 + v1) * dt;
            ledger.kinetic += 0.5 * m * v0 * v1;
            kinetic += 0.5 * m * v0 * v1;
            c.vel[k] = v1;
        }
        c.pos += c.vel * dt;
        if rotation::is_aspherical(&c.inertia) {
            let body = rotation::Body {
                ori: &mut c.ori,
                angvel: &mut c.angvel,
                inertia: c.inertia,
                torque,
                blocked: Dofs::FREE,
            };
            let r = rotation::step(body, lambda, dt);
            ledger.rotational += r.kinetic;
            rotational = r.kinetic;
            ledger.nonviscous += r.nonviscous;
            ledger.boundary_work += r.boundary_work;
        } else {
            for k in 0..3 {
                let (w0, t, j) = (c.angvel[k], torque[k], c.inertia[k]);
                let td = damped(t, w0, lambda);
                let w1 = w0 + td * (dt / j);
                ledger.nonviscous -= (td - t) * 0.5 * (w0 + w1) * dt;
                ledger.rotational += 0.5 * j * w0 * w1;
                rotational += 0.5 * j * w0 * w1;
                c.angvel[k] = w1;
            }
            if c.angvel != Vector3::zeros() {
                c.ori = exp_map(&(c.angvel * dt)) * c.ori;
            }
        }
        if let Some(t) = terms.as_deref_mut() {
            t[n] = [kinetic, rotational, potential];
        }
        probe += (c.pos + c.vel + c.angvel).sum();
        c.place_members(p);
    }
    probe.is_finite()
}
