//! Changes of the contact laws' parameters and of the materials between two steps: a
//! sweep that goes on from one settled state with another friction, say.
//!
//! - A law's parameters are replaced by building the law again, by its plugin, from the
//!   new RON text ([`Simulation::set_law_params`]).
//! - A material's Young's modulus, Poisson's ratio and friction coefficient can be set
//!   ([`Simulation::set_material`]); its density cannot (the masses stay).
//!
//! Every contact keeps its state (its L6Geom, its springs). The contacts of the laws
//! concerned compute their constants again at their next call ([`dem_api::FLAG_REFRESH`]),
//! from that call's input, as a new contact does. What the new constants do to the energy
//! stored in the contacts (a stiffer spring at the same overlap stores more) is work done
//! from outside: the ledger books the change of its total over that step as
//! `boundary_work`, so that the total stays. (That step's own closure error, of the order
//! of any step's, goes with it.)
//!
//! Refused, with nothing changed and the reason named: a law or material that does not
//! exist, values out of range or parameters the plugin refuses, a law whose number of
//! state slots or interaction distance would change (the state blocks and the broad
//! phase's reach are fixed when the run is built), a law from a plugin that cannot compute
//! its constants again (built against a dem-api before 0.5.1, or a C plugin), a change
//! after which the time step exceeds the critical step estimate, and runs on several
//! ranks. Checkpoints keep the changes and which laws have yet to refresh.

use super::Simulation;
use crate::engines::critical_step::critical_step;
pub use crate::model::changes::{Changes, MaterialChange};
use crate::scene::MaterialSpec;
use crate::setup::plugins::PluginSet;
use dem_api::{FunctorRole, Material};

/// The first dem-api whose SDK computes the constants again on [`dem_api::FLAG_REFRESH`].
const REFRESHING_API: (u64, u64, u64) = (0, 5, 1);

impl Simulation {
    /// The changes made since the scene was built.
    pub fn changes(&self) -> &Changes {
        &self.changes
    }

    /// Builds law `law` (its place in the scene's `laws`) again from the RON text
    /// `params` with `plugins` (those the run was built with); its contacts keep their
    /// state and compute their constants again at the next step (see the module docs).
    pub fn set_law_params(
        &mut self,
        plugins: &PluginSet,
        law: usize,
        params: &str,
    ) -> Result<(), String> {
        self.changeable()?;
        let count = self.dispatch.laws.len();
        let Some(entry) = self.dispatch.laws.get(law) else {
            return Err(format!(
                "no law {law}: the scene has {count} (numbered from 0 in the order of `laws`)"
            ));
        };
        let name = entry.name.clone();
        refreshable(plugins, &name)?;
        let made = plugins.new_law(&name, params).map_err(|e| e.to_string())?;
        let (state_len, distance) = (made.state_len() as usize, made.interaction_distance());
        if state_len != entry.state_len {
            return Err(format!(
                "law {law} ({name}): these parameters give {state_len} state slots per \
                 contact, the run has {}; the state blocks are fixed when the run is built",
                entry.state_len
            ));
        }
        if distance.to_bits() != entry.distance.to_bits() {
            return Err(format!(
                "law {law} ({name}): these parameters give the interaction distance \
                 {distance:e} m, the run has {:e} m; the broad phase's reach is fixed when \
                 the run is built",
                entry.distance
            ));
        }
        let reads = made.reads();
        let old = std::mem::replace(&mut self.dispatch.laws[law].law, made);
        if let Err(e) = self.check_step() {
            self.dispatch.laws[law].law = old;
            return Err(format!("law {law} ({name}): {e}"));
        }
        let entry = &mut self.dispatch.laws[law];
        entry.reads = reads;
        entry.refresh = true;
        self.changes.laws.insert(law as u16, params.to_string());
        Ok(())
    }

    /// Sets the Young's modulus, Poisson's ratio or friction of material `name`; the
    /// contacts of every law that serves it keep their state and compute their constants
    /// again at the next step (see the module docs).
    pub fn set_material(
        &mut self,
        plugins: &PluginSet,
        name: &str,
        change: MaterialChange,
    ) -> Result<(), String> {
        self.changeable()?;
        let Some(m) = self.material_names.iter().position(|x| x == name) else {
            return Err(format!(
                "no material `{name}` (the scene's: {})",
                self.material_names.join(", ")
            ));
        };
        let now = self.materials[m];
        let rigid = now.young == f64::INFINITY;
        if rigid && change.young.is_some() {
            return Err(format!(
                "material `{name}` is rigid: it has no Young's modulus to set"
            ));
        }
        let spec = MaterialSpec {
            density: now.density,
            young: (!rigid).then(|| change.young.unwrap_or(now.young)),
            rigid,
            poisson: change.poisson.unwrap_or(now.poisson),
            friction: change.friction.unwrap_or(now.friction),
        };
        spec.check()
            .map_err(|e| format!("material `{name}`: {e}"))?;
        // The laws that serve a pair with this material.
        let mut laws: Vec<u16> = (self.dispatch.law_table.iter())
            .filter(|((a, b), _)| *a == m as u32 || *b == m as u32)
            .map(|(_, &l)| l)
            .collect();
        laws.sort_unstable();
        laws.dedup();
        for &l in &laws {
            let law = &self.dispatch.laws[l as usize].name;
            refreshable(plugins, law).map_err(|e| format!("material `{name}`: {e}"))?;
        }
        let new = Material {
            young: spec.young(),
            poisson: spec.poisson,
            friction: spec.friction,
            ..now
        };
        self.materials[m] = new;
        if let Err(e) = self.check_step() {
            self.materials[m] = now;
            return Err(format!("material `{name}`: {e}"));
        }
        for l in laws {
            self.dispatch.laws[l as usize].refresh = true;
        }
        self.changes
            .materials
            .insert(m as u32, [new.young, new.poisson, new.friction]);
        Ok(())
    }

    /// Applies `changes` again (a resumed run), with `refresh` the laws whose contacts had
    /// yet to compute their constants again.
    pub(crate) fn apply_changes(
        &mut self,
        plugins: &PluginSet,
        changes: &Changes,
        refresh: &[u16],
    ) -> Result<(), String> {
        for (&m, &[young, poisson, friction]) in &changes.materials {
            let name = self
                .material_names
                .get(m as usize)
                .cloned()
                .unwrap_or_default();
            let rigid = self
                .materials
                .get(m as usize)
                .is_some_and(|x| x.young.is_infinite());
            let change = MaterialChange {
                young: (!rigid).then_some(young),
                poisson: Some(poisson),
                friction: Some(friction),
            };
            self.set_material(plugins, &name, change)?;
        }
        for (&law, params) in &changes.laws {
            self.set_law_params(plugins, law as usize, params)?;
        }
        for (l, entry) in self.dispatch.laws.iter_mut().enumerate() {
            entry.refresh = refresh.contains(&(l as u16));
        }
        Ok(())
    }

    /// The laws whose contacts compute their constants again at the next step.
    pub(crate) fn refreshing(&self) -> Vec<u16> {
        (self.dispatch.laws.iter().enumerate())
            .filter(|(_, l)| l.refresh)
            .map(|(k, _)| k as u16)
            .collect()
    }

    /// After a step in which contacts computed their constants again: books what that did
    /// to the ledger's total (`before`, the total before the step) as work from outside.
    pub(super) fn refreshed(&mut self, before: Option<f64>) {
        if let Some(before) = before {
            self.ledger.boundary_work += self.ledger.total() - before;
        }
        for l in &mut self.dispatch.laws {
            l.refresh = false;
        }
    }

    /// The total before a step whose contacts compute their constants again (none before
    /// the first step: no contact has constants yet, and there is no ledger to keep).
    pub(super) fn refresh_reference(&self) -> Option<f64> {
        let any = self.dispatch.laws.iter().any(|l| l.refresh);
        (any && self.step > 0).then(|| self.ledger.total())
    }

    /// Fails on several ranks (each would have to change alike, in the same step).
    fn changeable(&self) -> Result<(), String> {
        match self.ranks.is_some() {
            true => {
                Err("laws and materials cannot be changed from outside on several ranks".into())
            }
            false => Ok(()),
        }
    }

    /// Sets the critical step estimate for the present laws and materials; fails if the
    /// time step then exceeds it.
    fn check_step(&mut self) -> Result<(), String> {
        let p = &self.particles;
        let mut critical = critical_step(p, &self.materials, &self.dispatch, &self.flow);
        if let Some(f) = &self.fluid {
            critical = critical.min(f.relaxation_time(p));
        }
        let dt = self.integrator.dt;
        // A run whose fixed step was already above the estimate (which its build warned
        // of) is not held to it.
        if critical.is_nan() || (dt > critical && dt <= self.critical_dt) {
            return Err(format!(
                "the time step {dt:e} s would exceed the critical step estimate {critical:e} s \
                 (the time step is fixed when the run is built)"
            ));
        }
        self.critical_dt = critical;
        Ok(())
    }
}

/// Fails unless the plugin of law `name` computes a contact's constants again on
/// [`dem_api::FLAG_REFRESH`].
fn refreshable(plugins: &PluginSet, name: &str) -> Result<(), String> {
    let plugin = plugins
        .find(FunctorRole::Law, name)
        .map_err(|e| e.to_string())?;
    let version: Vec<u64> = (plugin.api_version.split('.'))
        .map_while(|x| x.parse().ok())
        .collect();
    match version[..] {
        [a, b, c] if (a, b, c) >= REFRESHING_API => Ok(()),
        _ => Err(format!(
            "law {name} (plugin {}, built against dem-api {}) cannot compute its contacts' \
             constants again: rebuild it against dem-api {}.{}.{} or later (C plugins cannot)",
            plugin.name, plugin.api_version, REFRESHING_API.0, REFRESHING_API.1, REFRESHING_API.2
        )),
    }
}
