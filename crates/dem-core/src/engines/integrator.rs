//! Leap-frog integration (Yade's NewtonIntegrator order: forces of step t act in step t).
//!
//! Velocities live at half steps: `v(t+dt/2) = v(t-dt/2) + a(t) dt`, `x(t+dt) = x(t) +
//! v(t+dt/2) dt`. The initial velocity of a scene is `v(-dt/2)`. Spheres (isotropic
//! inertia) update each global angular velocity component like a velocity and rotate by
//! the exact quaternion of `w(t+dt/2) dt`. Bodies with distinct principal moments
//! (stored in principal axes, `Particles::inertia` in the body frame) integrate angular
//! momentum and orientation as described in [`crate::engines::rotation`].
//!
//! Cundall's non-viscous damping scales each force component: `f_k *= 1 - lambda
//! sign(f_k v_k)` (with `v` at t - dt/2); for spheres torques likewise, per global axis;
//! for aspherical bodies per body axis ([`crate::engines::rotation`]). A blocked degree of freedom
//! keeps its velocity; the constraint force doing so does work, booked as boundary work.
//!
//! Energy is booked so that the ledger closes exactly for linear forces: kinetic energy at
//! t is `m/2 v(t-dt/2) . v(t+dt/2)`, and the work of a force `f(t)` over the step is
//! `f(t) . (v(t-dt/2) + v(t+dt/2)) dt / 2`.

use crate::engines::damping::damped;
use crate::engines::rotation;
use crate::model::energy::Ledger;
use crate::model::particles::{Dofs, Particles, Shape};
use crate::support::team::{Parts, Team};
use nalgebra::{Quaternion, UnitQuaternion, Vector3};
use rayon::prelude::*;

/// Integrator settings.
#[derive(Clone, Copy, Debug)]
pub struct Integrator {
    /// Gravity, m/s^2.
    pub gravity: Vector3<f64>,
    /// Cundall damping coefficient lambda.
    pub damping: f64,
    /// Time step, s.
    pub dt: f64,
    /// Is the orientation of spheres integrated? Only when something reads it (a geometry
    /// functor that declares it, or the scene's `output.sphere_orientation`): a sphere's
    /// shape does not depend on it, so without a reader it keeps its initial value. Other
    /// shapes always rotate.
    pub sphere_orientation: bool,
}

/// The unit quaternion of the rotation vector `r` (rad), `exp(r/2)`. For the small
/// angles of a time step (half angle below 0.02 rad) the sine and cosine are replaced by
/// their series to the term in h^6, exact to rounding there (the next terms are below
/// 1e-18 relative).
pub(crate) fn exp_map(r: &Vector3<f64>) -> UnitQuaternion<f64> {
    let h2 = 0.25 * r.norm_squared();
    if h2 >= 4e-4 {
        return UnitQuaternion::from_scaled_axis(*r);
    }
    // Coefficients as products (a division by a constant that is not a power of two
    // stays a division).
    let c = 1.0 - h2 * (0.5 - h2 * (1.0 / 24.0 - h2 * (1.0 / 720.0)));
    // sin(h) / |r| with h = |r| / 2.
    let s = 0.5 * (1.0 - h2 * (1.0 / 6.0 - h2 * (1.0 / 120.0 - h2 * (1.0 / 5040.0))));
    UnitQuaternion::new_unchecked(Quaternion::new(c, r.x * s, r.y * s, r.z * s))
}

/// Sets each force to the particle's weight in `gravity` (zero for an infinite mass) and
/// each torque to zero (compiled for each CPU level, as [`advance_chunk`]).
#[multiversion::multiversion(targets("x86_64+avx512f+avx512vl+avx2+fma", "x86_64+avx2+fma"))]
pub(crate) fn weigh(
    gravity: &Vector3<f64>,
    mass: &[f64],
    force: &mut [Vector3<f64>],
    torque: &mut [Vector3<f64>],
) {
    let n = force.len().min(mass.len()).min(torque.len());
    for (f, &m) in force[..n].iter_mut().zip(&mass[..n]) {
        *f = if m.is_finite() {
            gravity * m
        } else {
            Vector3::zeros()
        };
    }
    // Apart, so that it is one fill of memory.
    torque[..n].fill(Vector3::zeros());
}

impl Integrator {
    /// Sets forces to gravity and torques to zero (step 1 of the loop), in parallel
    /// chunks.
    pub fn reset_forces(&self, p: &mut Particles) {
        let n = p.len();
        let mass = &p.mass[..n];
        p.force[..n]
            .par_chunks_mut(CHUNK)
            .zip(p.torque[..n].par_chunks_mut(CHUNK))
            .enumerate()
            .with_min_len(crate::support::parallel::run_len(n.div_ceil(CHUNK)))
            .for_each(|(k, (force, torque))| {
                let mass = &mass[k * CHUNK..k * CHUNK + force.len()];
                weigh(&self.gravity, mass, force, torque);
            });
    }

    /// Advances velocities and positions by one step and fills the ledger's kinetic,
    /// potential, non-viscous and boundary-work terms (elastic, friction and contact
    /// damping come from the contacts). Particles are processed in fixed chunks in
    /// parallel; the energies are summed per chunk and then in chunk order, so that the
    /// result does not depend on the number of threads.
    ///
    /// Returns false when a new position, velocity or angular velocity may be non-finite
    /// (their sum is not finite: a huge finite state can give a false alarm, never a
    /// miss), for the caller to look for the particle.
    #[must_use]
    pub fn step(&self, p: &mut Particles, ledger: &mut Ledger) -> bool {
        self.step_in(p, ledger, &Team::default())
    }

    /// [`Integrator::step`] with the chunks shared among the members of `team`.
    #[must_use]
    pub fn step_in(&self, p: &mut Particles, ledger: &mut Ledger, team: &Team) -> bool {
        // The per-chunk sums go into a buffer that the calling thread keeps, so that a step
        // allocates nothing.
        thread_local! {
            static SUMS: std::cell::RefCell<Vec<ChunkEnergies>> = const { std::cell::RefCell::new(Vec::new()) };
        }
        let mut sums = SUMS.take();
        self.advance_in(p, team, &mut sums, None);
        let finite = Integrator::book(&sums, ledger);
        SUMS.set(sums);
        finite
    }

    /// Advances velocities and positions by one step, and puts in `sums` the energies of
    /// each chunk of [`CHUNK`] particles: see [`Integrator::book`]. With `only`, the chunks
    /// it marks alone (the others keep their state, and zero sums).
    pub(crate) fn advance_in(
        &self,
        p: &mut Particles,
        team: &Team,
        sums: &mut Vec<ChunkEnergies>,
        only: Option<&[bool]>,
    ) {
        let n = p.len();
        let chunks = n.div_ceil(CHUNK);
        sums.clear();
        sums.resize(chunks, [0.0; 6]);
        let (pos, vel) = (Parts::new(&mut p.pos[..n]), Parts::new(&mut p.vel[..n]));
        let (ori, angvel) = (Parts::new(&mut p.ori[..n]), Parts::new(&mut p.angvel[..n]));
        let energies = Parts::new(sums);
        let (mass, inertia, force, torque, blocked) = (
            &p.mass[..n],
            &p.inertia[..n],
            &p.force[..n],
            &p.torque[..n],
            &p.blocked[..n],
        );
        let shape = &p.shape[..n];
        team.run(|t| {
            let mine = team.range(chunks, t);
            // SAFETY: the members' chunk runs are disjoint, and so are their particles.
            let out = unsafe { energies.take(mine.clone()) };
            for (k, e) in mine.zip(out) {
                if only.is_some_and(|only| !only[k]) {
                    continue;
                }
                let r = k * CHUNK..(k * CHUNK + CHUNK).min(n);
                let c = unsafe {
                    Chunk {
                        pos: pos.take(r.clone()),
                        vel: vel.take(r.clone()),
                        ori: ori.take(r.clone()),
                        angvel: angvel.take(r.clone()),
                        mass: &mass[r.clone()],
                        inertia: &inertia[r.clone()],
                        force: &force[r.clone()],
                        torque: &torque[r.clone()],
                        blocked: &blocked[r.clone()],
                        shape: &shape[r],
                    }
                };
                let x = advance_chunk(self, c);
                *e = [
                    x.probe,
                    x.kinetic,
                    x.rotational,
                    x.potential,
                    x.nonviscous,
                    x.boundary_work,
                ];
            }
        });
    }

    /// Sums the chunks' energies in chunk order into the ledger's kinetic, rotational and
    /// potential terms, and adds the step's non-viscous and boundary work. Returns false
    /// when a new position, velocity or angular velocity may be non-finite.
    pub(crate) fn book(sums: &[ChunkEnergies], ledger: &mut Ledger) -> bool {
        let mut e = [0.0; 6];
        for x in sums {
            for (e, x) in e.iter_mut().zip(x) {
                *e += x;
            }
        }
        let [probe, kinetic, rotational, potential, nonviscous, boundary_work] = e;
        ledger.kinetic = kinetic;
        ledger.rotational = rotational;
        ledger.potential = potential;
        ledger.nonviscous += nonviscous;
        ledger.boundary_work += boundary_work;
        probe.is_finite()
    }

    /// Is the orientation of particle `i` of `shape` integrated (see
    /// [`Integrator::sphere_orientation`])?
    #[inline(always)]
    fn rotates(&self, shape: &[Shape], i: usize) -> bool {
        self.sphere_orientation || !matches!(shape[i], Shape::Sphere(_))
    }

    /// The general step of particle `i` (blocked components, damping, aspherical
    /// inertia, clump members), kept out of line so that the loop over free spheres in
    /// [`advance_chunk`] stays tight.
    #[inline(never)]
    fn general(&self, c: &mut Chunk<'_>, i: usize, e: &mut Energies) {
        let dt = self.dt;
        let m = c.mass[i];
        let blocked = c.blocked[i];
        let inertia = c.inertia[i];
        if blocked.member() {
            // Moved, and its energy booked, by its clump.
            return;
        }
        if m.is_finite() {
            e.potential -= m * self.gravity.dot(&c.pos[i]);
        }
        for k in 0..3 {
            let v0 = c.vel[i][k];
            let f = c.force[i][k];
            if blocked.translation(k) {
                e.boundary_work -= f * v0 * dt;
                if m.is_finite() {
                    e.kinetic += 0.5 * m * v0 * v0;
                }
                continue;
            }
            let fd = damped(f, v0, self.damping);
            let v1 = v0 + fd * (dt / m);
            e.nonviscous -= (fd - f) * 0.5 * (v0 + v1) * dt;
            e.kinetic += 0.5 * m * v0 * v1;
            c.vel[i][k] = v1;
        }
        let v = c.vel[i];
        c.pos[i] += v * dt;
        if rotation::is_aspherical(&inertia) {
            let body = rotation::Body {
                ori: &mut c.ori[i],
                angvel: &mut c.angvel[i],
                inertia,
                torque: c.torque[i],
                blocked,
            };
            let r = rotation::step(body, self.damping, dt);
            e.rotational += r.kinetic;
            e.nonviscous += r.nonviscous;
            e.boundary_work += r.boundary_work;
            e.probe += (c.pos[i] + c.vel[i] + c.angvel[i]).sum();
            return;
        }
        for k in 0..3 {
            let w0 = c.angvel[i][k];
            let t = c.torque[i][k];
            let inertia = inertia[k];
            if blocked.rotation(k) || !inertia.is_finite() {
                e.boundary_work -= t * w0 * dt;
                if inertia.is_finite() {
                    e.rotational += 0.5 * inertia * w0 * w0;
                }
                continue;
            }
            let td = damped(t, w0, self.damping);
            let w1 = w0 + td * (dt / inertia);
            e.nonviscous -= (td - t) * 0.5 * (w0 + w1) * dt;
            e.rotational += 0.5 * inertia * w0 * w1;
            c.angvel[i][k] = w1;
        }
        let w = c.angvel[i];
        if w != Vector3::zeros() && self.rotates(c.shape, i) {
            c.ori[i] = exp_map(&(w * dt)) * c.ori[i];
        }
        e.probe += (c.pos[i] + v + w).sum();
    }
}

/// One chunk of [`Integrator::step`]; returns its energies (the non-viscous and boundary
/// work as this step's increments). Compiled for each CPU level (AVX2 with FMA, AVX-512) as
/// well as the baseline: the same IEEE operations in the same order on every level (Rust
/// never fuses a multiplication and an addition by itself), with three-operand
/// instructions where the CPU has them (11 % fewer instructions on AVX2, the same bits).
#[multiversion::multiversion(targets("x86_64+avx512f+avx512vl+avx2+fma", "x86_64+avx2+fma"))]
fn advance_chunk(integ: &Integrator, mut c: Chunk<'_>) -> Energies {
    let dt = integ.dt;
    let mut e = Energies::default();
    // Every column cut to the chunk's length, so that one test of an index covers
    // them all.
    let n = c.pos.len();
    c.vel = &mut std::mem::take(&mut c.vel)[..n];
    c.ori = &mut std::mem::take(&mut c.ori)[..n];
    c.angvel = &mut std::mem::take(&mut c.angvel)[..n];
    (c.mass, c.inertia, c.blocked) = (&c.mass[..n], &c.inertia[..n], &c.blocked[..n]);
    (c.force, c.torque, c.shape) = (&c.force[..n], &c.torque[..n], &c.shape[..n]);
    for i in 0..n {
        let m = c.mass[i];
        let blocked = c.blocked[i];
        let inertia = c.inertia[i];
        let j = inertia.x;
        if integ.damping == 0.0
            && blocked == Dofs::FREE
            && m.is_finite()
            && j == inertia.y
            && j == inertia.z
            && j.is_finite()
        {
            // The common case, a free undamped sphere: the general step without the
            // per-component tests (the same arithmetic). A force times `dt / m`: one
            // division per body, not one per component. (A clump member is never FREE.)
            e.potential -= m * integ.gravity.dot(&c.pos[i]);
            let v0 = c.vel[i];
            let v1 = v0 + c.force[i] * (dt / m);
            e.kinetic += 0.5 * m * v0.dot(&v1);
            c.vel[i] = v1;
            c.pos[i] += v1 * dt;
            let w0 = c.angvel[i];
            let w1 = w0 + c.torque[i] * (dt / j);
            e.rotational += 0.5 * j * w0.dot(&w1);
            c.angvel[i] = w1;
            if w1 != Vector3::zeros() && integ.rotates(c.shape, i) {
                c.ori[i] = exp_map(&(w1 * dt)) * c.ori[i];
            }
            e.probe += (c.pos[i] + v1 + w1).sum();
            continue;
        }
        integ.general(&mut c, i, &mut e);
    }
    e
}

/// Particles per chunk of the sums over particles: the integrator's energies, and the
/// contact energies the gather books to particles. Each chunk is summed on its own and the
/// chunks in order, so that the sums depend on the particles' storage order alone. Small,
/// because the chunk is also what a rank owns (see [`crate::engines::ranks`]): a scene of a
/// thousand particles is still shared among several; a member of a team takes a run of
/// many.
pub(crate) const CHUNK: usize = 64;

/// The particles of one chunk.
struct Chunk<'a> {
    pos: &'a mut [Vector3<f64>],
    vel: &'a mut [Vector3<f64>],
    ori: &'a mut [UnitQuaternion<f64>],
    angvel: &'a mut [Vector3<f64>],
    mass: &'a [f64],
    inertia: &'a [Vector3<f64>],
    force: &'a [Vector3<f64>],
    torque: &'a [Vector3<f64>],
    blocked: &'a [Dofs],
    shape: &'a [Shape],
}

/// Energies of a chunk in one step, as [`Integrator::advance_in`] gives them: the probe
/// (see [`Energies::probe`]), then kinetic, rotational, potential energy, non-viscous
/// dissipation and boundary work, J.
pub(crate) type ChunkEnergies = [f64; 6];

/// Energies of a chunk in one step, J.
#[derive(Default)]
struct Energies {
    kinetic: f64,
    rotational: f64,
    potential: f64,
    nonviscous: f64,
    boundary_work: f64,
    /// Sum of every new position, velocity and angular velocity component: not finite
    /// when one of them is not.
    probe: f64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_series_rotation_equals_the_exact_one() {
        for k in 0..4000 {
            let t = k as f64;
            let dir = Vector3::new((1.1 * t).sin(), (0.3 * t).cos(), (2.7 * t + 0.5).sin());
            // Angles from 1e-12 to 0.1 rad, across the switch at 0.04 rad.
            let angle = 10f64.powf(-12.0 + 11.0 * (k as f64 / 4000.0));
            let r = dir.normalize() * angle;
            let exact = UnitQuaternion::from_scaled_axis(r);
            let got = exp_map(&r);
            assert!(
                (got.into_inner() - exact.into_inner()).norm() < 4e-16,
                "{angle}"
            );
            assert!((got.into_inner().norm() - 1.0).abs() < 4e-16);
        }
    }
}
