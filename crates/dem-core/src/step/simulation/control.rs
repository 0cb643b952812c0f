//! What the step does after the integrator besides output: the servo control of the
//! periodic cell ([`crate::engines::servo`]) and the scene's stop conditions ([`crate::engines::stop`]).

use super::Simulation;
use crate::engines::motion::Motion;
use crate::engines::stop::Stop;
use crate::engines::stress::Stress;
use crate::engines::unbalanced;

impl Simulation {
    /// The servo control of the periodic cell after a step (see [`crate::engines::servo`]); the run
    /// ends with its last stage.
    pub(crate) fn control_cell(&mut self) {
        let Some(servo) = self.periodic.as_ref().and_then(|per| per.servo.as_ref()) else {
            return;
        };
        if servo.done() {
            return;
        }
        let Some(stress) = Stress::of(self, None) else {
            return;
        };
        let unbalanced = self.unbalanced_force();
        let step = self.step;
        let Some(per) = self.periodic.as_mut() else {
            return;
        };
        let Some(servo) = per.servo.as_mut() else {
            return;
        };
        servo.update(&mut per.cell, &stress, unbalanced, step);
        if servo.done() {
            self.end_step = self.end_step.min(self.step);
        }
    }
}

impl Simulation {
    /// The unbalanced force after the last step (see [`crate::engines::unbalanced`]);
    /// among ranks every rank calls it at the same step, and all find the same value.
    pub fn unbalanced_force(&self) -> f64 {
        let p = &self.particles;
        let mine = match &self.ranks {
            Some(r) => r.chunks(),
            None => 0..p.len().div_ceil(crate::engines::integrator::CHUNK),
        };
        let mut sums = unbalanced::chunk_sums(p, &self.contacts, mine);
        if let Some(r) = &self.ranks {
            r.share_chunks(&mut sums);
        }
        unbalanced::ratio(&sums)
    }

    /// Do all the scene's conditions hold after the last step (false without conditions)?
    pub(crate) fn stops_reached(&self) -> bool {
        let sim = self;
        let stops = &sim.scene.stop;
        // Computed before the conditions are tested (not only when the ones before it
        // hold): among ranks it is an exchange, which every rank takes part in.
        let unbalanced = stops
            .iter()
            .any(|s| matches!(s, Stop::Unbalanced(_)))
            .then(|| sim.unbalanced_force());
        !stops.is_empty()
            && stops.iter().all(|s| match *s {
                Stop::Unbalanced(x) => unbalanced.is_some_and(|u| u < x),
                Stop::WallStress(tol) => sim.motions.iter().all(|g| match g.motion {
                    Motion::Servo { stress, .. } => {
                        ((g.servo.stress - stress) / stress).abs() <= tol
                    }
                    _ => true,
                }),
                Stop::Stages => sim
                    .periodic
                    .as_ref()
                    .and_then(|p| p.servo.as_ref())
                    .is_some_and(|s| s.done()),
            })
    }
}
