//! One simulation: a scene turned into particles and functors, advanced step by step.
//!
//! Order of a step (forces of step t act in step t): reset forces to gravity; rebuild the
//! broad phase if stale; geometry, lifecycle, L6Geom and law for every candidate pair;
//! gather forces in a fixed order; leap-frog; check the state and the energy ledger
//! ([`crate::engines::guards`]).

use crate::engines::applied::Applied;
use crate::engines::bond::Bonds;
use crate::engines::broadphase::VerletList;
use crate::engines::clump::ClumpBody;
use crate::engines::contacts::{ContactTotals, Contacts, StepContext};
use crate::engines::dispatch::Dispatch;
use crate::engines::exchange::Exchanges;
use crate::engines::flow::Flow;
use crate::engines::fluid::Fluid;
use crate::engines::guards::{self, EnergyReference};
use crate::engines::images::Periodic;
use crate::engines::integrator::{Integrator, CHUNK};
use crate::engines::l6geom::L6Options;
use crate::engines::motion::Prescribed;
use crate::engines::ranks::Ranks;
use crate::engines::reorder::{free_runs, ParticleOrder};
use crate::model::energy::Ledger;
use crate::model::mesh::{MeshBody, MeshLoad};
use crate::model::particles::Particles;
use crate::scene::{expand_bodies, Duration, Scene, TimeStep};
use crate::setup::plugins::PluginSet;
use crate::support::error::DemError;
use crate::support::team::{Parts, Team};
use crate::support::threads::{self, Threads};
use crate::support::timing::{lap, PhaseTimes};
use crate::support::workers::recycle;
use dem_api::{Material, ShapeView, SphereShape};
use nalgebra::Vector3;
use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;
use std::time::Instant;
use watched::Watched;

mod active_threads;
mod added;
mod bonding;
mod build;
pub mod changes;
mod control;
mod field_step;
mod fields;
mod loads;
mod on_ranks;
pub mod population;
mod stress;
mod watched;

/// What a shape view is filled with before it is made (never read).
static NO_SHAPE: SphereShape = SphereShape { radius: 0.0 };

/// Largest accepted `contacts.skin`, in radii: with more, the candidate pairs grow with
/// the cube of the skin for no gain (the list is rebuilt rarely already).
pub const MAX_SKIN: f64 = 10.0;

/// Largest size of a gravity component a scene may give, m/s^2 (a centrifuge reaches 1e6).
pub const MAX_GRAVITY: f64 = 1e9;

/// A running simulation.
pub struct Simulation {
    /// The scene it was built from.
    pub scene: Scene,
    /// Particles (walls included), in storage order: see [`Simulation::order`].
    pub particles: Particles,
    /// Which scene particle each storage index holds (the free particles are reordered
    /// in space every `contacts.reorder` steps; see [`crate::engines::reorder`]). Particle ids in
    /// [`Self::particles`] and [`Self::contacts`] are storage indices.
    pub order: ParticleOrder,
    /// Materials by index (scene order of names).
    pub materials: Vec<Material>,
    /// Material names by index.
    pub material_names: Vec<String>,
    /// Functors and tables.
    pub dispatch: Dispatch,
    /// Contacts.
    pub contacts: Contacts,
    /// Broad phase.
    pub verlet: VerletList,
    /// Integrator settings (the time step is `integrator.dt`).
    pub integrator: Integrator,
    /// Steps done.
    pub step: u64,
    /// Time t, s.
    pub time: f64,
    /// Step at which the scene's duration ends.
    pub end_step: u64,
    /// Energy ledger at the last completed step.
    pub ledger: Ledger,
    /// What the energy-growth guard measures against (set by the first step).
    pub energy_reference: Option<EnergyReference>,
    /// Is the energy-growth guard on? Off where velocities are set from outside the
    /// integrator, so that the ledger is not conserved (the law tester).
    pub energy_guard: bool,
    /// Critical time step estimate, s.
    pub critical_dt: f64,
    /// Boundaries with a prescribed motion.
    pub motions: Vec<Prescribed>,
    /// Meshes (each one rigid body made of facet particles).
    pub meshes: Vec<MeshBody>,
    /// Clumps (each one rigid body moving its member spheres; see [`crate::engines::clump`]).
    pub clumps: Vec<ClumpBody>,
    /// The clump of each particle (index into [`Self::clumps`]), `u32::MAX` for none.
    pub(crate) clump_of: Vec<u32>,
    /// Wall time per phase since the simulation was built.
    pub timing: PhaseTimes,
    /// Live contacts summed over the steps done since the simulation was built.
    pub contact_steps: u64,
    /// Live contacts after the last step (as `contacts.active()`, without counting).
    pub live_contacts: usize,
    /// The periodic cell and its image rows, in a scene with a `cell` (see
    /// [`crate::engines::images`]): the contacts then read its extended particle table.
    pub periodic: Option<Periodic>,
    /// Inlets and outlets (see [`crate::step::simulation::population`]).
    pub flow: Flow,
    pub(crate) skin: f64,
    pub(crate) reach: f64,
    eps: f64,
    l6: L6Options,
    /// The runs of consecutive free particles, each reordered in itself.
    pub(crate) free: Vec<Range<usize>>,
    /// Cell size of the reordering's grid: the largest particle's diameter, m.
    reorder_cell: f64,
    /// The particles' shape views, made anew each step into this buffer (empty between
    /// steps).
    views: Vec<ShapeView<'static>>,
    /// The threads of the parallel phases: as many as the rayon pool the run is in, of
    /// which `threads` says how many take part in a step.
    team: Team,
    threads: Threads,
    /// The choice of the threads of [`Threads::Auto`] steps.
    chooser: threads::Chooser,
    /// This process's share when several run the simulation (see [`crate::engines::ranks`]).
    ranks: Option<Ranks>,
    /// Forces and torques applied from outside (see [`crate::engines::applied`]).
    pub(crate) applied: Applied,
    /// Laws and materials changed from outside (see [`changes`]).
    pub(crate) changes: crate::model::changes::Changes,
    /// The scene's fluid, dragging the spheres (see [`crate::engines::fluid`]).
    pub fluid: Option<Fluid>,
    /// Particles were added or removed from outside (see [`Simulation::add_spheres`] and
    /// [`Simulation::remove_particles`]): the population is no longer the scene's, as with
    /// inlets or outlets.
    pub(crate) reshaped: bool,
    /// The particle fields and their exchanges (see [`crate::engines::exchange`]).
    pub exchanges: Exchanges,
    /// The bonds between spheres and their laws (see [`crate::engines::bond`]).
    pub bonds: Bonds,
}

impl Simulation {
    /// Time step, s.
    pub fn dt(&self) -> f64 {
        self.integrator.dt
    }

    /// Advances one step.
    pub fn step(&mut self) -> Result<(), DemError> {
        if self.flow.any() && self.flow_acts_on_ranks() {
            return self.step_as_one();
        }
        let mut clock = Instant::now();
        let started = clock;
        let (mut fresh, fresh_clumps): (Vec<usize>, Range<usize>) =
            match self.flow.inlets.is_empty() {
                true => (Vec::new(), 0..0),
                false => {
                    let added = self.insert_from_inlets()?;
                    let fresh: Vec<usize> = added.particles.collect();
                    if !self.exchanges.is_empty() {
                        self.exchanges.book_inserted(&self.particles, &fresh);
                    }
                    (fresh, added.clumps)
                }
            };
        // The ledger's total before a step in which contacts compute their constants
        // again (see [`changes`]).
        let refresh = self.refresh_reference();
        let (work, cap) = self.choose_threads();
        let p = &mut self.particles;
        if let Some(per) = &mut self.periodic {
            per.sync(p);
            if per.stale(&self.verlet, &self.team) {
                let ranges = (self.reach, self.skin);
                let wrapped = per.rebuild(
                    p,
                    &mut self.contacts,
                    &mut self.verlet,
                    ranges,
                    &self.dispatch,
                )?;
                self.ledger.wrap(&self.integrator.gravity, &wrapped);
            }
        } else if match &self.ranks {
            None => self.verlet.stale_in(p, &self.team),
            Some(r) => r.stale(&self.verlet, p, &self.team),
        } {
            let reorder = self.order.due(self.step, self.scene.contacts.reorder);
            if let Some(r) = &mut self.ranks {
                // The rebuild reads every position; a reordering hands particles to other
                // owners, with their whole state.
                let t = Instant::now();
                match reorder {
                    true => r.share_states(p),
                    false => r.share_positions(p),
                }
                self.timing.exchange += t.elapsed().as_secs_f64();
            }
            if reorder {
                if let Some(r) = &self.ranks {
                    // Particles may change owner: every rank takes all contacts first.
                    let all = r.all_contacts(&self.contacts, &self.verlet.pairs, p, &self.dispatch);
                    self.contacts = r.agree(all)?;
                }
                let cell = self.reorder_cell;
                if let Some(old_to_new) = self.order.reorder(p, &self.free, cell, self.step) {
                    self.contacts.renumber(&old_to_new);
                    for i in &mut fresh {
                        *i = old_to_new[*i] as usize;
                    }
                }
            }
            self.verlet.rebuild(p, self.reach, self.skin);
            drop_pairs_within_clumps(&mut self.verlet.pairs, &self.clump_of);
            match &mut self.ranks {
                None => self
                    .contacts
                    .rebuild(&self.verlet.pairs, p, &self.dispatch)?,
                Some(r) => {
                    let pairs = r.local_pairs(&self.verlet.pairs);
                    r.find_ghosts(&pairs, &self.bonds.spheres(&self.order, p.len()));
                    if !reorder {
                        // The new ghosts' velocities and orientations.
                        let t = Instant::now();
                        r.share_ghosts(p);
                        self.timing.exchange += t.elapsed().as_secs_f64();
                    }
                    r.agree(self.contacts.rebuild(&pairs, p, &self.dispatch))?;
                }
            }
        }
        self.timing.broad_phase += lap(&mut clock);
        let mut views: Vec<ShapeView<'_>> = recycle(std::mem::take(&mut self.views));
        // The contacts read the periodic cell's extended table where there is one.
        let rows: &Particles = match &self.periodic {
            Some(per) => &per.ext,
            None => p,
        };
        // Each member makes the views of its own run of chunks: all of them, or those a
        // rank moves, and then the rank's ghosts (the only particles its contacts read).
        let n = rows.shape.len();
        views.resize(n, ShapeView::of_sphere(&NO_SHAPE));
        {
            let chunks = n.div_ceil(CHUNK);
            let moved = self.ranks.as_ref().map(Ranks::moved);
            let parts = Parts::new(&mut views);
            let team = &self.team;
            team.run(|t| {
                let runs = team.range(chunks, t);
                let mine = (runs.start * CHUNK).min(n)..(runs.end * CHUNK).min(n);
                // SAFETY: the members' ranges are disjoint.
                let out = unsafe { parts.take(mine.clone()) };
                for k in runs.filter(|&k| moved.is_none_or(|m| m[k])) {
                    let r = k * CHUNK..((k + 1) * CHUNK).min(n);
                    let at = r.start - mine.start..r.end - mine.start;
                    for (v, s) in out[at].iter_mut().zip(&rows.shape[r]) {
                        *v = s.view();
                    }
                }
            });
            if let Some(r) = &self.ranks {
                for &i in r.ghosts() {
                    views[i as usize] = rows.shape[i as usize].view();
                }
            }
        }
        let cx = StepContext {
            particles: rows,
            bodies: rows.columns(&views),
            team: &self.team,
            materials: &self.materials,
            dispatch: &self.dispatch,
            dt: self.integrator.dt,
            time: self.time,
            step: self.step,
            eps: self.eps,
            l6: self.l6,
            sparsify: self.scene.contacts.sparsify.map(Into::into),
        };
        let mut processed = self.contacts.process(&cx);
        self.views = recycle(views);
        if let Err(DemError::PluginCall { a, b, .. }) = &mut processed {
            if let Some(per) = &self.periodic {
                (*a, *b) = (per.owner(*a), per.owner(*b));
            }
            // Errors name particles by scene id.
            (*a, *b) = (
                self.order.id(*a as usize) as u32,
                self.order.id(*b as usize) as u32,
            );
        }
        if let Some(r) = &self.ranks {
            let t = Instant::now();
            processed = r.agree(processed);
            self.timing.exchange += t.elapsed().as_secs_f64();
        }
        let [geometry, law] = processed?;
        self.timing.geometry += geometry;
        self.timing.law += law;
        lap(&mut clock);
        let across = self
            .periodic
            .as_ref()
            .map(|per| per.fold(&mut self.contacts));
        // Forces start from the weights there.
        let moved = self.ranks.as_ref().map(Ranks::moved);
        let totals = self
            .contacts
            .gather(p, &self.integrator.gravity, &self.team, moved);
        self.timing.gather += lap(&mut clock);
        if self.ranks.is_none() {
            self.book_contacts(&totals);
        }
        if !self.exchanges.is_empty() {
            self.step_fields()?;
        }
        let bonded = match self.bonds.is_empty() {
            true => None,
            false => {
                self.reform_bonds();
                let t = Instant::now();
                let sums = self.bonds.step(
                    &mut self.particles,
                    &self.order,
                    &self.materials,
                    self.integrator.dt,
                    self.step,
                    &self.l6,
                    &self.team,
                )?;
                self.timing.law += t.elapsed().as_secs_f64();
                Some(sums)
            }
        };
        let watched = match self.flow.any() {
            true => self.watch(&fresh, fresh_clumps),
            false => Watched::default(),
        };
        // Each clump's terms of the step, when the flow books a clump's energy.
        let mut clump_terms = watched
            .has_clumps()
            .then(|| vec![[0.0; 3]; self.clumps.len()]);
        let p = &mut self.particles;
        let dt = self.integrator.dt;
        for g in &mut self.motions {
            self.ledger.boundary_work += g.control(p, dt);
            self.ledger.boundary_work += g.step_velocities(p, self.time, dt);
        }
        if let Some(fluid) = &self.fluid {
            self.ledger.boundary_work += fluid.apply(p, dt);
        }
        if !self.applied.is_empty() {
            self.ledger.boundary_work += self.applied.apply(&self.order, p, dt);
        }
        let finite = match &mut self.ranks {
            None => self.integrator.step_in(p, &mut self.ledger, &self.team),
            Some(r) => {
                let mut sums = Vec::new();
                self.integrator
                    .advance_in(p, &self.team, &mut sums, Some(r.moved()));
                let booked = self.contacts.booked_mut();
                let mut both: Vec<[f64; 10]> = sums
                    .iter()
                    .zip(booked.iter())
                    .map(|(s, b)| std::array::from_fn(|k| if k < 6 { s[k] } else { b[k - 6] }))
                    .collect();
                let tops = r.own_tops(&self.verlet, p, &self.team);
                let t = Instant::now();
                r.share_step(p, &mut both, tops);
                self.timing.exchange += t.elapsed().as_secs_f64();
                for ((s, b), x) in sums.iter_mut().zip(booked.iter_mut()).zip(&both) {
                    s.copy_from_slice(&x[..6]);
                    b.copy_from_slice(&x[6..]);
                }
                let mut totals = totals;
                totals.book(booked);
                self.book_contacts(&totals);
                Integrator::book(&sums, &mut self.ledger)
            }
        };
        if let Some(sums) = bonded {
            sums.book(&mut self.ledger);
        }
        if !finite {
            if let Some(r) = &mut self.ranks {
                // The probe is every rank's: all look at the whole state.
                r.share_states(&mut self.particles);
            }
            self.check_finite()?;
        }
        if !self.clumps.is_empty()
            && !crate::engines::clump::body::step(
                &mut self.clumps,
                &mut self.particles,
                &self.integrator,
                &mut self.ledger,
                clump_terms.as_deref_mut(),
            )
        {
            self.check_finite()?;
        }
        if !watched.is_empty() {
            self.settle_flow(watched, clump_terms.as_deref())?;
        }
        if let (Some(per), Some(t)) = (&mut self.periodic, across) {
            let before = per.cell.advance(dt);
            self.ledger.boundary_work += Periodic::boundary_work(&t, &before, &per.cell.hdot, dt);
        }
        if self.dispatch.laws.iter().any(|l| l.refresh) {
            self.refreshed(refresh);
        }
        self.check_energy()?;
        self.step += 1;
        self.time = self.step as f64 * dt;
        for g in &self.motions {
            g.set_poses(&mut self.particles, self.time);
        }
        self.control_cell();
        if self.stops_reached() {
            self.end_step = self.end_step.min(self.step);
        }
        self.timing.integration += lap(&mut clock);
        self.book_threads(started, work, cap);
        Ok(())
    }

    /// One step that, when it fails (a plugin error, a non-finite state), leaves the
    /// simulation as it was before the step, so that a checkpoint written after the error
    /// holds the last good state. Costs a copy of the particles, contacts and broad-phase
    /// list per step: the run uses it only when it writes checkpoints.
    pub fn step_or_restore(&mut self) -> Result<(), DemError> {
        let saved = (
            self.particles.clone(),
            self.contacts.clone(),
            self.verlet.clone(),
            self.ledger,
            self.order.clone(),
            self.periodic.clone(),
            self.clumps.clone(),
            self.exchanges.ledger.clone(),
            self.bonds.set.clone(),
        );
        // What a change of population renumbers or counts.
        let population = self.flow.any().then(|| {
            (
                self.flow.clone(),
                self.free.clone(),
                self.motions.clone(),
                self.meshes.clone(),
                self.clump_of.clone(),
            )
        });
        let result = self.step();
        if result.is_err() {
            (
                self.particles,
                self.contacts,
                self.verlet,
                self.ledger,
                self.order,
                self.periodic,
                self.clumps,
                self.exchanges.ledger,
                self.bonds.set,
            ) = saved;
            if let Some(population) = population {
                (
                    self.flow,
                    self.free,
                    self.motions,
                    self.meshes,
                    self.clump_of,
                ) = population;
                self.share_out_again()?;
            }
        }
        result
    }

    /// The clump (index into [`Self::clumps`]) whose member particle `i` is, if any.
    pub fn clump_of(&self, i: usize) -> Option<usize> {
        self.clump_of
            .get(i)
            .filter(|&&k| k != u32::MAX)
            .map(|&k| k as usize)
    }

    /// Contact force and torque on each mesh at the last step (order of [`Self::meshes`]).
    pub fn mesh_loads(&self) -> Vec<MeshLoad> {
        self.meshes
            .iter()
            .map(|m| m.load(&self.particles))
            .collect()
    }

    /// Books the step's contacts: their energies in the ledger, and their count.
    fn book_contacts(&mut self, totals: &ContactTotals) {
        self.contact_steps += totals.active as u64;
        self.live_contacts = totals.active;
        self.ledger.elastic = totals.elastic;
        self.ledger.friction += totals.friction;
        self.ledger.damping += totals.damping;
    }

    /// Does the population differ, or may it come to differ, from the scene's (inlets,
    /// outlets, particles added or removed from outside)? Then checkpoints save what the scene
    /// cannot make again.
    pub(crate) fn population_changes(&self) -> bool {
        self.flow.any() || self.reshaped
    }

    /// Runs `n` steps.
    pub fn run_steps(&mut self, n: u64) -> Result<(), DemError> {
        for _ in 0..n {
            self.step()?;
        }
        Ok(())
    }

    /// The run guards on the ledger (see [`crate::engines::guards`]).
    fn check_energy(&mut self) -> Result<(), DemError> {
        let (p, g) = (&self.particles, &self.integrator.gravity);
        guards::check_finite_energy(self.step, &self.ledger, p, g, &self.order)?;
        match &self.energy_reference {
            _ if !self.energy_guard => Ok(()),
            Some(r) => guards::check_growth(self.step, r, &self.ledger, p, &self.order),
            None => {
                self.energy_reference = Some(guards::reference(&self.ledger, p, g));
                Ok(())
            }
        }
    }

    fn check_finite(&self) -> Result<(), DemError> {
        let p = &self.particles;
        for i in 0..p.len() {
            let bad = if !p.pos[i].iter().all(|x| x.is_finite()) {
                Some(("position", p.pos[i]))
            } else if !p.vel[i].iter().all(|x| x.is_finite()) {
                Some(("velocity", p.vel[i]))
            } else if !p.angvel[i].iter().all(|x| x.is_finite()) {
                Some(("angular velocity", p.angvel[i]))
            } else {
                None
            };
            if let Some((what, value)) = bad {
                return Err(DemError::NonFinite {
                    step: self.step,
                    particle: self.order.id(i),
                    what: format!("{what} = [{}, {}, {}]", value.x, value.y, value.z),
                });
            }
        }
        Ok(())
    }
}

/// True for a finite number above zero (false for NaN).
fn positive(x: f64) -> bool {
    x > 0.0 && x.is_finite()
}

/// Drops the candidate pairs of two members of one clump (`of`: the clump of each
/// particle, `u32::MAX` for none): no contact acts between them.
pub(crate) fn drop_pairs_within_clumps(pairs: &mut Vec<(u32, u32)>, of: &[u32]) {
    if of.iter().all(|&k| k == u32::MAX) {
        return;
    }
    pairs.retain(|&(a, b)| {
        let k = of[a as usize];
        k == u32::MAX || k != of[b as usize]
    });
}
