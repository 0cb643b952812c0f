//! Clumps (issue 24): mass properties of overlapping member spheres against closed forms
//! derived here, independently of the solver's slicing quadrature.

use dem_core::engines::clump::{union_mass_properties, ClumpTemplate, Member};
use nalgebra::{Matrix3, UnitQuaternion, Vector3};
use std::f64::consts::PI;

/// Polynomial coefficients, lowest degree first.
type Poly = Vec<f64>;

fn mul(a: &[f64], b: &[f64]) -> Poly {
    let mut c = vec![0.0; a.len() + b.len() - 1];
    for (i, x) in a.iter().enumerate() {
        for (j, y) in b.iter().enumerate() {
            c[i + j] += x * y;
        }
    }
    c
}

/// ∫_lo^hi p(x) dx from the antiderivative.
fn integral(p: &[f64], lo: f64, hi: f64) -> f64 {
    let f = |x: f64| {
        p.iter()
            .enumerate()
            .map(|(k, c)| c * x.powi(k as i32 + 1) / (k as f64 + 1.0))
            .sum::<f64>()
    };
    f(hi) - f(lo)
}

/// Volume, centroid (along the axis), axial and transverse moment of inertia about the
/// centroid (unit density) of the union of spheres centred at `s[i]` on one axis with
/// radii `r[i]`. Every cut normal to the axis is a disc of radius `R(x)` with
/// `R^2 = max_i (r_i^2 - (x - s_i)^2)`: a quadratic in x between the points where the
/// dominant sphere changes, so each moment is a sum of polynomial integrals
/// (disc: area pi R^2, axial moment pi R^4 / 2, moment about a diameter pi R^4 / 4).
fn collinear(s: &[f64], r: &[f64]) -> (f64, f64, f64, f64) {
    let mut cuts: Vec<f64> = Vec::new();
    for i in 0..s.len() {
        cuts.push(s[i] - r[i]);
        cuts.push(s[i] + r[i]);
        for j in 0..s.len() {
            if s[j] != s[i] {
                cuts.push(
                    (r[i] * r[i] - r[j] * r[j] + s[j] * s[j] - s[i] * s[i]) / (2.0 * (s[j] - s[i])),
                );
            }
        }
    }
    cuts.sort_by(f64::total_cmp);
    let profile = |i: usize| -> Poly { vec![r[i] * r[i] - s[i] * s[i], 2.0 * s[i], -1.0] };
    let sq = |i: usize, x: f64| r[i] * r[i] - (x - s[i]) * (x - s[i]);
    let (mut v, mut first, mut second, mut axial, mut diam) = (0.0, 0.0, 0.0, 0.0, 0.0);
    for w in cuts.windows(2) {
        let (lo, hi) = (w[0], w[1]);
        let mid = 0.5 * (lo + hi);
        let Some(i) = (0..s.len())
            .filter(|&i| sq(i, mid) > 0.0)
            .max_by(|&a, &b| sq(a, mid).total_cmp(&sq(b, mid)))
        else {
            continue;
        };
        let q = profile(i);
        let q2 = mul(&q, &q);
        v += PI * integral(&q, lo, hi);
        first += PI * integral(&mul(&q, &[0.0, 1.0]), lo, hi);
        second += PI * integral(&mul(&q, &[0.0, 0.0, 1.0]), lo, hi);
        axial += PI / 2.0 * integral(&q2, lo, hi);
        diam += PI / 4.0 * integral(&q2, lo, hi);
    }
    let c = first / v;
    (v, c, axial, diam + second - v * c * c)
}

/// The union of spheres at `offset + s[i] axis` and the expected tensor about the
/// centroid, checked to `tol` relative.
fn check_collinear(s: &[f64], r: &[f64], axis: Vector3<f64>, offset: Vector3<f64>, tol: f64) {
    let u = axis.normalize();
    let members: Vec<Member> = s
        .iter()
        .zip(r)
        .map(|(&s, &r)| Member {
            center: offset + u * s,
            radius: r,
        })
        .collect();
    let (v, c, ia, it) = collinear(s, r);
    let got = union_mass_properties(&members);
    let uu = u * u.transpose();
    let want = (Matrix3::identity() - uu) * it + uu * ia;
    let scale = r.iter().fold(0.0f64, |a, &b| a.max(b));
    assert!(
        (got.volume / v - 1.0).abs() < tol,
        "volume {} vs {v}",
        got.volume
    );
    assert!(
        (got.centroid.coords - (offset + u * c)).norm() < tol * scale,
        "centroid {:?} vs {:?}",
        got.centroid,
        offset + u * c
    );
    let err = (got.inertia - want).norm() / want.norm();
    assert!(err < tol, "inertia {} vs {want}: {err:e}", got.inertia);
}

#[test]
fn dumbbell_matches_the_spherical_cap_closed_form() {
    // Two spheres of radius r, centres d apart: each is a sphere less the cap of height
    // h = r - d/2 beyond the mid-plane. With t measured from a sphere's centre towards
    // the other one, the kept part is t in [-r, d/2]:
    //   V1 = pi [r^2 t - t^3/3], S1 = pi [r^2 t^2/2 - t^4/4] (about the sphere's centre),
    //   Q1 = pi [r^2 t^3/3 - t^5/5] (∫ t^2), A1 = pi/2 [r^4 t - 2 r^2 t^3/3 + t^5/5].
    let r: f64 = 0.5e-3;
    for d in [2.0 * r, 1.2 * r, 0.3 * r] {
        let at = |f: &dyn Fn(f64) -> f64| f(d / 2.0) - f(-r);
        let v1 = PI * at(&|t| r * r * t - t.powi(3) / 3.0);
        let s1 = PI * at(&|t| r * r * t * t / 2.0 - t.powi(4) / 4.0);
        let q1 = PI * at(&|t| r * r * t.powi(3) / 3.0 - t.powi(5) / 5.0);
        let a1 =
            PI / 2.0 * at(&|t| r.powi(4) * t - 2.0 * r * r * t.powi(3) / 3.0 + t.powi(5) / 5.0);
        // Cap check of the volume: V = 2 (4/3 pi r^3 - pi h^2 (3r - h)/3).
        let h = r - d / 2.0;
        let v = 2.0 * v1;
        assert!(
            (v / (2.0 * (4.0 / 3.0 * PI * r.powi(3) - PI * h * h * (3.0 * r - h) / 3.0)) - 1.0)
                .abs()
                < 1e-12
        );
        // The centroid is the mid-point; a half sits at distance x = d/2 - t from it:
        // ∫ x^2 = (d/2)^2 V1 - d S1 + Q1.
        let axial = 2.0 * a1;
        let transverse = 2.0 * (a1 / 2.0 + (d / 2.0).powi(2) * v1 - d * s1 + q1);
        let members = [
            Member {
                center: Vector3::new(-d / 2.0, 0.0, 0.0),
                radius: r,
            },
            Member {
                center: Vector3::new(d / 2.0, 0.0, 0.0),
                radius: r,
            },
        ];
        let got = union_mass_properties(&members);
        assert!(
            (got.volume / v - 1.0).abs() < 1e-10,
            "d {d}: {} vs {v}",
            got.volume
        );
        assert!(got.centroid.coords.norm() < 1e-12 * r);
        let want = Matrix3::from_diagonal(&Vector3::new(axial, transverse, transverse));
        assert!(
            (got.inertia - want).norm() < 1e-10 * want.norm(),
            "d {d}: {} vs {want}",
            got.inertia
        );
        // The same from the piecewise form, along a slanted axis (so that the solver's
        // cuts normal to z meet both spheres obliquely).
        check_collinear(
            &[-d / 2.0, d / 2.0],
            &[r, r],
            Vector3::new(1.0, 2.0, 2.0),
            Vector3::new(1e-3, 0.0, -2e-3),
            1e-10,
        );
    }
    // Touching spheres: two whole spheres, I = 2 (2/5 m r^2 + m r^2) across the axis.
    let m = 4.0 / 3.0 * PI * r.powi(3);
    let got = union_mass_properties(&[
        Member {
            center: Vector3::new(0.0, 0.0, -r),
            radius: r,
        },
        Member {
            center: Vector3::new(0.0, 0.0, r),
            radius: r,
        },
    ]);
    let want = Vector3::new(
        2.0 * (0.4 + 1.0) * m * r * r,
        2.0 * (0.4 + 1.0) * m * r * r,
        0.8 * m * r * r,
    );
    assert!((got.inertia.diagonal() - want).norm() < 1e-10 * want.norm());
}

#[test]
fn three_collinear_overlapping_spheres_match_the_piecewise_closed_form() {
    // Neighbours overlap, the outer two do not.
    check_collinear(
        &[0.0, 1.0, 2.1],
        &[0.8, 0.6, 0.9],
        Vector3::new(0.3, -0.2, 1.0),
        Vector3::new(0.5, 0.1, 0.0),
        1e-10,
    );
    // All three overlap each other, and the middle one pokes out of neither.
    check_collinear(
        &[0.0, 0.5, 1.0],
        &[0.7, 0.5, 0.7],
        Vector3::new(1.0, 1.0, 0.0),
        Vector3::zeros(),
        1e-10,
    );
    // Along z itself (cuts normal to the axis: every cut is one disc).
    check_collinear(
        &[0.0, 0.9, 1.6],
        &[1.0, 0.4, 0.8],
        Vector3::z(),
        Vector3::zeros(),
        1e-10,
    );
}

/// An asymmetric cluster with a triple overlap, a member inside another and a touching
/// one: the quadrature must give the rotated tensor for a rotated copy (the cuts then
/// fall elsewhere, so this measures the quadrature error of the general case).
fn cluster() -> Vec<Member> {
    let m = |x: f64, y: f64, z: f64, r: f64| Member {
        center: Vector3::new(x, y, z),
        radius: r,
    };
    vec![
        m(0.0, 0.0, 0.0, 1.0),
        m(1.2, 0.3, -0.1, 0.8),
        m(0.5, 1.0, 0.4, 0.7),
        m(0.1, 0.2, 0.1, 0.3),
        m(-1.6, 0.0, 0.0, 0.6),
        m(0.6, 0.5, -0.9, 0.5),
    ]
}

#[test]
fn a_rotated_cluster_has_the_rotated_tensor() {
    let base = union_mass_properties(&cluster());
    for (k, axis) in [
        Vector3::new(0.3, 1.0, -0.4),
        Vector3::new(1.0, 0.0, 0.0),
        Vector3::new(-0.2, 0.7, 0.9),
    ]
    .into_iter()
    .enumerate()
    {
        let q = UnitQuaternion::from_scaled_axis(axis * (0.7 + k as f64));
        let shift = Vector3::new(2.0, -1.0, 0.5);
        let moved: Vec<Member> = cluster()
            .iter()
            .map(|m| Member {
                center: q * m.center + shift,
                radius: m.radius,
            })
            .collect();
        let got = union_mass_properties(&moved);
        let rot = q.to_rotation_matrix().into_inner();
        assert!(
            (got.volume / base.volume - 1.0).abs() < 1e-10,
            "{} vs {}",
            got.volume,
            base.volume
        );
        assert!((got.centroid.coords - (q * base.centroid.coords + shift)).norm() < 1e-10);
        let want = rot * base.inertia * rot.transpose();
        let err = (got.inertia - want).norm() / want.norm();
        assert!(err < 1e-10, "rotation {k}: {err:e}");
    }
    // The union is less than the sum of the members and more than the largest.
    let sum: f64 = cluster()
        .iter()
        .map(|m| 4.0 / 3.0 * PI * m.radius.powi(3))
        .sum();
    assert!(base.volume < sum && base.volume > 4.0 / 3.0 * PI);
}

#[test]
fn templates_are_stored_in_principal_axes() {
    let members = cluster();
    let t = ClumpTemplate::new(&members, 2e-3).unwrap();
    // Members map back to the scaled template frame.
    for (b, m) in t.members.iter().zip(&members) {
        assert!(
            (t.frame * nalgebra::Point3::from(b.center) - nalgebra::Point3::from(m.center * 2e-3))
                .norm()
                < 1e-15
        );
        assert_eq!(b.radius, m.radius * 2e-3);
    }
    // In the body frame the tensor is diagonal with the stored moments, increasing.
    let body = union_mass_properties(&t.members);
    assert!(body.centroid.coords.norm() < 1e-12 * 2e-3);
    let diag = Matrix3::from_diagonal(&t.moments);
    assert!(
        (body.inertia - diag).norm() < 1e-10 * diag.norm(),
        "{} vs {diag}",
        body.inertia
    );
    assert!(t.moments.x <= t.moments.y && t.moments.y <= t.moments.z);
    // The volume scales with the cube of the scale.
    let unit = union_mass_properties(&members);
    assert!((t.volume / (unit.volume * 8e-9) - 1.0).abs() < 1e-10);
    let reach = t
        .members
        .iter()
        .map(|m| m.center.norm() + m.radius)
        .fold(0.0, f64::max);
    assert_eq!(t.bounding_radius, reach);
}

#[test]
fn bad_templates_say_what_is_wrong() {
    let m = |x: f64, r: f64| Member {
        center: Vector3::new(x, 0.0, 0.0),
        radius: r,
    };
    let cases: [(Vec<Member>, f64, &str); 5] = [
        (vec![], 1.0, "at least one member"),
        (
            vec![m(0.0, 1.0), m(1.0, 0.0)],
            1.0,
            "member 1: radius must be positive",
        ),
        (vec![m(0.0, 1.0), m(f64::NAN, 1.0)], 1.0, "member 1: centre"),
        (
            vec![m(0.0, 1.0), m(1.5, 1.0), m(5.0, 1.0)],
            1.0,
            "member 2 does not touch",
        ),
        (vec![m(0.0, 1.0)], -2.0, "scale must be positive"),
    ];
    for (members, scale, want) in cases {
        let e = ClumpTemplate::new(&members, scale).unwrap_err();
        assert!(e.contains(want), "{e} lacks {want}");
    }
}

/// A scene with the template `templates` (RON map body) and one clump of `name`.
fn clump_scene(templates: &str, name: &str) -> String {
    format!(
        r#"Scene(
    materials: {{ "m": (density: 1000, young: 1e6) }},
    laws: [(materials: ("m", "m"), law: "Law2_L6Geom_LinearElPl")],
    clump_templates: {{ {templates} }},
    bodies: [Clump(template: "{name}", position: (0, 0, 0), material: "m")],
    timestep: Critical(0.1),
    duration: Steps(1),
)"#
    )
}

#[test]
fn bad_clump_scenes_name_the_file_and_field() {
    let dir = std::env::temp_dir().join(format!("dem-clumps-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("bad.csv"),
        "x,y,z,radius\n0,0,0,1e-3\n1e-3,0,0,zero\n",
    )
    .unwrap();
    let scene = dir.join("s.ron");
    let pair = r#""pair": (members: [((0, 0, 0), 1e-3), ((1.5e-3, 0, 0), 1e-3)])"#;
    let cases = [
        (
            clump_scene(pair, "pear"),
            "s.ron: bodies[0].template: unknown clump template `pear` (defined: pair)",
        ),
        (
            clump_scene(r#""e": (members: [])"#, "e"),
            "s.ron: clump_templates.e: a clump template needs at least one member",
        ),
        (
            clump_scene(
                r#""e": (members: [((0, 0, 0), 1e-3)], file: "bad.csv")"#,
                "e",
            ),
            "s.ron: clump_templates.e: give either `members` or `file`",
        ),
        (
            clump_scene(
                r#""e": (members: [((0, 0, 0), 1e-3), ((0, 0, 0), -1)])"#,
                "e",
            ),
            "clump_templates.e: member 1: radius must be positive",
        ),
        (
            clump_scene(
                r#""e": (members: [((0, 0, 0), 1e-3), ((0.1, 0, 0), 1e-3)])"#,
                "e",
            ),
            "clump_templates.e: member 1 does not touch",
        ),
        (
            clump_scene(r#""e": (members: [((0, 0, 0), 1e-3)], scale: 0)"#, "e"),
            "clump_templates.e: scale must be positive",
        ),
        (
            clump_scene(r#""e": (file: "bad.csv")"#, "e"),
            "clump_templates.e.file: ",
        ),
        (
            clump_scene(r#""e": (file: "bad.csv")"#, "e"),
            "bad.csv:3: column `radius`: `zero` is not a number",
        ),
        (
            clump_scene(r#""e": (member: [((0, 0, 0), 1e-3)])"#, "e"),
            "s.ron:4:",
        ),
        (
            clump_scene(pair, "pair").replace(
                "    timestep:",
                r#"    output: (stress: (min: (0, 0, 0), max: (1, 1, 1))),
    timestep:"#,
            ),
            "s.ron: output.stress: not supported in a scene with clumps yet",
        ),
    ];
    for (text, want) in cases {
        std::fs::write(&scene, &text).unwrap();
        let e = match dem_core::scene::Scene::load(&scene)
            .and_then(|s| dem_core::Simulation::new(s, dem_verification::plugins()))
        {
            Ok(_) => panic!("accepted: {text}"),
            Err(e) => e.to_string(),
        };
        assert!(e.contains(want), "{e}\nlacks {want}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
