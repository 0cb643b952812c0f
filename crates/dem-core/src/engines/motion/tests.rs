//! Unit tests of prescribed motions: poses, velocities, changes and their bookkeeping.

use super::*;
use dem_api::SphereShape;

/// Two spheres at `a` and `b` (only the columns a motion reads and writes).
fn two(a: [f64; 3], b: [f64; 3]) -> Particles {
    let mut p = Particles::default();
    for x in [a, b] {
        p.pos.push(v(x));
        p.ori.push(UnitQuaternion::identity());
        p.vel.push(Vector3::zeros());
        p.angvel.push(Vector3::zeros());
        p.force.push(Vector3::zeros());
        p.torque.push(Vector3::zeros());
        p.shape.push(Shape::Sphere(SphereShape { radius: 0.1 }));
    }
    p
}

/// Steps the group from step `from` to step `to` of `dt` as a run does (poses set
/// exactly after each step).
fn advance(g: &Prescribed, p: &mut Particles, from: u64, to: u64, dt: f64) {
    for step in from..to {
        g.set_velocities(p, step as f64 * dt, dt);
        g.set_poses(p, (step + 1) as f64 * dt);
    }
}

const DT: f64 = 1e-3;

#[test]
fn a_translation_goes_on_from_its_pose_with_the_new_velocity() {
    let mut p = two([1.0, 2.0, 3.0], [-1.0, 0.0, 0.5]);
    let start = p.pos.clone();
    let (v1, v2) = ([0.0, 0.0, 0.5], [0.2, -0.1, 0.0]);
    let mut g = Prescribed::new(Motion::Translate { velocity: v1 }, vec![0, 1], &p);
    advance(&g, &mut p, 0, 400, DT);
    let t0 = 400.0 * DT;
    let at_change = p.pos.clone();
    g.change(Motion::Translate { velocity: v2 }, t0).unwrap();
    g.set_poses(&mut p, t0);
    assert_eq!(p.pos, at_change, "the pose is continuous at the change");
    advance(&g, &mut p, 400, 1000, DT);
    assert_eq!(p.vel[0], v(v2), "the velocity jumps to the new one");
    for (x, x0) in p.pos.iter().zip(&start) {
        // x0 + v1 t0 + v2 (t - t0), closed form.
        let want = x0 + v(v1) * t0 + v(v2) * (1000.0 * DT - t0);
        assert!((x - want).norm() < 1e-14, "{}", x - want);
    }
}

#[test]
fn a_rotation_goes_on_about_its_new_axis_from_its_pose() {
    let mut p = two([1.0, 0.0, 0.0], [0.0, 2.0, 0.5]);
    let start = p.pos.clone();
    let rotate = |omega: f64, axis: [f64; 3]| Motion::Rotate {
        center: [0.0; 3],
        axis,
        omega,
    };
    let mut g = Prescribed::new(rotate(2.0, [0.0, 0.0, 1.0]), vec![0, 1], &p);
    advance(&g, &mut p, 0, 300, DT);
    let at_change = p.pos.clone();
    g.change(rotate(-5.0, [1.0, 0.0, 0.0]), 300.0 * DT).unwrap();
    advance(&g, &mut p, 300, 800, DT);
    // 0.6 rad about z, then -2.5 rad about x: rotations composed by hand.
    let rz = |a: f64, x: Vector3<f64>| {
        Vector3::new(
            a.cos() * x.x - a.sin() * x.y,
            a.sin() * x.x + a.cos() * x.y,
            x.z,
        )
    };
    let rx = |a: f64, x: Vector3<f64>| {
        Vector3::new(
            x.x,
            a.cos() * x.y - a.sin() * x.z,
            a.sin() * x.y + a.cos() * x.z,
        )
    };
    for k in 0..2 {
        assert!((at_change[k] - rz(0.6, start[k])).norm() < 1e-14);
        let want = rx(-2.5, rz(0.6, start[k]));
        assert!((p.pos[k] - want).norm() < 1e-13, "{k}: {}", p.pos[k] - want);
        // The orientation turned with it.
        assert!((p.ori[k] * (start[1] - start[0]) - (p.pos[1] - p.pos[0])).norm() < 1e-13);
    }
    assert_eq!(p.angvel[0], Vector3::new(-5.0, 0.0, 0.0));
}

#[test]
fn a_shake_keeps_its_phase_and_its_pose_through_a_change() {
    let mut p = two([0.0, 0.0, 1.0], [0.3, 0.0, 1.0]);
    let start = p.pos.clone();
    let shake = |a: f64, f: f64| Motion::Shake {
        amplitude: [0.0, 0.0, a],
        frequency: f,
    };
    let (a1, f1, a2, f2) = (0.01, 25.0, 0.004, 40.0);
    let mut g = Prescribed::new(shake(a1, f1), vec![0, 1], &p);
    advance(&g, &mut p, 0, 130, DT);
    let t0 = 130.0 * DT;
    let before = p.pos[0];
    // A new frequency: the same oscillation about the same centre, at the new pace.
    g.change(shake(a1, f2), t0).unwrap();
    g.set_poses(&mut p, t0);
    assert!((p.pos[0] - before).norm() < 1e-17);
    advance(&g, &mut p, 130, 200, DT);
    let p0 = 2.0 * PI * f1 * t0;
    let phase = |t: f64| p0 + 2.0 * PI * f2 * (t - t0);
    let want = start[0].z + a1 * phase(0.2).sin();
    assert!((p.pos[0].z - want).abs() < 1e-14, "{}", p.pos[0].z - want);
    // A new amplitude: the pose is continuous, the centre moves by (a1 - a2) sin p1.
    let t1 = 0.2;
    g.change(shake(a2, f2), t1).unwrap();
    advance(&g, &mut p, 200, 260, DT);
    let p1 = phase(t1);
    let centre = start[1].z + (a1 - a2) * p1.sin();
    let want = centre + a2 * (p1 + 2.0 * PI * f2 * (0.26 - t1)).sin();
    assert!((p.pos[1].z - want).abs() < 1e-14, "{}", p.pos[1].z - want);
}

#[test]
fn the_step_after_a_change_books_the_jump_of_the_velocity() {
    let mut p = two([0.0; 3], [1.0; 3]);
    let mut g = Prescribed::new(
        Motion::Rotate {
            center: [0.0; 3],
            axis: [0.0, 0.0, 1.0],
            omega: 2.0,
        },
        vec![1],
        &p,
    );
    g.set_velocities(&mut p, -DT, DT);
    assert_eq!(
        g.step_velocities(&mut p, 0.0, DT),
        0.0,
        "no change, no term"
    );
    g.set_poses(&mut p, DT);
    let (v_before, w_before) = (p.vel[1], p.angvel[1]);
    let (f, torque) = (Vector3::new(0.5, -2.0, 3.0), Vector3::new(0.1, 0.2, -0.7));
    (p.force[1], p.torque[1]) = (f, torque);
    let new = Motion::Rotate {
        center: [0.0; 3],
        axis: [0.0, 0.0, 1.0],
        omega: -1.0,
    };
    g.change(new, DT).unwrap();
    let work = g.step_velocities(&mut p, DT, DT);
    // -(f . dv + torque . dw) dt / 2, with the velocities before and after.
    let want = -(f.dot(&(v_before - p.vel[1])) + torque.dot(&(w_before - p.angvel[1]))) * DT / 2.0;
    assert_eq!(p.angvel[1], Vector3::new(0.0, 0.0, -1.0));
    assert!(
        want.abs() > 1e-4 * DT && (work - want).abs() < 1e-18,
        "{work} {want}"
    );
    // The angular velocity jumps once; the members' velocities turn at every step of a
    // rotation, each step booking its own change by the same rule.
    g.set_poses(&mut p, 2.0 * DT);
    let (v_now, w_now) = (p.vel[1], p.angvel[1]);
    let next = g.step_velocities(&mut p, 2.0 * DT, DT);
    assert_eq!(p.angvel[1], w_now, "the jump of omega is booked once");
    let want = -f.dot(&(v_now - p.vel[1])) * DT / 2.0;
    assert!(want != 0.0 && (next - want).abs() < 1e-18, "{next} {want}");
}

#[test]
fn a_change_is_checked_and_keeps_the_kind() {
    let p = two([0.0; 3], [1.0; 3]);
    let mut g = Prescribed::new(Motion::Translate { velocity: [0.0; 3] }, vec![0], &p);
    let e = g
        .change(
            Motion::Translate {
                velocity: [0.0, f64::NAN, 0.0],
            },
            0.1,
        )
        .unwrap_err();
    assert_eq!(
        e,
        "Translate: velocity (0, NaN, 0) must be finite and at most 1e12 in size, m/s"
    );
    let e = g
        .change(
            Motion::Shake {
                amplitude: [0.0; 3],
                frequency: 1.0,
            },
            0.1,
        )
        .unwrap_err();
    assert!(e.contains("a Translate cannot become a Shake"), "{e}");
    assert_eq!(g.anchor, None, "a refused change changes nothing");
}

#[test]
fn a_restored_motion_goes_on_bitwise() {
    let mut p = two([1.0, 0.0, 0.0], [0.0, 2.0, 0.5]);
    let scene = Motion::Rotate {
        center: [0.1, 0.0, 0.0],
        axis: [0.0, 1.0, 1.0],
        omega: 3.0,
    };
    let fresh = Prescribed::new(scene, vec![0, 1], &p);
    let mut g = fresh.clone();
    advance(&g, &mut p, 0, 77, DT);
    let changed = Motion::Rotate {
        center: [0.0, 0.5, 0.0],
        axis: [1.0, 0.0, 0.0],
        omega: -1.0,
    };
    g.change(changed, 77.0 * DT).unwrap();
    let mut q = p.clone();
    // A group rebuilt from the scene takes the saved motion.
    let mut restored = fresh;
    restored.restore(g.save()).unwrap();
    advance(&g, &mut p, 77, 150, DT);
    advance(&restored, &mut q, 77, 150, DT);
    assert_eq!(p.pos, q.pos);
    assert_eq!(p.ori, q.ori);
    assert_eq!(p.vel, q.vel);
}
