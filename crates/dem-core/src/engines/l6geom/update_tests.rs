//! Tests of the L6Geom update over lanes: four contacts at a time agree bitwise with one
//! at a time.

use super::*;
use rand::{Rng, SeedableRng};

fn v(rng: &mut impl Rng, s: f64) -> V3<f64> {
    V3::new(
        rng.random_range(-s..s),
        rng.random_range(-s..s),
        rng.random_range(-s..s),
    )
}

fn unit(rng: &mut impl Rng) -> V3<f64> {
    let u = v(rng, 1.0);
    u.scale(1.0 / u.norm())
}

/// One contact's inputs: a frame turned a little from a random normal (every branch
/// of the quaternion comes up), a wall now and then.
fn inputs(rng: &mut impl Rng) -> (Prev<f64>, Now<f64>, Kin<f64>, Kin<f64>) {
    let n = unit(rng);
    let t = n.cross(unit(rng));
    let t = t.scale(1.0 / t.norm());
    let frame = [n, t, n.cross(t)];
    let prev = Prev {
        frame,
        quat: quaternion(&frame),
        point: v(rng, 1e-3),
        u: v(rng, 1e-5),
        phi: v(rng, 1e-2),
    };
    let turned = n.add(v(rng, 1e-3));
    let wall = rng.random_bool(0.2);
    let now = Now {
        normal: turned.scale(1.0 / turned.norm()),
        point: prev.point.add(v(rng, 1e-6)),
        gap: rng.random_range(-1e-5..1e-6),
        radius: [
            if wall { f64::INFINITY } else { 5e-4 },
            rng.random_range(1e-4..1e-3),
        ],
        area: rng.random_range(0.0..1e-6),
    };
    let body = |rng: &mut _| Kin {
        pos: v(rng, 1e-2),
        vel: v(rng, 1.0),
        angvel: v(rng, 100.0),
    };
    (prev, now, body(rng), body(rng))
}

fn bits(n: &Next<f64>) -> Vec<u64> {
    let mut out = Vec::new();
    for r in &n.frame {
        out.extend([r.x, r.y, r.z]);
    }
    out.extend(n.quat);
    for w in [n.point, n.u, n.phi, n.u_dot, n.phi_dot] {
        out.extend([w.x, w.y, w.z]);
    }
    out.extend(n.lens);
    out.push(n.area);
    out.into_iter().map(f64::to_bits).collect()
}

fn lane(n: &Next<F64x4>, i: usize) -> Next<f64> {
    let l = |x: F64x4| x.0[i];
    let l3 = |v: V3<F64x4>| V3::new(l(v.x), l(v.y), l(v.z));
    Next {
        frame: n.frame.map(l3),
        quat: n.quat.map(l),
        point: l3(n.point),
        u: l3(n.u),
        phi: l3(n.phi),
        u_dot: l3(n.u_dot),
        phi_dot: l3(n.phi_dot),
        lens: n.lens.map(l),
        area: l(n.area),
    }
}

#[test]
fn four_lanes_give_bitwise_what_each_contact_gives_alone() {
    let mut rng = rand_pcg::Pcg64::seed_from_u64(11);
    let options = [
        L6Options::default(),
        L6Options {
            no_ratch: false,
            point_rate: true,
            ..L6Options::default()
        },
        L6Options {
            no_mid_normal: true,
            no_renorm: true,
            no_mid_frame: true,
            ..L6Options::default()
        },
    ];
    for opt in &options {
        for _ in 0..500 {
            let four: Vec<_> = (0..4).map(|_| inputs(&mut rng)).collect();
            let x = |f: &dyn Fn(usize) -> f64| F64x4::from_fn(f);
            let x3 = |f: &dyn Fn(usize) -> V3<f64>| {
                V3::new(x(&|i| f(i).x), x(&|i| f(i).y), x(&|i| f(i).z))
            };
            let prev = Prev {
                frame: [0, 1, 2].map(|r| x3(&|i| four[i].0.frame[r])),
                quat: [0, 1, 2, 3].map(|q| x(&|i| four[i].0.quat[q])),
                point: x3(&|i| four[i].0.point),
                u: x3(&|i| four[i].0.u),
                phi: x3(&|i| four[i].0.phi),
            };
            let now = Now {
                normal: x3(&|i| four[i].1.normal),
                point: x3(&|i| four[i].1.point),
                gap: x(&|i| four[i].1.gap),
                radius: [x(&|i| four[i].1.radius[0]), x(&|i| four[i].1.radius[1])],
                area: x(&|i| four[i].1.area),
            };
            let kin = |b: &dyn Fn(usize) -> Kin<f64>| Kin {
                pos: x3(&|i| b(i).pos),
                vel: x3(&|i| b(i).vel),
                angvel: x3(&|i| b(i).angvel),
            };
            let together = step(
                &prev,
                &now,
                &kin(&|i| four[i].2),
                &kin(&|i| four[i].3),
                1e-6,
                opt,
            );
            for (i, (p, n, b1, b2)) in four.iter().enumerate() {
                let alone = step(p, n, b1, b2, 1e-6, opt);
                assert_eq!(bits(&lane(&together, i)), bits(&alone), "{opt:?}");
            }
        }
    }
}

/// Writes a contact's previous state into a hot block.
fn put_prev(block: &mut [f64], k: usize, p: &Prev<f64>) {
    let mut set = |f: usize, x: f64| block[hot::index(f, k)] = x;
    for (r, row) in p.frame.iter().enumerate() {
        set(FRAME + 3 * r, row.x);
        set(FRAME + 3 * r + 1, row.y);
        set(FRAME + 3 * r + 2, row.z);
    }
    for (f, w) in [(POINT, p.point), (U, p.u), (PHI, p.phi)] {
        set(f, w.x);
        set(f + 1, w.y);
        set(f + 2, w.z);
    }
}

/// A contact's state in a hot block, in the order of [`bits`].
fn block_bits(block: &[f64], k: usize) -> Vec<u64> {
    let get = |f: usize| block[hot::index(f, k)];
    let mut out: Vec<f64> = (0..9).map(|i| get(FRAME + i)).collect();
    // The quaternion is not stored: the one the next update will extract.
    let row = |r: usize| V3::new(out[3 * r], out[3 * r + 1], out[3 * r + 2]);
    out.extend(quaternion(&[row(0), row(1), row(2)]));
    for f in [POINT, U, PHI, U_DOT, PHI_DOT] {
        out.extend([get(f), get(f + 1), get(f + 2)]);
    }
    out.extend([get(hot::LENS), get(hot::LENS + 1), get(hot::AREA)]);
    out.into_iter().map(f64::to_bits).collect()
}

#[test]
fn a_block_update_agrees_with_one_contact_at_a_time() {
    // Consecutive groups, a group with a gap (contact 4 is not updated) and a short last
    // group: each contact of `ks` gets what the update of it alone gives, the others keep
    // their state.
    let mut rng = rand::rngs::StdRng::seed_from_u64(7);
    let n = 13;
    let contacts: Vec<_> = (0..n).map(|_| inputs(&mut rng)).collect();
    let mut block = vec![0.0; hot::HOT * hot::PITCH];
    let mut p = Particles::default();
    let mut raw = Vec::new();
    let mut bodies = Vec::new();
    let v3 = |w: V3<f64>| nalgebra::Vector3::new(w.x, w.y, w.z);
    for (k, (prev, now, b1, b2)) in contacts.iter().enumerate() {
        put_prev(&mut block, k, prev);
        for b in [b1, b2] {
            p.pos.push(v3(b.pos));
            p.vel.push(v3(b.vel));
            p.angvel.push(v3(b.angvel));
        }
        bodies.push([2 * k as u32 + 1, 2 * k as u32]);
        // Body 1 is stored second: the bodies are read by id, not by position.
        p.pos.swap(2 * k, 2 * k + 1);
        p.vel.swap(2 * k, 2 * k + 1);
        p.angvel.swap(2 * k, 2 * k + 1);
        raw.push(RawGeom {
            normal: dem_api::Vec3::new(now.normal.x, now.normal.y, now.normal.z),
            point: dem_api::Vec3::new(now.point.x, now.point.y, now.point.z),
            gap: now.gap,
            radius1: now.radius[0],
            radius2: now.radius[1],
            area: now.area,
            touching: 1,
            weight: 1.0,
        });
    }
    let before = block.clone();
    let opt = L6Options::default();
    let mut cols = vec![0.0; GATHERED * hot::PITCH];
    // The second: a short last group whose first and last are three places apart.
    for ks in [
        &[0, 1, 2, 3, 5, 6, 7, 8, 9, 10, 12][..],
        &[0, 1, 2, 3, 4, 6, 7],
    ] {
        let mut block = before.clone();
        update_block(
            (&mut block, &[]),
            ks,
            &raw,
            &bodies,
            &p,
            1e-6,
            &opt,
            &mut cols,
        );
        for (k, (prev, now, b1, b2)) in contacts.iter().enumerate() {
            if ks.contains(&k) {
                let alone = step(prev, now, b1, b2, 1e-6, &opt);
                assert_eq!(block_bits(&block, k), bits(&alone), "{ks:?}: contact {k}");
            } else {
                let kept = block_bits(&before, k);
                assert_eq!(block_bits(&block, k), kept, "{ks:?}: contact {k}");
            }
        }
    }
}
