//! Rebuilding the slots from the broad phase's candidate pairs.

use super::contact::{Slot, NONE};
use super::Contacts;
use crate::engines::dispatch::Dispatch;
use crate::model::blocks::CHUNK;
use crate::model::particles::{Particles, Shape};
use crate::support::error::DemError;
use rayon::slice::ParallelSliceMut;
use std::ops::Range;

impl Contacts {
    /// Replaces the slots with the broad phase's new candidate pairs and re-maps every
    /// contact to its pair's new slot (a contact whose pair is no longer a candidate is
    /// over). Fails if a pair has no law or functor.
    pub fn rebuild(
        &mut self,
        pairs: &[(u32, u32)],
        p: &Particles,
        d: &Dispatch,
    ) -> Result<(), DemError> {
        // Contacts end here, and the list is put in another order.
        self.ended_known = false;
        // The laws' state, then the geometry functors'.
        let law_stride = d.laws.iter().map(|l| l.state_len).max().unwrap_or(0);
        let stride = law_stride + d.geom_state_len();
        if (stride, law_stride) != (self.stride, self.law_stride) {
            // Only before the first contact exists (the functors do not change in a run).
            debug_assert!(self.list.is_empty());
            (self.stride, self.law_stride) = (stride, law_stride);
            self.state = super::Blocks::new(stride);
        }
        // Free the old list before the new one is built, so that both never coexist
        // (unless the pair caches are carried over to the new slots).
        let cache_stride = self.cache_stride(d);
        let old = if cache_stride > 0 && cache_stride == self.cache_stride {
            std::mem::take(&mut self.slots)
        } else {
            Vec::new()
        };
        self.slots = Vec::new();
        let mut slots = Vec::with_capacity(pairs.len());
        // Consecutive pairs mostly have the same shapes and materials: the last look-up
        // of each table is reused.
        let mut last_shapes = None;
        let mut last_law = None;
        for &(a, b) in pairs {
            let kinds = (p.shape[a as usize].kind(), p.shape[b as usize].kind());
            let (geom, swap) = match last_shapes {
                Some((k, found)) if k == kinds => found,
                _ => {
                    let &found = d.shape_table.get(&kinds).ok_or_else(|| {
                        DemError::Scene(format!(
                            "no geometry functor for shapes {} + {}",
                            p.shape[a as usize].name(),
                            p.shape[b as usize].name()
                        ))
                    })?;
                    last_shapes = Some((kinds, found));
                    found
                }
            };
            let (ma, mb) = (p.material[a as usize], p.material[b as usize]);
            let law = match last_law {
                Some((m, found)) if m == (ma, mb) => found,
                _ => {
                    let &found = d.law_table.get(&(ma, mb)).ok_or_else(|| {
                        DemError::Scene(format!("no contact law for materials #{ma} and #{mb}"))
                    })?;
                    last_law = Some(((ma, mb), found));
                    found
                }
            };
            let radii = match (&p.shape[a as usize], &p.shape[b as usize]) {
                (Shape::Sphere(x), Shape::Sphere(y)) => x.radius + y.radius,
                _ => f64::NAN,
            };
            for feature in 0..d.geoms[geom as usize].features {
                slots.push(Slot {
                    a,
                    b,
                    radii,
                    geom,
                    law,
                    feature,
                    swap,
                });
            }
        }
        slots.par_sort_unstable_by_key(Slot::key);
        self.carry_cache(&old, &slots, cache_stride);
        drop(old);

        self.held.reset(slots.len());
        for (k, c) in self.list.iter_mut().enumerate() {
            match slots.binary_search_by_key(&c.key(), Slot::key) {
                Ok(i) => {
                    self.held.set(i, k as u32);
                    c.slot = i as u32;
                }
                Err(_) if c.active() => {
                    // The pair separated beyond the broad phase's margin within one step:
                    // the contact is over.
                    tracing::debug!(target: "dem::contact", event = "end", a = c.a, b = c.b, reason = "left the candidate list");
                    c.gone = true;
                    c.slot = NONE;
                }
                Err(_) => {
                    c.gone = true;
                    c.slot = NONE;
                }
            }
        }

        let mut groups: Vec<Range<usize>> = Vec::new();
        for (i, s) in slots.iter().enumerate() {
            match groups.last_mut() {
                Some(g) if (slots[g.start].geom, slots[g.start].law) == (s.geom, s.law) => {
                    g.end = i + 1
                }
                _ => groups.push(i..i + 1),
            }
        }
        let any = |shape: fn(&Shape) -> bool| {
            slots
                .iter()
                .any(|s| shape(&p.shape[s.a as usize]) || shape(&p.shape[s.b as usize]))
        };
        self.has_facets = any(|s| matches!(s, Shape::Facet(_)));
        self.geometry_first = self.has_facets || any(Shape::aspherical);
        self.slots = slots;
        self.sort_by_slot(true, None);
        self.chunks = groups
            .into_iter()
            .flat_map(|g| {
                g.clone()
                    .step_by(CHUNK)
                    .map(move |a| a..(a + CHUNK).min(g.end))
            })
            .collect();
        Ok(())
    }

    /// Ends and removes at once the contacts of the particles marked `dead` (removed by an
    /// outlet); returns the elastic energy they held, J. The slots are stale until the
    /// [`Contacts::renumber`] and [`Contacts::rebuild`] that must follow.
    pub fn remove_bodies(&mut self, dead: &[bool]) -> f64 {
        let mut elastic = 0.0;
        for (k, c) in self.list.iter_mut().enumerate() {
            if dead[c.a as usize] || dead[c.b as usize] {
                if !c.gone {
                    elastic += self.forces.get(k, super::forces::ENERGY);
                }
                c.gone = true;
            }
        }
        self.ended_known = false;
        self.retire(true, None);
        elastic
    }

    /// Renames the particles of every contact after their storage was permuted
    /// (`old_to_new[i]` is the new index of the particle at index `i`). The slots are
    /// stale until the [`Contacts::rebuild`] that must follow, which re-maps the contacts
    /// by key. A contact keeps its bodies' roles: when the new indices come in the other
    /// order, `a` and `b` trade places and `swap` turns.
    pub fn renumber(&mut self, old_to_new: &[u32]) {
        self.rename(|a, b| (old_to_new[a as usize], old_to_new[b as usize]));
    }

    /// Renames the bodies of every contact: `rename(a, b)` gives the new ids of the bodies
    /// `a` and `b` (in this order). A contact keeps its bodies' roles: when the new ids
    /// come in the other order, `a` and `b` trade places and `swap` turns. As after
    /// [`Contacts::renumber`], a [`Contacts::rebuild`] must follow.
    pub fn rename(&mut self, mut rename: impl FnMut(u32, u32) -> (u32, u32)) {
        self.ended_known = false;
        // The slots' keys are stale: their caches start afresh.
        self.cache.clear();
        for c in &mut self.list {
            let (a, b) = rename(c.a, c.b);
            if a < b {
                (c.a, c.b) = (a, b);
            } else {
                (c.a, c.b, c.swap) = (b, a, !c.swap);
            }
        }
    }
}
