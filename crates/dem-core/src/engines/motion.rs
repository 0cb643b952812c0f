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
//! boundary work, plus `-f . (v(t - dt/2) - v(t + dt/2)) dt / 2` wherever the velocity
//! changes (at every step of a shake or a rotation), so that the booked work is the
//! leap-frog's own and the ledger does not drift ([`Prescribed::step_velocities`]); after
//! the step the pose is set to its exact value at t + dt, so that round-off does not
//! accumulate.
//!
//! A servo-controlled wall (`Servo`) moves along its normal (towards the side it touches):
//! after the forces of a step are gathered, its velocity for the step is
//! `v = clamp(gain (target - s) / |target|, -max_velocity, max_velocity)`, with `s` the
//! normal stress on it (the contact force pressing it back against its normal over
//! `area`, compression positive); its position is its start plus the displacement summed
//! over the steps, which checkpoints keep. Below the target it advances, above it
//! retreats; its work is booked like any moving boundary's.
//!
//! A motion's parameters can change during a run ([`Prescribed::change`], from Python):
//! the motion is then re-anchored at the time `t0` of the change, its reference poses
//! becoming the group's poses at `t0` and `t` above becoming `t - t0`, so that the pose is
//! continuous at `t0` and the velocity jumps to the new motion's. A shake keeps its phase
//! continuous as well: with phase `p0 = 2 pi f t0` (summed over earlier changes) its
//! displacement from the pose at `t0` is `A (sin(p0 + 2 pi f (t - t0)) - sin p0)`, so that
//! a new frequency goes on from the same point of the cycle; a new amplitude moves the
//! centre of the oscillation by `(A_old - A_new) sin p0` (none at a zero crossing of the
//! phase). A servo has no anchor: its settings change, its displacement goes on.

use crate::model::particles::{Particles, Shape};
use nalgebra::{Unit, UnitQuaternion, Vector3};
use serde::{Deserialize, Serialize};
use std::f64::consts::PI;

/// A prescribed motion, as written in a scene.
#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq)]
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

/// `x` as a message shows it: plainly, or in exponent form when very large or small.
fn num(x: f64) -> String {
    if x == 0.0 || !x.is_finite() || (1e-4..1e15).contains(&x.abs()) {
        format!("{x}")
    } else {
        format!("{x:e}")
    }
}

fn v(a: [f64; 3]) -> Vector3<f64> {
    Vector3::new(a[0], a[1], a[2])
}

impl Motion {
    /// Why the motion is invalid, if it is (the message names the field).
    pub fn check(&self) -> Result<(), String> {
        // Finite, and of a size a scene can hold (see [`crate::model::particles::MAX_COORDINATE`]): a
        // rotation about a centre 1e300 m away moves its boundary at 3e300 m/s.
        use crate::model::particles::MAX_COORDINATE as MAX;
        let vector = |name: &str, a: &[f64; 3], unit: &str| match a.iter().all(|x| x.abs() <= MAX) {
            true => Ok(()),
            false => Err(format!(
                "{}: {name} ({}, {}, {}) must be finite and at most {MAX:e} in size, {unit}",
                self.kind(),
                num(a[0]),
                num(a[1]),
                num(a[2])
            )),
        };
        let scalar = |name: &str, x: f64, ok: bool, what: &str| match x.abs() <= MAX && ok {
            true => Ok(()),
            false => Err(format!(
                "{}: {name} = {} must be {what} (at most {MAX:e} in size)",
                self.kind(),
                num(x)
            )),
        };
        match *self {
            Motion::Translate { velocity } => vector("velocity", &velocity, "m/s"),
            Motion::Rotate {
                center,
                axis,
                omega,
            } => {
                vector("center", &center, "m")?;
                vector("axis", &axis, "and not zero")?;
                if v(axis).norm() == 0.0 {
                    return Err("Rotate: axis (0, 0, 0) must not be zero".into());
                }
                scalar("omega", omega, true, "finite, rad/s")
            }
            Motion::Shake {
                amplitude,
                frequency,
            } => {
                vector("amplitude", &amplitude, "m")?;
                scalar(
                    "frequency",
                    frequency,
                    frequency >= 0.0,
                    "finite and >= 0, Hz",
                )
            }
            Motion::Servo {
                stress,
                area,
                max_velocity,
                gain,
            } => {
                scalar("stress", stress, stress != 0.0, "finite and non-zero, Pa")?;
                scalar("area", area, area > 0.0, "finite and positive, m^2")?;
                scalar(
                    "max_velocity",
                    max_velocity,
                    max_velocity > 0.0,
                    "finite and positive, m/s",
                )?;
                scalar("gain", gain, gain > 0.0, "finite and positive, m/s")
            }
        }
    }

    /// The motion's kind, as written in a scene (`Translate`, `Rotate`, `Shake`, `Servo`).
    pub fn kind(&self) -> &'static str {
        match self {
            Motion::Translate { .. } => "Translate",
            Motion::Rotate { .. } => "Rotate",
            Motion::Shake { .. } => "Shake",
            Motion::Servo { .. } => "Servo",
        }
    }

    /// The point a rotation leaves in place (the rotation centre), if any.
    pub fn center(&self) -> Option<Vector3<f64>> {
        match self {
            Motion::Rotate { center, .. } => Some(v(*center)),
            _ => None,
        }
    }

    /// Rotation and translation at time `s` after the anchor, a shake being at phase
    /// `phase` then (rad; see the module documentation).
    fn pose(&self, s: f64, phase: f64) -> (UnitQuaternion<f64>, Vector3<f64>) {
        match *self {
            Motion::Servo { .. } => (UnitQuaternion::identity(), Vector3::zeros()),
            Motion::Translate { velocity } => (UnitQuaternion::identity(), v(velocity) * s),
            Motion::Rotate { axis, omega, .. } => (
                UnitQuaternion::from_axis_angle(&Unit::new_normalize(v(axis)), omega * s),
                Vector3::zeros(),
            ),
            Motion::Shake {
                amplitude,
                frequency,
            } => {
                // A run never re-anchored has phase 0: `2 pi f s` alone, as before
                // re-anchoring existed (bitwise; `0.0 + x` would turn a -0.0 into +0.0).
                let advance = 2.0 * PI * frequency * s;
                let now = if phase == 0.0 {
                    advance
                } else {
                    phase + advance
                };
                (
                    UnitQuaternion::identity(),
                    v(amplitude) * (now.sin() - phase.sin()),
                )
            }
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
    /// Poses of the members at the anchor (the start, or the last change of the motion).
    ref_pos: Vec<Vector3<f64>>,
    ref_ori: Vec<UnitQuaternion<f64>>,
    /// The last change of the motion (`None`: the motion of the scene, from t = 0).
    anchor: Option<Anchor>,
    /// Changed since the last step: the next step's velocity jumps (see
    /// [`Prescribed::step_velocities`]).
    jumped: bool,
}

/// When a motion's parameters last changed (see [`Prescribed::change`]).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Anchor {
    /// Time of the change, s.
    pub time: f64,
    /// Phase of a shake then, rad in [0, 2 pi) (0 for the other motions).
    pub phase: f64,
}

/// An anchor with the members' positions (m) and orientations then.
type AnchorPoses = (Anchor, Vec<Vector3<f64>>, Vec<UnitQuaternion<f64>>);

/// A moving boundary's motion as saved in checkpoints: its parameters, and where it was
/// re-anchored when they changed during the run (the scene gives the rest).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SavedMotion {
    motion: Motion,
    /// The anchor with the members' poses then.
    anchor: Option<AnchorPoses>,
    /// Changed since the last step.
    jumped: bool,
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
            anchor: None,
            jumped: false,
        }
    }

    /// Time since the anchor at `t`, and the phase of a shake at the anchor.
    fn since_anchor(&self, t: f64) -> (f64, f64) {
        match self.anchor {
            None => (t, 0.0),
            Some(a) => (t - a.time, a.phase),
        }
    }

    /// Rotation and translation of the group at `t` from its reference poses.
    fn pose(&self, t: f64) -> (UnitQuaternion<f64>, Vector3<f64>) {
        let (s, phase) = self.since_anchor(t);
        self.motion.pose(s, phase)
    }

    /// Changes the motion's parameters at time `t` (a time between two steps: the group's
    /// poses are its exact poses at `t`). The new motion must be of the same kind and pass
    /// [`Motion::check`]. Other than a servo's, the motion is re-anchored at `t`: the
    /// group goes on from its pose at `t` (continuous) with the new motion's velocity; a
    /// shake's phase is continuous too (see the module documentation). A servo keeps its
    /// displacement and goes on with the new settings.
    pub fn change(&mut self, motion: Motion, t: f64) -> Result<(), String> {
        if std::mem::discriminant(&motion) != std::mem::discriminant(&self.motion) {
            return Err(format!(
                "a {} cannot become a {}: a motion's kind is the scene's (only its \
                 parameters change)",
                self.motion.kind(),
                motion.kind()
            ));
        }
        motion.check()?;
        if !matches!(motion, Motion::Servo { .. }) {
            let (r, _) = self.pose(t);
            let phase = match self.motion {
                Motion::Shake { frequency, .. } => {
                    let (s, phase) = self.since_anchor(t);
                    (phase + 2.0 * PI * frequency * s).rem_euclid(2.0 * PI)
                }
                _ => 0.0,
            };
            self.ref_pos = (0..self.members.len())
                .map(|k| self.position(k, t))
                .collect();
            for q in &mut self.ref_ori {
                *q = r * *q;
            }
            self.anchor = Some(Anchor { time: t, phase });
            self.jumped = true;
        }
        self.motion = motion;
        Ok(())
    }

    /// The motion and its anchor, for a checkpoint.
    pub fn save(&self) -> SavedMotion {
        SavedMotion {
            motion: self.motion,
            anchor: self
                .anchor
                .map(|a| (a, self.ref_pos.clone(), self.ref_ori.clone())),
            jumped: self.jumped,
        }
    }

    /// Takes the motion and anchor of a checkpoint (this group being built from the same
    /// scene); why it cannot, if it cannot.
    pub fn restore(&mut self, saved: SavedMotion) -> Result<(), String> {
        if std::mem::discriminant(&saved.motion) != std::mem::discriminant(&self.motion) {
            return Err(format!(
                "a {} motion where the scene has a {}",
                saved.motion.kind(),
                self.motion.kind()
            ));
        }
        saved.motion.check()?;
        if let Some((anchor, pos, ori)) = saved.anchor {
            if pos.len() != self.members.len() || ori.len() != self.members.len() {
                return Err(format!(
                    "a motion of {} bodies where the scene moves {}",
                    pos.len(),
                    self.members.len()
                ));
            }
            (self.anchor, self.ref_pos, self.ref_ori) = (Some(anchor), pos, ori);
        }
        self.motion = saved.motion;
        self.jumped = saved.jumped;
        Ok(())
    }

    fn position(&self, k: usize, t: f64) -> Vector3<f64> {
        let (r, d) = self.pose(t);
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

    /// Sets the group's velocities for the step from `t` to `t + dt` in a run (after
    /// [`Prescribed::control`]); returns the boundary work to add to the integrator's (J).
    /// The integrator books `-f . v(t+dt/2) dt` for each step; the work the leap-frog
    /// scheme does through a boundary is `-(f(t) + f(t+dt)) / 2 . v(t+dt/2) dt`, whose sum
    /// over the steps of a constant velocity differs from the booked one by terms at its
    /// ends only, but by `-f . (v(t-dt/2) - v(t+dt/2)) dt / 2` more wherever the velocity
    /// changes: that is returned (translation and rotation). A translation's velocity
    /// changes only when the motion is changed; a shake's, and a rotation's at each
    /// member, at every step (booked only at the changes, their work would be first order
    /// in the time step); a servo's control books its own.
    pub fn step_velocities(&mut self, p: &mut Particles, t: f64, dt: f64) -> f64 {
        let changes = matches!(self.motion, Motion::Shake { .. } | Motion::Rotate { .. });
        if !std::mem::take(&mut self.jumped) && !changes {
            self.set_velocities(p, t, dt);
            return 0.0;
        }
        let before: Vec<_> = self
            .members
            .iter()
            .map(|&i| (p.vel[i], p.angvel[i]))
            .collect();
        self.set_velocities(p, t, dt);
        let jump = |i: usize, (v, w): (Vector3<f64>, Vector3<f64>)| {
            p.force[i].dot(&(v - p.vel[i])) + p.torque[i].dot(&(w - p.angvel[i]))
        };
        let sum: f64 = self
            .members
            .iter()
            .zip(before)
            .map(|(&i, b)| jump(i, b))
            .sum();
        -sum * dt / 2.0
    }

    /// Sets the group's poses to their exact values at `t`.
    pub fn set_poses(&self, p: &mut Particles, t: f64) {
        let (r, _) = self.pose(t);
        for (k, &i) in self.members.iter().enumerate() {
            p.pos[i] = self.position(k, t);
            p.ori[i] = r * self.ref_ori[k];
        }
    }
}

#[cfg(test)]
mod tests;
