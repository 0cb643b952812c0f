//! The depth-field contact potential of two convex polyhedra, and how it is handed to a
//! linear law with area-scaled stiffness.
//!
//! **Potential.** The overlap `I = A ∩ B` (volume `V`, centroid `x̄`) stores the energy
//! `E = k e`, `e = ∫_I φ_P dV = V φ_P(x̄)` (m^4), where `φ_P(x) = o_P - n_P · x` is the depth
//! of `x` below a face plane `P` (outward normal `n_P`, offset `o_P`) and `P` is the face
//! plane, of A or of B, that gives the smallest `e`. For a wall (the only plane) this is a
//! Winkler foundation, `e = ∫ t^2/2 dA` over the wall with `t` the local penetration, and
//! its force is Archimedes' buoyancy: `k V` along the normal at the overlap centroid.
//! Since `φ_P` is linear, `e` needs `V` and `x̄` only; taking the minimum over the planes
//! keeps `e` continuous when the active plane changes (the force jumps there, the energy
//! does not).
//!
//! **Force.** Let `P` belong to the "owner" and call the other body the "mover". Moving
//! the mover changes `e` only through its own faces inside the owner, `S_m`, so the exact
//! generalized force on the mover is the pressure `k φ_P` on `S_m`:
//! `F = -k ∫_{S_m} φ_P n_m dA`, moment `M = -k ∫_{S_m} φ_P (x - o) × n_m dA` (polygons
//! fanned into triangles, on which `φ_P` and `x` are linear: exact quadrature). The owner
//! gets `-F` and `-M` (translation and rotation invariance of `e`). The contact normal is
//! `F` (towards B), the point the one on the line of action of `(F, M)` closest to `x̄`.
//! The part of `M` along `F` (a "pitch" couple, which a point force cannot carry) is
//! dropped; it vanishes for a wall and for symmetric overlaps and is returned so that
//! callers can measure it. Faces flush with both bodies count half (their normals cancel
//! in pairs).
//!
//! **To the law.** A linear law with stiffness per area (`k_n = k A`) gives the force
//! `k A |g|` and stores `k A g^2 / 2`. With `f = |F| / k` (m^3), reporting
//! `gap = -2 e / f` and `area = f^2 / (2 e)` makes the law's force exactly `|F|` and its
//! stored energy exactly `E`: the force is the gradient of the stored energy. For a flat
//! face-to-face overlap of depth `d` on a face of area `a`, `gap = -d`, `area = a`; for a
//! vertex it is half the vertex depth and two thirds of the section area of a
//! three-faced corner (the force grows as `d^3` at a vertex, as `d` on a face).
//!
//! This deviates from reference 000 (Solfec), whose point, normal and gap are not the
//! gradient of any energy a law stores (measured: 19 % ledger error on a cube tipping off
//! an edge). Solfec's definition stays available (`definition: Solfec`).

use dem_api::convex::{Polyhedron, Surface};
use dem_api::nalgebra::{Point3, Vector3};

/// The potential contact of two polyhedra: what a geometry functor reports.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PotentialContact {
    /// Point on the line of action nearest the overlap centroid (m, world frame).
    pub point: Point3<f64>,
    /// Unit normal from A to B (the direction of the force on B).
    pub normal: Vector3<f64>,
    /// Equivalent gap `-2 e / f` (m, negative).
    pub gap: f64,
    /// Equivalent area `f^2 / (2 e)` (m^2).
    pub area: f64,
    /// Overlap volume `V` (m^3).
    pub volume: f64,
    /// `e = V φ_P(x̄)` (m^4): the stored energy per unit stiffness.
    pub energy: f64,
    /// `f = |F| / k` (m^3): the force per unit stiffness.
    pub force: f64,
    /// Dropped couple along the force per unit stiffness (m^4).
    pub pitch: f64,
}

/// The Winkler (buoyancy) term of a part of a body behind a plane, handed to the law as
/// the wall functors report it: the part has volume `vol` (m^3) and centroid `centroid`
/// (m, world frame); the plane passes through `origin` (m) with unit normal `n` pointing
/// out of the half-space (towards the body). With `s̄ = n · (origin - centroid)` (m) the
/// centroid's depth, the stored energy per unit stiffness is `e = vol s̄` (m^4) and the
/// force `vol` (m^3) along `n` at the centroid; returns `(point, gap, area)`:
/// `point` the centroid projected on the plane (m), `gap = -2 s̄` (m) and
/// `area = vol / (2 s̄)` (m^2), so that a linear law with `kn_per_area` gives the force
/// `k vol` and stores `k vol s̄` (the `f`, `e` mapping of [`potential_contact`] with
/// `f = vol`). `None` when the part has no volume or no depth.
pub fn buoyancy(
    vol: f64,
    centroid: &Vector3<f64>,
    n: &Vector3<f64>,
    origin: &Vector3<f64>,
) -> Option<(Point3<f64>, f64, f64)> {
    let depth = n.dot(&(origin - centroid));
    if vol.is_nan() || vol <= 0.0 || depth.is_nan() || depth <= 0.0 {
        return None;
    }
    Some((
        Point3::from(centroid + n * depth),
        -2.0 * depth,
        vol / (2.0 * depth),
    ))
}

/// Volume (m^3) and centroid of the polyhedron bounded by the intersection surface `s`,
/// fanned from an interior point `o`.
pub fn volume_centroid(s: &impl Surface, o: &Vector3<f64>) -> (f64, Vector3<f64>) {
    let (mut vol, mut moment) = (0.0, Vector3::zeros());
    for f in 0..s.face_count() {
        let len = s.face(f).0;
        let p0 = s.face_point(f, 0) - o;
        for k in 1..len.saturating_sub(1) {
            let (p1, p2) = (s.face_point(f, k) - o, s.face_point(f, k + 1) - o);
            // `o` is interior: every fan tetrahedron counts positively.
            let dv = (p0.dot(&p1.cross(&p2)) / 6.0).abs();
            vol += dv;
            moment += dv * (p0 + p1 + p2) / 4.0;
        }
    }
    (vol, o + moment / vol)
}

/// The potential contact of A and B from their intersection surface `inter` (an
/// `Intersection`, or the clipped polytope read in place; non-empty interior).
/// `None` when the overlap has no volume or no depth (touching).
pub fn potential_contact(
    a: &Polyhedron,
    b: &Polyhedron,
    inter: &impl Surface,
) -> Option<PotentialContact> {
    let o = inter.interior_point();
    let (vol, xbar) = volume_centroid(inter, &o);
    if vol.is_nan() || vol <= 0.0 {
        return None;
    }
    // The active plane: smallest depth of the centroid over the faces of A and B.
    let depth = |p: &Polyhedron| {
        p.faces()
            .iter()
            .map(|f| (f.offset - f.normal.dot(&xbar), f.normal, f.offset))
            .fold((f64::INFINITY, Vector3::zeros(), 0.0), |m, x| {
                if x.0 < m.0 {
                    x
                } else {
                    m
                }
            })
    };
    let (da, db) = (depth(a), depth(b));
    // The owner of the plane is A unless B's plane is shallower; the mover is the other.
    let (owner_is_a, (phi_c, n_p, o_p)) = if da.0 <= db.0 {
        (true, da)
    } else {
        (false, db)
    };
    if phi_c.is_nan() || phi_c <= 0.0 {
        return None;
    }
    let energy = vol * phi_c;
    let (mut force, mut moment) = (Vector3::zeros(), Vector3::zeros());
    for f in 0..inter.face_count() {
        let (len, normal, src) = inter.face(f);
        let of_mover = if owner_is_a { src.b } else { src.a }.is_some();
        if !of_mover {
            continue;
        }
        let of_owner = if owner_is_a { src.a } else { src.b }.is_some();
        let w = if of_owner { 0.5 } else { 1.0 };
        let phi = |x: &Vector3<f64>| o_p - n_p.dot(&(x + o));
        let x0 = inter.face_point(f, 0) - o;
        let (mut int_phi, mut int_phi_x) = (0.0, Vector3::zeros());
        for k in 1..len.saturating_sub(1) {
            let (x1, x2) = (inter.face_point(f, k) - o, inter.face_point(f, k + 1) - o);
            let area = 0.5 * (x1 - x0).cross(&(x2 - x0)).norm();
            let (p0, p1, p2) = (phi(&x0), phi(&x1), phi(&x2));
            int_phi += area * (p0 + p1 + p2) / 3.0;
            // ∫ f g dA = A/12 (Σ f_i g_i + Σ f_i Σ g_i) for linear f, g on a triangle.
            int_phi_x +=
                (area / 12.0) * (p0 * x0 + p1 * x1 + p2 * x2 + (p0 + p1 + p2) * (x0 + x1 + x2));
        }
        force -= w * int_phi * normal;
        moment -= w * int_phi_x.cross(&normal);
    }
    // Wrench on B about `o`.
    let (force, moment) = if owner_is_a {
        (force, moment)
    } else {
        (-force, -moment)
    };
    let f = force.norm();
    if f.is_nan() || f <= 0.0 || !energy.is_finite() {
        return None;
    }
    let normal = force / f;
    let pitch = moment.dot(&normal);
    let m_perp = moment - pitch * normal;
    // The point of the line of action `c × F = M_perp` nearest the centroid.
    let xr = xbar - o;
    let point = o + xr + force.cross(&(m_perp - xr.cross(&force))) / (f * f);
    Some(PotentialContact {
        point: Point3::from(point),
        normal,
        gap: -2.0 * energy / f,
        area: f * f / (2.0 * energy),
        volume: vol,
        energy,
        force: f,
        pitch,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use dem_api::convex::generate::cube;
    use dem_api::convex::intersect;
    use dem_api::nalgebra::{Isometry3, UnitQuaternion};

    fn at(p: &Polyhedron, t: Vector3<f64>, rot: UnitQuaternion<f64>) -> Polyhedron {
        p.transformed(&Isometry3::from_parts(t.into(), rot))
    }

    /// The functor reads the clipped polytope in place (`clip_then`) instead of building
    /// the `Intersection` that `intersect` returns: the potential contact is bitwise the
    /// same, on rock and cube pairs overlapping deeply, shallowly and hardly at all.
    #[test]
    fn the_potential_read_in_place_is_that_of_the_built_intersection() {
        use dem_api::convex::clip::clip_then;
        use dem_api::convex::generate::rock;
        let shapes = [
            rock(3, 30, Vector3::new(0.6, 0.5, 0.4)).unwrap(),
            rock(4, 20, Vector3::new(0.5, 0.4, 0.3)).unwrap(),
            cube(0.8).unwrap(),
        ];
        let mut in_place = 0;
        for i in 0..600 {
            let t = i as f64;
            let dir = Vector3::new((1.3 * t).sin(), (0.7 * t).cos(), (2.1 * t).sin()).normalize();
            let rot = |x: f64| UnitQuaternion::from_scaled_axis(Vector3::new(x, 0.5 * x, -x));
            let a = at(&shapes[i % 3], Vector3::new(3.0, -1.0, 2.0), rot(0.3 * t));
            let d = 0.3 + 0.6 * (0.37 * t).sin().abs();
            let b = at(
                &shapes[(i / 3) % 3],
                Vector3::new(3.0, -1.0, 2.0) + dir * d,
                rot(1.1 * t),
            );
            let eps = 1e-6;
            let Some(read) = clip_then(&a, &b, eps, |view| potential_contact(&a, &b, view)) else {
                continue;
            };
            in_place += 1;
            let built = potential_contact(&a, &b, &intersect(&a, &b, eps).unwrap());
            assert_eq!(format!("{read:?}"), format!("{built:?}"), "pair {i}");
            assert!(read.is_some_and(|c| c.volume > 0.0), "pair {i}");
        }
        assert!(in_place > 300, "{in_place} pairs clipped");
    }

    #[test]
    fn face_to_face_gives_the_depth_and_the_face_area() {
        // A 0.5 m cube 0.1 m deep in the top face of a unit cube (top at z = 0.5).
        let a = cube(1.0).unwrap();
        let b = cube(0.5).unwrap().translated(&Vector3::new(0.2, 0.1, 0.65));
        let i = intersect(&a, &b, 1e-9).unwrap();
        let c = potential_contact(&a, &b, &i).unwrap();
        assert!((c.volume - 0.025).abs() < 1e-12, "{c:?}");
        assert!((c.energy - 0.025 * 0.05).abs() < 1e-12, "{c:?}");
        assert!((c.gap + 0.1).abs() < 1e-12, "{c:?}");
        assert!((c.area - 0.25).abs() < 1e-12, "{c:?}");
        assert!((c.normal - Vector3::z()).norm() < 1e-12);
        assert!((c.point.coords - Vector3::new(0.2, 0.1, 0.45)).norm() < 1e-12);
        assert!(c.pitch.abs() < 1e-14);
    }

    #[test]
    fn an_overhanging_face_is_pushed_off_the_edge() {
        // Unit cubes, B 0.1 deep on A and sticking out over two edges: the overlap
        // [-0.3, 0.5] x [-0.4, 0.5] x [0.4, 0.5]; the depth pressure 0.5 - z also acts on
        // B's side faces inside A (mean 0.05 on 0.9 x 0.1 and 0.8 x 0.1), pushing B off.
        let a = cube(1.0).unwrap();
        let b = a.translated(&Vector3::new(0.2, 0.1, 0.9));
        let i = intersect(&a, &b, 1e-9).unwrap();
        let c = potential_contact(&a, &b, &i).unwrap();
        let force = Vector3::new(0.0045, 0.004, 0.072);
        assert!((c.force * c.normal - force).norm() < 1e-12, "{c:?}");
        assert!((c.energy - 0.072 * 0.05).abs() < 1e-12, "{c:?}");
    }

    #[test]
    fn a_cube_corner_in_a_face_is_buoyancy() {
        // Corner (1,1,1) direction pointing down into the top face of A, depth d.
        let a = cube(1.0).unwrap().translated(&Vector3::new(0.0, 0.0, -0.5));
        let rot = UnitQuaternion::rotation_between(
            &Vector3::new(-1.0, -1.0, -1.0),
            &Vector3::new(0.0, 0.0, -1.0),
        )
        .unwrap();
        let unit = cube(1.0).unwrap();
        let corner = rot * Vector3::new(-0.5, -0.5, -0.5);
        let d = 0.05;
        let b = at(&unit, Vector3::new(0.1, 0.0, -d) - corner, rot);
        let i = intersect(&a, &b, 1e-12).unwrap();
        let c = potential_contact(&a, &b, &i).unwrap();
        // Three-faced right-angle corner: V = sqrt(3)/2 d^3, centroid depth d/4.
        let v = 3f64.sqrt() / 2.0 * d.powi(3);
        assert!((c.volume / v - 1.0).abs() < 1e-9, "{c:?} vs {v}");
        assert!((c.energy / (v * d / 4.0) - 1.0).abs() < 1e-9);
        assert!((c.force / v - 1.0).abs() < 1e-9);
        assert!((c.normal - Vector3::z()).norm() < 1e-9);
        assert!((c.gap + d / 2.0).abs() < 1e-9);
        assert!((c.point.x - 0.1).abs() < 1e-9 && c.point.y.abs() < 1e-9);
    }

    #[test]
    fn the_force_is_the_gradient_of_the_energy() {
        // Two rotated cubes: finite differences of e against the wrench, in translation
        // and rotation of B.
        let a = cube(1.0).unwrap();
        let ra = UnitQuaternion::from_euler_angles(0.3, -0.2, 0.5);
        let rb = UnitQuaternion::from_euler_angles(-0.4, 0.7, 0.1);
        let a = at(&a, Vector3::zeros(), ra);
        let unit = cube(0.8).unwrap();
        let xb = Vector3::new(0.1, 0.15, 0.75);
        let e = |t: Vector3<f64>, w: Vector3<f64>| {
            let b = at(&unit, xb + t, UnitQuaternion::new(w) * rb);
            let i = intersect(&a, &b, 1e-12).unwrap();
            potential_contact(&a, &b, &i).unwrap()
        };
        let c = e(Vector3::zeros(), Vector3::zeros());
        let h = 1e-6;
        for k in 0..3 {
            let dk = Vector3::ith(k, h);
            let fd = (e(dk, Vector3::zeros()).energy - e(-dk, Vector3::zeros()).energy) / (2.0 * h);
            let force = c.force * c.normal[k];
            assert!(
                (fd + force).abs() < 1e-6 * c.force,
                "translation {k}: {fd} vs {force}"
            );
            // Rotation of B about its centroid.
            let fd = (e(Vector3::zeros(), dk).energy - e(Vector3::zeros(), -dk).energy) / (2.0 * h);
            let torque =
                ((c.point.coords - xb).cross(&(c.force * c.normal)))[k] + c.pitch * c.normal[k];
            assert!(
                (fd + torque).abs() < 1e-6 * c.force,
                "rotation {k}: {fd} vs {torque}"
            );
        }
    }
}
