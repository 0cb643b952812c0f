//! Prescribed motion of boundaries (walls and meshes): constant velocity, rotation about an
//! axis at a constant rate (a rotating drum), a sinusoidal shake, and a wall's servo
//! control to a target normal stress.
//!
//! A moving boundary is a group of particles (one wall, or every facet of a mesh) moved
//! rigidly: a particle with reference position `x0` and orientation `q0` is at
//! `c + R(t) (x0 - c) + d(t)` with orientation `R(t) q0`, where `R(t)` is the rotation by
//! `omega t` about the axis through `c`, and `d(t)` the translation (`v t`, or
//! `A sin(2 pi f t)`).
//!
//! Before the leap-frog step from t to t + dt the group gets the mid-step velocity
//! `(x(t + dt) - x(t)) / dt` and the angular velocity `omega`, so the integrator moves it
//! and books the work of the contact forces on it (`-f . v dt - torque . omega dt`) as
//! boundary work; after the step the pose is set to its exact value at t + dt, so that
//! round-off does not accumulate.
//!
//! A servo-controlled wall (`Servo`) moves along its normal (towards the side it touches):
//! after the forces of a step are gathered, its velocity for the step is
//! `v = clamp(gain (target - s) / |target|, -max_velocity, max_velocity)`, with `s` the
//! normal stress on it (the contact force pressing it back against its normal over
//! `area`, compression positive); its position is its start plus the displacement summed
//! over the steps, which checkpoints keep. Below the target it advances, above it
//! retreats; its work is booked like any moving boundary's.

use crate::particles::{Particles, Shape};
use nalgebra::{Unit, UnitQuaternion, Vector3};
use serde::{Deserialize, Serialize};
use std::f64::consts::PI;

/// A prescribed motion, as written in a scene.
#[derive(Deserialize, Debug, Clone, Copy, PartialEq)]
#[serde(deny_unknown_fields)]
pub enum Motion {
    /// Constant velocity, m/s.
    Translate {
        /// m/s.
        velocity: [f64; 3],
    },
    /// Rotation at a constant rate about an axis.
    Rotate {
        /// A point of the axis, m.
        center: [f64; 3],
        /// Direction of the axis (normalised on load).
        axis: [f64; 3],
        /// Angular velocity about the axis (right hand), rad/s.
        omega: f64,
    },
    /// Sinusoidal shake `amplitude sin(2 pi frequency t)`.
    Shake {
        /// Displacement amplitude, m.
        amplitude: [f64; 3],
        /// Hz.
        frequency: f64,
    },
    /// A wall held at a normal stress (see the module documentation).
    Servo {
        /// Target normal stress on the wall, Pa (compression positive).
        stress: f64,
        /// Area the stress is taken over (the wall is an infinite plane), m^2.
        area: f64,
        /// Largest speed of the wall, m/s.
        max_velocity: f64,
        /// Speed at 100 % stress error, m/s.
        gain: f64,
    },
}

fn v(a: [f64; 3]) -> Vector3<f64> {
    Vector3::new(a[0], a[1], a[2])
}

impl Motion {
    /// Why the motion is invalid, if it is.
    pub fn check(&self) -> Result<(), String> {
        let finite = |a: &[f64]| a.iter().all(|x| x.is_finite());
        match self {
            Motion::Translate { velocity } if !finite(velocity) => {
                Err("Translate: velocity must be finite".into())
            }
            Motion::Rotate {
                center,
                axis,
                omega,
            } if !(finite(center)
                && finite(axis)
                && omega.is_finite()
                && v(*axis).norm() > 0.0) =>
            {
                Err("Rotate: center, axis and omega must be finite, the axis non-zero".into())
            }
            Motion::Shake {
                amplitude,
                frequency,
            } if !(finite(amplitude) && frequency.is_finite() && *frequency >= 0.0) => {
                Err("Shake: amplitude must be finite, frequency finite and >= 0".into())
            }
            Motion::Servo {
                stress,
                area,
                max_velocity,
                gain,
            } if !(stress.is_finite()
                && *stress != 0.0
                && [area, max_velocity, gain]
                    .iter()
                    .all(|x| x.is_finite() && **x > 0.0)) =>
            {
                Err(
                    "Servo: stress must be finite and non-zero, area, max_velocity and gain \
                     finite and positive"
                        .into(),
                )
            }
            _ => Ok(()),
        }
    }

    /// The point a rotation leaves in place (the rotation centre), if any.
    pub fn center(&self) -> Option<Vector3<f64>> {
        match self {
            Motion::Rotate { center, .. } => Some(v(*center)),
            _ => None,
        }
    }

    /// Rotation and translation at time `t` (none for a servo: its state moves it).
    fn pose(&self, t: f64) -> (UnitQuaternion<f64>, Vector3<f64>) {
        match *self {
            Motion::Servo { .. } => (UnitQuaternion::identity(), Vector3::zeros()),
            Motion::Translate { velocity } => (UnitQuaternion::identity(), v(velocity) * t),
            Motion::Rotate { axis, omega, .. } => (
                UnitQuaternion::from_axis_angle(&Unit::new_normalize(v(axis)), omega * t),
                Vector3::zeros(),
            ),
            Motion::Shake {
                amplitude,
                frequency,
            } => (
                UnitQuaternion::identity(),
                v(amplitude) * (2.0 * PI * frequency * t).sin(),
            ),
        }
    }

    fn angular_velocity(&self) -> Vector3<f64> {
        match *self {
            Motion::Rotate { axis, omega, .. } => v(axis).normalize() * omega,
            _ => Vector3::zeros(),
        }
    }
}

/// Where a servo-controlled wall stands (saved in checkpoints).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ServoState {
    /// Displacement along the wall's normal since the start, m.
    pub displacement: f64,
    /// Speed along the normal over the last step, m/s.
    pub velocity: f64,
    /// Normal stress on the wall at the last step, Pa.
    pub stress: f64,
}

/// A group of particles moved rigidly by one motion.
#[derive(Clone, Debug)]
pub struct Prescribed {
    /// The motion.
    pub motion: Motion,
    /// Particle ids of the group.
    pub members: Vec<usize>,
    /// The state of a servo-controlled wall.
    pub servo: ServoState,
    /// Direction a servo-controlled wall advances along (its normal, towards the side it
    /// touches).
    direction: Vector3<f64>,
    ref_pos: Vec<Vector3<f64>>,
    ref_ori: Vec<UnitQuaternion<f64>>,
}

impl Prescribed {
    /// Renames the members after storage was compacted (`old_to_new[i]`: the new index
    /// of the particle at `i`; members are never removed).
    pub fn renumber(&mut self, old_to_new: &[u32]) {
        for i in &mut self.members {
            *i = old_to_new[*i] as usize;
        }
    }

    /// A group whose current poses are its poses at t = 0.
    pub fn new(motion: Motion, members: Vec<usize>, p: &Particles) -> Prescribed {
        let direction = match members.first().map(|&i| (&p.shape[i], p.ori[i])) {
            Some((Shape::Wall(w), ori)) => {
                let n = ori * Vector3::new(w.normal.x, w.normal.y, w.normal.z);
                if w.sense < 0 {
                    -n
                } else {
                    n
                }
            }
            _ => Vector3::zeros(),
        };
        Prescribed {
            motion,
            servo: ServoState::default(),
            direction,
            ref_pos: members.iter().map(|&i| p.pos[i]).collect(),
            ref_ori: members.iter().map(|&i| p.ori[i]).collect(),
            members,
        }
    }

    fn position(&self, k: usize, t: f64) -> Vector3<f64> {
        let (r, d) = self.motion.pose(t);
        match (self.motion, self.motion.center()) {
            (Motion::Servo { .. }, _) => self.ref_pos[k] + self.direction * self.servo.displacement,
            (_, Some(c)) => c + r * (self.ref_pos[k] - c) + d,
            (_, None) => self.ref_pos[k] + d,
        }
    }

    /// A servo-controlled wall's control after the forces of a step are gathered (in
    /// `p.force`): its speed for the step and its displacement at the step's end. Returns
    /// the boundary work to add to the integrator's (J; zero for the other motions): the
    /// integrator books the force at t times the speed over the step after t,
    /// `-f . v(t+dt/2) dt`, which for a speed that changes from step to step errs at first
    /// order in dt; the correction makes it `-f . (v(t-dt/2) + v(t+dt/2)) dt / 2`, second
    /// order, as the periodic cell's work.
    pub fn control(&mut self, p: &Particles, dt: f64) -> f64 {
        let Motion::Servo {
            stress,
            area,
            max_velocity,
            gain,
        } = self.motion
        else {
            return 0.0;
        };
        let force: Vector3<f64> = self.members.iter().map(|&i| p.force[i]).sum();
        let along = force.dot(&self.direction);
        let s = &mut self.servo;
        let before = s.velocity;
        s.stress = -along / area;
        s.velocity = (gain * (stress - s.stress) / stress.abs()).clamp(-max_velocity, max_velocity);
        s.displacement += s.velocity * dt;
        -along * (before - s.velocity) * dt / 2.0
    }

    /// Sets the group's velocities for the step from `t` to `t + dt` (mid-step values).
    pub fn set_velocities(&self, p: &mut Particles, t: f64, dt: f64) {
        let w = self.motion.angular_velocity();
        for (k, &i) in self.members.iter().enumerate() {
            p.vel[i] = match self.motion {
                Motion::Translate { velocity } => v(velocity),
                Motion::Servo { .. } => self.direction * self.servo.velocity,
                _ => (self.position(k, t + dt) - self.position(k, t)) / dt,
            };
            p.angvel[i] = w;
        }
    }

    /// Sets the group's poses to their exact values at `t`.
    pub fn set_poses(&self, p: &mut Particles, t: f64) {
        let (r, _) = self.motion.pose(t);
        for (k, &i) in self.members.iter().enumerate() {
            p.pos[i] = self.position(k, t);
            p.ori[i] = r * self.ref_ori[k];
        }
    }
}
