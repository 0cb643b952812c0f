//! Servo control of the periodic cell and the stages of a run (Yade's
//! `PeriTriaxController`, in our words): each stage imposes a velocity gradient `L` on the
//! cell, except on the diagonal components given a target stress, whose strain rate the
//! servo sets after every step from the stress error:
//!
//! `L_kk = clamp(gain (sigma_kk - target_k) / |target_k|, -max_rate, max_rate)`
//!
//! (compression positive: a sample below its target pressure is compressed, `L_kk < 0`).
//! `gain` is a rate, 1/s: the strain rate at 100 % stress error; `max_rate` caps it. A
//! stage ends when all its `until` conditions hold; the next one starts from there, and the
//! run ends after the last one (or at the scene's duration, whichever comes first).
//! Conditions: the unbalanced force (mean net force on the particles over their mean
//! contact force) below a threshold, the targets reached (each controlled component
//! within a relative tolerance), an edge's strain reached (`H_kk / H_kk(stage start) - 1`,
//! engineering strain, negative in compression).
//!
//! The servo acts on the cell's boundaries only (the images of the particles move with
//! the cell; the particles do not move affinely), as walls would: keep `max_rate` small
//! enough that the cell's faces move slower than the packing can follow (a fraction of
//! `d / (H t_c)`, `d` a diameter and `t_c` a contact duration).

use crate::engines::stress::Stress;
use crate::model::cell::{Cell, Stage, Until};
use nalgebra::Matrix3;
use serde::{Deserialize, Serialize};

/// Where the stages stand (saved in checkpoints).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Servo {
    /// The stages.
    pub stages: Vec<Stage>,
    /// Index of the current stage (`stages.len()` once all are done).
    pub stage: usize,
    /// The cell matrix when the current stage started.
    pub start: Matrix3<f64>,
    /// Step at which each finished stage ended.
    pub ended: Vec<u64>,
}

impl Servo {
    /// Checks the stages; the error names the field.
    pub fn new(stages: Vec<Stage>, cell: &Cell) -> Result<Servo, String> {
        for (i, s) in stages.iter().enumerate() {
            let positive = |x: f64| x > 0.0 && x.is_finite();
            if !positive(s.max_rate) || !positive(s.gain) {
                return Err(format!(
                    "cell.stages[{i}]: gain and max_rate must be positive and finite"
                ));
            }
            for (k, t) in s.stress.iter().enumerate() {
                if let Some(t) = t {
                    if !t.is_finite() || *t == 0.0 || !cell.periodic[k] {
                        return Err(format!(
                            "cell.stages[{i}].stress[{k}]: a target must be finite and non-zero, \
                             on a periodic edge"
                        ));
                    }
                }
            }
            for u in &s.until {
                let bad = match *u {
                    Until::Unbalanced(x) | Until::StressReached(x) => !positive(x),
                    Until::Strain(k, x) => k > 2 || !x.is_finite() || x == 0.0,
                };
                if bad {
                    return Err(format!("cell.stages[{i}].until: {u:?} is out of range"));
                }
            }
        }
        Ok(Servo {
            stages,
            stage: 0,
            start: cell.h,
            ended: Vec::new(),
        })
    }

    /// Are all stages done?
    pub fn done(&self) -> bool {
        self.stage >= self.stages.len()
    }

    /// The velocity gradient of the current stage before any servo correction.
    pub fn gradient(&self) -> Option<Matrix3<f64>> {
        let s = self.stages.get(self.stage)?;
        Some(Matrix3::from_fn(|i, j| s.velocity_gradient[i][j]))
    }

    /// After a step: ends the stage if its conditions hold (starting the next), then sets
    /// the cell's gradient for the next step from `stress`.
    pub fn update(&mut self, cell: &mut Cell, stress: &Stress, unbalanced: f64, step: u64) {
        if let Some(s) = self.stages.get(self.stage) {
            let holds =
                |u: &Until| match *u {
                    Until::Unbalanced(x) => unbalanced < x,
                    Until::StressReached(tol) => s.stress.iter().enumerate().all(|(k, t)| {
                        t.is_none_or(|t| ((stress.sigma[(k, k)] - t) / t).abs() <= tol)
                    }),
                    Until::Strain(k, x) => {
                        let k = k as usize;
                        let e = cell.h[(k, k)] / self.start[(k, k)] - 1.0;
                        if x < 0.0 {
                            e <= x
                        } else {
                            e >= x
                        }
                    }
                };
            if !s.until.is_empty() && s.until.iter().all(holds) {
                tracing::info!(
                    "cell stage {} of {} ended at step {step}: edges H_xx, H_yy, H_zz = {:e}, \
                     {:e}, {:e} m, stress s_xx, s_yy, s_zz = {:e}, {:e}, {:e} Pa",
                    self.stage + 1,
                    self.stages.len(),
                    cell.h[(0, 0)],
                    cell.h[(1, 1)],
                    cell.h[(2, 2)],
                    stress.sigma[(0, 0)],
                    stress.sigma[(1, 1)],
                    stress.sigma[(2, 2)]
                );
                self.stage += 1;
                self.start = cell.h;
                self.ended.push(step);
            }
        }
        let Some(s) = self.stages.get(self.stage) else {
            // Done: the cell stops.
            cell.gradient = Matrix3::zeros();
            return;
        };
        let mut l = Matrix3::from_fn(|i, j| s.velocity_gradient[i][j]);
        for (k, t) in s.stress.iter().enumerate() {
            if let Some(t) = t {
                let rate = s.gain * (stress.sigma[(k, k)] - t) / t.abs();
                l[(k, k)] = rate.clamp(-s.max_rate, s.max_rate);
            }
        }
        cell.gradient = l;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::cell::CellSpec;

    fn cube() -> Cell {
        Cell::from_spec(&CellSpec {
            edges: [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
            periodic: "xyz".into(),
            velocity_gradient: [[0.0; 3]; 3],
            stages: Vec::new(),
        })
        .unwrap()
    }

    fn stress(diagonal: [f64; 3]) -> Stress {
        Stress {
            sigma: Matrix3::from_diagonal(&diagonal.into()),
            contact: Matrix3::zeros(),
            volume: 1.0,
            fraction: 0.6,
            coordination: 4.0,
            particles: 1,
        }
    }

    #[test]
    fn the_rate_is_the_gain_times_the_relative_error_capped() {
        let stage = Stage {
            velocity_gradient: [[7.0, 0.5, 0.0], [0.0, 7.0, 0.0], [0.0, 0.0, 0.3]],
            stress: [Some(100.0), Some(-100.0), None],
            gain: 4.0,
            max_rate: 1.0,
            until: Vec::new(),
        };
        let mut cell = cube();
        let mut servo = Servo::new(vec![stage], &cell).unwrap();
        // 5 % above the target in x: expand at 4 x 0.05 = 0.2/s; y far below its
        // (tensile) target: capped; z and the shear as imposed.
        servo.update(&mut cell, &stress([105.0, -300.0, 50.0]), 1.0, 1);
        let want = [[0.2, 0.5, 0.0], [0.0, -1.0, 0.0], [0.0, 0.0, 0.3]];
        for (i, row) in want.iter().enumerate() {
            for (j, w) in row.iter().enumerate() {
                assert!(
                    (cell.gradient[(i, j)] - w).abs() < 1e-15,
                    "{}",
                    cell.gradient
                );
            }
        }
        assert!(!servo.done(), "a stage without conditions lasts");
    }

    #[test]
    fn a_stage_ends_when_all_its_conditions_hold() {
        let first = Stage {
            velocity_gradient: [[0.0; 3]; 3],
            stress: [Some(100.0); 3],
            gain: 1.0,
            max_rate: 1.0,
            until: vec![Until::StressReached(0.01), Until::Unbalanced(0.01)],
        };
        let second = Stage {
            velocity_gradient: [[0.0; 3], [0.0; 3], [0.0, 0.0, -1.0]],
            stress: [None; 3],
            gain: 1.0,
            max_rate: 1.0,
            until: vec![Until::Strain(2, -0.1)],
        };
        let mut cell = cube();
        let mut servo = Servo::new(vec![first, second], &cell).unwrap();
        servo.update(&mut cell, &stress([100.5, 99.5, 100.0]), 0.02, 10);
        assert_eq!(servo.stage, 0, "not at rest yet");
        servo.update(&mut cell, &stress([100.5, 98.0, 100.0]), 0.005, 11);
        assert_eq!(servo.stage, 0, "y 2 % off");
        servo.update(&mut cell, &stress([100.5, 99.5, 100.0]), 0.005, 12);
        assert_eq!((servo.stage, servo.ended.clone()), (1, vec![12]));
        assert_eq!(cell.gradient[(2, 2)], -1.0);
        cell.h[(2, 2)] = 0.91;
        servo.update(&mut cell, &stress([0.0; 3]), 1.0, 13);
        assert_eq!(servo.stage, 1, "9 % strain");
        cell.h[(2, 2)] = 0.899;
        servo.update(&mut cell, &stress([0.0; 3]), 1.0, 14);
        assert!(servo.done());
        assert_eq!(servo.ended, vec![12, 14]);
        assert_eq!(cell.gradient, Matrix3::zeros(), "the cell stops");
    }
}
