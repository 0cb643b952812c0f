//! One simulation: a scene turned into particles and functors, advanced step by step.
//!
//! Order of a step (forces of step t act in step t): reset forces to gravity; rebuild the
//! broad phase if stale; geometry, lifecycle, L6Geom and law for every candidate pair;
//! gather forces in a fixed order; leap-frog; check the state and the energy ledger
//! ([`crate::guards`]).

use crate::broadphase::VerletList;
use crate::clump::ClumpBody;
use crate::contacts::{Contacts, StepContext};
use crate::dispatch::Dispatch;
use crate::energy::Ledger;
use crate::error::DemError;
use crate::guards::{self, EnergyReference};
use crate::images::Periodic;
use crate::integrator::Integrator;
use crate::mesh::{MeshBody, MeshLoad};
use crate::motion::Prescribed;
use crate::particles::Particles;
use crate::plugins::PluginSet;
use crate::population::{Flow, Watched};
use crate::reorder::{free_runs, ParticleOrder};
use crate::scene::{expand_bodies, Duration, L6Options, Scene, TimeStep};
use crate::team::{Parts, Team};
use crate::timing::{lap, PhaseTimes};
use crate::workers::recycle;
use dem_api::{Material, ShapeView, SphereShape};
use nalgebra::Vector3;
use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;
use std::time::Instant;

/// What a shape view is filled with before it is made (never read).
static NO_SHAPE: SphereShape = SphereShape { radius: 0.0 };

/// Largest accepted `contacts.skin`, in radii: with more, the candidate pairs grow with
/// the cube of the skin for no gain (the list is rebuilt rarely already).
pub const MAX_SKIN: f64 = 10.0;

/// A running simulation.
pub struct Simulation {
    /// The scene it was built from.
    pub scene: Scene,
    /// Particles (walls included), in storage order: see [`Simulation::order`].
    pub particles: Particles,
    /// Which scene particle each storage index holds (the free particles are reordered
    /// in space every `contacts.reorder` steps; see [`crate::reorder`]). Particle ids in
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
    /// Clumps (each one rigid body moving its member spheres; see [`crate::clump`]).
    pub clumps: Vec<ClumpBody>,
    /// The clump of each particle (index into [`Self::clumps`]), `u32::MAX` for none.
    clump_of: Vec<u32>,
    /// Wall time per phase since the simulation was built.
    pub timing: PhaseTimes,
    /// Live contacts summed over the steps done since the simulation was built.
    pub contact_steps: u64,
    /// Live contacts after the last step (as `contacts.active()`, without counting).
    pub live_contacts: usize,
    /// The periodic cell and its image rows, in a scene with a `cell` (see
    /// [`crate::images`]): the contacts then read its extended particle table.
    pub periodic: Option<Periodic>,
    /// Inlets and outlets (see [`crate::population`]).
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
    /// The threads of the parallel phases, as many as the rayon pool the run is in.
    team: Team,
}

impl Simulation {
    /// Builds a simulation from a parsed scene with the given plugins.
    pub fn new(scene: Scene, plugins: &PluginSet) -> Result<Simulation, DemError> {
        let names: Vec<String> = scene.materials.keys().cloned().collect();
        let index: BTreeMap<String, u32> = names
            .iter()
            .enumerate()
            .map(|(i, n)| (n.clone(), i as u32))
            .collect();
        let materials: Vec<Material> = scene
            .materials
            .values()
            .map(|m| Material {
                density: m.density,
                young: m.young(),
                poisson: m.poisson,
                friction: m.friction,
            })
            .collect();
        for (name, m) in &scene.materials {
            m.check()
                .map_err(|e| scene.error(format!("materials.{name}: {e}")))?;
        }
        let eps = scene.contacts.contact_eps;
        if !(eps.is_finite() && eps >= 0.0) {
            return Err(scene.error(format!(
                "contacts.contact_eps: must be finite and >= 0, got {eps}"
            )));
        }
        let mut particles = Particles::default();
        let boundaries = expand_bodies(&scene, &index, &mut particles)?;
        particles.shrink_to_fit();
        let flow = crate::population::build_flow(&scene, &index, &materials)?;
        crate::meeting::check_rigid(&scene, &names, &particles, &flow)?;
        let (kinds, mats) = crate::meeting::pairs(&particles, &flow);
        let geometric_epsilon = crate::scene::geometric_epsilon::resolve(
            scene.contacts.geometric_epsilon,
            &particles,
            &flow,
        );
        let dispatch = Dispatch::build(&scene, plugins, &kinds, &index, geometric_epsilon)?;
        for &(ma, mb) in &mats {
            if !dispatch.law_table.contains_key(&(ma, mb)) {
                return Err(scene.error(format!(
                    "laws: no contact law for materials `{}` and `{}`",
                    names[ma as usize], names[mb as usize]
                )));
            }
        }

        if !(0.0..1.0).contains(&scene.damping) {
            return Err(scene.error(format!("damping: must be in [0, 1), got {}", scene.damping)));
        }
        // A few large bodies (a boulder among grains) set neither the skin nor the
        // reorder's cells: a skin of their size would make every pair of grains a
        // candidate.
        let rmax = flow
            .inlets
            .iter()
            .map(|inlet| inlet.max_radius())
            .fold(crate::broadphase::typical_radius(&particles), f64::max);
        let reach = dispatch.laws.iter().map(|l| l.distance).fold(0.0, f64::max)
            + scene.contacts.contact_eps;
        let skin = scene.contacts.skin * rmax;
        if !positive(skin) {
            return Err(scene.error(
                "contacts.skin: must be positive (and the scene needs at least one sphere)",
            ));
        }
        if scene.contacts.skin > MAX_SKIN {
            return Err(scene.error(format!(
                "contacts.skin: {} is more than {MAX_SKIN} radii: every particle would have \
                 every other within that distance as a candidate pair, each with a geometry \
                 call at every step (0.1 to 1 is usual)",
                scene.contacts.skin
            )));
        }

        let critical_dt =
            crate::critical_step::critical_step(&particles, &materials, &dispatch, &flow);
        if critical_dt.is_nan() {
            let names: Vec<&str> = dispatch.laws.iter().map(|l| l.name.as_str()).collect();
            return Err(scene.error(format!(
                "a law ({}) reported a non-finite stiffness",
                names.join(", ")
            )));
        }
        let dt = match scene.timestep {
            TimeStep::Fixed(dt) => {
                if !positive(dt) {
                    return Err(scene.error(format!("timestep: Fixed({dt}) must be positive")));
                }
                if dt > critical_dt {
                    tracing::warn!(
                        "time step {dt:e} s exceeds the critical step estimate {critical_dt:e} s"
                    );
                }
                dt
            }
            TimeStep::Critical(f) => {
                if !(positive(f) && f <= 1.0 && critical_dt.is_finite()) {
                    return Err(scene.error(format!("timestep: Critical({f}) needs a fraction in (0, 1] and contacts with a finite stiffness")));
                }
                f * critical_dt
            }
        };
        let end_step = match scene.duration {
            Duration::Steps(0) => {
                return Err(scene.error("duration: Steps(0): a run needs at least one step"))
            }
            Duration::Steps(n) => n,
            Duration::Time(t) if !positive(t) => {
                return Err(scene.error(format!(
                    "duration: Time({t}) must be positive and finite, s"
                )))
            }
            Duration::Time(t) => (t / dt).ceil() as u64,
        };
        if scene.output.every == 0 {
            return Err(
                scene.error("output.every: must be at least 1 (steps between two outputs), got 0")
            );
        }
        let g = scene.gravity;
        let integrator = Integrator {
            gravity: Vector3::new(g[0], g[1], g[2]),
            damping: scene.damping,
            dt,
        };
        let eps = scene.contacts.contact_eps;
        let l6 = scene.contacts.l6geom;
        // Velocities at t = -dt/2 of the moving boundaries.
        for g in &boundaries.motions {
            g.set_velocities(&mut particles, -dt, dt);
        }
        let broad_phase = scene.contacts.broad_phase;
        let moving: BTreeSet<usize> = boundaries
            .motions
            .iter()
            .flat_map(|g| g.members.iter().copied())
            .collect();
        let periodic = match &scene.cell {
            None => None,
            Some(spec) => {
                let mut cell = crate::cell::Cell::from_spec(spec).map_err(|e| scene.error(e))?;
                let servo = match spec.stages.is_empty() {
                    true => None,
                    false => {
                        let servo = crate::servo::Servo::new(spec.stages.clone(), &cell)
                            .map_err(|e| scene.error(e))?;
                        // The first stage's gradient, until the servo has a stress.
                        cell.gradient = servo.gradient().unwrap_or_default();
                        cell.hdot = cell.gradient * cell.h;
                        Some(servo)
                    }
                };
                crate::images::check_scene(&cell, &particles, &integrator.gravity)
                    .map_err(|e| scene.error(format!("cell: {e}")))?;
                if let Some(k) = flow
                    .inlets
                    .iter()
                    .position(|inlet| inlet.maker.kind() != dem_api::ShapeKind::SPHERE)
                {
                    return Err(scene.error(format!(
                        "inlets[{k}].shape: only spheres are supported in a periodic cell"
                    )));
                }
                let mut per = Periodic::new(cell, 2.0 * rmax + reach + skin);
                per.servo = servo;
                per.check_widths()
                    .map_err(|e| scene.error(format!("cell: {e}")))?;
                Some(per)
            }
        };
        crate::stop::check(&scene.stop, &boundaries.motions).map_err(|e| scene.error(e))?;
        if !boundaries.clumps.is_empty() {
            let unsupported = [
                (
                    periodic.is_some(),
                    "cell: clumps are not supported in a periodic cell yet",
                ),
                (
                    !scene.inlets.is_empty() || !scene.outlets.is_empty(),
                    "inlets, outlets: not supported in a scene with clumps yet (an outlet \
                     would have to remove whole clumps)",
                ),
                (
                    scene.output.stress.is_some(),
                    "output.stress: not supported in a scene with clumps yet (the kinetic \
                     part and the solid fraction would count each member as a body)",
                ),
            ];
            if let Some((_, why)) = unsupported.iter().find(|(bad, _)| *bad) {
                return Err(scene.error(why));
            }
        }
        // Clump members are moved by their clumps: never reordered.
        let free = free_runs(particles.len(), |i| {
            particles.shape[i].bounding_radius().is_some()
                && !moving.contains(&i)
                && !particles.blocked[i].member()
        });
        let mut clump_of = vec![u32::MAX; particles.len()];
        for (k, c) in boundaries.clumps.iter().enumerate() {
            clump_of[c.members.clone()].fill(k as u32);
        }
        Ok(Simulation {
            scene,
            particles,
            order: ParticleOrder::default(),
            materials,
            material_names: names,
            dispatch,
            contacts: Contacts::default(),
            verlet: VerletList::with_method(broad_phase),
            integrator,
            step: 0,
            time: 0.0,
            end_step,
            ledger: Ledger::default(),
            energy_reference: None,
            energy_guard: true,
            critical_dt,
            motions: boundaries.motions,
            meshes: boundaries.meshes,
            clumps: boundaries.clumps,
            clump_of,
            timing: PhaseTimes::default(),
            contact_steps: 0,
            live_contacts: 0,
            periodic,
            flow,
            skin,
            reach,
            eps,
            l6,
            free,
            reorder_cell: 2.0 * rmax,
            views: Vec::new(),
            team: Team::default(),
        })
    }

    /// Time step, s.
    pub fn dt(&self) -> f64 {
        self.integrator.dt
    }

    /// Advances one step.
    pub fn step(&mut self) -> Result<(), DemError> {
        let mut clock = Instant::now();
        let mut fresh: Vec<usize> = match self.flow.inlets.is_empty() {
            true => Vec::new(),
            false => self.insert_from_inlets().collect(),
        };
        let p = &mut self.particles;
        let threads = rayon::current_num_threads();
        if self.team.size() != threads {
            self.team = Team::new(threads);
        }
        if let Some(per) = &mut self.periodic {
            per.sync(p);
            if per.stale(&self.verlet, &self.team) {
                let ranges = (self.reach, self.skin);
                self.ledger.boundary_work += per.rebuild(
                    p,
                    &mut self.contacts,
                    &mut self.verlet,
                    ranges,
                    &self.dispatch,
                )?;
            }
        } else if self.verlet.stale_in(p, &self.team) {
            if self.order.due(self.step, self.scene.contacts.reorder) {
                let cell = self.reorder_cell;
                if let Some(old_to_new) = self.order.reorder(p, &self.free, cell, self.step) {
                    self.contacts.renumber(&old_to_new);
                    for i in &mut fresh {
                        *i = old_to_new[*i] as usize;
                    }
                }
            }
            self.verlet.rebuild(p, self.reach, self.skin);
            if !self.clumps.is_empty() {
                // No contacts between the members of one clump.
                let of = &self.clump_of;
                self.verlet.pairs.retain(|&(a, b)| {
                    let k = of[a as usize];
                    k == u32::MAX || k != of[b as usize]
                });
            }
            self.contacts
                .rebuild(&self.verlet.pairs, p, &self.dispatch)?;
        }
        self.timing.broad_phase += lap(&mut clock);
        let mut views: Vec<ShapeView<'_>> = recycle(std::mem::take(&mut self.views));
        // The contacts read the periodic cell's extended table where there is one.
        let rows: &Particles = match &self.periodic {
            Some(per) => &per.ext,
            None => p,
        };
        // Each member makes the views of its own run of particles.
        let n = rows.shape.len();
        views.resize(n, ShapeView::of_sphere(&NO_SHAPE));
        {
            let parts = Parts::new(&mut views);
            let team = &self.team;
            team.run(|t| {
                let mine = team.range(n, t);
                // SAFETY: the members' ranges are disjoint.
                let out = unsafe { parts.take(mine.clone()) };
                for (v, s) in out.iter_mut().zip(&rows.shape[mine]) {
                    *v = s.view();
                }
            });
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
        let [geometry, law] = processed?;
        self.timing.geometry += geometry;
        self.timing.law += law;
        lap(&mut clock);
        let across = self
            .periodic
            .as_ref()
            .map(|per| per.fold(&mut self.contacts));
        // Forces start from the weights there.
        let totals = self
            .contacts
            .gather(p, &self.integrator.gravity, &self.team);
        self.timing.gather += lap(&mut clock);
        self.contact_steps += totals.active as u64;
        self.live_contacts = totals.active;
        self.ledger.elastic = totals.elastic;
        self.ledger.friction += totals.friction;
        self.ledger.damping += totals.damping;
        let watched = match self.flow.any() {
            true => self.watch(&fresh),
            false => Watched::default(),
        };
        let p = &mut self.particles;
        let dt = self.integrator.dt;
        for g in &mut self.motions {
            self.ledger.boundary_work += g.control(p, dt);
            self.ledger.boundary_work += g.step_velocities(p, self.time, dt);
        }
        if !self.integrator.step_in(p, &mut self.ledger, &self.team) {
            self.check_finite()?;
        }
        if !self.clumps.is_empty()
            && !crate::clump::body::step(
                &mut self.clumps,
                &mut self.particles,
                &self.integrator,
                &mut self.ledger,
            )
        {
            self.check_finite()?;
        }
        if !watched.is_empty() {
            self.settle_flow(watched)?;
        }
        if let (Some(per), Some(t)) = (&mut self.periodic, across) {
            let before = per.cell.advance(dt);
            self.ledger.boundary_work += Periodic::boundary_work(&t, &before, &per.cell.hdot, dt);
        }
        self.check_energy()?;
        self.step += 1;
        self.time = self.step as f64 * dt;
        for g in &self.motions {
            g.set_poses(&mut self.particles, self.time);
        }
        self.control_cell();
        if crate::stop::reached(self) {
            self.end_step = self.end_step.min(self.step);
        }
        self.timing.integration += lap(&mut clock);
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
        );
        // What a change of population renumbers or counts.
        let population = self.flow.any().then(|| {
            (
                self.flow.clone(),
                self.free.clone(),
                self.motions.clone(),
                self.meshes.clone(),
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
            ) = saved;
            if let Some(population) = population {
                (self.flow, self.free, self.motions, self.meshes) = population;
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

    /// Runs `n` steps.
    pub fn run_steps(&mut self, n: u64) -> Result<(), DemError> {
        for _ in 0..n {
            self.step()?;
        }
        Ok(())
    }

    /// The run guards on the ledger (see [`crate::guards`]).
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
