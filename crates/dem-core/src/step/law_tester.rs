//! The law tester: one contact between two spheres driven through a prescribed relative
//! motion (approach, slide, twist, roll, hold), recording what the law returns at every
//! step, so a law is checked without writing a scene (Woo's LawTester idea).
//!
//! Sphere 1 sits at the origin; sphere 2 starts touching it on the +x axis and is moved on
//! a circle around sphere 1 in the xy plane (centre distance `d`, angle `theta`), so that
//! sliding and rolling keep the overlap unchanged. After every step the tester puts both
//! spheres back on their prescribed path (the contact force moves neither), while the law
//! sees their true masses. The contact goes through the same geometry functor, L6Geom
//! update and law call as in a scene.
//!
//! Test files are RON:
//!
//! ```ron
//! LawTest(
//!     law: "Law2_L6Geom_HertzMindlin",
//!     params: (restitution: 0.5),
//!     materials: [(density: 2800, young: 4.8e10, poisson: 0.2, friction: 0.3)],
//!     radii: (0.01, 0.01),
//!     dt: 1e-7,
//!     stages: [
//!         Approach(distance: 1e-5, speed: 0.01),
//!         Slide(distance: 5e-6, speed: 0.01),
//!         Twist(angle: 0.01, rate: 10),
//!         Roll(angle: 0.01, rate: 10),
//!         Hold(time: 1e-5),
//!         Approach(distance: -2e-5, speed: 0.01),
//!     ],
//! )
//! ```

use crate::scene::{parse_ron, MaterialSpec, Scene};
use crate::setup::plugins::PluginSet;
use crate::step::simulation::Simulation;
use crate::support::error::DemError;
use nalgebra::{UnitQuaternion, Vector3};
use ron::value::RawValue;
use serde::Deserialize;
use std::path::{Path, PathBuf};

/// One stage of prescribed relative motion of sphere 2.
#[derive(Deserialize, Debug, Clone, Copy, PartialEq)]
#[serde(deny_unknown_fields)]
pub enum Stage {
    /// Move the centres `distance` closer (m; negative: apart) at `speed` (m/s).
    Approach {
        /// m.
        distance: f64,
        /// m/s, > 0.
        speed: f64,
    },
    /// Slide sphere 2 (without spin) tangentially by `distance` (m) at `speed` (m/s).
    Slide {
        /// m.
        distance: f64,
        /// m/s, > 0.
        speed: f64,
    },
    /// Spin sphere 2 about the contact normal by `angle` (rad) at `rate` (rad/s).
    Twist {
        /// rad.
        angle: f64,
        /// rad/s, > 0.
        rate: f64,
    },
    /// Roll sphere 2 over sphere 1 without slip by `angle` (rad) at `rate` (rad/s).
    Roll {
        /// rad.
        angle: f64,
        /// rad/s, > 0.
        rate: f64,
    },
    /// Keep still for `time` (s).
    Hold {
        /// s.
        time: f64,
    },
}

/// A law test as written in a test file.
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct LawTest {
    /// Extra plugin libraries to load, relative to the test file.
    #[serde(default)]
    pub plugins: Vec<String>,
    /// Law name.
    pub law: String,
    /// Law parameters, passed verbatim to the plugin.
    #[serde(default)]
    pub params: Option<Box<RawValue>>,
    /// Materials of sphere 1 and sphere 2; one entry: both the same.
    pub materials: Vec<MaterialSpec>,
    /// Radii of sphere 1 and sphere 2, m.
    pub radii: (f64, f64),
    /// Time step, s.
    pub dt: f64,
    /// The motion, in order.
    pub stages: Vec<Stage>,
    /// Where the test came from (set on load).
    #[serde(skip)]
    pub origin: PathBuf,
}

/// What the law returned at one step (local contact frame: x along the normal).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Record {
    /// Time, s.
    pub time: f64,
    /// Index of the stage.
    pub stage: usize,
    /// Is there a contact?
    pub contact: bool,
    /// Generalized displacement `u` (x: gap), m.
    pub u: [f64; 3],
    /// Relative rotation `phi`, rad.
    pub phi: [f64; 3],
    /// Force on sphere 2, N.
    pub force: [f64; 3],
    /// Torque on sphere 2, N m.
    pub torque: [f64; 3],
    /// Elastic energy stored, J.
    pub elastic: f64,
    /// Friction dissipated since the start, J.
    pub friction: f64,
    /// Damping dissipated since the start, J.
    pub damping: f64,
}

impl Record {
    /// Column names of [`Record::csv_row`].
    pub const CSV_HEADER: &'static str = "time,stage,contact,u_n,u_t1,u_t2,phi_n,phi_t1,phi_t2,\
        f_n,f_t1,f_t2,m_n,m_t1,m_t2,elastic,friction,damping";

    /// The record as one CSV row.
    pub fn csv_row(&self) -> String {
        let mut cols = vec![
            format!("{:e}", self.time),
            self.stage.to_string(),
            u8::from(self.contact).to_string(),
        ];
        for v in [self.u, self.phi, self.force, self.torque] {
            cols.extend(v.iter().map(|x| format!("{x:e}")));
        }
        for x in [self.elastic, self.friction, self.damping] {
            cols.push(format!("{x:e}"));
        }
        cols.join(",")
    }
}

impl LawTest {
    /// Parses a test file's text; errors name `origin`, line and column.
    pub fn parse(text: &str, origin: &Path) -> Result<LawTest, DemError> {
        let mut t: LawTest = parse_ron(text, origin)?;
        t.origin = origin.to_path_buf();
        Ok(t)
    }

    /// Reads and parses a test file.
    pub fn load(path: &Path) -> Result<LawTest, DemError> {
        let text = std::fs::read_to_string(path).map_err(|source| DemError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        LawTest::parse(&text, path)
    }

    fn error(&self, msg: impl std::fmt::Display) -> DemError {
        DemError::Scene(format!("{}: {msg}", self.origin.display()))
    }

    /// The two-sphere scene this test runs.
    fn scene(&self) -> Result<Scene, DemError> {
        let (r1, r2) = self.radii;
        if !(r1 > 0.0 && r1.is_finite() && r2 > 0.0 && r2.is_finite()) {
            return Err(self.error(format!("radii must be positive, got ({r1}, {r2})")));
        }
        if !(self.dt > 0.0 && self.dt.is_finite()) {
            return Err(self.error(format!("dt must be positive, got {}", self.dt)));
        }
        let m = match self.materials.as_slice() {
            [a] => [*a, *a],
            [a, b] => [*a, *b],
            _ => return Err(self.error("materials: give one or two materials")),
        };
        let material = |s: &MaterialSpec| {
            format!(
                "(density: {:e}, young: {:e}, poisson: {:e}, friction: {:e})",
                s.density,
                s.young(),
                s.poisson,
                s.friction
            )
        };
        let params = self.params.as_ref().map_or("()", |p| p.get_ron());
        let text = format!(
            r#"Scene(
    materials: {{ "m1": {m1}, "m2": {m2} }},
    laws: [(materials: ("*", "*"), law: "{law}", params: {params})],
    bodies: [
        Sphere(center: (0, 0, 0), radius: {r1:e}, material: "m1"),
        Sphere(center: ({d:e}, 0, 0), radius: {r2:e}, material: "m2"),
    ],
    timestep: Fixed({dt:e}),
    duration: Steps(1),
)"#,
            m1 = material(&m[0]),
            m2 = material(&m[1]),
            law = self.law,
            d = r1 + r2,
            dt = self.dt,
        );
        Scene::parse(&text, &self.origin)
    }

    /// Runs the test with these plugins; one record per step.
    pub fn run(&self, plugins: &PluginSet) -> Result<Vec<Record>, DemError> {
        let mut sim = Simulation::new(self.scene()?, plugins)?;
        // The test sets the velocities: the ledger is not conserved.
        sim.energy_guard = false;
        let dt = self.dt;
        let r2 = self.radii.1;
        let (mut d, mut theta) = (self.radii.0 + r2, 0.0f64);
        let (mut friction, mut damping) = (0.0, 0.0);
        let mut records = Vec::new();
        for (k, stage) in self.stages.iter().enumerate() {
            // Steps of the stage and, per step: change of d and theta, spin (normal, z).
            let (amount, rate) = match *stage {
                Stage::Approach { distance, speed } | Stage::Slide { distance, speed } => {
                    (distance, speed)
                }
                Stage::Twist { angle, rate } | Stage::Roll { angle, rate } => (angle, rate),
                Stage::Hold { time } => (time, 1.0),
            };
            if !(rate > 0.0 && rate.is_finite() && amount.is_finite()) {
                return Err(self.error(format!(
                    "stage {k}: the speed or rate must be positive, the amount finite ({stage:?})"
                )));
            }
            // Round-off must not add a step: 1e-4 / 0.1 / 1e-6 is 1000.0000000000001.
            let steps = (amount.abs() / rate / dt * (1.0 - 1e-12)).ceil().max(1.0) as u64;
            let per_step = amount / steps as f64;
            for _ in 0..steps {
                let n = Vector3::new(theta.cos(), theta.sin(), 0.0);
                let (mut d_next, mut theta_next) = (d, theta);
                let mut spin = Vector3::zeros();
                match *stage {
                    Stage::Approach { .. } => d_next -= per_step,
                    Stage::Slide { .. } => theta_next += per_step / d,
                    Stage::Twist { .. } => spin = n * (per_step / dt),
                    Stage::Roll { .. } => {
                        // Spin about z with the contact point of sphere 2 at rest: its
                        // centre goes round at r2 times the spin.
                        spin = Vector3::z() * (per_step / dt);
                        theta_next += per_step * r2 / d;
                    }
                    Stage::Hold { .. } => {}
                }
                let target = Vector3::new(theta_next.cos(), theta_next.sin(), 0.0) * d_next;
                let p = &mut sim.particles;
                let (ori0, ori1) = (p.ori[0], p.ori[1]);
                let vel = (target - p.pos[1]) / dt;
                p.vel[0] = Vector3::zeros();
                p.angvel[0] = Vector3::zeros();
                p.vel[1] = vel;
                p.angvel[1] = spin;
                let time = sim.time;
                sim.step()?;
                // Back on the prescribed path, whatever the contact force did.
                let p = &mut sim.particles;
                p.pos[0] = Vector3::zeros();
                p.vel[0] = Vector3::zeros();
                p.ori[0] = ori0;
                p.angvel[0] = Vector3::zeros();
                p.pos[1] = target;
                p.vel[1] = vel;
                p.ori[1] = UnitQuaternion::from_scaled_axis(spin * dt) * ori1;
                p.angvel[1] = spin;
                (d, theta) = (d_next, theta_next);
                let mut r = Record {
                    time,
                    stage: k,
                    friction,
                    damping,
                    ..Record::default()
                };
                if let Some(k) = sim.contacts.position(0, 1) {
                    let (s, l6) = (&sim.contacts.list()[k], sim.contacts.geometry(k));
                    let out = sim.contacts.forces(k).out;
                    friction += out.friction;
                    damping += out.damping;
                    r = Record {
                        contact: s.active(),
                        u: l6.u.into(),
                        phi: l6.phi.into(),
                        force: [out.force.x, out.force.y, out.force.z],
                        torque: [out.torque.x, out.torque.y, out.torque.z],
                        elastic: out.elastic,
                        friction,
                        damping,
                        ..r
                    };
                }
                records.push(r);
            }
        }
        Ok(records)
    }
}
