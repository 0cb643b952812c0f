//! The critical time step estimate of a scene: the shortest period `sqrt(m / k)` of a
//! particle on the stiffest contact a law of the scene can give it.

use crate::engines::dispatch::Dispatch;
use crate::engines::flow::Flow;
use crate::model::particles::Particles;
use dem_api::{LawPair, Material};
use std::collections::BTreeSet;

/// `min sqrt(m_i / k_i)` over particles of finite mass (and the smallest particle of each
/// material an inlet inserts), where `k_i` is the largest stiffness any law of the scene
/// shows for particle `i` against a copy of itself of any material present, or against a
/// wall of any material present.
pub fn critical_step(p: &Particles, materials: &[Material], d: &Dispatch, flow: &Flow) -> f64 {
    let mut present: BTreeSet<u32> = p.material.iter().copied().collect();
    // The inlets' smallest spheres, of each material they insert.
    let mut bodies: Vec<(f64, f64, u32)> = (0..p.len())
        .filter_map(|i| Some((p.mass[i], p.shape[i].bounding_radius()?, p.material[i])))
        .collect();
    // A polyhedron's mass is that of its volume-equivalent sphere; its contacts are
    // reckoned at its bounding radius (the stiffer for a law whose stiffness grows with
    // the radius).
    for inlet in &flow.inlets {
        let r = inlet.min_radius();
        for m in inlet.materials() {
            present.insert(m);
            let mass = materials[m as usize].density * 4.0 / 3.0 * std::f64::consts::PI * r.powi(3);
            bodies.push((mass, inlet.kappa() * r, m));
        }
    }
    let mut best = f64::INFINITY;
    for (m, r, mi) in bodies {
        if !m.is_finite() {
            continue;
        }
        let mut k: f64 = 0.0;
        for &mj in &present {
            let Some(&law) = d.law_table.get(&(mi, mj)) else {
                continue;
            };
            let law = &d.laws[law as usize].law;
            let mat = [materials[mi as usize], materials[mj as usize]];
            let twin = LawPair {
                radius: [r, r],
                mass: [m, m],
                material: mat,
            };
            let wall = LawPair {
                radius: [r, f64::INFINITY],
                mass: [m, f64::INFINITY],
                material: mat,
            };
            let (a, b) = (law.stiffness(&twin), law.stiffness(&wall));
            if a.is_nan() || b.is_nan() {
                return f64::NAN;
            }
            k = k.max(a).max(b);
        }
        if k > 0.0 {
            best = best.min((m / k).sqrt());
        }
    }
    best
}
