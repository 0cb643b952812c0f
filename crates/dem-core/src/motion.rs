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

use crate::particles::{Particles, Shape};
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

fn v(a: [f64; 3]) -> Vector3<f64> {
    Vector3::new(a[0], a[1], a[2])
}

impl Motion {
    /// Why the motion is invalid, if it is (the message names the field).
    pub fn check(&self) -> Result<(), String> {
        let vector = |name: &str, a: &[f64; 3], unit: &str| match a.iter().all(|x| x.is_finite()) {
            true => Ok(()),
            false => Err(format!(
                "{}: {name} ({}, {}, {}) must be finite, {unit}",
                self.kind(),
                a[0],
                a[1],
                a[2]
            )),
        };
        let scalar = |name: &str, x: f64, ok: bool, what: &str| match x.is_finite() && ok {
            true => Ok(()),
            false => Err(format!("{}: {name} = {x} must be {what}", self.kind())),
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
    /// [`Prescribed::control`]); returns the boundary work to add to the integrator's (J):
    /// zero, except at the first step after a change of the motion. The integrator books
    /// `-f . v(t+dt/2) dt` for each step; the work the leap-frog scheme does through a
    /// boundary is `-(f(t) + f(t+dt)) / 2 . v(t+dt/2) dt`, whose sum over the steps of a
    /// constant velocity differs from the booked one by terms at its ends only, but by
    /// `-f . (v(t-dt/2) - v(t+dt/2)) dt / 2` more at a jump of the velocity: that is
    /// returned, as a servo's control books it at every step (translation and rotation).
    pub fn step_velocities(&mut self, p: &mut Particles, t: f64, dt: f64) -> f64 {
        if !std::mem::take(&mut self.jumped) {
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
mod tests {
    use super::*;
    use dem_api::SphereShape;

    /// Two spheres at `a` and `b` (only the columns a motion reads and writes).
    fn two(a: [f64; 3], b: [f64; 3]) -> Particles {
        let mut p = Particles::default();
        for x in [a, b] {
            p.pos.push(v(x));
            p.ori.push(UnitQuaternion::identity());
            p.vel.push(Vector3::zeros());
            p.angvel.push(Vector3::zeros());
            p.force.push(Vector3::zeros());
            p.torque.push(Vector3::zeros());
            p.shape.push(Shape::Sphere(SphereShape { radius: 0.1 }));
        }
        p
    }

    /// Steps the group from step `from` to step `to` of `dt` as a run does (poses set
    /// exactly after each step).
    fn advance(g: &Prescribed, p: &mut Particles, from: u64, to: u64, dt: f64) {
        for step in from..to {
            g.set_velocities(p, step as f64 * dt, dt);
            g.set_poses(p, (step + 1) as f64 * dt);
        }
    }

    const DT: f64 = 1e-3;

    #[test]
    fn a_translation_goes_on_from_its_pose_with_the_new_velocity() {
        let mut p = two([1.0, 2.0, 3.0], [-1.0, 0.0, 0.5]);
        let start = p.pos.clone();
        let (v1, v2) = ([0.0, 0.0, 0.5], [0.2, -0.1, 0.0]);
        let mut g = Prescribed::new(Motion::Translate { velocity: v1 }, vec![0, 1], &p);
        advance(&g, &mut p, 0, 400, DT);
        let t0 = 400.0 * DT;
        let at_change = p.pos.clone();
        g.change(Motion::Translate { velocity: v2 }, t0).unwrap();
        g.set_poses(&mut p, t0);
        assert_eq!(p.pos, at_change, "the pose is continuous at the change");
        advance(&g, &mut p, 400, 1000, DT);
        assert_eq!(p.vel[0], v(v2), "the velocity jumps to the new one");
        for (x, x0) in p.pos.iter().zip(&start) {
            // x0 + v1 t0 + v2 (t - t0), closed form.
            let want = x0 + v(v1) * t0 + v(v2) * (1000.0 * DT - t0);
            assert!((x - want).norm() < 1e-14, "{}", x - want);
        }
    }

    #[test]
    fn a_rotation_goes_on_about_its_new_axis_from_its_pose() {
        let mut p = two([1.0, 0.0, 0.0], [0.0, 2.0, 0.5]);
        let start = p.pos.clone();
        let rotate = |omega: f64, axis: [f64; 3]| Motion::Rotate {
            center: [0.0; 3],
            axis,
            omega,
        };
        let mut g = Prescribed::new(rotate(2.0, [0.0, 0.0, 1.0]), vec![0, 1], &p);
        advance(&g, &mut p, 0, 300, DT);
        let at_change = p.pos.clone();
        g.change(rotate(-5.0, [1.0, 0.0, 0.0]), 300.0 * DT).unwrap();
        advance(&g, &mut p, 300, 800, DT);
        // 0.6 rad about z, then -2.5 rad about x: rotations composed by hand.
        let rz = |a: f64, x: Vector3<f64>| {
            Vector3::new(
                a.cos() * x.x - a.sin() * x.y,
                a.sin() * x.x + a.cos() * x.y,
                x.z,
            )
        };
        let rx = |a: f64, x: Vector3<f64>| {
            Vector3::new(
                x.x,
                a.cos() * x.y - a.sin() * x.z,
                a.sin() * x.y + a.cos() * x.z,
            )
        };
        for k in 0..2 {
            assert!((at_change[k] - rz(0.6, start[k])).norm() < 1e-14);
            let want = rx(-2.5, rz(0.6, start[k]));
            assert!((p.pos[k] - want).norm() < 1e-13, "{k}: {}", p.pos[k] - want);
            // The orientation turned with it.
            assert!((p.ori[k] * (start[1] - start[0]) - (p.pos[1] - p.pos[0])).norm() < 1e-13);
        }
        assert_eq!(p.angvel[0], Vector3::new(-5.0, 0.0, 0.0));
    }

    #[test]
    fn a_shake_keeps_its_phase_and_its_pose_through_a_change() {
        let mut p = two([0.0, 0.0, 1.0], [0.3, 0.0, 1.0]);
        let start = p.pos.clone();
        let shake = |a: f64, f: f64| Motion::Shake {
            amplitude: [0.0, 0.0, a],
            frequency: f,
        };
        let (a1, f1, a2, f2) = (0.01, 25.0, 0.004, 40.0);
        let mut g = Prescribed::new(shake(a1, f1), vec![0, 1], &p);
        advance(&g, &mut p, 0, 130, DT);
        let t0 = 130.0 * DT;
        let before = p.pos[0];
        // A new frequency: the same oscillation about the same centre, at the new pace.
        g.change(shake(a1, f2), t0).unwrap();
        g.set_poses(&mut p, t0);
        assert!((p.pos[0] - before).norm() < 1e-17);
        advance(&g, &mut p, 130, 200, DT);
        let p0 = 2.0 * PI * f1 * t0;
        let phase = |t: f64| p0 + 2.0 * PI * f2 * (t - t0);
        let want = start[0].z + a1 * phase(0.2).sin();
        assert!((p.pos[0].z - want).abs() < 1e-14, "{}", p.pos[0].z - want);
        // A new amplitude: the pose is continuous, the centre moves by (a1 - a2) sin p1.
        let t1 = 0.2;
        g.change(shake(a2, f2), t1).unwrap();
        advance(&g, &mut p, 200, 260, DT);
        let p1 = phase(t1);
        let centre = start[1].z + (a1 - a2) * p1.sin();
        let want = centre + a2 * (p1 + 2.0 * PI * f2 * (0.26 - t1)).sin();
        assert!((p.pos[1].z - want).abs() < 1e-14, "{}", p.pos[1].z - want);
    }

    #[test]
    fn the_step_after_a_change_books_the_jump_of_the_velocity() {
        let mut p = two([0.0; 3], [1.0; 3]);
        let mut g = Prescribed::new(
            Motion::Rotate {
                center: [0.0; 3],
                axis: [0.0, 0.0, 1.0],
                omega: 2.0,
            },
            vec![1],
            &p,
        );
        g.set_velocities(&mut p, -DT, DT);
        assert_eq!(
            g.step_velocities(&mut p, 0.0, DT),
            0.0,
            "no change, no term"
        );
        g.set_poses(&mut p, DT);
        let (v_before, w_before) = (p.vel[1], p.angvel[1]);
        let (f, torque) = (Vector3::new(0.5, -2.0, 3.0), Vector3::new(0.1, 0.2, -0.7));
        (p.force[1], p.torque[1]) = (f, torque);
        let new = Motion::Rotate {
            center: [0.0; 3],
            axis: [0.0, 0.0, 1.0],
            omega: -1.0,
        };
        g.change(new, DT).unwrap();
        let work = g.step_velocities(&mut p, DT, DT);
        // -(f . dv + torque . dw) dt / 2, with the velocities before and after.
        let want =
            -(f.dot(&(v_before - p.vel[1])) + torque.dot(&(w_before - p.angvel[1]))) * DT / 2.0;
        assert_eq!(p.angvel[1], Vector3::new(0.0, 0.0, -1.0));
        assert!(
            want.abs() > 1e-4 * DT && (work - want).abs() < 1e-18,
            "{work} {want}"
        );
        g.set_poses(&mut p, 2.0 * DT);
        assert_eq!(g.step_velocities(&mut p, 2.0 * DT, DT), 0.0, "once only");
    }

    #[test]
    fn a_change_is_checked_and_keeps_the_kind() {
        let p = two([0.0; 3], [1.0; 3]);
        let mut g = Prescribed::new(Motion::Translate { velocity: [0.0; 3] }, vec![0], &p);
        let e = g
            .change(
                Motion::Translate {
                    velocity: [0.0, f64::NAN, 0.0],
                },
                0.1,
            )
            .unwrap_err();
        assert_eq!(e, "Translate: velocity (0, NaN, 0) must be finite, m/s");
        let e = g
            .change(
                Motion::Shake {
                    amplitude: [0.0; 3],
                    frequency: 1.0,
                },
                0.1,
            )
            .unwrap_err();
        assert!(e.contains("a Translate cannot become a Shake"), "{e}");
        assert_eq!(g.anchor, None, "a refused change changes nothing");
    }

    #[test]
    fn a_restored_motion_goes_on_bitwise() {
        let mut p = two([1.0, 0.0, 0.0], [0.0, 2.0, 0.5]);
        let scene = Motion::Rotate {
            center: [0.1, 0.0, 0.0],
            axis: [0.0, 1.0, 1.0],
            omega: 3.0,
        };
        let fresh = Prescribed::new(scene, vec![0, 1], &p);
        let mut g = fresh.clone();
        advance(&g, &mut p, 0, 77, DT);
        let changed = Motion::Rotate {
            center: [0.0, 0.5, 0.0],
            axis: [1.0, 0.0, 0.0],
            omega: -1.0,
        };
        g.change(changed, 77.0 * DT).unwrap();
        let mut q = p.clone();
        // A group rebuilt from the scene takes the saved motion.
        let mut restored = fresh;
        restored.restore(g.save()).unwrap();
        advance(&g, &mut p, 77, 150, DT);
        advance(&restored, &mut q, 77, 150, DT);
        assert_eq!(p.pos, q.pos);
        assert_eq!(p.ori, q.ori);
        assert_eq!(p.vel, q.vel);
    }
}
