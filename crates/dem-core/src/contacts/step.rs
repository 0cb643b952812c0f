//! One step of the contacts: the geometry calls (batched per functor, with the bound
//! check that spares calls for pairs too far apart), then lifecycle, L6Geom update, law
//! call and the conversion of the law's output to global forces.

use super::{Slot, StepContext};
use crate::error::DemError;
use crate::l6geom::{BodyKin, L6State};
use crate::particles::Particles;
use abi_stable::std_types::RResult;
use dem_api::{BodyView, GeomInput, LawInput, LawOutput, LawPair, Onset, Quat, RawGeom};
use nalgebra::Vector3;

fn kin(p: &Particles, i: usize) -> BodyKin {
    BodyKin {
        pos: p.pos[i],
        vel: p.vel[i],
        angvel: p.angvel[i],
    }
}

fn view(p: &Particles, i: usize) -> BodyView<'_> {
    BodyView {
        pos: p.pos[i].into(),
        ori: Quat::from(p.ori[i]),
        vel: p.vel[i].into(),
        angvel: p.angvel[i].into(),
        shape: p.shape[i].view(),
    }
}

fn call_error(
    cx: &StepContext<'_>,
    s: &Slot,
    plugin: &str,
    functor: &str,
    message: String,
) -> DemError {
    DemError::PluginCall {
        step: cx.step,
        plugin: plugin.into(),
        functor: functor.into(),
        a: s.a,
        b: s.b,
        message,
    }
}

/// Finite geometry with a unit normal and a finite non-zero weight.
fn valid(g: &RawGeom) -> bool {
    let n = g.normal.na().norm();
    g.gap.is_finite()
        && g.point.is_finite()
        && n.is_finite()
        && (n - 1.0).abs() < 1e-9
        && g.weight.is_finite()
        && g.weight != 0.0
}

/// False only when the bounding volumes of the slot's particles are farther apart than
/// `distance` (m) by more than a rounding margin; two spheres are compared by squared
/// distance, without a square root.
fn may_touch(p: &Particles, s: &Slot, distance: f64) -> bool {
    let (a, b) = (s.a as usize, s.b as usize);
    if !s.radii.is_nan() {
        let reach = s.radii + distance;
        let reach = reach + 1e-9 * reach.abs();
        return (p.pos[a] - p.pos[b]).norm_squared() <= reach * reach;
    }
    crate::broadphase::bound_gap(p, a, b)
        .is_none_or(|g| g <= distance + 1e-9 * (g.abs() + distance.abs() + 1e-12))
}

/// Geometry of one chunk of slots (all of one functor), batched.
pub(super) fn geometry_chunk(
    cx: &StepContext<'_>,
    slots: &[Slot],
    raw: &mut [RawGeom],
) -> Result<(), DemError> {
    let p = cx.particles;
    let geom = &cx.dispatch.geoms[slots[0].geom as usize];
    let law = &cx.dispatch.laws[slots[0].law as usize];
    // Pairs that are not in contact and whose bounding volumes are farther apart than the
    // law's interaction distance cannot touch: the functor is not asked (it would report
    // no contact), which spares most calls between the broad phase's rebuilds. The margin
    // keeps rounding in the bound from ever hiding a contact the functor would report.
    let asked: Vec<usize> = (0..slots.len())
        .filter(|&i| {
            let s = &slots[i];
            s.active || may_touch(p, s, law.distance)
        })
        .collect();
    let inputs: Vec<GeomInput<'_>> = asked
        .iter()
        .map(|&i| {
            let s = &slots[i];
            let (b1, b2) = s.bodies();
            // A live contact always gets its geometry, so that its last step can be booked;
            // whether it goes on is decided below.
            let distance = if s.active {
                f64::INFINITY
            } else {
                law.distance
            };
            GeomInput {
                b1: view(p, b1),
                b2: view(p, b2),
                distance,
                feature: u32::from(s.feature),
            }
        })
        .collect();
    let mut out = vec![RawGeom::default(); asked.len()];
    if let RResult::RErr(e) = geom
        .functor
        .geom_batch(inputs.as_slice().into(), out.as_mut_slice().into())
    {
        let s = &slots[asked[(e.index as usize).min(asked.len() - 1)]];
        return Err(call_error(
            cx,
            s,
            &geom.plugin,
            &geom.name,
            e.message.to_string(),
        ));
    }
    for (k, &i) in asked.iter().enumerate() {
        raw[i] = out[k];
    }
    Ok(())
}

/// Lifecycle, L6Geom and law of one chunk of slots, given their geometry `raw`.
pub(super) fn process_chunk(
    cx: &StepContext<'_>,
    slots: &mut [Slot],
    raw: &[RawGeom],
    state: &mut [f64],
    stride: usize,
) -> Result<(), DemError> {
    let p = cx.particles;
    let geom = &cx.dispatch.geoms[slots[0].geom as usize];
    let law = &cx.dispatch.laws[slots[0].law as usize];

    // 2. Lifecycle and L6Geom.
    for (i, (s, g)) in slots.iter_mut().zip(raw).enumerate() {
        let (b1, b2) = s.bodies();
        // Written only when set, so that idle slots are read but not written back.
        if s.new {
            s.new = false;
        }
        if s.ending {
            s.ending = false;
        }
        if g.touching != 0 && !valid(g) {
            return Err(call_error(
                cx,
                s,
                &geom.plugin,
                &geom.name,
                format!(
                    "returned invalid geometry (non-finite, normal not of unit length, or \
                     weight zero) {g:?}"
                ),
            ));
        }
        let limit = law.distance + if s.active { cx.eps } else { 0.0 };
        let present = g.touching != 0 && g.gap < limit;
        if !present && !s.active {
            continue;
        }
        if g.touching == 0 {
            // The functor gave no geometry for a live contact: end it without a last call.
            tracing::debug!(target: "dem::contact", event = "end", a = s.a, b = s.b, t = cx.time);
            s.active = false;
            state[i * stride..(i + 1) * stride].fill(0.0);
            continue;
        }
        let (k1, k2) = (kin(p, b1), kin(p, b2));
        if s.active {
            s.l6.update(g, &k1, &k2, cx.dt, &cx.l6);
            if !present {
                s.ending = true;
                tracing::debug!(target: "dem::contact", event = "end", a = s.a, b = s.b, t = cx.time, gap = g.gap);
            }
        } else {
            s.l6 = L6State::create(g, &k1, &k2, &cx.l6);
            s.onset = Onset {
                time: cx.time,
                normal_velocity: s.l6.u_dot.x,
            };
            s.active = true;
            s.new = true;
            tracing::debug!(
                target: "dem::contact",
                event = "begin", a = s.a, b = s.b, t = cx.time, gap = g.gap,
                normal = ?[g.normal.x, g.normal.y, g.normal.z], point = ?[g.point.x, g.point.y, g.point.z],
                normal_velocity = s.onset.normal_velocity
            );
        }
    }

    // 3. Law, batched over the live contacts.
    let live: Vec<usize> = (0..slots.len()).filter(|&i| slots[i].active).collect();
    if live.is_empty() {
        return Ok(());
    }
    let n = law.state_len;
    let law_inputs: Vec<LawInput> = live
        .iter()
        .map(|&i| {
            let s = &slots[i];
            let (b1, b2) = s.bodies();
            LawInput {
                geom: s.l6.to_api(),
                pair: LawPair {
                    radius: s.l6.lens,
                    mass: [p.law_mass(b1), p.law_mass(b2)],
                    material: [
                        cx.materials[p.material[b1] as usize],
                        cx.materials[p.material[b2] as usize],
                    ],
                },
                onset: s.onset,
                dt: cx.dt,
                is_new: s.new as u32,
                is_last: s.ending as u32,
            }
        })
        .collect();
    let mut law_state: Vec<f64> = Vec::with_capacity(live.len() * n);
    for &i in &live {
        law_state.extend_from_slice(&state[i * stride..i * stride + n]);
    }
    let mut outs = vec![LawOutput::default(); live.len()];
    if let RResult::RErr(e) = law.law.law_batch(
        law_inputs.as_slice().into(),
        law_state.as_mut_slice().into(),
        outs.as_mut_slice().into(),
    ) {
        let s = &slots[live[(e.index as usize).min(live.len() - 1)]];
        return Err(call_error(
            cx,
            s,
            &law.plugin,
            &law.name,
            e.message.to_string(),
        ));
    }

    // 4. Local to global.
    for (k, &i) in live.iter().enumerate() {
        let s = &mut slots[i];
        let o = outs[k];
        let finite = o.force.is_finite()
            && o.torque.is_finite()
            && [o.elastic, o.friction, o.damping]
                .iter()
                .all(|x| x.is_finite());
        if !finite {
            return Err(call_error(
                cx,
                s,
                &law.plugin,
                &law.name,
                format!("returned a non-finite result {o:?}"),
            ));
        }
        let w = raw[i].weight;
        if s.ending {
            // The contact is over: only the dissipation of its last interval counts.
            s.force = Vector3::zeros();
            s.torque = [Vector3::zeros(); 2];
            s.out = LawOutput {
                friction: w * o.friction,
                damping: w * o.damping,
                ..LawOutput::default()
            };
            s.active = false;
            state[i * stride..(i + 1) * stride].fill(0.0);
            continue;
        }
        state[i * stride..i * stride + n].copy_from_slice(&law_state[k * n..(k + 1) * n]);
        let tt = s.l6.frame.transpose();
        let f = tt * o.force.na() * w;
        let extra = tt * o.torque.na() * w;
        let (b1, b2) = s.bodies();
        let c = s.l6.point;
        s.force = f;
        s.torque = [
            (c - p.pos[b1]).cross(&(-f)) - extra,
            (c - p.pos[b2]).cross(&f) + extra,
        ];
        // Forces and energies of this term count `w` times; `out` keeps what the ledger
        // books (the law's own force stays in its local frame, unweighted).
        s.out = LawOutput {
            elastic: w * o.elastic,
            friction: w * o.friction,
            damping: w * o.damping,
            ..o
        };
    }
    Ok(())
}
