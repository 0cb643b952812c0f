//! A prescribed fluid around the particles: Stokes drag on spheres in a linear flow
//! (scene `fluid`), evaluated in the solver at every step (no call into a script).
//!
//! The flow is `u(x) = u0 + G x` (`velocity` `u0`, m/s; `gradient` `G`, rows
//! `G[i] = d u_i / d x`, 1/s): a uniform stream, a simple shear, a rotation or a strain, and
//! any sum of them. A sphere of radius `r` moving at `v` and turning at `w` in a fluid of
//! viscosity `mu` feels, at low particle Reynolds number, Faxen's force and torque
//!
//! `F = 6 pi mu r (u(x) - v)`, `T = 8 pi mu r^3 (W - w)`, `W = curl(u) / 2`
//!
//! which are exact for a linear flow (its Laplacian vanishes, and the strain part exerts
//! no force or torque on a sphere). Both act with the velocities at `t - dt/2`, explicitly:
//! the relaxation times `m / (6 pi mu r)` and `J / (8 pi mu r^3) = m / (20 pi mu r)` bound
//! the time step ([`Fluid::relaxation_time`] enters the critical step). Their work, `F .
//! v(t-dt/2) dt + T . w(t-dt/2) dt` per step, is booked as boundary work (work done on the
//! particles from outside, as for the loads of [`crate::engines::applied`]): in still fluid
//! it is the energy the drag dissipates; a moving fluid can also give energy.
//!
//! Spheres only, not clump members: a scene with a fluid and polyhedra or clumps is
//! refused (no drag law for their shapes yet). Walls and facets (infinite mass) feel none.

use crate::model::particles::{Particles, Shape};
use nalgebra::{Matrix3, Vector3};
use serde::{Deserialize, Serialize};
use std::f64::consts::PI;

/// The scene's `fluid`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FluidSpec {
    /// Dynamic viscosity mu, Pa s (water: 1e-3; air: 1.8e-5).
    pub viscosity: f64,
    /// Flow velocity at the origin, m/s.
    #[serde(default)]
    pub velocity: [f64; 3],
    /// Velocity gradient, by rows: `gradient[i][j] = d u_i / d x_j`, 1/s (simple shear of
    /// rate g along x varying with z: `((0, 0, g), (0, 0, 0), (0, 0, 0))`).
    #[serde(default)]
    pub gradient: [[f64; 3]; 3],
}

impl FluidSpec {
    /// Checks the values; the message names the field.
    pub fn check(&self) -> Result<(), String> {
        if !(self.viscosity.is_finite() && self.viscosity > 0.0) {
            return Err(format!(
                "fluid.viscosity: {} must be positive and finite, Pa s",
                self.viscosity
            ));
        }
        if !self.velocity.iter().all(|x| x.is_finite()) {
            return Err(format!(
                "fluid.velocity: {:?} must be finite, m/s",
                self.velocity
            ));
        }
        if !self.gradient.iter().flatten().all(|x| x.is_finite()) {
            return Err(format!(
                "fluid.gradient: {:?} must be finite, 1/s",
                self.gradient
            ));
        }
        Ok(())
    }
}

/// The fluid of a run (see the module docs).
#[derive(Clone, Debug, PartialEq)]
pub struct Fluid {
    viscosity: f64,
    velocity: Vector3<f64>,
    gradient: Matrix3<f64>,
    /// Half the flow's vorticity: the rate a free sphere turns at, rad/s.
    spin: Vector3<f64>,
}

impl Fluid {
    /// The fluid of a checked spec.
    pub fn new(spec: &FluidSpec) -> Fluid {
        let g = Matrix3::from_fn(|i, j| spec.gradient[i][j]);
        let curl = Vector3::new(
            g[(2, 1)] - g[(1, 2)],
            g[(0, 2)] - g[(2, 0)],
            g[(1, 0)] - g[(0, 1)],
        );
        Fluid {
            viscosity: spec.viscosity,
            velocity: Vector3::from(spec.velocity),
            gradient: g,
            spin: curl * 0.5,
        }
    }

    /// The flow velocity at `x`, m/s.
    pub fn velocity_at(&self, x: &Vector3<f64>) -> Vector3<f64> {
        self.velocity + self.gradient * x
    }

    /// The radius of particle `i` if the fluid drags it (a sphere of finite mass, not a
    /// clump member).
    fn dragged(p: &Particles, i: usize) -> Option<f64> {
        match p.shape[i] {
            Shape::Sphere(s) if p.mass[i].is_finite() && !p.blocked[i].member() => Some(s.radius),
            _ => None,
        }
    }

    /// The shortest relaxation time of a dragged particle, s: its rotation's, `J / (8 pi
    /// mu r^3)` (for a solid sphere `m / (20 pi mu r)`, shorter than the translation's `m
    /// / (6 pi mu r)`). The explicit drag is stable below twice it.
    pub fn relaxation_time(&self, p: &Particles) -> f64 {
        (0..p.len())
            .filter_map(|i| {
                let r = Fluid::dragged(p, i)?;
                let j = p.inertia[i].min();
                let t = j / (8.0 * PI * self.viscosity * r.powi(3));
                Some(t.min(p.mass[i] / (6.0 * PI * self.viscosity * r)))
            })
            .fold(f64::INFINITY, f64::min)
    }

    /// Adds the drag force and torque of every dragged particle to its force and torque,
    /// and returns their work over the step of `dt` from now, J (see the module docs).
    /// Particles in storage order, one thread: the same sum whatever the threads.
    pub fn apply(&self, p: &mut Particles, dt: f64) -> f64 {
        let mut work = 0.0;
        for i in 0..p.len() {
            let Some(r) = Fluid::dragged(p, i) else {
                continue;
            };
            let mu = self.viscosity;
            let f = (self.velocity_at(&p.pos[i]) - p.vel[i]) * (6.0 * PI * mu * r);
            let t = (self.spin - p.angvel[i]) * (8.0 * PI * mu * r.powi(3));
            p.force[i] += f;
            p.torque[i] += t;
            work += (f.dot(&p.vel[i]) + t.dot(&p.angvel[i])) * dt;
        }
        work
    }
}
