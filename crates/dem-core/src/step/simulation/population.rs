//! A changing population: particles inserted by inlets ([`crate::engines::inlet`]) and removed by
//! outlets ([`crate::engines::outlet`]) during a run.
//!
//! Within a step: the inlets insert at its start (time t, before the broad phase, which
//! the new particles make stale), so that the step that moves them first also books the
//! energy they bring; the outlets take the free particles whose centre is inside them at
//! t, and remove them at the end of the step. Either way a particle's energy is exactly
//! the terms it adds to that step's ledger (`m/2 v(t-dt/2) . v(t+dt/2)`, the rotational
//! twin, `-m g . x(t)`), computed from its velocities before and after the integrator:
//! booked as `inflow` for an inserted particle, and as `outflow`, with the elastic energy
//! of its contacts, for a removed one (taken off the ledger's entries at once). So the
//! ledger's total is conserved through insertion and removal to round-off for spheres;
//! for an aspherical body the rotational part removed is `P . I^-1 P / 2` at the end of
//! the step, off by the step's rotational work.
//!
//! A clump enters and leaves whole: an inlet appends its members and its body; an outlet
//! takes it when its centroid is inside (its members are never taken one by one), with
//! all its members and their contacts. Its energy is the terms its own step books
//! ([`crate::engines::clump::body::step`]: translational, rotational, potential), so the ledger's
//! total is conserved through a clump's insertion and removal to round-off, rotation
//! included.
//!
//! Removal compacts storage: the particles after a removed one move down (walls, facets,
//! moving boundaries and clumps' members keep their order; each clump's member range
//! moves down with them), contacts are renamed, and the broad phase is rebuilt at once.

use super::watched::Watched;
use crate::engines::flow::Flow;
use crate::engines::inlet::{Inlet, NewParticle};
use crate::engines::outlet::Outlet;
use crate::engines::reorder::free_runs;
use crate::model::energy::Ledger;
use crate::model::particles::{Dofs, Particles, Shape};
use crate::scene::Scene;
use crate::step::simulation::Simulation;
use crate::support::error::DemError;
use dem_api::Material;
use nalgebra::Vector3;
use std::collections::BTreeMap;
use std::path::Path;

/// The inlets and outlets of `scene`; `index` maps material names to indices, `shapes`
/// builds plugin shapes' templates.
pub fn build_flow(
    scene: &Scene,
    index: &BTreeMap<String, u32>,
    materials: &[Material],
    shapes: &dyn crate::model::plugin_body::ShapeSource,
) -> Result<Flow, DemError> {
    let base = scene.origin.parent().unwrap_or(Path::new("."));
    let densities: Vec<f64> = materials.iter().map(|m| m.density).collect();
    let mut flow = Flow::default();
    for (k, spec) in scene.inlets.iter().enumerate() {
        let clump = match &spec.shape {
            crate::engines::template::Template::Clump(name) => Some(
                crate::scene::clumps::template(scene, name, &format!("inlets[{k}].shape"))?,
            ),
            _ => None,
        };
        let inlet = Inlet::new(spec, index, densities.clone(), base, clump.as_ref(), shapes)
            .map_err(|e| scene.error(format!("inlets[{k}].{e}")))?;
        flow.inlets.push(inlet);
    }
    for (k, spec) in scene.outlets.iter().enumerate() {
        let mut spec = spec.clone();
        spec.region
            .load(base)
            .and_then(|_| spec.region.check())
            .map_err(|e| scene.error(format!("outlets[{k}].region: {e}")))?;
        if !(spec.start >= 0.0 && spec.start.is_finite()) {
            return Err(scene.error(format!(
                "outlets[{k}].start: must be >= 0 and finite, s, got {}",
                spec.start
            )));
        }
        flow.outlets.push(Outlet {
            spec,
            state: Default::default(),
        });
    }
    let names = scene
        .inlets
        .iter()
        .map(|i| &i.name)
        .chain(scene.outlets.iter().map(|o| &o.name));
    let mut seen = std::collections::BTreeSet::new();
    for name in names {
        if !seen.insert(name) {
            return Err(scene.error(format!(
                "inlets, outlets: the name `{name}` is used twice (flow.csv names them)"
            )));
        }
    }
    Ok(flow)
}

/// The energy particle `i` adds to the ledger in a step that moved it from velocities
/// `v0`, `w0` at `x0`: `[kinetic, rotational, potential]`, J.
fn energy(p: &Particles, i: usize, w: &Watched, k: usize, g: &Vector3<f64>) -> [f64; 3] {
    let (m, inertia) = (p.mass[i], p.inertia[i]);
    let (v0, v1) = (w.vel[k], p.vel[i]);
    let kinetic: f64 = (0..3).map(|c| 0.5 * m * v0[c] * v1[c]).sum();
    let rotational = if crate::engines::rotation::is_aspherical(&inertia) {
        let wb = p.ori[i].inverse_transform_vector(&p.angvel[i]);
        0.5 * wb.dot(&inertia.component_mul(&wb))
    } else {
        let w0 = w.angvel[k];
        (0..3)
            .map(|c| 0.5 * inertia[c] * w0[c] * p.angvel[i][c])
            .sum()
    };
    [kinetic, rotational, -m * g.dot(&w.pos[k])]
}

/// A sphere to add between steps (see [`Simulation::add_spheres`]).
#[derive(Clone, Debug, PartialEq)]
pub struct NewSphere {
    /// Centre, m.
    pub center: Vector3<f64>,
    /// Radius, m.
    pub radius: f64,
    /// Material name (one of the scene's).
    pub material: String,
    /// Velocity, m/s (at `t - dt/2`, as a scene's).
    pub velocity: Vector3<f64>,
    /// Angular velocity, rad/s.
    pub angular_velocity: Vector3<f64>,
}

/// What an inlet's step added: storage indices of the new particles (clump members
/// included), and indices of the new clumps.
pub(crate) struct Added {
    pub(crate) particles: std::ops::Range<usize>,
    pub(crate) clumps: std::ops::Range<usize>,
}

impl Simulation {
    /// Inserts the inlets' particles of this step at the end of storage (an inserted
    /// clump: its members, and its body at the end of the clumps).
    pub(crate) fn insert_from_inlets(&mut self) -> Result<Added, DemError> {
        let n = self.particles.len();
        let nc = self.clumps.len();
        for inlet in &mut self.flow.inlets {
            // Each inlet keeps clear of the particles already inserted this step.
            let cell = self.periodic.as_ref().map(|per| &per.cell);
            let made = inlet
                .insert(self.step, self.time, &self.particles, cell)
                .map_err(|e| {
                    DemError::Scene(format!(
                        "inlet `{}` at step {}: {e}",
                        inlet.spec.name, self.step
                    ))
                })?;
            for s in &made {
                match (&s.made.clump, &inlet.maker.template) {
                    (Some(shape), crate::engines::template::Template::Clump(name)) => {
                        let rho = self.materials[s.material as usize].density;
                        crate::scene::clumps::push(
                            &mut self.particles,
                            &mut self.clumps,
                            name,
                            shape,
                            s.center,
                            s.made.ori,
                            s.velocity,
                            Vector3::zeros(),
                            rho,
                            s.material,
                        );
                    }
                    _ => push_particle(&mut self.particles, s),
                }
                // The inlet's own field values (checked when the run was built).
                let last = self.particles.len() - 1;
                for (name, &v) in &inlet.spec.fields {
                    if let Some(f) = self.exchanges.field(name) {
                        self.particles.fields[f][last] = v;
                    }
                }
            }
        }
        let added = self.particles.len() - n;
        if added > 0 {
            // The broad phase sees the new count and rebuilds before the contacts.
            self.order.append(n, added);
            if self.clumps.len() > nc {
                self.reindex_clumps();
            }
            self.refresh_free_runs();
            if let Some(per) = &mut self.periodic {
                per.grow(&self.particles, &mut self.contacts);
            }
            tracing::debug!(target: "dem::flow", step = self.step, added, "inserted");
        }
        Ok(Added {
            particles: n..n + added,
            clumps: nc..self.clumps.len(),
        })
    }

    /// The clump of each particle again, after clumps were added or removed.
    pub(crate) fn reindex_clumps(&mut self) {
        self.clump_of.clear();
        self.clump_of.resize(self.particles.len(), u32::MAX);
        for (k, c) in self.clumps.iter().enumerate() {
            self.clump_of[c.members.clone()].fill(k as u32);
        }
    }

    /// The just-inserted particles `fresh` and clumps `fresh_clumps`, and the free
    /// particles and clumps (by centroid) inside an outlet, with the particles' state
    /// before the integrator.
    pub(crate) fn watch(&self, fresh: &[usize], fresh_clumps: std::ops::Range<usize>) -> Watched {
        let p = &self.particles;
        let mut w = Watched::default();
        let mut note = |i: usize, outlet: Option<usize>| {
            w.who.push((i, outlet));
            w.vel.push(p.vel[i]);
            w.angvel.push(p.angvel[i]);
            w.pos.push(p.pos[i]);
        };
        for &i in fresh {
            if !p.blocked[i].member() {
                note(i, None);
            }
        }
        let t = self.time;
        let open = |o: &Outlet| t >= o.spec.start;
        let taking = |x: &Vector3<f64>| {
            self.flow
                .outlets
                .iter()
                .position(|o| open(o) && o.spec.region.contains(x))
        };
        if self.flow.outlets.iter().any(open) {
            for run in &self.free {
                for i in run.clone() {
                    if let Some(k) = taking(&p.pos[i]) {
                        note(i, Some(k));
                    }
                }
            }
        }
        w.clumps.extend(fresh_clumps.map(|k| (k, None)));
        if self.flow.outlets.iter().any(open) {
            for (k, c) in self.clumps.iter().enumerate() {
                if let Some(o) = taking(&c.pos) {
                    w.clumps.push((k, Some(o)));
                }
            }
        }
        w
    }

    /// Books the energy of the watched particles and clumps after the integrator, and
    /// removes those inside an outlet; `clump_terms` holds each clump's terms of this
    /// step (given when `w` watches clumps).
    pub(crate) fn settle_flow(
        &mut self,
        w: Watched,
        clump_terms: Option<&[[f64; 3]]>,
    ) -> Result<(), DemError> {
        let g = self.integrator.gravity;
        let mut dead = vec![false; self.particles.len()];
        let mut dead_clumps = vec![false; self.clumps.len()];
        let mut any = false;
        for (k, &(i, outlet)) in w.who.iter().enumerate() {
            let terms = energy(&self.particles, i, &w, k, &g);
            if let Some(o) = book(&mut self.ledger, terms, outlet) {
                let out = &mut self.flow.outlets[o].state;
                out.count += 1;
                out.mass += self.particles.mass[i];
                dead[i] = true;
                any = true;
            }
        }
        for &(k, outlet) in &w.clumps {
            let terms = clump_terms.expect("the clumps' terms of a step watching clumps");
            if let Some(o) = book(&mut self.ledger, terms[k], outlet) {
                let c = &self.clumps[k];
                let out = &mut self.flow.outlets[o].state;
                out.count += 1;
                out.mass += c.mass;
                dead[c.members.clone()].fill(true);
                dead_clumps[k] = true;
                any = true;
            }
        }
        if any {
            self.remove(&dead, &dead_clumps)?;
        }
        Ok(())
    }

    /// Adds spheres between two steps, at the end of storage with the next scene ids
    /// (returned), as an inlet inserts them: each `(centre m, radius m, material name,
    /// velocity m/s, angular velocity rad/s)`, its mass and inertia from the material's
    /// density as a scene's sphere. What they bring (`m v^2 / 2`, `J w^2 / 2`, `-m g . x`
    /// from the given state) is booked as `inflow` and added to those entries of the
    /// ledger, so that the total stays (to the share error of
    /// [`Simulation::remove_particles`]). Refused, with the sphere named (by its place in
    /// `spheres`) and nothing added, for a non-finite or non-positive radius, an unknown
    /// material, non-finite values, an overlap with a sphere or a wall (stored or added
    /// with it) or with the bounding sphere of another free body (a polyhedron, a clump
    /// member, a plugin shape), and on several ranks.
    pub fn add_spheres(&mut self, spheres: &[NewSphere]) -> Result<Vec<u64>, String> {
        if self.ranks.is_some() {
            return Err("particles cannot be added from outside on several ranks".into());
        }
        if !self.exchanges.is_empty() {
            return Err("particles cannot be added in a scene with particle fields yet".into());
        }
        let p = &self.particles;
        let n = p.len();
        let mut materials = Vec::with_capacity(spheres.len());
        for (k, s) in spheres.iter().enumerate() {
            let finite = |v: &Vector3<f64>| v.iter().all(|x| x.is_finite());
            if !(s.radius.is_finite() && s.radius > 0.0) {
                return Err(format!(
                    "sphere {k}: radius {} must be positive and finite, m",
                    s.radius
                ));
            }
            if !(finite(&s.center) && finite(&s.velocity) && finite(&s.angular_velocity)) {
                return Err(format!(
                    "sphere {k}: centre, velocity and angular velocity must be finite"
                ));
            }
            let Some(m) = self.material_names.iter().position(|x| *x == s.material) else {
                return Err(format!(
                    "sphere {k}: no material `{}` (the scene's: {})",
                    s.material,
                    self.material_names.join(", ")
                ));
            };
            materials.push(m as u32);
            // Overlaps with the stored spheres and walls, and the spheres added before it.
            for i in 0..n {
                let gap = match &p.shape[i] {
                    Shape::Wall(w) => {
                        // A sided wall's particles are on its `sense` side; a two-sided
                        // wall's on either.
                        let normal = Vector3::new(w.normal.x, w.normal.y, w.normal.z);
                        let d = (s.center - p.pos[i]).dot(&normal);
                        let d = if w.sense == 0 {
                            d.abs()
                        } else {
                            d * f64::from(w.sense.signum())
                        };
                        d - s.radius
                    }
                    // A sphere exactly; a polyhedron or a plugin shape by its bounding
                    // sphere, as an inlet places bodies.
                    shape => match shape.bounding_radius() {
                        Some(r) => (s.center - p.pos[i]).norm() - r - s.radius,
                        None => continue,
                    },
                };
                if gap < 0.0 {
                    return Err(format!(
                        "sphere {k} overlaps particle {} by {:e} m",
                        self.order.id(i),
                        -gap
                    ));
                }
            }
            for (j, o) in spheres[..k].iter().enumerate() {
                if (s.center - o.center).norm() < s.radius + o.radius {
                    return Err(format!("sphere {k} overlaps sphere {j} added with it"));
                }
            }
        }
        let g = self.integrator.gravity;
        for (s, &m) in spheres.iter().zip(&materials) {
            let rho = self.materials[m as usize].density;
            crate::scene::add_sphere(
                &mut self.particles,
                s.center,
                s.radius,
                rho,
                m,
                s.velocity,
                s.angular_velocity,
                Dofs::FREE,
            );
            let i = self.particles.len() - 1;
            let (mass, j) = (self.particles.mass[i], self.particles.inertia[i].x);
            self.book_inflow([
                0.5 * mass * s.velocity.norm_squared(),
                0.5 * j * s.angular_velocity.norm_squared(),
                -mass * g.dot(&s.center),
            ]);
        }
        Ok(self.appended(n))
    }

    /// Removes the particles `ids` (scene ids) between two steps, with their contacts, as
    /// an outlet removes particles: storage is compacted (the others keep their ids), and
    /// what they held of the ledger is carried out as `outflow`: their kinetic,
    /// rotational and potential energy (`m v^2 / 2`, `J w^2 / 2`, `-m g . x` from the
    /// state now, taken off those entries, which the next step evaluates without them: so
    /// the total stays to within the leap-frog ledger's own difference between these and
    /// `m/2 v(t-dt/2) . v(t+dt/2)`, of order `m |v| |a| dt`) and the elastic energy of
    /// their contacts. Returns the energy carried out, J. Refused, with the particle
    /// named and nothing removed, for a particle not stored, a clump member, a mesh facet
    /// or a particle with a prescribed motion, and on several ranks.
    pub fn remove_particles(&mut self, ids: &[u64]) -> Result<f64, String> {
        let n = self.particles.len();
        if self.ranks.is_some() {
            return Err("particles cannot be removed from outside on several ranks".into());
        }
        let moving: std::collections::BTreeSet<usize> = self
            .motions
            .iter()
            .flat_map(|g| g.members.iter().copied())
            .collect();
        let mut dead = vec![false; n];
        for &id in ids {
            let i = self.order.index(id as usize);
            if i >= n || self.order.id(i) != id as usize {
                return Err(format!("particle {id}: no such particle in the run"));
            }
            if dead[i] {
                return Err(format!("particle {id} is given twice"));
            }
            if let Some(k) = self.clump_of(i) {
                return Err(format!(
                    "particle {id} is a member of clump {k}: clumps are removed whole only by outlets"
                ));
            }
            if matches!(
                self.particles.shape[i],
                crate::model::particles::Shape::Facet(_)
            ) {
                return Err(format!("particle {id} is a facet of a mesh"));
            }
            if moving.contains(&i) {
                return Err(format!("particle {id} has a prescribed motion"));
            }
            dead[i] = true;
        }
        if ids.is_empty() {
            return Ok(0.0);
        }
        let (p, g) = (&self.particles, self.integrator.gravity);
        let mut carried = 0.0;
        for i in (0..n).filter(|&i| dead[i]) {
            let (m, inertia) = (p.mass[i], p.inertia[i]);
            let (kinetic, potential) = match m.is_finite() {
                true => (0.5 * m * p.vel[i].norm_squared(), -m * g.dot(&p.pos[i])),
                false => (0.0, 0.0),
            };
            let rotational = if crate::engines::rotation::is_aspherical(&inertia) {
                let wb = p.ori[i].inverse_transform_vector(&p.angvel[i]);
                0.5 * wb.dot(&inertia.component_mul(&wb))
            } else {
                (0..3)
                    .filter(|&c| inertia[c].is_finite())
                    .map(|c| 0.5 * inertia[c] * p.angvel[i][c] * p.angvel[i][c])
                    .sum()
            };
            self.ledger.kinetic -= kinetic;
            self.ledger.rotational -= rotational;
            self.ledger.potential -= potential;
            self.ledger.outflow += kinetic + rotational + potential;
            carried += kinetic + rotational + potential;
        }
        // Loads on them are dropped at the next step (see `crate::engines::applied`).
        let before = self.ledger.outflow;
        self.remove(&dead, &vec![false; self.clumps.len()])
            .map_err(|e| e.to_string())?;
        self.reshaped = true;
        Ok(carried + self.ledger.outflow - before)
    }

    /// Removes the particles marked `dead` (free particles and the members of the clumps
    /// marked in `dead_clumps`), the clumps, and their contacts, whose elastic energy is
    /// carried out.
    fn remove(&mut self, dead: &[bool], dead_clumps: &[bool]) -> Result<(), DemError> {
        if !self.exchanges.is_empty() {
            self.exchanges.book_removed(&self.particles, dead);
        }
        // In a periodic cell the contacts also name image rows of the particles.
        let elastic = match &self.periodic {
            Some(per) => self.contacts.remove_bodies(&per.dead_rows(dead)),
            None => self.contacts.remove_bodies(dead),
        };
        self.ledger.elastic -= elastic;
        self.ledger.outflow += elastic;
        let n = self.particles.len();
        let kept: Vec<u32> = (0..n as u32).filter(|&i| !dead[i as usize]).collect();
        let mut old_to_new = vec![u32::MAX; n];
        for (new, &old) in kept.iter().enumerate() {
            old_to_new[old as usize] = new as u32;
        }
        self.particles.permute(&kept);
        self.order.remove(n, &kept);
        match &mut self.periodic {
            Some(per) => per.compact(&old_to_new, &self.particles, &mut self.contacts),
            None => self.contacts.renumber(&old_to_new),
        }
        for g in &mut self.motions {
            g.renumber(&old_to_new);
        }
        for m in &mut self.meshes {
            let start = old_to_new[m.facets.start] as usize;
            m.facets = start..start + m.facets.len();
        }
        if !self.clumps.is_empty() {
            // A clump's members stay consecutive: removed together or moved down together.
            let mut k = 0;
            self.clumps.retain(|_| {
                k += 1;
                !dead_clumps[k - 1]
            });
            for c in &mut self.clumps {
                let start = old_to_new[c.members.start] as usize;
                c.members = start..start + c.members.len();
            }
            self.reindex_clumps();
        }
        self.refresh_free_runs();
        // The candidate pairs at once, so that the state between two steps (which a
        // checkpoint saves) holds no pair of the old numbering.
        match &mut self.periodic {
            Some(per) => {
                let wrapped = per.rebuild(
                    &mut self.particles,
                    &mut self.contacts,
                    &mut self.verlet,
                    (self.reach, self.skin),
                    &self.dispatch,
                )?;
                self.ledger.wrap(&self.integrator.gravity, &wrapped);
            }
            None => {
                self.verlet.rebuild(&self.particles, self.reach, self.skin);
                crate::step::simulation::drop_pairs_within_clumps(
                    &mut self.verlet.pairs,
                    &self.clump_of,
                );
                self.contacts
                    .rebuild(&self.verlet.pairs, &self.particles, &self.dispatch)?;
            }
        }
        tracing::debug!(target: "dem::flow", step = self.step, removed = n - kept.len(), "removed");
        Ok(())
    }

    /// The runs of free particles after the population changed.
    pub(crate) fn refresh_free_runs(&mut self) {
        let p = &self.particles;
        let mut moving = vec![false; p.len()];
        for g in &self.motions {
            for &i in &g.members {
                moving[i] = true;
            }
        }
        // Clump members are moved by their clumps: never reordered.
        self.free = free_runs(p.len(), |i| {
            p.shape[i].bounding_radius().is_some() && !moving[i] && !p.blocked[i].member()
        });
    }
}

/// Takes a removed particle's terms off the ledger's entries.
/// Books a body's energy terms `[kinetic, rotational, potential]` of this step as brought
/// in (no outlet) or carried out through outlet `o` (its terms taken off the entries);
/// returns the outlet.
fn book(l: &mut Ledger, [kin, rot, pot]: [f64; 3], outlet: Option<usize>) -> Option<usize> {
    let e = kin + rot + pot;
    match outlet {
        None => l.inflow += e,
        Some(_) => {
            l.kinetic -= kin;
            l.rotational -= rot;
            l.potential -= pot;
            l.outflow += e;
        }
    }
    outlet
}

fn push_particle(p: &mut Particles, s: &NewParticle) {
    let i = p.push(
        s.made.shape.clone(),
        s.center,
        s.velocity,
        Vector3::zeros(),
        s.made.mass,
        s.made.inertia,
        Dofs::FREE,
        s.material,
    );
    p.ori[i] = s.made.ori;
}
