//! Bodies of any free kind added from outside between two steps, written as a scene
//! writes its `bodies`: spheres, polyhedra, clumps, plugin shapes ([`Simulation::add_bodies_with`])
//! and their generators (`Lattice`, `RandomFill`, `Rocks`, `ClumpFill`, `ShapeFill`), e.g.
//! `[Polyhedron(vertices: [...], material: "rock"), Clump(template: "pair", position: (0, 0, 0.1), material: "glass")]`.
//!
//! Each is made exactly as the scene's bodies are (the same code), appended with the next
//! scene ids, and what it brings to the ledger (`m v^2 / 2`, `w . I w / 2`, `-m g . x`) is
//! booked as `inflow`, as for [`Simulation::add_spheres`]. Refused with the reason named,
//! nothing added: text the scene parser refuses (its line and field named), walls, boxes,
//! meshes, CSV imports and blocked degrees of freedom (bodies added from outside are
//! free), a rigid material, a body that overlaps a particle present or another added one
//! (by its bounding sphere for a polyhedron: placed clear as an inlet places it), a shape
//! or material the run has no geometry functor or law for (those are chosen when the run
//! is built: put a body of that kind in the scene), a size whose critical step is below
//! the time step, and runs on several ranks. Checkpoints keep the bodies whole.

use super::Simulation;
use crate::engines::critical_step::critical_step;
use crate::engines::flow::Flow;
use crate::model::particles::{Particles, Shape};
use crate::model::plugin_body::{NoShapes, ShapeSource};
use crate::scene::{expand_bodies, parse_ron, BodySpec};
use dem_api::ShapeKind;
use nalgebra::{UnitQuaternion, Vector3};
use std::collections::BTreeMap;

impl Simulation {
    /// Adds the bodies of `text` (a RON list of scene bodies, see the module docs) between
    /// two steps; returns the scene ids of their particles (a clump's members).
    pub fn add_bodies(&mut self, text: &str) -> Result<Vec<u64>, String> {
        self.add_bodies_with(&NoShapes, text)
    }

    /// [`Simulation::add_bodies`] with bodies of plugin shapes (`Shaped`, `ShapeFill`)
    /// too, which `shapes` (the run's plugins) builds.
    pub fn add_bodies_with(
        &mut self,
        shapes: &dyn ShapeSource,
        text: &str,
    ) -> Result<Vec<u64>, String> {
        if self.ranks.is_some() {
            return Err("bodies cannot be added from outside on several ranks".into());
        }
        if !self.exchanges.is_empty() {
            return Err("bodies cannot be added in a scene with particle fields yet".into());
        }
        let origin = self.scene.origin.with_file_name("(added bodies)");
        let specs: Vec<BodySpec> = parse_ron(text, &origin).map_err(|e| e.to_string())?;
        for (k, spec) in specs.iter().enumerate() {
            refuse_kind(spec).map_err(|why| format!("bodies[{k}]: {why}"))?;
        }
        let index: BTreeMap<String, u32> = (self.material_names.iter().cloned()).zip(0..).collect();
        // The scene's own expansion, with these bodies in place of its own for the time
        // of the call (so that errors name them and their place in `text`).
        let scene = &mut self.scene;
        let own = (
            std::mem::replace(&mut scene.bodies, specs),
            std::mem::replace(&mut scene.text, text.to_string()),
            std::mem::replace(&mut scene.origin, origin),
        );
        let mut fresh = Particles::default();
        let made = expand_bodies(scene, &index, shapes, &mut fresh);
        (scene.bodies, scene.text, scene.origin) = own;
        let made = made.map_err(|e| e.to_string())?;
        if fresh.is_empty() {
            return Ok(Vec::new());
        }
        self.served(&fresh)?;
        self.clear_of(&fresh, &made.clumps)?;
        let critical = critical_step(&fresh, &self.materials, &self.dispatch, &Flow::default());
        let dt = self.integrator.dt;
        if critical.is_nan() || (dt > critical && dt <= self.critical_dt) {
            return Err(format!(
                "their critical step estimate {critical:e} s is below the time step {dt:e} s \
                 (the time step is fixed when the run is built)"
            ));
        }
        self.critical_dt = self.critical_dt.min(critical);
        let n = self.particles.len();
        let g = self.integrator.gravity;
        let mut brought = [0.0; 3];
        for i in 0..fresh.len() {
            let p = &fresh;
            let k = self.particles.push(
                p.shape[i].clone(),
                p.pos[i],
                p.vel[i],
                p.angvel[i],
                p.mass[i],
                p.inertia[i],
                p.blocked[i],
                p.material[i],
            );
            self.particles.ori[k] = p.ori[i];
            if !p.blocked[i].member() {
                let e = energies(
                    p.mass[i],
                    p.inertia[i],
                    (p.pos[i], p.vel[i]),
                    (p.ori[i], p.angvel[i]),
                    &g,
                );
                brought.iter_mut().zip(e).for_each(|(b, e)| *b += e);
            }
        }
        for mut c in made.clumps {
            c.members = c.members.start + n..c.members.end + n;
            let e = energies(c.mass, c.inertia, (c.pos, c.vel), (c.ori, c.angvel), &g);
            brought.iter_mut().zip(e).for_each(|(b, e)| *b += e);
            self.clumps.push(c);
        }
        self.book_inflow(brought);
        Ok(self.appended(n))
    }

    /// Books what added bodies bring (kinetic, rotational and potential energy, J) as
    /// `inflow`, added to those entries so that the total stays.
    pub(super) fn book_inflow(&mut self, [kinetic, rotational, potential]: [f64; 3]) {
        self.ledger.kinetic += kinetic;
        self.ledger.rotational += rotational;
        self.ledger.potential += potential;
        self.ledger.inflow += kinetic + rotational + potential;
    }

    /// Takes in the particles pushed from storage index `n` on (scene ids, clumps, free
    /// runs, periodic images); returns their scene ids.
    pub(super) fn appended(&mut self, n: usize) -> Vec<u64> {
        let added = self.particles.len() - n;
        if added == 0 {
            return Vec::new();
        }
        self.order.append(n, added);
        self.reindex_clumps();
        self.refresh_free_runs();
        if let Some(per) = &mut self.periodic {
            per.grow(&self.particles, &mut self.contacts);
        }
        self.reshaped = true;
        (n..n + added).map(|i| self.order.id(i) as u64).collect()
    }

    /// Fails unless the run has a geometry functor for every pair of shapes and a law for
    /// every pair of materials the bodies `fresh` can meet, and their materials are not
    /// rigid.
    fn served(&self, fresh: &Particles) -> Result<(), String> {
        let mut all = self.particles.clone();
        for i in 0..fresh.len() {
            all.push(
                fresh.shape[i].clone(),
                fresh.pos[i],
                fresh.vel[i],
                fresh.angvel[i],
                fresh.mass[i],
                fresh.inertia[i],
                fresh.blocked[i],
                fresh.material[i],
            );
        }
        let (kinds, mats) = crate::setup::meeting::pairs(&all, &self.flow);
        let name = |m: u32| self.material_names[m as usize].as_str();
        if let Some(&m) = fresh
            .material
            .iter()
            .find(|&&m| self.materials[m as usize].young.is_infinite())
        {
            return Err(format!(
                "material `{}` is rigid: it is for walls and mesh facets only",
                name(m)
            ));
        }
        let new_kinds: Vec<ShapeKind> = (0..fresh.len()).map(|i| fresh.shape[i].kind()).collect();
        let shape_name = |k: ShapeKind| {
            all.shape
                .iter()
                .find(|s| s.kind() == k)
                .map_or("Unknown", |s| s.name())
        };
        for (a, b) in kinds {
            if (new_kinds.contains(&a) || new_kinds.contains(&b))
                && !self.dispatch.shape_table.contains_key(&(a, b))
            {
                return Err(format!(
                    "the run has no geometry functor for {} + {} (functors are chosen when the \
                     run is built: put a body of that shape in the scene)",
                    shape_name(a),
                    shape_name(b)
                ));
            }
        }
        for (a, b) in mats {
            let new = fresh.material.contains(&a) || fresh.material.contains(&b);
            if new && !self.dispatch.law_table.contains_key(&(a, b)) {
                return Err(format!(
                    "laws: no contact law for materials `{}` and `{}`",
                    name(a),
                    name(b)
                ));
            }
        }
        Ok(())
    }

    /// Fails if a body of `fresh` (whose clumps are `clumps`) overlaps a particle present
    /// or another of them: spheres and clump members by their radius, polyhedra by their
    /// bounding sphere; against a wall, its side (a one-sided wall's particles are on its
    /// `sense` side).
    fn clear_of(
        &self,
        fresh: &Particles,
        clumps: &[crate::engines::clump::ClumpBody],
    ) -> Result<(), String> {
        let p = &self.particles;
        let clump_of = |i: usize| clumps.iter().position(|c| c.members.contains(&i));
        let what = |i: usize| match clump_of(i) {
            Some(c) => format!("added clump {c} (its member {i})"),
            None => format!("added body {i}"),
        };
        for i in 0..fresh.len() {
            let Some(r) = fresh.shape[i].bounding_radius() else {
                continue;
            };
            let x = fresh.pos[i];
            for j in 0..p.len() {
                let gap = match &p.shape[j] {
                    Shape::Wall(w) => {
                        let normal = Vector3::new(w.normal.x, w.normal.y, w.normal.z);
                        let d = (x - p.pos[j]).dot(&normal);
                        let d = if w.sense == 0 {
                            d.abs()
                        } else {
                            d * f64::from(w.sense.signum())
                        };
                        d - r
                    }
                    s => match s.bounding_radius() {
                        Some(rj) => (x - p.pos[j]).norm() - r - rj,
                        None => continue,
                    },
                };
                if gap < 0.0 {
                    return Err(format!(
                        "{} overlaps particle {} by {:e} m",
                        what(i),
                        self.order.id(j),
                        -gap
                    ));
                }
            }
            for j in 0..i {
                let same = clump_of(i).is_some() && clump_of(i) == clump_of(j);
                let Some(rj) = fresh.shape[j].bounding_radius() else {
                    continue;
                };
                if !same && (x - fresh.pos[j]).norm() < r + rj {
                    return Err(format!("{} overlaps {}", what(i), what(j)));
                }
            }
        }
        Ok(())
    }
}

/// Refuses what cannot be added from outside: walls, boxes, meshes, CSV imports and
/// blocked degrees of freedom.
fn refuse_kind(spec: &BodySpec) -> Result<(), String> {
    match spec {
        BodySpec::Wall { .. } | BodySpec::Box { .. } | BodySpec::Mesh { .. } => {
            Err("walls, boxes and meshes are chosen when the run is built, not added".into())
        }
        BodySpec::Csv { .. } => Err("CSV imports are read when the run is built".into()),
        BodySpec::Sphere { blocked, .. }
        | BodySpec::Polyhedron { blocked, .. }
        | BodySpec::Shaped { blocked, .. }
            if !blocked.is_empty() =>
        {
            Err("bodies added from outside are free: no blocked degrees of freedom".into())
        }
        _ => Ok(()),
    }
}

/// Kinetic, rotational and potential energy of a body of mass `m` and principal moments
/// `inertia` at `x` moving at `v`, turned by `ori` (principal axes to global) and spinning
/// at `w` (global), under gravity `g`, J.
fn energies(
    m: f64,
    inertia: Vector3<f64>,
    (x, v): (Vector3<f64>, Vector3<f64>),
    (ori, w): (UnitQuaternion<f64>, Vector3<f64>),
    g: &Vector3<f64>,
) -> [f64; 3] {
    let wb = ori.inverse() * w;
    [
        0.5 * m * v.norm_squared(),
        0.5 * inertia.component_mul(&wb).dot(&wb),
        -m * g.dot(&x),
    ]
}
