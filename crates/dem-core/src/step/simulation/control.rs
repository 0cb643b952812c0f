//! What the step does after the integrator besides output: the servo control of the
//! periodic cell ([`crate::engines::servo`]) and the scene's stop conditions ([`crate::engines::stop`]).

use super::Simulation;
use crate::engines::motion::Motion;
use crate::engines::stop::Stop;
use crate::engines::stress::Stress;

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
        let forces = self.contacts.live_forces().map(|(_, f)| f.force.norm());
        let unbalanced =
            crate::engines::servo::unbalanced(&self.particles, self.particles.len(), forces);
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
    /// Do all the scene's conditions hold after the last step (false without conditions)?
    pub(crate) fn stops_reached(&self) -> bool {
        let sim = self;
        let stops = &sim.scene.stop;
        !stops.is_empty()
            && stops.iter().all(|s| match *s {
                Stop::Unbalanced(x) => {
                    let forces = sim.contacts.live_forces().map(|(_, f)| f.force.norm());
                    let p = &sim.particles;
                    crate::engines::servo::unbalanced(p, p.len(), forces) < x
                }
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
