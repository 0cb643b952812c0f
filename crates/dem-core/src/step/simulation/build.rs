//! Building a [`Simulation`] from a parsed scene: materials, bodies, functors and laws,
//! the time step, moving boundaries, inlets and outlets, the periodic cell and clumps,
//! each checked with an error naming the scene's field.

use super::*;
use crate::model::particles::Shape;

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
        let boundaries = expand_bodies(&scene, &index, plugins, &mut particles)?;
        let exchanges =
            crate::setup::plugin_exchanges::build(&scene, plugins, &index, &mut particles)?;
        particles.shrink_to_fit();
        let flow = super::population::build_flow(&scene, &index, &materials, plugins)?;
        if !exchanges.is_empty() {
            let unsupported = [(
                !boundaries.clumps.is_empty() || flow.inserts_clumps(),
                "clumps",
            )];
            if let Some((_, what)) = unsupported.iter().find(|(bad, _)| *bad) {
                return Err(
                    scene.error(format!("fields: not supported in a scene with {what} yet"))
                );
            }
        }
        for (k, inlet) in scene.inlets.iter().enumerate() {
            for (name, v) in &inlet.fields {
                if exchanges.field(name).is_none() || !v.is_finite() {
                    return Err(scene.error(format!(
                        "inlets[{k}].fields.{name}: {v} is not a finite value of a field of \
                         the scene's `fields`"
                    )));
                }
            }
        }
        crate::setup::meeting::check_rigid(&scene, &names, &particles, &flow)?;
        let (kinds, mats) = crate::setup::meeting::pairs(&particles, &flow);
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
        let rmax = flow.inlets.iter().map(|inlet| inlet.max_radius()).fold(
            crate::engines::broadphase::typical_radius(&particles),
            f64::max,
        );
        let reach = dispatch.laws.iter().map(|l| l.distance).fold(0.0, f64::max)
            + scene.contacts.contact_eps;
        let skin = scene.contacts.skin * rmax;
        if !positive(skin) {
            return Err(scene.error(
                "contacts.skin: must be positive (and the scene needs at least one sphere)",
            ));
        }
        let mut clump = vec![u32::MAX; particles.len()];
        for (c, body) in boundaries.clumps.iter().enumerate() {
            clump[body.members.clone()].fill(c as u32);
        }
        let bonds = crate::setup::plugin_bonds::build(&scene, plugins, &index, &particles, &clump)?;
        if !bonds.is_empty() && scene.cell.is_some() {
            return Err(scene.error(
                "bonds: not supported in a periodic cell yet (a bond across a face would need \
                 the image of its sphere)",
            ));
        }
        crate::scene::crowding::check(
            &scene,
            &particles,
            &clump,
            skin,
            crate::scene::budget::available_memory(),
        )?;
        if scene.contacts.skin > MAX_SKIN {
            return Err(scene.error(format!(
                "contacts.skin: {} is more than {MAX_SKIN} radii: every particle would have \
                 every other within that distance as a candidate pair, each with a geometry \
                 call at every step (0.1 to 1 is usual)",
                scene.contacts.skin
            )));
        }

        let fluid = match &scene.fluid {
            None => None,
            Some(spec) => {
                spec.check().map_err(|e| scene.error(e))?;
                let shape = Shape::aspherical;
                let inserted = |i: &crate::engines::inlet::Inlet| {
                    !matches!(i.maker.template, crate::engines::template::Template::Sphere)
                };
                if particles.shape.iter().any(shape)
                    || particles.blocked.iter().any(|b| b.member())
                    || flow.inlets.iter().any(inserted)
                {
                    return Err(scene.error(
                        "fluid: the drag acts on spheres only; this scene has polyhedra, plugin shapes \
                         or clumps",
                    ));
                }
                Some(Fluid::new(spec))
            }
        };
        let critical_dt =
            crate::engines::critical_step::critical_step(&particles, &materials, &dispatch, &flow);
        if critical_dt.is_nan() {
            let names: Vec<&str> = dispatch.laws.iter().map(|l| l.name.as_str()).collect();
            return Err(scene.error(format!(
                "a law ({}) reported a non-finite stiffness",
                names.join(", ")
            )));
        }
        let bonded_dt = bonds.critical_step(&particles, &materials, &ParticleOrder::default());
        if bonded_dt.is_nan() {
            let names: Vec<&str> = bonds.laws.iter().map(|l| l.name.as_str()).collect();
            return Err(scene.error(format!(
                "a bond law ({}) reported a non-finite or negative stiffness",
                names.join(", ")
            )));
        }
        let field_dt = exchanges
            .critical_step(&particles, &materials)
            .map_err(|e| scene.error(format!("exchanges: {e}")))?;
        let critical_dt = critical_dt.min(bonded_dt).min(field_dt);
        // The contacts' and bonds' shortest period, and the fluid's shortest relaxation
        // time.
        let critical_dt = match &fluid {
            Some(f) => critical_dt.min(f.relaxation_time(&particles)),
            None => critical_dt,
        };
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
        if !dt.is_normal() {
            return Err(scene.error(format!(
                "timestep: gives dt = {dt:e} s, too small to advance the time (at least {:e} \
                 s)",
                f64::MIN_POSITIVE
            )));
        }
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
        if scene.output.frames == Some(0) {
            return Err(scene
                .error("output.frames: must be at least 1 (steps between two VTK frames), got 0"));
        }
        if let Some(f) = &scene.output.fields {
            if let Err(why) = f.grid.check().and(f.kernel.check()) {
                return Err(scene.error(format!("output.fields: {why}")));
            }
        }
        let count = particles.len() as u64;
        if let Some(id) = scene.output.track.iter().find(|&&id| id >= count) {
            return Err(scene.error(format!(
                "output.track: no particle has id {id} (the scene starts with {count} \
                 particles, walls included: ids 0 to {})",
                count.saturating_sub(1)
            )));
        }
        let g = scene.gravity;
        if !g.iter().all(|x| x.abs() <= MAX_GRAVITY) {
            return Err(scene.error(format!(
                "gravity: every component must be finite and at most {MAX_GRAVITY:e} m/s^2 in \
                 size, got ({:e}, {:e}, {:e})",
                g[0], g[1], g[2]
            )));
        }
        let integrator = Integrator {
            gravity: Vector3::new(g[0], g[1], g[2]),
            damping: scene.damping,
            dt,
            sphere_orientation: scene.output.sphere_orientation
                || dispatch.reads_sphere_orientation(),
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
                let mut cell =
                    crate::model::cell::Cell::from_spec(spec).map_err(|e| scene.error(e))?;
                let servo = match spec.stages.is_empty() {
                    true => None,
                    false => {
                        let servo = crate::engines::servo::Servo::new(spec.stages.clone(), &cell)
                            .map_err(|e| scene.error(e))?;
                        // The first stage's gradient, until the servo has a stress.
                        cell.gradient = servo.gradient().unwrap_or_default();
                        cell.hdot = cell.gradient * cell.h;
                        Some(servo)
                    }
                };
                crate::engines::images::check_scene(&cell, &particles)
                    .map_err(|e| scene.error(format!("cell: {e}")))?;
                if let Some(k) = flow
                    .inlets
                    .iter()
                    .position(|inlet| !inlet.maker.is_sphere())
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
        let stages = periodic.as_ref().is_some_and(|p| p.servo.is_some());
        crate::engines::stop::check(&scene.stop, &boundaries.motions, stages)
            .map_err(|e| scene.error(e))?;
        if !boundaries.clumps.is_empty() || flow.inserts_clumps() {
            let unsupported = [
                (
                    periodic.is_some(),
                    "cell: clumps are not supported in a periodic cell yet",
                ),
                (
                    scene.output.stress.is_some(),
                    "output.stress: not supported in a scene with clumps yet (the kinetic \
                     part and the solid fraction would count each member as a body)",
                ),
                (
                    scene.output.fields.is_some(),
                    "output.fields: not supported in a scene with clumps yet (each member \
                     would count as a body)",
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
            threads: Threads::default(),
            chooser: Default::default(),
            ranks: None,
            applied: Default::default(),
            changes: Default::default(),
            fluid,
            reshaped: false,
            exchanges,
            bonds,
        })
    }
}
