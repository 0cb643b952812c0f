//! Conditions ending a run before its `duration` (the scene's `stop`): the run ends after
//! the first step at which all of them hold. They suit boxed samples whose walls are
//! servo-controlled (a periodic cell has its own, per stage: [`crate::engines::servo`]), and end a
//! run with the last of its cell's stages (`Stages`).

use crate::engines::motion::{Motion, Prescribed};
use serde::Deserialize;

/// A condition of the scene's `stop` list.
#[derive(Deserialize, Debug, Clone, Copy, PartialEq)]
pub enum Stop {
    /// The unbalanced force (mean net force on the free particles over their mean contact
    /// force, see [`crate::engines::unbalanced`]) below this.
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
