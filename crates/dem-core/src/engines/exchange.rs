//! Particle fields and their exchange through contacts (dem-api 0.5.4; see
//! [`dem_api::exchange`]): a temperature and its conduction, or any scalar a plugin
//! declares.
//!
//! Each field has one value per particle (stored with the particles, in
//! [`Particles::fields`], so that every reordering carries it) and a capacity per
//! material. Each step, after the contact pass, every live contact whose two materials
//! have an exchange of the field is handed to it, in slot order (by functor, law and pair
//! in storage order, so that each particle's sum depends neither on the number of threads,
//! nor on a resume, nor on how MPI ranks share the contacts), with the two bodies' values
//! at t. The flows are summed onto
//! the particles, and each particle of finite mass moves explicitly, `v += dt Q / (m c)`;
//! a body of infinite mass (a wall, a mesh) keeps its value, and the quantity it gives
//! or takes is booked in the field's ledger ([`FieldLedger`]), as is what inserted
//! particles bring (at the field's initial value) and removed ones carry out, so that the
//! quantity stored in the particles stays what it was at t = 0 plus what the fixed bodies
//! gave and the population change brought (to round-off: each flow leaves one body as it
//! enters the other).
//!
//! The explicit step is stable while every particle's `m c` exceeds `dt` times the sum
//! of its contacts' conductances (Gershgorin's bound on the step's amplification): this
//! is checked at every step, and a step that breaks it stops the run with the particle
//! named. The bound depends on the contacts' areas, which the scene does not know before
//! the contacts form, so it is not part of the critical time step estimate; the largest
//! ratio reached is kept ([`FieldLedger::stability`]) and reported.

use crate::engines::contacts::Contacts;
use crate::model::particles::Particles;
use crate::support::error::DemError;
use dem_api::{ExchangeBox, ExchangeInput, LawInput, LawPair, Material};
use serde::{Deserialize, Serialize};

/// One particle field.
#[derive(Clone, Debug)]
pub struct FieldDef {
    /// Name, as the scene and the outputs write it.
    pub name: String,
    /// Unit of the value.
    pub unit: String,
    /// Unit of the capacity.
    pub capacity_unit: String,
    /// Unit of the flow.
    pub flow_unit: String,
    /// Capacity of each material (index of the simulation's materials), in
    /// `capacity_unit`; NaN for a material without one (only bodies of infinite mass
    /// may have it).
    pub capacity: Vec<f64>,
}

/// One exchange the scene chose.
pub struct ExchangeEntry {
    /// Exchange name.
    pub name: String,
    /// Plugin name.
    pub plugin: String,
    /// Index of its field in [`Exchanges::fields`].
    pub field: usize,
    /// The two material names of its scene entry (`"*"` for any).
    pub materials: (String, String),
    /// The plugin's object.
    pub functor: ExchangeBox,
}

/// What a field's quantity did since t = 0.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FieldLedger {
    /// The quantity stored in the particles of finite mass at t = 0 (`sum m c v`).
    pub initial: f64,
    /// The quantity the bodies of infinite mass gave the particles since t = 0 (negative
    /// when they took it).
    pub boundary: f64,
    /// The quantity the particles inserted since t = 0 brought (inlets).
    pub inflow: f64,
    /// The quantity the particles removed since t = 0 carried out (outlets, removals
    /// from outside).
    pub outflow: f64,
    /// The largest `dt * sum of conductances / (m c)` of any particle at any step so far:
    /// the explicit step is stable below 1.
    pub stability: f64,
}

/// A field's balance (see [`Exchanges::balance`]).
#[derive(Clone, Debug, PartialEq)]
pub struct FieldBalance {
    /// The field's name.
    pub name: String,
    /// Unit of its quantity (`"W s"` for heat).
    pub quantity_unit: String,
    /// The quantity stored in the particles of finite mass now.
    pub stored: f64,
    /// The field's ledger.
    pub ledger: FieldLedger,
    /// `stored - initial - boundary - inflow + outflow`: zero but for round-off.
    pub error: f64,
}

/// The fields of a simulation and the exchanges of its material pairs.
#[derive(Default)]
pub struct Exchanges {
    /// The fields, in the order of their names.
    pub fields: Vec<FieldDef>,
    /// The exchanges, in the scene's order.
    pub entries: Vec<ExchangeEntry>,
    /// The exchanges (indices of `entries`) of each material pair `(a, b)`, at
    /// `a * materials + b` (both orders).
    pub table: Vec<Vec<usize>>,
    /// Number of materials.
    pub materials: usize,
    /// Each field's ledger.
    pub ledger: Vec<FieldLedger>,
    /// Per field, the flow into each particle in the current step, and the sum of its
    /// contacts' conductances (buffers kept from step to step).
    flow: Vec<Vec<f64>>,
    conductance: Vec<Vec<f64>>,
}

impl Exchanges {
    /// Are there no fields?
    pub fn is_empty(&self) -> bool {
        self.fields.is_empty()
    }

    /// The index of the field named `name`.
    pub fn field(&self, name: &str) -> Option<usize> {
        self.fields.iter().position(|f| f.name == name)
    }

    /// The quantity of field `f` stored in the particles of finite mass: `sum m c v`.
    pub fn stored(&self, f: usize, p: &Particles) -> f64 {
        (0..p.len()).map(|i| self.held(f, p, i)).sum()
    }

    /// Field `f`'s balance now: what is stored against what was stored at t = 0 plus what
    /// the bodies of infinite mass gave.
    pub fn balance(&self, f: usize, p: &Particles) -> FieldBalance {
        let ledger = self.ledger[f];
        let stored = self.stored(f, p);
        FieldBalance {
            name: self.fields[f].name.clone(),
            quantity_unit: format!("{} s", self.fields[f].flow_unit),
            stored,
            ledger,
            error: stored - ledger.initial - ledger.boundary - ledger.inflow + ledger.outflow,
        }
    }

    /// The quantity of field `f` that particle `i` holds (zero for a body of infinite
    /// mass).
    fn held(&self, f: usize, p: &Particles, i: usize) -> f64 {
        match p.mass[i].is_finite() {
            true => p.mass[i] * self.fields[f].capacity[p.material[i] as usize] * p.fields[f][i],
            false => 0.0,
        }
    }

    /// The fields' shortest time constant on one contact, s: `min m c / H_max` over the
    /// particles of finite mass and the bodies they can meet (a copy of themselves of each
    /// material present, a wall of each), `H_max` the exchange's bound on a contact's
    /// conductance ([`dem_api::ExchangeLaw::conductance_bound`]); infinite where no
    /// exchange gives a bound. An `Err` names an exchange whose bound is negative or
    /// infinite.
    pub fn critical_step(&self, p: &Particles, materials: &[Material]) -> Result<f64, String> {
        if self.entries.is_empty() {
            return Ok(f64::INFINITY);
        }
        let present: std::collections::BTreeSet<u32> = p.material.iter().copied().collect();
        let mut best = f64::INFINITY;
        let mut seen = std::collections::BTreeSet::new();
        for i in 0..p.len() {
            let (m, mi) = (p.mass[i], p.material[i]);
            let Some(r) = p.shape[i].bounding_radius().filter(|_| m.is_finite()) else {
                continue;
            };
            // One particle per material and size is enough.
            if !seen.insert((mi, r.to_bits(), m.to_bits())) {
                continue;
            }
            for &mj in &present {
                for &e in &self.table[mi as usize * self.materials + mj as usize] {
                    let entry = &self.entries[e];
                    let c = self.fields[entry.field].capacity[mi as usize];
                    for other in [r, f64::INFINITY] {
                        let pair = LawPair {
                            radius: [r, other],
                            mass: [m, if other.is_finite() { m } else { f64::INFINITY }],
                            material: [materials[mi as usize], materials[mj as usize]],
                        };
                        let h = entry.functor.conductance_bound(&pair);
                        if h.is_nan() {
                            continue;
                        }
                        if !(h >= 0.0 && h.is_finite()) {
                            return Err(format!(
                                "{} (plugin {}) reported a conductance bound of {h}",
                                entry.name, entry.plugin
                            ));
                        }
                        if h > 0.0 {
                            best = best.min(m * c / h);
                        }
                    }
                }
            }
        }
        Ok(best)
    }

    /// Books what the particles `added` (just inserted) bring into each field's ledger.
    pub fn book_inserted(&mut self, p: &Particles, added: &[usize]) {
        for f in 0..self.fields.len() {
            self.ledger[f].inflow += added.iter().map(|&i| self.held(f, p, i)).sum::<f64>();
        }
    }

    /// Books what the particles marked `dead` (about to be removed) carry out of each
    /// field's ledger.
    pub fn book_removed(&mut self, p: &Particles, dead: &[bool]) {
        for f in 0..self.fields.len() {
            let out: f64 = (0..p.len())
                .filter(|&i| dead[i])
                .map(|i| self.held(f, p, i))
                .sum();
            self.ledger[f].outflow += out;
        }
    }

    /// Sets each field's ledger at t = 0.
    pub fn open_ledger(&mut self, p: &Particles) {
        self.ledger = (0..self.fields.len())
            .map(|f| FieldLedger {
                initial: self.stored(f, p),
                ..FieldLedger::default()
            })
            .collect();
    }

    /// One step of every field: the flows of the live contacts at t, then each particle's
    /// value at t + dt. `owner` gives the particle a contact's body is (itself, or the
    /// particle an image row of a periodic cell images), `ids` a particle's scene id (for
    /// errors). With `mine` (a mark per chunk of [`crate::engines::integrator::CHUNK`]
    /// particles: a rank's, see [`crate::engines::ranks`]), only the marked chunks' values
    /// are checked for stability and kept in the ledger's largest ratio (the others' sums
    /// miss the contacts the rank does not hold; their owners send their values).
    ///
    /// Each particle's flows are summed in slot order (see
    /// [`Contacts::try_each_live_in_slot_order`]), so that the sums are the same on a
    /// rank that holds all of a particle's contacts and some others.
    #[allow(clippy::too_many_arguments)]
    pub fn step(
        &mut self,
        p: &mut Particles,
        contacts: &Contacts,
        materials: &[Material],
        dt: f64,
        step: u64,
        owner: impl Fn(usize) -> usize,
        ids: impl Fn(usize) -> usize,
        mine: Option<&[bool]>,
    ) -> Result<(), DemError> {
        let n = p.len();
        for buffers in [&mut self.flow, &mut self.conductance] {
            buffers.resize_with(self.fields.len(), Vec::new);
            for b in buffers.iter_mut() {
                b.clear();
                b.resize(n, 0.0);
            }
        }
        let mut input = ExchangeInput::default();
        let (flow, conductance) = (&mut self.flow, &mut self.conductance);
        let (table, entries, nm) = (&self.table, &self.entries, self.materials);
        contacts.try_each_live_in_slot_order(|c, geom, onset| {
            let (i, j) = c.bodies();
            let (i, j) = (owner(i), owner(j));
            let (mi, mj) = (p.material[i], p.material[j]);
            let chosen = &table[mi as usize * nm + mj as usize];
            if chosen.is_empty() {
                return Ok(());
            }
            input.contact = LawInput {
                geom: *geom,
                pair: LawPair {
                    radius: geom.lens,
                    mass: [p.law_mass(i), p.law_mass(j)],
                    material: [materials[mi as usize], materials[mj as usize]],
                },
                onset,
                dt,
                is_new: c.new as u32,
                is_last: 0,
            };
            for &e in chosen {
                let entry = &entries[e];
                let f = entry.field;
                input.value = [p.fields[f][i], p.fields[f][j]];
                let out = entry.functor.exchange(&input);
                if !(out.flow.is_finite() && out.conductance.is_finite() && out.conductance >= 0.0)
                {
                    return Err(DemError::PluginCall {
                        step,
                        plugin: entry.plugin.clone(),
                        functor: entry.name.clone(),
                        a: ids(i) as u32,
                        b: ids(j) as u32,
                        message: format!(
                            "returned flow {} and conductance {} (the flow must be finite, \
                             the conductance finite and >= 0)",
                            out.flow, out.conductance
                        ),
                    });
                }
                flow[f][i] -= out.flow;
                flow[f][j] += out.flow;
                conductance[f][i] += out.conductance;
                conductance[f][j] += out.conductance;
            }
            Ok(())
        })?;
        for (f, field) in self.fields.iter().enumerate() {
            let ledger = &mut self.ledger[f];
            for (i, value) in p.fields[f].iter_mut().enumerate() {
                let q = self.flow[f][i];
                if !p.mass[i].is_finite() {
                    ledger.boundary -= q * dt;
                    continue;
                }
                let held = p.mass[i] * field.capacity[p.material[i] as usize];
                let ratio = dt * self.conductance[f][i] / held;
                if mine.is_some_and(|m| !m[i / crate::engines::integrator::CHUNK]) {
                    *value += dt * q / held;
                    continue;
                }
                if ratio > ledger.stability {
                    ledger.stability = ratio;
                }
                if ratio > 1.0 {
                    let (flow, value) = (&field.flow_unit, &field.unit);
                    return Err(DemError::NonFinite {
                        step,
                        particle: ids(i),
                        what: format!(
                            "field `{}`: the explicit step is unstable: m c = {held:e} {flow} \
                             s/{value} over its contacts' conductance {:e} {flow}/{value} is \
                             {:e} s, shorter than the time step {dt:e} s (give a shorter \
                             Fixed time step, a larger capacity, or a smaller conductivity)",
                            field.name,
                            self.conductance[f][i],
                            held / self.conductance[f][i],
                        ),
                    });
                }
                *value += dt * q / held;
            }
        }
        Ok(())
    }
}
