//! Contact normals, points and overlaps against dense sampling of the two surfaces,
//! computed here without the functors' support points or Newton's method.

use crate::pair::Pair;
use crate::shape::Superquadric;
use crate::sphere::SphereSuperquadric;
use crate::wall::WallSuperquadric;
use dem_api::nalgebra::{UnitQuaternion, Vector3};
use dem_api::sdk::Geometry;
use dem_api::{BodyView, Quat, RawGeom, ShapeKind, ShapeView, SphereShape, Vec3, WallShape};
use std::f64::consts::PI;

type V = Vector3<f64>;

fn view(s: &Superquadric) -> ShapeView<'_> {
    // SAFETY: the record is the superquadric, alive for the view's life.
    unsafe {
        ShapeView::of_plugin(
            ShapeKind(ShapeKind::FIRST_PLUGIN),
            s as *const Superquadric as *const _,
            s.bounding_radius,
        )
    }
}

fn body<'a>(shape: ShapeView<'a>, pos: V, rot: UnitQuaternion<f64>) -> BodyView<'a> {
    BodyView {
        pos: pos.into(),
        ori: rot.into(),
        vel: Vec3::ZERO,
        angvel: Vec3::ZERO,
        shape,
    }
}

/// Surface points of `s` posed at `pos`, `rot`, one along each of `count` rays from the
/// centre spread evenly over the sphere: the implicit function `F` is homogeneous of
/// degree `n1` along a ray, so the ray `u` meets the surface at `F(u)^(-1/n1) u`.
fn samples(s: &Superquadric, pos: &V, rot: &UnitQuaternion<f64>, count: usize) -> Vec<V> {
    directions(count)
        .into_iter()
        .map(|u| {
            let t = s.implicit([u.x, u.y, u.z]).powf(-1.0 / s.n[0]);
            pos + rot * (u * t)
        })
        .collect()
}

/// Unit directions spread over the sphere (a Fibonacci lattice).
fn directions(count: usize) -> Vec<V> {
    let golden = PI * (3.0 - 5f64.sqrt());
    (0..count)
        .map(|i| {
            let z = 1.0 - 2.0 * (i as f64 + 0.5) / count as f64;
            let r = (1.0 - z * z).sqrt();
            let t = golden * i as f64;
            V::new(r * t.cos(), r * t.sin(), z)
        })
        .collect()
}

/// The penetration depth of two sampled bodies and its direction (from A to B): the
/// least over directions `n` of `max_A p.n - min_B q.n`, over a lattice, then refined on
/// ever finer patches about the best direction.
fn sampled_depth(pa: &[V], pb: &[V]) -> (f64, V) {
    let depth = |n: &V| {
        let a = pa.iter().map(|p| p.dot(n)).fold(f64::MIN, f64::max);
        let b = pb.iter().map(|q| q.dot(n)).fold(f64::MAX, f64::min);
        a - b
    };
    let mut best = directions(4000)
        .into_iter()
        .map(|n| (depth(&n), n))
        .min_by(|x, y| x.0.total_cmp(&y.0))
        .unwrap();
    let mut step = 0.05;
    while step > 1e-5 {
        let n = best.1;
        let t1 = n
            .cross(&if n.x.abs() < 0.6 { V::x() } else { V::y() })
            .normalize();
        let t2 = n.cross(&t1);
        let mut moved = false;
        for (u, v) in [(1.0, 0.0), (-1.0, 0.0), (0.0, 1.0), (0.0, -1.0)] {
            let m = (n + t1 * (u * step) + t2 * (v * step)).normalize();
            let d = depth(&m);
            if d < best.0 {
                best = (d, m);
                moved = true;
            }
        }
        if !moved {
            step *= 0.5;
        }
    }
    best
}

fn turn(axis: [f64; 3], angle: f64) -> UnitQuaternion<f64> {
    UnitQuaternion::from_scaled_axis(V::new(axis[0], axis[1], axis[2]).normalize() * angle)
}

#[test]
fn overlapping_ellipsoids_match_the_sampled_penetration() {
    let a = Superquadric::new([0.5, 0.3, 0.2], [2.0, 2.0]).unwrap();
    let b = Superquadric::new([0.4, 0.25, 0.35], [2.0, 2.0]).unwrap();
    for (pos, ra, rb) in [
        (
            V::new(0.75, 0.1, 0.05),
            turn([0.0, 0.0, 1.0], 0.3),
            turn([1.0, 1.0, 0.0], 0.7),
        ),
        (
            V::new(0.2, 0.45, 0.1),
            turn([1.0, 0.0, 0.2], -0.4),
            turn([0.0, 1.0, 0.0], 1.1),
        ),
    ] {
        let (va, vb) = (view(&a), view(&b));
        let (ba, bb) = (body(va, V::zeros(), ra), body(vb, pos, rb));
        let g: RawGeom = Pair
            .try_term(&ba, &bb, 0.0, 0)
            .unwrap()
            .expect("they overlap");
        let (sa, sb) = (
            samples(&a, &V::zeros(), &ra, 200_000),
            samples(&b, &pos, &rb, 200_000),
        );
        let (depth, n) = sampled_depth(&sa, &sb);
        assert!(depth > 0.0, "the case must overlap");
        // 200,000 rays per surface: the sampled support falls short by about 1e-5 m.
        assert!(
            (-g.gap - depth).abs() < 5e-5,
            "overlap {} against sampled {depth}",
            -g.gap
        );
        // The sampled direction is only as good as the sampled support (F is flat at its
        // minimum): within a few milliradians.
        assert!(
            g.normal.na().dot(&n) > 1.0 - 1e-4,
            "normal {:?} against {n:?}",
            g.normal
        );
        // Exactly, the normal is the outward normal of A where it touches, and the
        // inward one of B: the gradients of their implicit functions.
        let outward = |sq: &Superquadric, pos: &V, r: &UnitQuaternion<f64>, n: &V| {
            let q = r.inverse() * n;
            let s = sq.support_point([q.x, q.y, q.z]);
            let h = 1e-7;
            let grad = V::from_fn(|i, _| {
                let (mut up, mut down) = (s, s);
                up[i] += h;
                down[i] -= h;
                (sq.implicit(up) - sq.implicit(down)) / (2.0 * h)
            });
            let _ = pos;
            (r * grad).normalize()
        };
        let n_exact = g.normal.na();
        assert!(outward(&a, &V::zeros(), &ra, n_exact).dot(n_exact) > 1.0 - 1e-9);
        assert!(outward(&b, &pos, &rb, &-n_exact).dot(&-n_exact) > 1.0 - 1e-9);
        // The point lies between the two surfaces along the normal: inside both bodies
        // (for a small overlap, both implicit functions close to 1).
        let p = g.point.na();
        let local = |pos: &V, r: &UnitQuaternion<f64>| {
            let x = r.inverse() * (p - pos);
            [x.x, x.y, x.z]
        };
        assert!(a.implicit(local(&V::zeros(), &ra)) < 1.0);
        assert!(b.implicit(local(&pos, &rb)) < 1.0);
    }
}

#[test]
fn separated_blocky_bodies_report_the_sampled_distance() {
    let a = Superquadric::new([0.5, 0.4, 0.3], [4.0, 3.0]).unwrap();
    let b = Superquadric::new([0.3, 0.3, 0.5], [3.0, 5.0]).unwrap();
    let (ra, rb) = (turn([1.0, 2.0, 3.0], 0.5), turn([-1.0, 0.0, 1.0], 0.9));
    let pos = V::new(0.95, 0.3, -0.2);
    let (ba, bb) = (body(view(&a), V::zeros(), ra), body(view(&b), pos, rb));
    let g = Pair
        .try_term(&ba, &bb, 0.5, 0)
        .unwrap()
        .expect("within the distance");
    assert!(g.gap > 0.0, "the case must be apart: gap {}", g.gap);
    let (sa, sb) = (
        samples(&a, &V::zeros(), &ra, 200_000),
        samples(&b, &pos, &rb, 200_000),
    );
    // Apart, the least of `max_A p.n - min_B q.n` is minus the distance.
    let (depth, n) = sampled_depth(&sa, &sb);
    let dist = -depth;
    assert!(
        (g.gap - dist).abs() < 1e-4,
        "gap {} against sampled {dist}",
        g.gap
    );
    assert!(
        g.normal.na().dot(&n) > 1.0 - 1e-5,
        "normal {:?} against {n:?}",
        g.normal
    );
}

#[test]
fn a_sphere_overlaps_by_its_radius_less_the_sampled_distance() {
    let s = Superquadric::new([0.6, 0.3, 0.4], [3.0, 6.0]).unwrap();
    let rot = turn([0.2, 1.0, -0.4], 0.8);
    let pos = V::new(0.1, -0.2, 0.3);
    let surface = samples(&s, &pos, &rot, 400_000);
    for (centre, r) in [
        (V::new(0.9, 0.0, 0.5), 0.35),
        (V::new(-0.2, 0.1, 0.75), 0.2),
    ] {
        let ball = SphereShape { radius: r };
        let (b1, b2) = (
            body(
                ShapeView::of_sphere(&ball),
                centre,
                UnitQuaternion::identity(),
            ),
            body(view(&s), pos, rot),
        );
        let g = SphereSuperquadric
            .try_term(&b1, &b2, 0.1, 0)
            .unwrap()
            .expect("close");
        let (dist, near) = surface
            .iter()
            .map(|q| ((q - centre).norm(), *q))
            .min_by(|x, y| x.0.total_cmp(&y.0))
            .unwrap();
        // A centre inside the body (the second case, just) overlaps by the radius plus
        // its depth.
        let local = rot.inverse() * (centre - pos);
        let inside = s.implicit([local.x, local.y, local.z]) < 1.0;
        let want = if inside { -(dist + r) } else { dist - r };
        assert!((g.gap - want).abs() < 1e-4, "gap {} against {want}", g.gap);
        if !inside {
            let dir = (near - centre).normalize();
            assert!(
                g.normal.na().dot(&dir) > 0.999,
                "normal {:?} against {dir:?}",
                g.normal
            );
        }
        // Exactly: the superquadric's outward normal where it is deepest is -n, and
        // the centre lies on the normal line through that point.
        let n = g.normal.na();
        let q = rot.inverse() * -n;
        let p = s.support_point([q.x, q.y, q.z]);
        let h = 1e-7;
        let grad = V::from_fn(|i, _| {
            let (mut up, mut down) = (p, p);
            up[i] += h;
            down[i] -= h;
            (s.implicit(up) - s.implicit(down)) / (2.0 * h)
        });
        assert!((rot * grad).normalize().dot(&-n) > 1.0 - 1e-9);
        let foot = pos + rot * V::new(p[0], p[1], p[2]);
        assert!(
            (foot - centre).cross(n).norm() < 1e-9,
            "the centre is off the normal line"
        );
        assert_eq!(g.radius1, r);
    }
}

#[test]
fn a_wall_meets_the_deepest_sampled_point() {
    let s = Superquadric::new([0.5, 0.2, 0.3], [5.0, 2.5]).unwrap();
    let rot = turn([1.0, -0.5, 0.3], 1.2);
    let pos = V::new(0.3, 0.2, 0.25);
    let w = WallShape {
        normal: Vec3::new(0.0, 0.0, 1.0),
        sense: 1,
    };
    let wall = BodyView {
        pos: Vec3::ZERO,
        ori: Quat::IDENTITY,
        vel: Vec3::ZERO,
        angvel: Vec3::ZERO,
        shape: ShapeView::of_wall(&w),
    };
    let g = WallSuperquadric
        .try_term(&wall, &body(view(&s), pos, rot), 0.0, 0)
        .unwrap()
        .expect("it dips");
    let lowest = samples(&s, &pos, &rot, 400_000)
        .iter()
        .map(|p| p.z)
        .fold(f64::MAX, f64::min);
    assert!(
        g.gap <= lowest + 1e-12 && g.gap > lowest - 1e-5,
        "gap {} against {lowest}",
        g.gap
    );
    assert_eq!(g.normal.na(), &V::z());
    assert!((g.point.z - 0.5 * g.gap).abs() < 1e-12);
}

#[test]
fn the_kept_normal_gives_the_same_contact() {
    let a = Superquadric::new([0.5, 0.3, 0.2], [3.0, 2.0]).unwrap();
    let b = Superquadric::new([0.4, 0.4, 0.3], [2.0, 4.0]).unwrap();
    let (ra, rb) = (turn([0.0, 1.0, 0.0], 0.2), turn([1.0, 0.0, 0.0], 0.4));
    let pos = V::new(0.8, 0.05, 0.1);
    let (ba, bb) = (body(view(&a), V::zeros(), ra), body(view(&b), pos, rb));
    let mut state = [0.0; 3];
    let first = Pair
        .try_term_kept(&ba, &bb, 0.0, 0, &mut [], &mut state)
        .unwrap()
        .unwrap();
    assert!((V::new(state[0], state[1], state[2]) - first.normal.na()).norm() < 1e-15);
    let again = Pair
        .try_term_kept(&ba, &bb, 0.0, 0, &mut [], &mut state)
        .unwrap()
        .unwrap();
    assert!((again.gap - first.gap).abs() < 1e-13);
    assert!((again.normal.na() - first.normal.na()).norm() < 1e-10);
}

/// A small deterministic generator (xorshift) for poses.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
    fn unit(&mut self) -> V {
        loop {
            let v = V::new(self.next(), self.next(), self.next()) * 2.0 - V::repeat(1.0);
            if v.norm() > 0.1 && v.norm() < 1.0 {
                return v.normalize();
            }
        }
    }
}

#[test]
fn the_common_normal_converges_for_random_poses_of_blocky_bodies() {
    use crate::common_normal::Convex;
    use crate::posed::Posed;
    let mut rng = Rng(0x9e3779b97f4a7c15);
    let (mut failures, mut contacts) = (Vec::new(), 0);
    for k in 0..6000 {
        let mut blockiness = || [2.0 + 8.0 * rng.next(), 2.0 + 8.0 * rng.next()];
        let (n, m) = (blockiness(), blockiness());
        let a = Superquadric::new([0.03, 0.02, 0.02], n).unwrap();
        let b = Superquadric::new([0.025, 0.02, 0.015], m).unwrap();
        let (ra, rb) = (
            turn(rng.unit().into(), 3.0 * rng.next()),
            turn(rng.unit().into(), 3.0 * rng.next()),
        );
        // Along a random direction u, the centres where the supports along u touch,
        // shifted from 1.5 mm apart to 3 mm into each other (the overlap is at most
        // that: it is the least over directions).
        let u = rng.unit();
        let rot = |r: &UnitQuaternion<f64>| r.to_rotation_matrix().into_inner();
        let (pa, pb) = (
            Posed {
                shape: &a,
                rot: rot(&ra),
            },
            Posed {
                shape: &b,
                rot: rot(&rb),
            },
        );
        let reach = pa.support(&u).dot(&u) + pb.support(&-u).dot(&-u);
        let pos = u * (reach + 0.0015 - 0.0045 * rng.next());
        let (ba, bb) = (body(view(&a), V::zeros(), ra), body(view(&b), pos, rb));
        match Pair.try_term(&ba, &bb, 0.0, 0) {
            Ok(Some(g)) => {
                contacts += 1;
                assert!(g.gap < 0.0 && g.gap >= -0.003, "{k}: gap {}", g.gap);
            }
            Ok(None) => {}
            Err(e) => failures.push(format!("{k}: blockiness {n:?} and {m:?}: {e}")),
        }
    }
    println!("{contacts} contacts of 6000 poses");
    assert!(
        failures.is_empty(),
        "{} failures: {:#?}",
        failures.len(),
        &failures[..failures.len().min(5)]
    );
    assert!(contacts > 500, "only {contacts} poses overlap");
}
