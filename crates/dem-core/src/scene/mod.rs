//! The scene file (RON). Unknown fields are errors; every error names the file, line and
//! column (parse errors) or the field path (consistency errors). See `docs/scenes.md`.

mod bonds;
mod boundaries;
pub mod budget;
mod choices;
pub(crate) mod clumps;
pub mod crowding;
pub mod csv;
mod defaults;
mod fields;
mod generators;
pub(crate) use generators::add_sphere;
pub mod geometric_epsilon;
mod input_file;
mod mesh_body;
mod output_spec;
mod placement;
mod plugin_bodies;
mod polyhedra;
mod random_packing;
mod settings;
pub mod text;
mod unique_names;

pub use crate::engines::broadphase::BroadPhase;
pub use crate::engines::l6geom::L6Options;
pub use crate::model::particles::MAX_COORDINATE;
pub use crate::support::sampling::material_choice::MaterialChoice;
pub use crate::support::sampling::size_distribution::{Basis, Radius};
pub use bonds::{BondRule, BondSpec};
pub use boundaries::Boundaries;
pub use choices::{ExchangeChoice, GeometryChoice, LawChoice};
pub use fields::{FieldSet, FieldSpec};
pub use generators::expand_bodies;
pub use output_spec::OutputSpec;
pub use settings::{ContactSettings, SparsifySettings};

use crate::engines::motion::Motion;
use crate::support::error::DemError;
pub use input_file::InputFile;
use ron::value::RawValue;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
pub use text::parse_ron;

/// A material, referenced by name from bodies and laws.
#[derive(Deserialize, Debug, Clone, Copy)]
#[serde(deny_unknown_fields)]
pub struct MaterialSpec {
    /// kg/m^3.
    pub density: f64,
    /// Young's modulus, Pa; required unless `rigid`, absent then.
    #[serde(default)]
    pub young: Option<f64>,
    /// A rigid material (walls and mesh facets only): the laws see an infinite Young's
    /// modulus, so that the pair's effective moduli are those of the other body alone.
    #[serde(default)]
    pub rigid: bool,
    /// Poisson's ratio.
    #[serde(default)]
    pub poisson: f64,
    /// Coulomb friction coefficient.
    #[serde(default)]
    pub friction: f64,
}

impl MaterialSpec {
    /// The Young's modulus the laws see, Pa: `young`, or infinite for a rigid material
    /// (NaN when neither is given; [`MaterialSpec::check`] refuses that).
    pub fn young(&self) -> f64 {
        if self.rigid {
            f64::INFINITY
        } else {
            self.young.unwrap_or(f64::NAN)
        }
    }

    /// Checks the fields on their own; the error names the field.
    pub fn check(&self) -> Result<(), String> {
        // A normal number: a subnormal density (5e-324) makes masses of zero or of no
        // precision, a subnormal modulus stiffnesses the same.
        let positive = |x: f64| x > 0.0 && x.is_normal();
        if !positive(self.density) {
            return Err(format!(
                "density must be finite and > 0 (at least {:e}), got {:e}",
                f64::MIN_POSITIVE,
                self.density
            ));
        }
        match (self.rigid, self.young) {
            (true, Some(e)) => {
                return Err(format!(
                    "young ({e}) and rigid: true contradict: a rigid material has no Young's \
                     modulus (the laws see an infinite one)"
                ))
            }
            (false, None) => {
                return Err("young is missing (or write rigid: true for a rigid wall)".into())
            }
            (false, Some(e)) if !positive(e) => {
                return Err(format!(
                    "young must be finite and > 0 (at least {:e}), got {e:e}",
                    f64::MIN_POSITIVE
                ))
            }
            _ => {}
        }
        // Every law sees it: the shear modulus E / (2 (1 + nu)) needs nu > -1, and a
        // solid's ratio is at most 1/2 (incompressible).
        if !(self.poisson > -1.0 && self.poisson <= 0.5) {
            return Err(format!(
                "poisson must be in (-1, 0.5], got {}",
                self.poisson
            ));
        }
        if !(self.friction >= 0.0 && self.friction.is_finite()) {
            return Err(format!(
                "friction must be finite and >= 0, got {}",
                self.friction
            ));
        }
        Ok(())
    }
}

/// Bodies, one by one or from generators.
#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub enum BodySpec {
    /// One sphere.
    Sphere {
        /// Centre at t = 0, m.
        center: [f64; 3],
        /// m.
        radius: f64,
        /// Material name.
        material: String,
        /// Velocity at t = -dt/2, m/s.
        #[serde(default)]
        velocity: [f64; 3],
        /// Angular velocity at t = -dt/2, rad/s.
        #[serde(default)]
        angular_velocity: [f64; 3],
        /// Blocked degrees of freedom: letters of `xyzXYZ` (translations, rotations).
        #[serde(default)]
        blocked: String,
    },
    /// Spheres on a simple-cubic lattice, x fastest, then y, then z.
    Lattice {
        /// Centre of the first sphere, m.
        origin: [f64; 3],
        /// Number of spheres along x, y, z.
        count: [u32; 3],
        /// Centre distance, m.
        spacing: f64,
        /// m.
        radius: f64,
        /// Material name.
        material: String,
        /// Velocity of every sphere, m/s.
        #[serde(default)]
        velocity: [f64; 3],
        /// Plus a random part, each component uniform in `[-spread, spread]`, m/s.
        #[serde(default)]
        velocity_spread: f64,
        /// Seed of the random velocities.
        #[serde(default)]
        seed: u64,
    },
    /// Spheres read from a CSV file (see [`csv`]): one row per sphere.
    Csv {
        /// The file, relative to the scene file.
        file: String,
        /// Radius of spheres whose row gives none, m.
        #[serde(default)]
        radius: Option<f64>,
        /// Material name.
        material: String,
    },
    /// Random non-overlapping spheres inside a box (random sequential addition).
    RandomFill {
        /// Lower corner of the box, m.
        min: [f64; 3],
        /// Upper corner of the box, m.
        max: [f64; 3],
        /// Number of spheres to place.
        count: u32,
        /// Radius distribution.
        radius: Radius,
        /// Material name, or a mix of materials by number fraction.
        material: MaterialChoice,
        /// Seed of the random generator.
        seed: u64,
    },
    /// An infinite plane.
    Wall {
        /// A point of the plane, m.
        point: [f64; 3],
        /// Normal (normalised on load).
        normal: [f64; 3],
        /// +1 or -1: one-sided (acts towards `sense * normal`); 0: two-sided.
        #[serde(default)]
        sense: i32,
        /// Material name.
        material: String,
        /// Prescribed constant velocity, m/s.
        #[serde(default)]
        velocity: [f64; 3],
        /// Prescribed motion (instead of `velocity`).
        #[serde(default)]
        motion: Option<Motion>,
    },
    /// A triangle mesh from a file: one rigid body, fixed or with a prescribed motion.
    Mesh {
        /// `.stl` (binary or ASCII) or `.obj` file, relative to the scene file.
        file: String,
        /// Uniform scale factor applied to the file's coordinates first.
        #[serde(default = "defaults::one")]
        scale: f64,
        /// Rotation vector (axis times angle, rad) applied after scaling.
        #[serde(default)]
        rotate: [f64; 3],
        /// Translation applied last, m.
        #[serde(default)]
        translate: [f64; 3],
        /// Material name.
        material: String,
        /// Half-thickness of the facets, m.
        #[serde(default)]
        halfthick: f64,
        /// Prescribed motion; fixed when absent.
        #[serde(default)]
        motion: Option<Motion>,
        /// Name in the mesh load output (default: the file stem).
        #[serde(default)]
        name: Option<String>,
    },
    /// A rigid convex polyhedron: the convex hull of `vertices` (or exactly these
    /// vertices and `faces`). Stored in principal axes: its position is the centroid, its
    /// orientation maps the principal axes to the global frame; mass and inertia from the
    /// material's density.
    Polyhedron {
        /// Vertices in the global frame at t = 0, m.
        vertices: Vec<[f64; 3]>,
        /// Faces as vertex indices, counter-clockwise seen from outside; absent: the hull
        /// of `vertices`.
        #[serde(default)]
        faces: Option<Vec<Vec<usize>>>,
        /// Material name.
        material: String,
        /// Velocity of the centroid at t = -dt/2, m/s.
        #[serde(default)]
        velocity: [f64; 3],
        /// Angular velocity at t = -dt/2, rad/s.
        #[serde(default)]
        angular_velocity: [f64; 3],
        /// Blocked degrees of freedom: letters of `xyzXYZ` (translations, rotations).
        #[serde(default)]
        blocked: String,
    },
    /// Random convex rocks inside a box: each the hull of `points` random points on an
    /// ellipsoid (semi-axes `axes` times a size drawn uniformly from `size`), randomly
    /// oriented, placed without overlap of their bounding spheres.
    Rocks {
        /// Lower corner of the box, m.
        min: [f64; 3],
        /// Upper corner of the box, m.
        max: [f64; 3],
        /// Number of rocks.
        count: u32,
        /// Range `(a, b)` of the scale factor, m: a rock's semi-axes are `axes` times a
        /// factor uniform in `[a, b]`.
        size: (f64, f64),
        /// Relative semi-axes of the ellipsoid, dimensionless (default `[1, 1, 1]`).
        #[serde(default = "defaults::unit_axes")]
        axes: [f64; 3],
        /// Points per rock (at least 4; default 20).
        #[serde(default = "defaults::twenty")]
        points: u32,
        /// Material name.
        material: String,
        /// Seed of the random generator.
        seed: u64,
    },
    /// One clump (see [`crate::engines::clump`]): the template `template` of the scene's
    /// `clump_templates`, turned by `rotate` about the template's origin and moved to
    /// `position`. Mass and inertia from the union of the members and the material's
    /// density.
    Clump {
        /// Template name.
        template: String,
        /// Where the template's origin goes, m.
        position: [f64; 3],
        /// Rotation vector (axis times angle, rad) applied to the template first.
        #[serde(default)]
        rotate: [f64; 3],
        /// Material name.
        material: String,
        /// Velocity of the centroid at t = -dt/2, m/s.
        #[serde(default)]
        velocity: [f64; 3],
        /// Angular velocity at t = -dt/2, rad/s.
        #[serde(default)]
        angular_velocity: [f64; 3],
    },
    /// Clumps of one template at rest inside a box, randomly oriented (uniformly over
    /// rotations), placed without overlap of their bounding spheres.
    ClumpFill {
        /// Template name.
        template: String,
        /// Lower corner of the box, m.
        min: [f64; 3],
        /// Upper corner of the box, m.
        max: [f64; 3],
        /// Number of clumps.
        count: u32,
        /// Material name.
        material: String,
        /// Seed of the random generator.
        seed: u64,
    },
    /// One body of a shape a plugin offers (`dem plugins` lists them): placed by its
    /// centroid, its principal axes turned by `rotate`; mass and inertia from the
    /// material's density and the shape's volume and moments.
    Shaped {
        /// Shape name, e.g. `"Superquadric"`.
        shape: String,
        /// The shape's parameters, passed verbatim to its plugin.
        #[serde(default)]
        params: Option<Box<RawValue>>,
        /// Centroid at t = 0, m.
        position: [f64; 3],
        /// Rotation vector (axis times angle, rad) from the shape's frame.
        #[serde(default)]
        rotate: [f64; 3],
        /// Material name.
        material: String,
        /// Velocity of the centroid at t = -dt/2, m/s.
        #[serde(default)]
        velocity: [f64; 3],
        /// Angular velocity at t = -dt/2, rad/s.
        #[serde(default)]
        angular_velocity: [f64; 3],
        /// Blocked degrees of freedom: letters of `xyzXYZ` (translations, rotations).
        #[serde(default)]
        blocked: String,
    },
    /// Bodies of one plugin shape at rest inside a box, oriented uniformly at random,
    /// placed without overlap of their bounding spheres.
    ShapeFill {
        /// Shape name.
        shape: String,
        /// The shape's parameters, passed verbatim to its plugin.
        #[serde(default)]
        params: Option<Box<RawValue>>,
        /// Lower corner of the box, m.
        min: [f64; 3],
        /// Upper corner of the box, m.
        max: [f64; 3],
        /// Number of bodies.
        count: u32,
        /// Material name.
        material: String,
        /// Seed of the random generator.
        seed: u64,
    },
    /// Six one-sided walls facing into the box `[min, max]`.
    Box {
        /// Lower corner, m.
        min: [f64; 3],
        /// Upper corner, m.
        max: [f64; 3],
        /// Material name.
        material: String,
    },
}

/// A clump template (see [`crate::engines::clump`]): member spheres written out or read from a
/// CSV file (columns `x,y,z,radius`, see [`crate::engines::clump::template_csv`]), scaled.
#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct ClumpTemplateSpec {
    /// Members as `(centre, radius)` in the template frame, m.
    #[serde(default)]
    pub members: Option<Vec<([f64; 3], f64)>>,
    /// Or a CSV file of members, relative to the scene file.
    #[serde(default)]
    pub file: Option<String>,
    /// Scale applied to centres and radii, about the template's origin (default 1).
    #[serde(default = "defaults::one")]
    pub scale: f64,
}

/// Time step.
#[derive(Deserialize, Debug, Clone, Copy)]
#[serde(deny_unknown_fields)]
pub enum TimeStep {
    /// A fixed step, s.
    Fixed(f64),
    /// This fraction of the critical step `min sqrt(m / k)`.
    Critical(f64),
}

/// How long to run.
#[derive(Deserialize, Debug, Clone, Copy)]
#[serde(deny_unknown_fields)]
pub enum Duration {
    /// Number of steps.
    Steps(u64),
    /// Simulated time, s.
    Time(f64),
}

/// A scene file as written.
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct Scene {
    /// Extra plugin libraries to load, relative to the scene file.
    #[serde(default)]
    pub plugins: Vec<String>,
    /// Materials by name.
    #[serde(deserialize_with = "unique_names::unique_names")]
    pub materials: BTreeMap<String, MaterialSpec>,
    /// Explicit geometry functor choices.
    #[serde(default)]
    pub geometry: Vec<GeometryChoice>,
    /// Contact laws per material pair.
    pub laws: Vec<LawChoice>,
    /// Particle fields (a temperature) by name (see [`crate::engines::exchange`]).
    #[serde(default, deserialize_with = "unique_names::unique_names")]
    pub fields: BTreeMap<String, FieldSpec>,
    /// Exchanges of the fields per material pair.
    #[serde(default)]
    pub exchanges: Vec<ExchangeChoice>,
    /// Bonds made at t = 0 between pairs of spheres (see [`crate::engines::bond`]).
    #[serde(default)]
    pub bonds: Vec<BondSpec>,
    /// Clump templates by name.
    #[serde(default, deserialize_with = "unique_names::unique_names")]
    pub clump_templates: BTreeMap<String, ClumpTemplateSpec>,
    /// Bodies.
    pub bodies: Vec<BodySpec>,
    /// Gravity, m/s^2.
    #[serde(default)]
    pub gravity: [f64; 3],
    /// Cundall non-viscous damping coefficient lambda in [0, 1).
    #[serde(default)]
    pub damping: f64,
    /// Time step.
    pub timestep: TimeStep,
    /// Run length.
    pub duration: Duration,
    /// Conditions ending the run before `duration` once all hold (see [`crate::engines::stop`]).
    #[serde(default)]
    pub stop: Vec<crate::engines::stop::Stop>,
    /// Inlets inserting particles during the run (see [`crate::engines::inlet`]).
    #[serde(default)]
    pub inlets: Vec<crate::engines::inlet::InletSpec>,
    /// Outlets removing particles during the run (see [`crate::engines::outlet`]).
    #[serde(default)]
    pub outlets: Vec<crate::engines::outlet::OutletSpec>,
    /// A periodic cell (see [`crate::model::cell`]), if any.
    #[serde(default)]
    pub cell: Option<crate::model::cell::CellSpec>,
    /// A prescribed fluid dragging the spheres (see [`crate::engines::fluid`]), if any.
    #[serde(default)]
    pub fluid: Option<crate::engines::fluid::FluidSpec>,
    /// Contact settings.
    #[serde(default)]
    pub contacts: ContactSettings,
    /// Output settings.
    #[serde(default)]
    pub output: OutputSpec,
    /// Where the scene came from (set on load).
    #[serde(skip)]
    pub origin: PathBuf,
    /// The scene text (set on load).
    #[serde(skip)]
    pub text: String,
    /// The files the scene reads (meshes, CSV imports) with a digest of their content as
    /// found when the scene was parsed (set on load).
    #[serde(skip)]
    pub inputs: Vec<InputFile>,
}

impl Scene {
    /// Parses scene text; `origin` names the file in errors and anchors relative paths.
    pub fn parse(text: &str, origin: &Path) -> Result<Scene, DemError> {
        let mut scene: Scene = parse_ron(text, origin)?;
        scene.origin = origin.to_path_buf();
        scene.text = text.to_string();
        scene.inputs = scene.input_files();
        Ok(scene)
    }

    /// The files the bodies read, with the digest of their content now.
    fn input_files(&self) -> Vec<InputFile> {
        let base = self.origin.parent().unwrap_or(Path::new("."));
        self.bodies
            .iter()
            .enumerate()
            .filter_map(|(k, b)| match b {
                BodySpec::Mesh { file, .. } | BodySpec::Csv { file, .. } => {
                    Some((format!("bodies[{k}].file"), file))
                }
                BodySpec::RandomFill {
                    radius: Radius::Table { file, .. },
                    ..
                } => Some((format!("bodies[{k}].radius.file"), file)),
                _ => None,
            })
            .chain(self.clump_templates.iter().filter_map(|(name, t)| {
                t.file
                    .as_ref()
                    .map(|file| (format!("clump_templates.{name}.file"), file))
            }))
            .chain(
                self.inlets
                    .iter()
                    .enumerate()
                    .filter_map(|(k, inlet)| match &inlet.radius {
                        Radius::Table { file, .. } => {
                            Some((format!("inlets[{k}].radius.file"), file))
                        }
                        _ => None,
                    }),
            )
            .chain(
                self.inlets
                    .iter()
                    .map(|i| ("inlets", &i.region))
                    .enumerate()
                    .chain(
                        self.outlets
                            .iter()
                            .map(|o| ("outlets", &o.region))
                            .enumerate(),
                    )
                    .filter_map(|(k, (list, region))| match region {
                        crate::engines::region::Region::Surface { file, .. } => {
                            Some((format!("{list}[{k}].region.file"), file))
                        }
                        _ => None,
                    }),
            )
            .map(|(field, file)| InputFile {
                field,
                file: file.clone(),
                digest: std::fs::read(base.join(file))
                    .ok()
                    .map(|bytes| (crc32fast::hash(&bytes), bytes.len() as u64)),
            })
            .collect()
    }

    /// Reads and parses a scene file.
    pub fn load(path: &Path) -> Result<Scene, DemError> {
        let bytes = std::fs::read(path).map_err(|source| DemError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        Scene::parse(&text::decode(&bytes, path)?, path)
    }

    /// Line and column in the scene file of a params block, to translate a plugin's error
    /// position (found by locating the verbatim text; `None` if it appears twice).
    pub fn locate(&self, raw: &str) -> Option<(usize, usize)> {
        let mut hits = self.text.match_indices(raw).map(|(i, _)| i);
        let at = hits.next()?;
        if hits.next().is_some() {
            return None;
        }
        let before = &self.text[..at];
        let line = before.matches('\n').count() + 1;
        let col = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
        Some((line, col))
    }

    /// An error about the scene, prefixed with its file name.
    pub fn error(&self, msg: impl std::fmt::Display) -> DemError {
        DemError::Scene(format!("{}: {msg}", self.origin.display()))
    }
}
