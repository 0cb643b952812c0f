//! Resuming: the checks a checkpoint must pass against the scene and plugins at hand, and
//! the simulation it holds rebuilt from them.

use super::{failure, Checkpoint, SavedShape};
use crate::engines::clump::ClumpBody;
use crate::engines::contacts::Contacts;
use crate::engines::reorder::ParticleOrder;
use crate::model::particles::{Particles, PolyBody, Shape};
use crate::model::plugin_body::ShapeSource;
use crate::scene::Scene;
use crate::setup::plugins::PluginSet;
use crate::step::simulation::Simulation;
use crate::support::error::DemError;
use dem_api::{SphereShape, Vec3, WallShape};
use std::path::Path;
use std::sync::Arc;

impl Checkpoint {
    /// Refuses a plugin set that lacks a plugin of the run or has another version of it.
    pub fn check_plugins(&self, set: &PluginSet, path: &Path) -> Result<(), DemError> {
        for stamp in &self.plugins {
            let same_name: Vec<_> = set
                .plugins
                .iter()
                .filter(|p| p.name == stamp.name)
                .collect();
            let what = format!(
                "plugin `{}` {} (for {})",
                stamp.name,
                stamp.version,
                stamp.functors.join(", ")
            );
            if same_name.is_empty() {
                return Err(failure(
                    path,
                    format!("the run used {what}, which is not loaded (add it with --plugin)"),
                ));
            }
            if !same_name.iter().any(|p| p.version == stamp.version) {
                let loaded: Vec<String> = same_name
                    .iter()
                    .map(|p| format!("{} ({})", p.version, p.path.display()))
                    .collect();
                return Err(failure(
                    path,
                    format!(
                        "the run used {what}, but the loaded version is {}: a resumed run \
                         would not continue the same trajectory",
                        loaded.join(", ")
                    ),
                ));
            }
        }
        Ok(())
    }

    /// Refuses a scene whose input files (meshes, CSV imports: `scene`, parsed again from
    /// the saved text, hashed them as they are now) differ from those the run started
    /// with.
    pub fn check_inputs(&self, scene: &Scene, path: &Path) -> Result<(), DemError> {
        for (then, now) in self.inputs.iter().zip(&scene.inputs) {
            if then.digest.is_some() && now.digest.is_some() && then.digest != now.digest {
                let dir = scene.origin.parent().unwrap_or(Path::new("."));
                return Err(failure(
                    path,
                    format!(
                        "{} ({} of the scene) changed since the run started: a resumed run \
                         would not continue the same trajectory",
                        dir.join(&now.file).display(),
                        now.field
                    ),
                ));
            }
        }
        if self.inputs.len() != scene.inputs.len() {
            return Err(failure(
                path,
                "the scene's input files differ from the run's",
            ));
        }
        Ok(())
    }

    /// The simulation this checkpoint holds, built from `scene` (from [`Checkpoint::scene`])
    /// with `plugins`; `path` names the checkpoint in errors.
    pub fn restore(
        self,
        scene: Scene,
        plugins: &PluginSet,
        path: &Path,
    ) -> Result<Simulation, DemError> {
        self.check_plugins(plugins, path)?;
        self.check_inputs(&scene, path)?;
        let mut sim = Simulation::new(scene, plugins)?;
        let geoms: Vec<&String> = sim.dispatch.geoms.iter().map(|g| &g.name).collect();
        let laws: Vec<&String> = sim.dispatch.laws.iter().map(|l| &l.name).collect();
        if geoms != self.geoms.iter().collect::<Vec<_>>()
            || laws != self.laws.iter().collect::<Vec<_>>()
        {
            return Err(failure(
                path,
                format!(
                    "the scene now dispatches to geometry {geoms:?} and laws {laws:?}, the run \
                     used {:?} and {:?}",
                    self.geoms, self.laws
                ),
            ));
        }
        let sp = self.particles;
        let n = sp.pos.len();
        let lens = [
            sp.vel.len(),
            sp.ori.len(),
            sp.angvel.len(),
            sp.mass.len(),
            sp.inertia.len(),
            sp.force.len(),
            sp.torque.len(),
            sp.blocked.len(),
            sp.material.len(),
            sp.shape.len(),
        ];
        let scene_count = sim.particles.len();
        let fixed = !sim.flow.any() && !self.reshaped;
        if lens.iter().any(|&l| l != n) || (fixed && n != scene_count) {
            return Err(failure(
                path,
                format!("holds {n} particles, its scene gives {scene_count}"),
            ));
        }
        if let Some(&m) = sp
            .material
            .iter()
            .find(|&&m| m as usize >= sim.materials.len())
        {
            return Err(failure(
                path,
                format!(
                    "refers to material #{m}, the scene has {}",
                    sim.materials.len()
                ),
            ));
        }
        let fields = sim.exchanges.fields.len();
        if sp.fields.len() != fields
            || sp.fields.iter().any(|f| f.len() != n)
            || self.field_ledgers.len() != fields
        {
            return Err(failure(
                path,
                format!("its particle fields do not match the scene's {fields} fields"),
            ));
        }
        let laws = &sim.bonds.laws;
        if let Some(b) = self.bonds.list.iter().find(|b| {
            laws.get(b.law as usize)
                .is_none_or(|l| l.slots.len() != b.state.len())
                || b.ids[0] >= b.ids[1]
                || b.ids[1] >= self.issued
        }) {
            return Err(failure(
                path,
                format!(
                    "holds a bond between particles {} and {} that does not match the scene's \
                     {} bond laws",
                    b.ids[0],
                    b.ids[1],
                    laws.len()
                ),
            ));
        }
        let issued = self.issued as usize;
        sim.order = ParticleOrder::from_ids(self.order, n, issued, self.reordered)
            .filter(|_| issued >= scene_count)
            .ok_or_else(|| {
                failure(
                    path,
                    "holds a particle order that does not give each particle its own scene id",
                )
            })?;
        // The scene's particles (the shapes that come from it) by scene id; inserted ones
        // (ids after the scene's) are saved whole.
        let mut fresh: Vec<Option<Shape>> = std::mem::take(&mut sim.particles.shape)
            .into_iter()
            .map(Some)
            .collect();
        let mut shape = Vec::with_capacity(n);
        for (i, saved) in sp.shape.into_iter().enumerate() {
            let id = sim.order.id(i);
            let fresh = fresh.get_mut(id).and_then(Option::take);
            shape.push(match (saved, fresh) {
                (SavedShape::Sphere(radius), _) => Shape::Sphere(SphereShape { radius }),
                (SavedShape::Wall(n, sense), _) => Shape::Wall(WallShape {
                    normal: Vec3::new(n[0], n[1], n[2]),
                    sense,
                }),
                (SavedShape::Facet(m), Some(Shape::Facet(f))) if f.mesh == m => Shape::Facet(f),
                (SavedShape::Polyhedron, Some(Shape::Polyhedron(b))) => Shape::Polyhedron(b),
                (SavedShape::Plugin { name, params }, Some(Shape::Plugin(b)))
                    if b.name == name && b.params == params =>
                {
                    Shape::Plugin(b)
                }
                (SavedShape::Plugin { name, params }, _) => Shape::Plugin(std::sync::Arc::new(
                    plugins
                        .make_shape(&name, &params)
                        .map_err(|e| failure(path, format!("particle {id}: {e}")))?,
                )),
                (SavedShape::PolyhedronData(d), _) => Shape::Polyhedron(Box::new(PolyBody::new(
                    d.data()
                        .map_err(|e| failure(path, format!("particle {id}: {e}")))?,
                ))),
                (SavedShape::Polyhedron, _) => {
                    return Err(failure(
                        path,
                        format!("particle {id} was a polyhedron; the scene's bodies now differ"),
                    ))
                }
                (SavedShape::Facet(m), _) => {
                    return Err(failure(
                        path,
                        format!(
                            "particle {id} was a facet of mesh #{m}; the scene's meshes now differ"
                        ),
                    ))
                }
            });
        }
        sim.particles = Particles {
            pos: sp.pos,
            vel: sp.vel,
            ori: sp.ori,
            angvel: sp.angvel,
            mass: sp.mass,
            inertia: sp.inertia,
            force: sp.force,
            torque: sp.torque,
            blocked: sp.blocked,
            material: sp.material,
            shape,
            fields: sp.fields,
            field_initial: std::mem::take(&mut sim.particles.field_initial),
        };
        match (&mut sim.periodic, self.periodic) {
            (None, None) => {}
            (Some(per), Some(saved)) => per
                .restore(saved, &sim.particles)
                .map_err(|e| failure(path, e))?,
            _ => {
                return Err(failure(
                    path,
                    "the scene and the checkpoint disagree on having a periodic cell",
                ))
            }
        }
        if self.servos.len() != sim.motions.len() || self.motions.len() != sim.motions.len() {
            return Err(failure(
                path,
                "the scene and the checkpoint disagree on the moving boundaries",
            ));
        }
        for (k, (g, (s, m))) in sim
            .motions
            .iter_mut()
            .zip(self.servos.into_iter().zip(self.motions))
            .enumerate()
        {
            g.servo = s;
            g.restore(m)
                .map_err(|e| failure(path, format!("moving boundary {k}: {e}")))?;
        }
        sim.integrator.gravity = self.gravity;
        sim.applied = self.applied;
        sim.reshaped = self.reshaped;
        sim.apply_changes(plugins, &self.changes, &self.refresh)
            .map_err(|e| failure(path, format!("the changes made during the run: {e}")))?;
        let sizes = |a: &[Vec<u32>]| a.iter().map(Vec::len).collect::<Vec<_>>();
        let ours = sim
            .motions
            .iter()
            .map(|g| g.members.len())
            .collect::<Vec<_>>();
        if sizes(&self.members) != ours
            || self.mesh_starts.len() != sim.meshes.len()
            || (fixed && self.clumps.len() != sim.clumps.len())
            || self.inlets.len() != sim.flow.inlets.len()
            || self.outlets.len() != sim.flow.outlets.len()
        {
            return Err(failure(
                path,
                "the scene and the checkpoint disagree on the moving boundaries, meshes, \
                 clumps, inlets or outlets",
            ));
        }
        let inside = |i: u32| (i as usize) < n;
        if !self.members.iter().flatten().all(|&i| inside(i))
            || !self
                .mesh_starts
                .iter()
                .zip(&sim.meshes)
                .all(|(&s, m)| s as usize + m.facets.len() <= n)
        {
            return Err(failure(path, "holds a boundary of unknown particles"));
        }
        for (g, members) in sim.motions.iter_mut().zip(self.members) {
            g.members = members.into_iter().map(|i| i as usize).collect();
        }
        for (m, start) in sim.meshes.iter_mut().zip(self.mesh_starts) {
            m.facets = start as usize..start as usize + m.facets.len();
        }
        // A fixed population keeps the scene's clumps (their shapes come from the scene);
        // a changing one saved them whole.
        let scene_clumps = std::mem::take(&mut sim.clumps);
        let mut next = 0;
        for (k, saved) in self.clumps.into_iter().enumerate() {
            let mut c = match (saved.whole, fixed) {
                (None, true) => scene_clumps[k].clone(),
                (Some(w), false) => ClumpBody {
                    template_name: w.template_name,
                    template: Arc::new(w.template),
                    members: 0..0,
                    pos: saved.pos,
                    vel: saved.vel,
                    ori: saved.ori,
                    angvel: saved.angvel,
                    mass: w.mass,
                    inertia: w.inertia,
                },
                _ => {
                    return Err(failure(
                        path,
                        "the scene and the checkpoint disagree on inlets or outlets of clumps",
                    ))
                }
            };
            let first = saved.first as usize;
            c.members = first..first + c.template.members.len();
            // Members in storage, in clump order, each clump's its own, flagged members.
            if first < next
                || c.members.end > n
                || !c.members.clone().all(|i| sim.particles.blocked[i].member())
            {
                return Err(failure(
                    path,
                    format!("holds clump {k} of unknown particles"),
                ));
            }
            next = c.members.end;
            (c.pos, c.vel, c.ori, c.angvel) = (saved.pos, saved.vel, saved.ori, saved.angvel);
            sim.clumps.push(c);
        }
        sim.reindex_clumps();
        for (inlet, state) in sim.flow.inlets.iter_mut().zip(self.inlets) {
            inlet.state = state;
        }
        for (outlet, state) in sim.flow.outlets.iter_mut().zip(self.outlets) {
            outlet.state = state;
        }
        sim.refresh_free_runs();
        // The contacts read the periodic cell's extended table where there is one.
        let rows = sim.periodic.as_ref().map_or(&sim.particles, |per| &per.ext);
        if self
            .verlet
            .pairs
            .iter()
            .any(|&(a, b)| a >= b || b as usize >= rows.len())
        {
            return Err(failure(path, "holds a candidate pair of unknown particles"));
        }
        sim.contacts = Contacts::restore(&self.verlet.pairs, rows, &sim.dispatch, &self.contacts)
            .map_err(|e| failure(path, e))?;
        sim.live_contacts = sim.contacts.active();
        let method = sim.verlet.method;
        sim.verlet = self.verlet;
        sim.verlet.method = method;
        sim.verlet.find_facets(rows);
        sim.step = self.step;
        sim.time = self.time;
        sim.end_step = self.end_step;
        sim.integrator.dt = self.dt;
        sim.ledger = self.ledger;
        sim.exchanges.ledger = self.field_ledgers;
        sim.bonds.set = self.bonds;
        sim.energy_reference = self.energy_reference;
        Ok(sim)
    }
}
