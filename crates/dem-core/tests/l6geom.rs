//! L6Geom on its own: rigid motion gives no displacement, pure twist and pure slide give
//! exactly what was imposed, and the frame stays orthonormal.

use dem_api::RawGeom;
use dem_core::engines::l6geom::{BodyKin, L6State};
use dem_core::scene::L6Options;
use nalgebra::{Matrix3, Rotation3, Vector3};

fn sphere_geom(x1: &Vector3<f64>, x2: &Vector3<f64>, r1: f64, r2: f64) -> RawGeom {
    let d = x2 - x1;
    let n = d.normalize();
    let gap = d.norm() - r1 - r2;
    RawGeom {
        touching: 1,
        point: (x1 + n * (r1 + 0.5 * gap)).into(),
        normal: n.into(),
        gap,
        radius1: r1,
        radius2: r2,
        area: 0.0,
        weight: 1.0,
    }
}

/// Two overlapping spheres moving as one rigid body: translation plus rotation about an
/// arbitrary axis through an arbitrary point. Returns (|u_t|, |phi|) after `steps`.
fn rigid(steps: usize, opt: L6Options) -> (f64, f64) {
    let (r1, r2) = (1.0, 0.7);
    let axis = Vector3::new(0.3, -0.5, 0.8).normalize();
    let omega = axis * 2.0; // rad/s
    let centre = Vector3::new(0.4, 1.0, -0.2);
    let vel = Vector3::new(0.1, -0.3, 0.2);
    let a1 = Vector3::new(0.0, 0.0, 0.0);
    let a2 = Vector3::new(1.2, 0.9, 0.3).normalize() * (r1 + r2 - 0.01);
    let total_time = 1.0;
    let dt = total_time / steps as f64;
    let pose =
        |t: f64, a: &Vector3<f64>| centre + vel * t + Rotation3::new(omega * t) * (a - centre);
    let kin = |t: f64, a: &Vector3<f64>| BodyKin {
        pos: pose(t, a),
        vel: vel + omega.cross(&(pose(t - 0.5 * dt, a) - (centre + vel * (t - 0.5 * dt)))),
        angvel: omega,
    };
    let g0 = sphere_geom(&pose(0.0, &a1), &pose(0.0, &a2), r1, r2);
    let mut s = L6State::create(&g0, &kin(0.0, &a1), &kin(0.0, &a2), &opt);
    for k in 1..=steps {
        let t = k as f64 * dt;
        let g = sphere_geom(&pose(t, &a1), &pose(t, &a2), r1, r2);
        s.update(&g, &kin(t, &a1), &kin(t, &a2), dt, &opt);
    }
    (Vector3::new(0.0, s.u.y, s.u.z).norm(), s.phi.norm())
}

#[test]
fn rigid_motion_accumulates_no_displacement() {
    // Branch vectors c - x_i (no_ratch off) make the relative velocity of a rigid motion
    // vanish. The velocities are at mid-step and so are the branch vectors (the contact
    // point and the positions at t - dt/2): what remains is a second-order error.
    let opt = L6Options {
        no_ratch: false,
        ..Default::default()
    };
    let coarse = rigid(1_000, opt);
    let fine = rigid(10_000, opt);
    println!(
        "rigid motion, 2 rad turned: |u_t|, |phi| = {coarse:?} (1e3 steps), {fine:?} (1e4 steps)"
    );
    // The pair turns 2 rad on an arc of ~3 m: a residual of 2e-8 m at 1e4 steps, second
    // order in dt (a hundred times less for ten times more steps), and phi exactly zero.
    // (With the branch vectors at t instead of mid-step it was 3e-5 m, first order.)
    assert!(fine.0 < 5e-8 && fine.1 < 1e-12, "{fine:?}");
    let order = coarse.0 / fine.0;
    assert!(
        (80.0..120.0).contains(&order),
        "error must fall like dt^2: {coarse:?} -> {fine:?}"
    );
}

fn flat_geom(x2: &Vector3<f64>, r2: f64) -> RawGeom {
    let n = Vector3::z();
    let gap = x2.z - r2;
    RawGeom {
        touching: 1,
        point: (x2 - n * (r2 + 0.5 * gap)).into(),
        normal: n.into(),
        gap,
        radius1: f64::INFINITY,
        radius2: r2,
        area: 0.0,
        weight: 1.0,
    }
}

#[test]
fn pure_twist_gives_phi_x_equal_to_the_angle() {
    let opt = L6Options::default();
    let r = 0.5;
    let x2 = Vector3::new(0.0, 0.0, r - 1e-3);
    let spin = 3.0; // rad/s about the normal
    let wall = BodyKin {
        pos: Vector3::zeros(),
        vel: Vector3::zeros(),
        angvel: Vector3::zeros(),
    };
    let ball = BodyKin {
        pos: x2,
        vel: Vector3::zeros(),
        angvel: Vector3::z() * spin,
    };
    let mut s = L6State::create(&flat_geom(&x2, r), &wall, &ball, &opt);
    let (steps, dt) = (10_000, 1e-4);
    for _ in 0..steps {
        s.update(&flat_geom(&x2, r), &wall, &ball, dt, &opt);
    }
    let angle = spin * dt * steps as f64;
    assert!(
        (s.phi.x - angle).abs() < 1e-12 * angle,
        "phi = {:?}, angle {angle}",
        s.phi
    );
    assert!(s.phi.y.abs() < 1e-14 && s.phi.z.abs() < 1e-14);
    assert!(s.u.y.abs() < 1e-14 && s.u.z.abs() < 1e-14);
}

#[test]
fn pure_slide_gives_u_t_equal_to_the_distance() {
    let opt = L6Options::default();
    let r = 0.5;
    let v = Vector3::new(0.6, -0.8, 0.0);
    let wall = BodyKin {
        pos: Vector3::zeros(),
        vel: Vector3::zeros(),
        angvel: Vector3::zeros(),
    };
    let start = Vector3::new(0.0, 0.0, r - 1e-3);
    let (steps, dt) = (10_000, 1e-4);
    let ball = |k: usize| BodyKin {
        pos: start + v * (k as f64 * dt),
        vel: v,
        angvel: Vector3::zeros(),
    };
    let mut s = L6State::create(&flat_geom(&start, r), &wall, &ball(0), &opt);
    for k in 1..=steps {
        let b = ball(k);
        s.update(&flat_geom(&b.pos, r), &wall, &b, dt, &opt);
    }
    let distance = v.norm() * dt * steps as f64;
    let ut = Vector3::new(0.0, s.u.y, s.u.z).norm();
    assert!(
        (ut - distance).abs() < 1e-12 * distance,
        "u = {:?}, distance {distance}",
        s.u
    );
    // The local tangential displacement, rotated back, is the imposed one.
    let global = s.frame.transpose() * Vector3::new(0.0, s.u.y, s.u.z);
    assert!((global - v * (dt * steps as f64)).norm() < 1e-12);
}

#[test]
fn frame_stays_orthonormal_over_a_million_steps() {
    let opt = L6Options::default();
    let (r1, r2) = (1.0, 1.0);
    let dt = 1e-4;
    // Sphere 2 orbits sphere 1 on a tilted great circle while both spin.
    let axis = Vector3::new(0.2, 0.7, 0.4).normalize();
    let p2 = |t: f64| {
        Rotation3::new(axis * (0.5 * t)) * (Vector3::new(1.999, 0.0, 0.0) - axis * axis.x * 1.999)
    };
    let b1 = BodyKin {
        pos: Vector3::zeros(),
        vel: Vector3::zeros(),
        angvel: Vector3::new(1.0, -2.0, 0.5),
    };
    let kin2 = |t: f64| BodyKin {
        pos: p2(t),
        vel: (p2(t) - p2(t - dt)) / dt,
        angvel: Vector3::new(-0.3, 0.9, 2.0),
    };
    let mut s = L6State::create(
        &sphere_geom(&b1.pos, &p2(0.0), r1, r2),
        &b1,
        &kin2(0.0),
        &opt,
    );
    for k in 1..=1_000_000 {
        let t = k as f64 * dt;
        s.update(
            &sphere_geom(&b1.pos, &p2(t), r1, r2),
            &b1,
            &kin2(t),
            dt,
            &opt,
        );
    }
    let err = (s.frame * s.frame.transpose() - Matrix3::identity())
        .abs()
        .max();
    assert!(err < 1e-12, "T T^T - I = {err:e}");
    assert!(s.frame.determinant() > 0.0);
    let n = sphere_geom(&b1.pos, &p2(1e6 * dt), r1, r2).normal;
    assert!((s.frame.row(0).transpose() - n.na()).norm() < 1e-15);
}

#[test]
fn initial_frame_is_deterministic_and_orthonormal() {
    for n in [
        Vector3::x(),
        Vector3::y(),
        Vector3::z(),
        Vector3::new(1.0, 2.0, -3.0).normalize(),
    ] {
        let t = dem_core::engines::l6geom::initial_frame(&n);
        assert!((t * t.transpose() - Matrix3::identity()).abs().max() < 1e-15);
        assert_eq!(t.row(0).transpose(), n);
        assert!(t.determinant() > 0.0);
    }
    // |n_y| < |n_z|: local y lies in the global xz plane.
    let t = dem_core::engines::l6geom::initial_frame(&Vector3::new(0.6, 0.0, 0.8));
    assert!(t[(1, 1)].abs() < 1e-15);
}
