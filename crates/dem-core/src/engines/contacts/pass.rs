//! The contact pass of a step, in order (see [`Contacts::process`]): the geometry of the
//! live contacts (first, where the hand-over needs it), detection of new ones, the
//! hand-over and sparsification of mesh contacts, creation of the new contacts, then
//! lifecycle, L6Geom and law of each.

use super::context::StepContext;
use super::{detect, geometry, handover, order, sparsify, step, Contacts};
use crate::engines::l6geom::{BodyKin, L6State};
use crate::model::particles::Particles;
use crate::support::error::DemError;
use dem_api::{Onset, RawGeom};

fn kin(p: &Particles, i: usize) -> BodyKin {
    BodyKin {
        pos: p.pos[i],
        vel: p.vel[i],
        angvel: p.angvel[i],
    }
}

impl Contacts {
    /// Runs geometry, lifecycle, L6Geom and law for the step: geometry of the live
    /// contacts and detection of new ones, then the hand-over of contacts moving across a
    /// mesh (see [`handover`]), creation of the new contacts, then lifecycle,
    /// L6Geom and law of each. Returns the wall time of the geometry and law parts, s.
    pub fn process(&mut self, cx: &StepContext<'_>) -> Result<[f64; 2], DemError> {
        let mut clock = std::time::Instant::now();
        // The pass writes every contact's forces before anything reads them.
        self.retire(false, Some(cx.team));
        if order::Reorder::due(cx.step, &self.list) {
            // The pass writes every contact's forces before anything reads them.
            self.sort_by_slot(false, Some(cx.team));
        }
        // Without meshes nothing between here and the law pass needs the geometry of the
        // live contacts: the law pass computes it chunk by chunk, while the chunk's
        // contacts are in cache. The hand-over of mesh contacts needs it first; with
        // polyhedra it is most of the step, and its own pass shares it among the workers
        // in small items (the law pass's chunks of 512, a few in a pile of rocks, were
        // shared unevenly). The same geometry either way.
        let early = self.geometry_first;
        self.raw.clear();
        if early {
            self.raw.resize(self.list.len(), RawGeom::default());
            let state = (&mut self.state, self.law_stride);
            geometry::geometry(cx, &self.list, &mut self.raw, state, &mut self.step_buffers)?;
        }
        let mut fresh = std::mem::take(&mut self.fresh);
        detect::detect(
            cx,
            (&self.slots, self.held.all()),
            (&mut self.cache, self.cache_stride),
            &self.chunks,
            &mut self.found,
            &mut fresh,
            &mut self.detect_buffers,
        )?;
        if self.has_facets {
            handover::hand_over(self, &mut fresh, cx);
            // Contact sparsification (scene `contacts.sparsify`): drops redundant new
            // mesh contacts before they are created. See `crate::engines::contacts::sparsify`.
            if let Some(params) = &cx.sparsify {
                sparsify::apply(self, &mut fresh, cx, params);
            }
        }
        let old = self.list.len();
        self.reserve(fresh.len());
        for &(i, g) in &fresh {
            let s = self.slots[i as usize];
            let (b1, b2) = s.bodies();
            let l6 = L6State::create(&g, &kin(cx.particles, b1), &kin(cx.particles, b2), &cx.l6);
            let onset = Onset {
                time: cx.time,
                normal_velocity: l6.u_dot.x,
            };
            tracing::debug!(
                target: "dem::contact",
                event = "begin", a = s.a, b = s.b, t = cx.time, gap = g.gap,
                normal = ?[g.normal.x, g.normal.y, g.normal.z], point = ?[g.point.x, g.point.y, g.point.z],
                normal_velocity = onset.normal_velocity
            );
            self.push(i as usize, l6, onset, true);
            if early {
                self.raw.push(g);
            }
        }
        self.fresh = fresh;
        let geometry = crate::support::timing::lap(&mut clock);
        let given = if early {
            step::Geometry::Given(&self.raw)
        } else {
            step::Geometry::InPass(&self.fresh)
        };
        step::law(
            cx,
            &mut self.list,
            given,
            (
                &mut self.hot,
                (&mut self.state, self.law_stride),
                &mut self.forces,
            ),
            old,
            &mut self.gather,
            &mut self.step_buffers,
        )?;
        self.ended_known = true;
        Ok([geometry, crate::support::timing::lap(&mut clock)])
    }
}
