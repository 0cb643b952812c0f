//! Bonds between spheres (dem-api 0.5.5; see [`dem_api::bond`]): pair interactions that
//! outlive contact, made at t = 0 by the scene's rules and broken by their law.
//!
//! A bond is kept by the scene ids of its two spheres, so that it follows them through
//! every reordering; the list is sorted by those ids. Every step (after the contacts'
//! forces are gathered) the threads compute the bonds, each a run of the list, and the
//! forces are then applied and the energies summed in list order, so that the sums depend
//! neither on the number of threads nor on the run's history, and a checkpoint restores
//! the list as it was.
//!
//! Each step a bond's geometry is that of a contact between its two spheres, whatever
//! their gap: normal along the line of centres, gap `|x2 - x1| - r1 - r2`, point half-way
//! between the two surfaces; its local frame, shear displacement and relative rotation
//! are carried by the L6Geom update ([`crate::engines::l6geom`]), made on the bond's first
//! step. The law's force acts on the spheres as a contact's does (the same moments, so
//! the work the spheres receive is the work the law's displacements book), beside the
//! force of any contact of the pair.
//!
//! **Energy.** The bonds' stored energy is part of the ledger's `elastic`, their damping
//! of `damping`. A bond that breaks applies nothing at that step; the ledger books as
//! `broken` the energy it held plus the half step of work its force would have done
//! (`dt/2` times the force and torque against the rates at `t - dt/2`: the term of the
//! leap-frog invariant that the missing force leaves out), so that the total stays
//! continuous. A bond whose sphere an outlet removes goes with it (its energy into the
//! ledger's outflow).

use crate::engines::l6geom::{contact_torques, BodyKin, L6Options, L6State};
use crate::engines::reorder::ParticleOrder;
use crate::model::energy::Ledger;
use crate::model::particles::{Particles, Shape};
use crate::support::error::DemError;
use crate::support::team::{FirstError, Parts, Team};
use dem_api::{BondBox, BondInput, BondStiffness, L6Geom, LawPair, Material, RawGeom, Vec3};
use nalgebra::{Matrix3, Vector3};
use serde::{Deserialize, Serialize};

/// A rule that makes bonds during the run (a scene's `reform`).
#[derive(Clone, Debug, PartialEq)]
pub struct Reform {
    /// Steps between two passes.
    pub every: u64,
    /// The largest gap of a pair it bonds, m.
    pub within: f64,
    /// The materials of the two spheres (indices of the simulation's materials).
    pub materials: (Vec<u32>, Vec<u32>),
}

/// One bond law the scene chose, with the pairs of materials it joins.
pub struct BondLawEntry {
    /// Bond law name.
    pub name: String,
    /// Plugin name.
    pub plugin: String,
    /// The two material names of its scene entry (`"*"` for any).
    pub materials: (String, String),
    /// Names of its per-bond state slots.
    pub slots: Vec<String>,
    /// Its rule's bonding during the run, if the scene asks for it.
    pub reform: Option<Reform>,
    /// The plugin's object.
    pub functor: BondBox,
}

/// One intact bond.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Bond {
    /// Scene ids of its two spheres, the smaller first (body 1).
    pub ids: [u64; 2],
    /// Its law (index into [`Bonds::laws`]).
    pub law: u32,
    /// Its geometry, from its first step on.
    pub l6: Option<L6State>,
    /// The law's state slots.
    pub state: Vec<f64>,
    /// The force of its law on sphere 2 at its last step, global frame, N.
    pub force: Vector3<f64>,
    /// Its elastic energy at its last step, J.
    pub elastic: f64,
}

/// The bonds of a run: what changes as it goes (cloned by a step that may have to be
/// undone, saved by checkpoints).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct BondSet {
    /// The intact bonds, sorted by `ids`.
    pub list: Vec<Bond>,
    /// Bonds made at t = 0.
    pub made: u64,
    /// Bonds broken since t = 0.
    pub broken: u64,
    /// Bonds gone with a sphere an outlet removed.
    pub removed: u64,
}

/// What the bonds of one step add to the ledger (see [`BondSums::book`]).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct BondSums {
    /// Energy stored in the intact bonds now, J.
    pub elastic: f64,
    /// Energy their damping dissipated over the step, J.
    pub damping: f64,
    /// Energy released by the bonds that broke at the step, J.
    pub released: f64,
    /// Energy of the bonds gone with a removed sphere, J.
    pub outflow: f64,
}

impl BondSums {
    /// Adds the step's bond energies to `ledger`, after the contacts' (whose `elastic`
    /// the contacts' booking sets).
    pub fn book(&self, ledger: &mut Ledger) {
        ledger.elastic += self.elastic;
        ledger.damping += self.damping;
        ledger.broken += self.released;
        ledger.outflow += self.outflow;
    }
}

/// The bond laws of a scene and its bonds.
#[derive(Default)]
pub struct Bonds {
    /// The scene's bond laws, in the order of its `bonds` rules.
    pub laws: Vec<BondLawEntry>,
    /// The bonds.
    pub set: BondSet,
    /// The step's outcome of each bond (a buffer kept between steps).
    outcomes: Vec<Outcome>,
}

/// How a bond's step ended.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
enum End {
    /// It holds: its force acts.
    #[default]
    Holds,
    /// It broke: nothing acts, its energy is released.
    Broke,
    /// One of its spheres is gone.
    Gone,
}

/// What one bond's step gives, applied by the caller in list order.
#[derive(Clone, Copy, Debug, Default)]
struct Outcome {
    end: End,
    /// Storage indices of its spheres.
    spheres: [u32; 2],
    /// The force on sphere 2 (sphere 1 takes its opposite), global frame, N.
    force: Vector3<f64>,
    /// The torques on spheres 1 and 2 (the force's moments and the law's torque), N m.
    torques: [Vector3<f64>; 2],
    /// Energy stored (holds) or released (broke), J.
    elastic: f64,
    /// Energy dissipated over the step, J.
    damping: f64,
}

/// A sphere's radius (bonds join spheres only; the set-up refuses the rest).
fn radius(p: &Particles, i: usize) -> f64 {
    match &p.shape[i] {
        Shape::Sphere(s) => s.radius,
        _ => f64::NAN,
    }
}

fn kin(p: &Particles, i: usize) -> BodyKin {
    BodyKin {
        pos: p.pos[i],
        vel: p.vel[i],
        angvel: p.angvel[i],
    }
}

fn v3(v: &Vector3<f64>) -> Vec3 {
    Vec3::new(v.x, v.y, v.z)
}

fn na(v: &Vec3) -> Vector3<f64> {
    Vector3::new(v.x, v.y, v.z)
}

impl Bonds {
    /// Does the scene have bond laws (and so, perhaps, bonds)?
    pub fn is_empty(&self) -> bool {
        self.laws.is_empty()
    }

    /// The pair of spheres `i`, `j` as a bond law sees it.
    fn pair(p: &Particles, materials: &[Material], i: usize, j: usize) -> LawPair {
        LawPair {
            radius: [radius(p, i), radius(p, j)],
            mass: [p.law_mass(i), p.law_mass(j)],
            material: [
                materials[p.material[i] as usize],
                materials[p.material[j] as usize],
            ],
        }
    }

    /// The shortest period of a sphere on its bonds, s: `min sqrt(m / k)` over spheres of
    /// finite mass, `k` the sum of their bonds' normal or shear stiffness (the larger),
    /// and `min sqrt(I / k_r)`, `k_r` the sum of their twisting or bending stiffness (the
    /// larger) plus the shear stiffness times the squared radius (the shear force's lever
    /// arm). Infinite without bonds; NaN when a law reports a non-finite stiffness.
    pub fn critical_step(
        &self,
        p: &Particles,
        materials: &[Material],
        order: &ParticleOrder,
    ) -> f64 {
        let n = p.len();
        let mut k = vec![[0.0f64; 2]; n];
        for b in &self.set.list {
            let (i, j) = (
                order.index(b.ids[0] as usize),
                order.index(b.ids[1] as usize),
            );
            let s: BondStiffness = self.laws[b.law as usize]
                .functor
                .stiffness(&Self::pair(p, materials, i, j));
            let all = [s.normal, s.shear, s.twist, s.bending];
            if all.iter().any(|x| !(x.is_finite() && *x >= 0.0)) {
                return f64::NAN;
            }
            for x in [i, j] {
                let r = radius(p, x);
                k[x][0] += s.normal.max(s.shear);
                k[x][1] += s.twist.max(s.bending) + s.shear * r * r;
            }
        }
        let mut best = f64::INFINITY;
        for (x, [kt, kr]) in k.into_iter().enumerate() {
            if !p.mass[x].is_finite() {
                continue;
            }
            if kt > 0.0 {
                best = best.min((p.mass[x] / kt).sqrt());
            }
            let inertia = p.inertia[x].min();
            if kr > 0.0 && inertia > 0.0 {
                best = best.min((inertia / kr).sqrt());
            }
        }
        best
    }

    /// One step of every bond: its geometry and law at t, its force and moments added to
    /// the spheres' (after the contacts' gather); returns the energies to book (see
    /// [`BondSums::book`]). A bond that breaks, or whose sphere is gone, leaves the list.
    ///
    /// The bonds are computed by the members of `team`, each a run of the list (a bond
    /// reads the particles and writes only itself), then applied to the spheres and
    /// summed in list order by the caller: the same bits for any number of members.
    #[allow(clippy::too_many_arguments)]
    pub fn step(
        &mut self,
        p: &mut Particles,
        order: &ParticleOrder,
        materials: &[Material],
        dt: f64,
        step: u64,
        opt: &L6Options,
        team: &Team,
    ) -> Result<BondSums, DemError> {
        let count = self.set.list.len();
        let mut outcomes = std::mem::take(&mut self.outcomes);
        outcomes.clear();
        outcomes.resize(count, Outcome::default());
        {
            let laws = &self.laws;
            let bonds = Parts::new(&mut self.set.list);
            let outs = Parts::new(&mut outcomes);
            let first = FirstError::new();
            let particles: &Particles = p;
            team.run(|t| {
                let r = team.range(count, t);
                // SAFETY: the members' ranges are disjoint.
                let (bonds, outs) = unsafe { (bonds.take(r.clone()), outs.take(r.clone())) };
                for (k, (b, o)) in bonds.iter_mut().zip(outs).enumerate() {
                    match advance(b, laws, particles, order, materials, dt, step, opt) {
                        Ok(done) => *o = done,
                        Err(e) => {
                            first.keep(r.start + k, e);
                            return;
                        }
                    }
                }
            });
            first.into_result()?;
        }
        let mut sums = BondSums::default();
        let (mut broken, mut removed) = (0u64, 0u64);
        for (b, o) in self.set.list.iter_mut().zip(&outcomes) {
            match o.end {
                End::Holds => {
                    let (i, j) = (o.spheres[0] as usize, o.spheres[1] as usize);
                    p.force[i] -= o.force;
                    p.force[j] += o.force;
                    p.torque[i] += o.torques[0];
                    p.torque[j] += o.torques[1];
                    sums.elastic += o.elastic;
                    b.force = o.force;
                    b.elastic = o.elastic;
                }
                End::Broke => {
                    sums.released += o.elastic;
                    broken += 1;
                }
                End::Gone => {
                    sums.outflow += b.elastic;
                    removed += 1;
                }
            }
            sums.damping += o.damping;
        }
        let mut k = 0;
        self.set.list.retain(|_| {
            k += 1;
            outcomes[k - 1].end == End::Holds
        });
        self.set.broken += broken;
        self.set.removed += removed;
        self.outcomes = outcomes;
        Ok(sums)
    }

    /// Adds a bond of law `law` between each of `pairs` (scene ids, the smaller first)
    /// that holds none, unloaded at its next step; returns how many were made.
    pub fn make(&mut self, law: u32, pairs: impl IntoIterator<Item = [u64; 2]>) -> u64 {
        let slots = self.laws[law as usize].slots.len();
        let held: std::collections::BTreeSet<[u64; 2]> =
            self.set.list.iter().map(|b| b.ids).collect();
        let before = self.set.list.len();
        for ids in pairs {
            if !held.contains(&ids) {
                self.set.list.push(Bond {
                    ids,
                    law,
                    l6: None,
                    state: vec![0.0; slots],
                    force: Vector3::zeros(),
                    elastic: 0.0,
                });
            }
        }
        let made = (self.set.list.len() - before) as u64;
        if made > 0 {
            self.set.list.sort_by_key(|b| b.ids);
            self.set.list.dedup_by_key(|b| b.ids);
            self.set.made += made;
        }
        made
    }

    /// The storage indices of the spheres of the intact bonds, sorted: on ranks, every
    /// rank computes every bond, so these are shared at every step (see
    /// [`crate::engines::ranks::Ranks::find_ghosts`]).
    pub fn spheres(&self, order: &ParticleOrder, n: usize) -> Vec<u32> {
        let mut out: Vec<u32> = self
            .set
            .list
            .iter()
            .flat_map(|b| b.ids.map(|id| order.index(id as usize)))
            .filter(|&i| i < n)
            .map(|i| i as u32)
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }
}

/// One bond's step: its geometry carried to t, its law called; what it gives, not yet
/// applied.
#[allow(clippy::too_many_arguments)]
fn advance(
    b: &mut Bond,
    laws: &[BondLawEntry],
    p: &Particles,
    order: &ParticleOrder,
    materials: &[Material],
    dt: f64,
    step: u64,
    opt: &L6Options,
) -> Result<Outcome, DemError> {
    let n = p.len();
    let (i, j) = (
        order.index(b.ids[0] as usize),
        order.index(b.ids[1] as usize),
    );
    if i >= n || j >= n {
        return Ok(Outcome {
            end: End::Gone,
            ..Outcome::default()
        });
    }
    let law = &laws[b.law as usize];
    let (r1, r2) = (radius(p, i), radius(p, j));
    let d = p.pos[j] - p.pos[i];
    let dist = d.norm();
    let normal = d / dist;
    let gap = dist - r1 - r2;
    let raw = RawGeom {
        touching: 1,
        point: v3(&(p.pos[i] + normal * (r1 + 0.5 * gap))),
        normal: v3(&normal),
        gap,
        radius1: r1,
        radius2: r2,
        area: std::f64::consts::PI * r1.min(r2).powi(2),
        weight: 1.0,
    };
    let (b1, b2) = (kin(p, i), kin(p, j));
    let is_new = b.l6.is_none();
    let l6 = match &mut b.l6 {
        Some(l6) => {
            l6.update(&raw, &b1, &b2, dt, opt);
            l6
        }
        None => b.l6.insert(L6State::create(&raw, &b1, &b2, opt)),
    };
    let mut geom = L6Geom::default();
    l6.write_api(&mut geom);
    let input = BondInput {
        geom,
        pair: Bonds::pair(p, materials, i, j),
        dt,
        is_new: is_new as u32,
    };
    let out = law.functor.bond(&input, b.state.as_mut_slice().into());
    let values = [
        out.force.x,
        out.force.y,
        out.force.z,
        out.torque.x,
        out.torque.y,
        out.torque.z,
        out.elastic,
        out.damping,
    ];
    if values.iter().any(|x| !x.is_finite()) || !normal.iter().all(|x| x.is_finite()) {
        return Err(DemError::BondCall {
            step,
            plugin: law.plugin.clone(),
            law: law.name.clone(),
            a: b.ids[0],
            b: b.ids[1],
            message: format!(
                "returned force {:?}, torque {:?}, elastic {}, damping {} at a gap of {gap:e} \
                 m (every value must be finite)",
                [out.force.x, out.force.y, out.force.z],
                [out.torque.x, out.torque.y, out.torque.z],
                out.elastic,
                out.damping
            ),
        });
    }
    let spheres = [i as u32, j as u32];
    if out.broken != 0 {
        let rates = out.force.x * geom.u_dot.x
            + out.force.y * geom.u_dot.y
            + out.force.z * geom.u_dot.z
            + out.torque.x * geom.phi_dot.x
            + out.torque.y * geom.phi_dot.y
            + out.torque.z * geom.phi_dot.z;
        tracing::debug!(target: "dem::bond", step, a = b.ids[0], b = b.ids[1], "bond broke");
        return Ok(Outcome {
            end: End::Broke,
            spheres,
            elastic: out.elastic + 0.5 * dt * rates,
            damping: out.damping,
            ..Outcome::default()
        });
    }
    // Local to global: the frame's rows are the local axes.
    let to_global = |v: &Vec3| -> Vector3<f64> {
        let t: Matrix3<f64> = l6.frame.transpose();
        t * na(v)
    };
    let force = to_global(&out.force);
    let torque = to_global(&out.torque);
    let [m1, m2] = contact_torques(
        &l6.point,
        &normal,
        l6.lens,
        [&p.pos[i], &p.pos[j]],
        &force,
        opt,
    );
    Ok(Outcome {
        end: End::Holds,
        spheres,
        force,
        torques: [m1 - torque, m2 + torque],
        elastic: out.elastic,
        damping: out.damping,
    })
}
