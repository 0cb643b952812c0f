//! Conditions ending a run before its `duration` (the scene's `stop`): the run ends after
//! the first step at which all of them hold. They suit boxed samples whose walls are
//! servo-controlled (a periodic cell has its own, per stage: [`crate::servo`]), and end a
//! run with the last of its cell's stages (`Stages`).

use crate::motion::{Motion, Prescribed};
use crate::simulation::Simulation;
use serde::Deserialize;

/// A condition of the scene's `stop` list.
#[derive(Deserialize, Debug, Clone, Copy, PartialEq)]
pub enum Stop {
    /// The unbalanced force (mean net force on the free particles over their mean contact
    /// force, see [`crate::servo::unbalanced`]) below this.
    Unbalanced(f64),
    /// Every `Servo` wall's normal stress within this fraction of its target.
    WallStress(f64),
    /// The periodic cell's stages are all done (the last one's conditions held).
    Stages,
}

/// Checks the scene's conditions; the error names the field.
pub fn check(stops: &[Stop], motions: &[Prescribed], stages: bool) -> Result<(), String> {
    for (k, s) in stops.iter().enumerate() {
        let x = match *s {
            Stop::Unbalanced(x) | Stop::WallStress(x) => x,
            Stop::Stages if stages => continue,
            Stop::Stages => {
                return Err(format!(
                    "stop[{k}]: Stages, but the scene has no periodic cell with stages"
                ))
            }
        };
        if !(x > 0.0 && x.is_finite()) {
            return Err(format!("stop[{k}]: {s:?} needs a positive, finite value"));
        }
        let servos = motions
            .iter()
            .any(|g| matches!(g.motion, Motion::Servo { .. }));
        if matches!(s, Stop::WallStress(_)) && !servos {
            return Err(format!(
                "stop[{k}]: WallStress, but no wall has a Servo motion"
            ));
        }
    }
    Ok(())
}

/// Do all the scene's conditions hold after the last step (false without conditions)?
pub fn reached(sim: &Simulation) -> bool {
    let stops = &sim.scene.stop;
    !stops.is_empty()
        && stops.iter().all(|s| match *s {
            Stop::Unbalanced(x) => {
                let forces = sim.contacts.live_forces().map(|(_, f)| f.force.norm());
                let p = &sim.particles;
                crate::servo::unbalanced(p, p.len(), forces) < x
            }
            Stop::WallStress(tol) => sim.motions.iter().all(|g| match g.motion {
                Motion::Servo { stress, .. } => ((g.servo.stress - stress) / stress).abs() <= tol,
                _ => true,
            }),
            Stop::Stages => sim
                .periodic
                .as_ref()
                .and_then(|p| p.servo.as_ref())
                .is_some_and(|s| s.done()),
        })
}
