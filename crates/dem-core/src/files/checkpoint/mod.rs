//! Checkpoints: the whole state of a run between two steps, so that a resumed run is
//! bitwise identical to the uninterrupted one.
//!
//! A checkpoint holds the scene text (a resumed run goes on with this copy, whatever
//! became of the scene file), a digest of each file the scene reads (meshes, CSV imports:
//! read again on resume, and refused changed), the plugins (name and version) that served
//! its functors, the step and time, every particle and clump body, the broad-phase list
//! (its next rebuild must come at the same step), the contacts (those that ended in the
//! last step too) with their L6Geom, onset data and law state, the gravity, the loads
//! applied from outside and the moving boundaries' motions (all can change during a run),
//! the energy ledger and the energy-growth guard's reference, the inlets' random
//! generators and counts and the outlets' counts, and opaque data of the front end (the
//! CLI keeps its energy history, run statistics and run id there). Random fills need no
//! generator state: they are expanded once from their seed, and the particles are stored
//! whole.
//!
//! File layout (little endian):
//!
//! | bytes | content |
//! |---|---|
//! | 8 | magic `DEMCKPT\0` |
//! | 4 | format version ([`FORMAT_VERSION`]) |
//! | 1 + n | length and text of the dem version that wrote it |
//! | 8 | length of the data |
//! | 4 | CRC-32 of the data |
//! | ... | the data: [`Checkpoint`] encoded with postcard |
//!
//! Reading checks each in this order, so that a file from another format version, a
//! truncated file and a corrupted one are each refused with their own message.

use crate::engines::applied::Applied;
use crate::engines::broadphase::VerletList;
use crate::engines::contacts::SavedContact;
use crate::engines::guards::EnergyReference;
use crate::engines::images::{Periodic, SavedPeriodic};
use crate::engines::inlet::InletState;
use crate::engines::motion::{SavedMotion, ServoState};
use crate::engines::outlet::OutletState;
use crate::model::changes::Changes;
use crate::model::energy::Ledger;
use crate::model::particles::{Dofs, Shape};
use crate::scene::{InputFile, Scene};
use crate::setup::plugins::PluginSet;
use crate::step::simulation::Simulation;
use crate::support::error::DemError;
use nalgebra::{UnitQuaternion, Vector3};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

mod polyhedron;
mod restore;

/// First bytes of every checkpoint file.
pub const MAGIC: [u8; 8] = *b"DEMCKPT\0";
/// Version of the data layout; a checkpoint of another version is refused. 2: meshes
/// (facets saved by mesh, mesh loads in the run record). 3: contact terms (a contact is
/// keyed by its term as well as its pair). 4: the L6Geom state without the shifted
/// origins `u0`, `phi0` (always zero). 5: the particles in storage order with the scene
/// id of each (Morton reordering) and each contact's body roles (`swap`). 6: the contacts
/// that ended in the last step too (where the next step removes them decides the order
/// of the others). 7: the periodic cell, its image rows and its servo stages, and the
/// state of servo-controlled walls. 8: a changing population (inlets' and outlets' state,
/// the scene ids given so far, the storage indices of the moving boundaries and meshes),
/// two more ledger entries (inflow, outflow). 9: the clumps' rigid bodies; the gravity
/// and the moving boundaries' motions with their anchors (both can change during a run,
/// from Python); inserted polyhedra saved whole. 10: each clump's first member (removals
/// move clumps down in storage), and in a scene with inlets or outlets each clump whole
/// (template name, shape, mass, inertia: inserted clumps, and removed ones). 11: the loads
/// applied from outside (forces and torques by scene id, set from Python or Rust), and
/// whether particles were added or removed from outside. 12: the laws' parameters and
/// the materials changed from outside, and which laws have yet to refresh their contacts'
/// constants. 13: bodies of plugin shapes (their shape name and parameters). 14: the
/// particle fields' values and their ledgers. 15: the bonds (each with its geometry and
/// law state, the counts of bonds made, broken and removed) and the ledger's `broken`.
pub const FORMAT_VERSION: u32 = 15;
/// The version of dem-core writing checkpoints.
pub const DEM_VERSION: &str = env!("CARGO_PKG_VERSION");

/// A plugin that served a functor of the run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PluginStamp {
    /// Plugin (crate) name.
    pub name: String,
    /// Plugin version.
    pub version: String,
    /// Functor names it served, in dispatch order.
    pub functors: Vec<String>,
}

/// A particle's shape, as saved.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
enum SavedShape {
    Sphere(f64),
    Wall([f64; 3], i32),
    /// A mesh facet, by mesh index: its geometry comes from the scene's mesh file, read
    /// again on restore (a facet moves only with its mesh's prescribed motion, whose pose
    /// is restored with the particle's position and orientation).
    Facet(u32),
    /// A polyhedron: its geometry comes from the scene again on restore (it is a rigid
    /// body; its pose is restored with the particle's position and orientation).
    Polyhedron,
    /// A polyhedron with its geometry, in a scene whose inlets insert polyhedra.
    PolyhedronData(Box<polyhedron::SavedPolyhedron>),
    /// A body of a plugin shape: the shape's name and the parameters it was built from
    /// (the plugin builds it again on restore).
    Plugin {
        /// Shape name.
        name: String,
        /// RON parameter text.
        params: String,
    },
}

/// All particles, as saved (every array of [`Particles`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct SavedParticles {
    pos: Vec<Vector3<f64>>,
    vel: Vec<Vector3<f64>>,
    ori: Vec<UnitQuaternion<f64>>,
    angvel: Vec<Vector3<f64>>,
    mass: Vec<f64>,
    inertia: Vec<Vector3<f64>>,
    force: Vec<Vector3<f64>>,
    torque: Vec<Vector3<f64>>,
    blocked: Vec<Dofs>,
    material: Vec<u32>,
    shape: Vec<SavedShape>,
    /// The particle fields' values (format 14 on).
    fields: Vec<Vec<f64>>,
}

/// The state of a clump's rigid body (its members are particles, saved with them).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct SavedClump {
    pos: Vector3<f64>,
    vel: Vector3<f64>,
    ori: UnitQuaternion<f64>,
    angvel: Vector3<f64>,
    /// Storage index of its first member.
    first: u32,
    /// The clump whole, in a scene with inlets or outlets (which insert clumps the scene
    /// cannot make again, and remove some of its own).
    whole: Option<Box<WholeClump>>,
}

/// What a clump is made of, saved whole.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct WholeClump {
    template_name: String,
    template: crate::engines::clump::ClumpTemplate,
    mass: f64,
    inertia: Vector3<f64>,
}

/// The state of a run between two steps.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Checkpoint {
    /// The scene file's text.
    pub scene_text: String,
    /// The scene file's path when the run started (anchors its relative plugin paths).
    pub scene_origin: PathBuf,
    /// The files the scene reads (meshes, CSV imports) and their digests when the run
    /// started: a resumed run reads them again, and refuses them changed.
    pub inputs: Vec<InputFile>,
    /// Plugins of the geometry functors then of the laws, in dispatch order.
    pub plugins: Vec<PluginStamp>,
    /// Geometry functor names in dispatch order.
    pub geoms: Vec<String>,
    /// Law names in dispatch order.
    pub laws: Vec<String>,
    /// Steps done.
    pub step: u64,
    /// Time, s.
    pub time: f64,
    /// Last step of the run.
    pub end_step: u64,
    /// Time step, s.
    pub dt: f64,
    /// Energy ledger.
    pub ledger: Ledger,
    /// The energy-growth guard's reference (see [`crate::engines::guards`]).
    pub energy_reference: Option<EnergyReference>,
    particles: SavedParticles,
    /// Scene id of the particle at each storage index (empty: scene order).
    order: Vec<u32>,
    /// Step of the last reordering of particle storage.
    reordered: Option<u64>,
    verlet: VerletList,
    contacts: Vec<SavedContact>,
    /// The periodic cell and its image rows (contacts and candidate pairs name image rows
    /// after the particles).
    periodic: Option<SavedPeriodic>,
    /// The state of each moving boundary's servo (order of the scene's motions).
    servos: Vec<ServoState>,
    /// Each moving boundary's motion, as changed during the run (order of the scene's
    /// motions).
    motions: Vec<SavedMotion>,
    /// Gravity, m/s^2 (it can change during a run).
    gravity: Vector3<f64>,
    /// Forces and torques applied from outside, by scene id (format 11 on).
    applied: Applied,
    /// Were particles added or removed from outside (the population is not the scene's)?
    reshaped: bool,
    /// Laws' parameters and materials changed from outside (format 12 on).
    changes: Changes,
    /// The laws whose contacts compute their constants again at the next step.
    refresh: Vec<u16>,
    /// Scene ids given so far (to the particles held and to those removed).
    issued: u64,
    /// Storage indices of each moving boundary's members (order of the scene's motions):
    /// removed particles before them move them down.
    members: Vec<Vec<u32>>,
    /// Storage index of each mesh's first facet.
    mesh_starts: Vec<u32>,
    /// The clumps' rigid bodies (scene order; format 9 on).
    clumps: Vec<SavedClump>,
    /// The inlets' state (scene order).
    inlets: Vec<InletState>,
    /// The outlets' counts (scene order).
    outlets: Vec<OutletState>,
    /// The particle fields' ledgers (order of the fields' names; format 14 on).
    field_ledgers: Vec<crate::engines::exchange::FieldLedger>,
    /// The bonds (format 15 on).
    bonds: crate::engines::bond::BondSet,
    /// Data of the front end, opaque here.
    pub extra: Vec<u8>,
}

/// Postcard size of a value, bytes.
fn encoded_len<T: Serialize + ?Sized>(v: &T) -> usize {
    postcard::to_stdvec(v).map_or(0, |v| v.len())
}

fn failure(path: &Path, reason: impl Into<String>) -> DemError {
    DemError::Checkpoint {
        path: path.to_path_buf(),
        reason: reason.into(),
    }
}

impl Checkpoint {
    /// The state of `sim` now; `plugins` is the set it was built with.
    pub fn capture(sim: &Simulation, plugins: &PluginSet, extra: Vec<u8>) -> Checkpoint {
        let d = &sim.dispatch;
        // The scene cannot make an inserted polyhedron again (by an inlet, or added from
        // outside): its data is saved.
        let inserts_polyhedra = sim.reshaped
            || (sim.flow.inlets.iter())
                .any(|inlet| inlet.maker.kind() == dem_api::ShapeKind::POLYHEDRON);
        let mut stamps: Vec<PluginStamp> = Vec::new();
        let served = d
            .geoms
            .iter()
            .map(|g| (&g.plugin, &g.name))
            .chain(d.laws.iter().map(|l| (&l.plugin, &l.name)));
        for (plugin, functor) in served {
            let i = match stamps.iter().position(|s| &s.name == plugin) {
                Some(i) => i,
                None => {
                    let version = plugins
                        .plugins
                        .iter()
                        .find(|p| &p.name == plugin)
                        .map_or_else(String::new, |p| p.version.clone());
                    stamps.push(PluginStamp {
                        name: plugin.clone(),
                        version,
                        functors: Vec::new(),
                    });
                    stamps.len() - 1
                }
            };
            if !stamps[i].functors.contains(functor) {
                stamps[i].functors.push(functor.clone());
            }
        }
        let p = &sim.particles;
        let origin = &sim.scene.origin;
        Checkpoint {
            scene_text: sim.scene.text.clone(),
            scene_origin: origin.canonicalize().unwrap_or_else(|_| origin.clone()),
            inputs: sim.scene.inputs.clone(),
            plugins: stamps,
            geoms: d.geoms.iter().map(|g| g.name.clone()).collect(),
            laws: d.laws.iter().map(|l| l.name.clone()).collect(),
            step: sim.step,
            time: sim.time,
            end_step: sim.end_step,
            dt: sim.dt(),
            ledger: sim.ledger,
            energy_reference: sim.energy_reference,
            particles: SavedParticles {
                pos: p.pos.clone(),
                vel: p.vel.clone(),
                ori: p.ori.clone(),
                angvel: p.angvel.clone(),
                mass: p.mass.clone(),
                inertia: p.inertia.clone(),
                force: p.force.clone(),
                torque: p.torque.clone(),
                blocked: p.blocked.clone(),
                material: p.material.clone(),
                fields: p.fields.clone(),
                shape: p
                    .shape
                    .iter()
                    .map(|s| match s {
                        Shape::Sphere(s) => SavedShape::Sphere(s.radius),
                        Shape::Wall(w) => {
                            SavedShape::Wall([w.normal.x, w.normal.y, w.normal.z], w.sense)
                        }
                        Shape::Facet(f) => SavedShape::Facet(f.mesh),
                        Shape::Polyhedron(b) if inserts_polyhedra => SavedShape::PolyhedronData(
                            Box::new(polyhedron::SavedPolyhedron::of(&b.data)),
                        ),
                        Shape::Polyhedron(_) => SavedShape::Polyhedron,
                        Shape::Plugin(b) => SavedShape::Plugin {
                            name: b.name.clone(),
                            params: b.params.clone(),
                        },
                    })
                    .collect(),
            },
            order: sim.order.ids().to_vec(),
            reordered: sim.order.last,
            verlet: sim.verlet.clone(),
            contacts: sim.contacts.save(),
            periodic: sim.periodic.as_ref().map(Periodic::save),
            servos: sim.motions.iter().map(|g| g.servo).collect(),
            motions: sim.motions.iter().map(|g| g.save()).collect(),
            gravity: sim.integrator.gravity,
            applied: sim.applied().clone(),
            reshaped: sim.reshaped,
            changes: sim.changes().clone(),
            refresh: sim.refreshing(),
            issued: sim.order.issued(p.len()) as u64,
            members: sim
                .motions
                .iter()
                .map(|g| g.members.iter().map(|&i| i as u32).collect())
                .collect(),
            mesh_starts: sim.meshes.iter().map(|m| m.facets.start as u32).collect(),
            clumps: sim
                .clumps
                .iter()
                .map(|c| SavedClump {
                    pos: c.pos,
                    vel: c.vel,
                    ori: c.ori,
                    angvel: c.angvel,
                    first: c.members.start as u32,
                    whole: sim.population_changes().then(|| {
                        Box::new(WholeClump {
                            template_name: c.template_name.clone(),
                            template: (*c.template).clone(),
                            mass: c.mass,
                            inertia: c.inertia,
                        })
                    }),
                })
                .collect(),
            inlets: sim.flow.inlets.iter().map(|i| i.state.clone()).collect(),
            outlets: sim.flow.outlets.iter().map(|o| o.state).collect(),
            field_ledgers: sim.exchanges.ledger.clone(),
            bonds: sim.bonds.set.clone(),
            extra,
        }
    }

    /// Number of particles held.
    pub fn particle_count(&self) -> usize {
        self.particles.pos.len()
    }

    /// Number of live contacts held.
    pub fn contact_count(&self) -> usize {
        self.contacts
            .iter()
            .filter(|c| c.end == crate::engines::contacts::SavedEnd::Live)
            .count()
    }

    /// Encoded size of each part, bytes: `particles` (with their scene ids), `verlet`
    /// (candidate pairs and anchor positions), `contacts`, `scene` (text and plugin
    /// stamps), `extra`.
    pub fn breakdown(&self) -> [(&'static str, usize); 5] {
        [
            (
                "particles",
                encoded_len(&self.particles)
                    + encoded_len(&self.order)
                    + encoded_len(&self.reordered),
            ),
            ("verlet", encoded_len(&self.verlet)),
            ("contacts", encoded_len(&self.contacts)),
            (
                "scene",
                encoded_len(&self.scene_text) + encoded_len(&self.plugins),
            ),
            ("extra", encoded_len(&self.extra)),
        ]
    }

    /// The file content.
    pub fn to_bytes(&self) -> Vec<u8> {
        let data = postcard::to_stdvec(self).expect("a checkpoint always encodes");
        let mut out = Vec::with_capacity(data.len() + 32);
        out.extend_from_slice(&MAGIC);
        out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
        out.push(DEM_VERSION.len() as u8);
        out.extend_from_slice(DEM_VERSION.as_bytes());
        out.extend_from_slice(&(data.len() as u64).to_le_bytes());
        out.extend_from_slice(&crc32fast::hash(&data).to_le_bytes());
        out.extend_from_slice(&data);
        out
    }

    /// Decodes a file's content; `path` names the file in errors.
    pub fn from_bytes(bytes: &[u8], path: &Path) -> Result<Checkpoint, DemError> {
        let fail = |reason: String| failure(path, reason);
        let truncated = |what: &str| {
            fail(format!(
                "truncated checkpoint: the file ends inside the {what} ({} bytes in all)",
                bytes.len()
            ))
        };
        if bytes.len() < MAGIC.len() {
            return Err(if MAGIC.starts_with(bytes) {
                truncated("header")
            } else {
                fail("not a dem checkpoint (no DEMCKPT header)".into())
            });
        }
        if bytes[..8] != MAGIC {
            return Err(fail("not a dem checkpoint (no DEMCKPT header)".into()));
        }
        let mut at = 8;
        let mut take = |n: usize, what: &str| -> Result<&[u8], DemError> {
            let s = bytes.get(at..at + n).ok_or_else(|| truncated(what))?;
            at += n;
            Ok(s)
        };
        let version = u32::from_le_bytes(take(4, "header")?.try_into().expect("4 bytes"));
        let n = take(1, "header")?[0] as usize;
        let writer = String::from_utf8_lossy(take(n, "header")?).to_string();
        // A version this dem's own version cannot have written, or no version at all,
        // is a damaged header (the header is outside the checksum).
        if version > FORMAT_VERSION && writer == DEM_VERSION || version > 1000 {
            return Err(fail(format!(
                "corrupted checkpoint: its header gives format version {version}, which no \
                 dem writes (this dem, {DEM_VERSION}, writes format version {FORMAT_VERSION})"
            )));
        }
        if version != FORMAT_VERSION {
            return Err(fail(format!(
                "checkpoint format version {version} (written by dem {writer}), but this dem \
                 ({DEM_VERSION}) reads format version {FORMAT_VERSION} only: resume it with dem {writer}"
            )));
        }
        let len = u64::from_le_bytes(take(8, "header")?.try_into().expect("8 bytes"));
        let crc = u32::from_le_bytes(take(4, "header")?.try_into().expect("4 bytes"));
        let data = &bytes[at..];
        if (data.len() as u64) < len {
            return Err(fail(format!(
                "truncated checkpoint: {} of {len} bytes of data (the file was cut short)",
                data.len()
            )));
        }
        if data.len() as u64 > len {
            return Err(fail(format!(
                "corrupted checkpoint: {} unexpected bytes after the {len} bytes of data",
                data.len() as u64 - len
            )));
        }
        let actual = crc32fast::hash(data);
        if actual != crc {
            return Err(fail(format!(
                "corrupted checkpoint: checksum mismatch (stored {crc:08x}, computed {actual:08x})"
            )));
        }
        let ck: Checkpoint = postcard::from_bytes(data)
            .map_err(|e| fail(format!("corrupted checkpoint: cannot decode the data: {e}")))?;
        if writer != DEM_VERSION {
            tracing::warn!(
                "{}: written by dem {writer}, resumed by dem {DEM_VERSION}: the trajectory may \
                 differ from an uninterrupted run",
                path.display()
            );
        }
        Ok(ck)
    }

    /// Reads and decodes a checkpoint file.
    pub fn read(path: &Path) -> Result<Checkpoint, DemError> {
        let io = |source| DemError::Io {
            path: path.to_path_buf(),
            source,
        };
        // A device or a pipe (`/dev/urandom`, `/dev/zero`) would be read without end.
        if !std::fs::metadata(path).map_err(io)?.is_file() {
            return Err(failure(path, "not a dem checkpoint (not a regular file)"));
        }
        let bytes = std::fs::read(path).map_err(io)?;
        Checkpoint::from_bytes(&bytes, path)
    }

    /// The scene, parsed again from the saved text.
    pub fn scene(&self) -> Result<Scene, DemError> {
        Scene::parse(&self.scene_text, &self.scene_origin)
    }
}
