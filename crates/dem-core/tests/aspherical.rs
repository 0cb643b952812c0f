//! Rotation of bodies with distinct principal moments (`dem_core::engines::rotation`), checked
//! against closed forms and against an independent RK4 integration of Euler's equations
//! with quaternion kinematics written here. Run with `--nocapture` to see the figures.

use dem_api::SphereShape;
use dem_core::engines::integrator::Integrator;
use dem_core::engines::rotation::{angular_momentum, angvel_for_momentum};
use dem_core::model::energy::Ledger;
use dem_core::model::particles::{Dofs, Particles, Shape};
use nalgebra::{Quaternion, UnitQuaternion, Vector3};

const I123: Vector3<f64> = Vector3::new(1.0, 2.0, 3.0);

fn integrator(dt: f64, damping: f64) -> Integrator {
    Integrator {
        gravity: Vector3::zeros(),
        damping,
        dt,
        sphere_orientation: true,
    }
}

/// One free body with principal moments `inertia`, orientation `ori` and global angular
/// momentum `l` at t = 0.
fn body(
    inertia: Vector3<f64>,
    ori: UnitQuaternion<f64>,
    l: Vector3<f64>,
    dt: f64,
    blocked: Dofs,
) -> Particles {
    let mut p = Particles::default();
    let shape = Shape::Sphere(SphereShape { radius: 1.0 });
    let w = angvel_for_momentum(&ori, &l, &inertia, dt);
    p.push(
        shape,
        Vector3::zeros(),
        Vector3::zeros(),
        w,
        1.0,
        inertia,
        blocked,
        0,
    );
    p.ori[0] = ori;
    p
}

/// Body-frame angular momentum and orientation of a rigid body, integrated by classical RK4
/// on `P' = P x I^-1 P + q^-1 T`, `q' = q (0, I^-1 P) / 2` (global torque `T`).
struct Rk4 {
    inertia: Vector3<f64>,
    torque: Vector3<f64>,
}

type State = (Vector3<f64>, Quaternion<f64>);

impl Rk4 {
    fn rate(&self, (p, q): &State) -> State {
        let w = p.component_div(&self.inertia);
        let unit = UnitQuaternion::new_normalize(*q);
        let dp = p.cross(&w) + unit.inverse_transform_vector(&self.torque);
        let dq = q * Quaternion::from_imag(w) * 0.5;
        (dp, dq)
    }

    fn step(&self, s: &State, h: f64) -> State {
        let add = |s: &State, k: &State, f: f64| (s.0 + k.0 * f, s.1 + k.1 * f);
        let k1 = self.rate(s);
        let k2 = self.rate(&add(s, &k1, h / 2.0));
        let k3 = self.rate(&add(s, &k2, h / 2.0));
        let k4 = self.rate(&add(s, &k3, h));
        let p = s.0 + (k1.0 + k2.0 * 2.0 + k3.0 * 2.0 + k4.0) * (h / 6.0);
        let q = s.1 + (k1.1 + k2.1 * 2.0 + k3.1 * 2.0 + k4.1) * (h / 6.0);
        (p, q.normalize())
    }

    /// Times at which the body-frame angular velocity component `axis` changes sign, up to
    /// `t_end`, by linear interpolation.
    fn sign_changes(&self, mut s: State, h: f64, t_end: f64, axis: usize) -> Vec<f64> {
        let mut out = Vec::new();
        let steps = (t_end / h).round() as usize;
        for n in 0..steps {
            let next = self.step(&s, h);
            let (a, b) = (s.0[axis], next.0[axis]);
            if a * b < 0.0 {
                out.push((n as f64 + a / (a - b)) * h);
            }
            s = next;
        }
        out
    }
}

/// Sign-change times of `series` sampled every `dt` starting at `t0`.
fn crossings(series: &[f64], t0: f64, dt: f64) -> Vec<f64> {
    series
        .windows(2)
        .enumerate()
        .filter(|(_, w)| w[0] * w[1] < 0.0)
        .map(|(n, w)| t0 + (n as f64 + w[0] / (w[0] - w[1])) * dt)
        .collect()
}

/// Complete elliptic integral of the first kind, `K(m)` with parameter `m = k^2`, by the
/// arithmetic-geometric mean: `K = pi / (2 agm(1, sqrt(1 - m)))`.
fn elliptic_k(m: f64) -> f64 {
    let (mut a, mut b) = (1.0f64, (1.0 - m).sqrt());
    while (a - b).abs() > 1e-16 * a {
        (a, b) = (0.5 * (a + b), (a * b).sqrt());
    }
    std::f64::consts::PI / (2.0 * a)
}

/// Period of the body-frame angular velocity of a free body with moments `i1 < i2 < i3`
/// and body angular momentum `l` (Landau & Lifshitz, Mechanics, Sect. 37): with
/// `M^2 = |l|^2` and `2E = l . I^-1 l`, for `M^2 > 2 E i2` the components are `cn`, `sn`,
/// `dn` of `nu t` with modulus `k`, period `4 K(k) / nu`, where
/// `nu^2 = (i3 - i2)(M^2 - 2E i1) / (i1 i2 i3)`,
/// `k^2 = (i2 - i1)(2E i3 - M^2) / ((i3 - i2)(M^2 - 2E i1))`.
fn euler_top_period(i: Vector3<f64>, l: Vector3<f64>) -> f64 {
    let m2 = l.norm_squared();
    let e2 = l.dot(&l.component_div(&i));
    assert!(
        m2 > e2 * i.y,
        "the formula is for the branch about the major axis"
    );
    let nu = ((i.z - i.y) * (m2 - e2 * i.x) / (i.x * i.y * i.z)).sqrt();
    let k2 = (i.y - i.x) * (e2 * i.z - m2) / ((i.z - i.y) * (m2 - e2 * i.x));
    4.0 * elliptic_k(k2) / nu
}

fn mean_interval(times: &[f64]) -> f64 {
    (times[times.len() - 1] - times[0]) / (times.len() - 1) as f64
}

#[test]
fn torque_free_body_conserves_energy_and_momentum_and_flips() {
    let dt = 1e-3;
    let steps = 100_000;
    let w0 = Vector3::new(0.05, 1.0, 0.05);
    let l0 = I123.component_mul(&w0);
    let mut p = body(I123, UnitQuaternion::identity(), l0, dt, Dofs::FREE);
    let integ = integrator(dt, 0.0);
    let mut ledger = Ledger::default();
    let e0 = 0.5 * w0.dot(&l0);
    let (mut de, mut dl) = (0.0f64, 0.0f64);
    let mut w2 = Vec::with_capacity(steps);
    for _ in 0..steps {
        integ.reset_forces(&mut p);
        assert!(integ.step(&mut p, &mut ledger));
        de = de.max((ledger.rotational - e0).abs() / e0);
        let l = angular_momentum(&p.ori[0], &p.angvel[0], &I123, dt);
        dl = dl.max((l - l0).norm() / l0.norm());
        w2.push(p.ori[0].inverse_transform_vector(&p.angvel[0]).y);
    }
    println!("torque-free, {steps} steps of {dt}: max |dE|/E = {de:.2e}, max |dL|/|L| = {dl:.2e}");
    assert!(de < 1e-8, "energy drift {de:e}");
    assert!(dl < 1e-8, "angular momentum drift {dl:e}");

    // The stored angvel is at t + dt/2 after each step.
    let measured = crossings(&w2, 0.5 * dt, dt);
    let rk4 = Rk4 {
        inertia: I123,
        torque: Vector3::zeros(),
    };
    let predicted = rk4.sign_changes((l0, Quaternion::identity()), 1e-4, steps as f64 * dt, 1);
    assert!(measured.len() >= 3, "only {} sign changes", measured.len());
    let (tm, tp) = (
        2.0 * mean_interval(&measured),
        2.0 * mean_interval(&predicted),
    );
    let tc = euler_top_period(I123, l0);
    println!(
        "flip: {} sign changes, period {tm:.6} s measured, {tp:.6} s by RK4 (dt 1e-4), \
         {tc:.6} s closed form; relative differences {:.2e} (RK4), {:.2e} (closed form)",
        measured.len(),
        (tm - tp).abs() / tp,
        (tm - tc).abs() / tc
    );
    assert!((tm - tp).abs() < 0.05 * tp);
    assert!((tm - tc).abs() < 0.05 * tc);
    assert_eq!(measured.len(), predicted.len());
}

/// Largest angle between the spin axis `axis` of the body and the angular momentum over
/// 1e5 steps, rad.
fn largest_wobble(axis: usize, w0: Vector3<f64>) -> f64 {
    let dt = 1e-3;
    let l0 = I123.component_mul(&w0);
    let mut p = body(I123, UnitQuaternion::identity(), l0, dt, Dofs::FREE);
    let integ = integrator(dt, 0.0);
    let mut ledger = Ledger::default();
    let mut worst = 0.0f64;
    for _ in 0..100_000 {
        integ.reset_forces(&mut p);
        assert!(integ.step(&mut p, &mut ledger));
        let body_axis = p.ori[0] * Vector3::ith(axis, 1.0);
        let cos = body_axis.dot(&l0).abs() / l0.norm();
        worst = worst.max(cos.min(1.0).acos());
    }
    worst
}

#[test]
fn rotation_about_the_major_and_minor_axes_is_stable() {
    let minor = largest_wobble(0, Vector3::new(1.0, 0.05, 0.05));
    let major = largest_wobble(2, Vector3::new(0.05, 0.05, 1.0));
    let intermediate = largest_wobble(1, Vector3::new(0.05, 1.0, 0.05));
    println!("largest angle to L: minor {minor:.4}, major {major:.4}, intermediate {intermediate:.4} rad");
    // Initial angles: atan(0.18) = 0.18 rad (minor), atan(0.056) = 0.056 rad (major); the
    // cones stay within about that, while the intermediate axis turns over (|cos| = 0).
    assert!(minor < 0.25 && major < 0.1);
    assert!(intermediate > 1.5);
}

/// The sphere update as it was before aspherical bodies existed, kept here verbatim in
/// its arithmetic to prove the isotropic path unchanged.
fn old_step(integ: &Integrator, p: &mut Particles, ledger: &mut Ledger) {
    let damped = |f: f64, v: f64| {
        let lambda = integ.damping;
        if lambda == 0.0 {
            return f;
        }
        let s = f * v;
        if s > 0.0 {
            f * (1.0 - lambda)
        } else if s < 0.0 {
            f * (1.0 + lambda)
        } else {
            f
        }
    };
    let dt = integ.dt;
    let (mut kin, mut rot, mut pot) = (0.0, 0.0, 0.0);
    for i in 0..p.len() {
        let m = p.mass[i];
        let blocked = p.blocked[i];
        if m.is_finite() {
            pot -= m * integ.gravity.dot(&p.pos[i]);
        }
        for k in 0..3 {
            let v0 = p.vel[i][k];
            let f = p.force[i][k];
            if blocked.translation(k) {
                ledger.boundary_work -= f * v0 * dt;
                if m.is_finite() {
                    kin += 0.5 * m * v0 * v0;
                }
                continue;
            }
            let fd = damped(f, v0);
            let v1 = v0 + fd / m * dt;
            ledger.nonviscous -= (fd - f) * 0.5 * (v0 + v1) * dt;
            kin += 0.5 * m * v0 * v1;
            p.vel[i][k] = v1;
        }
        for k in 0..3 {
            let w0 = p.angvel[i][k];
            let t = p.torque[i][k];
            let inertia = p.inertia[i][k];
            if blocked.rotation(k) || !inertia.is_finite() {
                ledger.boundary_work -= t * w0 * dt;
                if inertia.is_finite() {
                    rot += 0.5 * inertia * w0 * w0;
                }
                continue;
            }
            let td = damped(t, w0);
            let w1 = w0 + td / inertia * dt;
            ledger.nonviscous -= (td - t) * 0.5 * (w0 + w1) * dt;
            rot += 0.5 * inertia * w0 * w1;
            p.angvel[i][k] = w1;
        }
        let v = p.vel[i];
        p.pos[i] += v * dt;
        let w = p.angvel[i];
        if w != Vector3::zeros() {
            p.ori[i] = UnitQuaternion::from_scaled_axis(w * dt) * p.ori[i];
        }
    }
    ledger.kinetic = kin;
    ledger.rotational = rot;
    ledger.potential = pot;
}

#[test]
fn spheres_are_bitwise_unchanged() {
    let mut p = Particles::default();
    let shape = Shape::Sphere(SphereShape { radius: 0.1 });
    let w = Vector3::new(3.0, -1.0, 0.5);
    for (inertia, blocked) in [
        (Vector3::repeat(0.004), Dofs::FREE),
        (Vector3::repeat(0.004), Dofs::parse("yY").unwrap()),
        (Vector3::repeat(f64::INFINITY), Dofs::ALL),
    ] {
        let mass = if blocked == Dofs::ALL {
            f64::INFINITY
        } else {
            1.0
        };
        p.push(shape.clone(), w * 0.1, w, w, mass, inertia, blocked, 0);
    }
    let integ = Integrator {
        gravity: Vector3::new(0.0, 0.0, -9.81),
        damping: 0.2,
        dt: 1e-3,
        sphere_orientation: true,
    };
    let mut q = p.clone();
    let (mut lp, mut lq) = (Ledger::default(), Ledger::default());
    for n in 0..5000 {
        for s in [&mut p, &mut q] {
            integ.reset_forces(s);
            for i in 0..s.len() {
                let x = n as f64 * 0.01 + i as f64;
                s.torque[i] = Vector3::new(x.sin(), (2.0 * x).cos(), 0.3) * 0.01;
                s.force[i] += Vector3::new(x.cos(), 0.2, x.sin());
            }
        }
        assert!(integ.step(&mut p, &mut lp));
        old_step(&integ, &mut q, &mut lq);
    }
    let bits = |v: &Vector3<f64>| v.map(f64::to_bits);
    for i in 0..p.len() {
        assert_eq!(bits(&p.pos[i]), bits(&q.pos[i]));
        assert_eq!(bits(&p.vel[i]), bits(&q.vel[i]));
        assert_eq!(bits(&p.angvel[i]), bits(&q.angvel[i]));
        // The rotation of a step now comes from a series exact to rounding for small
        // angles instead of sin/cos: orientations agree to rounding, not bit for bit.
        let dq = (p.ori[i].coords - q.ori[i].coords).amax();
        assert!(dq < 1e-13, "orientation of particle {i} differs by {dq}");
    }
    // The integrator sums the energies per chunk of particles, then the chunks: the
    // same terms in another order, equal to rounding.
    for (a, b) in lp.row().iter().zip(lq.row()) {
        assert!((a - b).abs() <= 1e-12 * a.abs().max(b.abs()), "{a} vs {b}");
    }
    assert!(p.angvel[0] != w, "the torque acted");
}

/// Orientation error at t = 2 s against RK4 (dt 1e-5), rad, for a body under a constant
/// global torque.
fn orientation_error(dt: f64) -> f64 {
    let t_end = 2.0;
    let torque = Vector3::new(0.2, -0.1, 0.3);
    let ori = UnitQuaternion::from_scaled_axis(Vector3::new(0.3, -0.5, 0.2));
    let l0 = ori * I123.component_mul(&Vector3::new(0.7, 1.0, -0.6));
    // The scheme starts from L(-dt/2); the torque has already acted for dt/2 by t = 0.
    let mut p = body(I123, ori, l0 - torque * (0.5 * dt), dt, Dofs::FREE);
    let integ = integrator(dt, 0.0);
    let mut ledger = Ledger::default();
    let steps = (t_end / dt).round() as usize;
    for _ in 0..steps {
        integ.reset_forces(&mut p);
        p.torque[0] = torque;
        assert!(integ.step(&mut p, &mut ledger));
    }
    let rk4 = Rk4 {
        inertia: I123,
        torque,
    };
    let h = 1e-5;
    let mut s = (ori.inverse_transform_vector(&l0), *ori.quaternion());
    for _ in 0..(t_end / h).round() as usize {
        s = rk4.step(&s, h);
    }
    p.ori[0].angle_to(&UnitQuaternion::new_normalize(s.1))
}

#[test]
fn orientation_converges_at_second_order() {
    let dts = [0.04, 0.02, 0.01, 0.005];
    let errors = dts.map(orientation_error);
    for k in 1..dts.len() {
        let order = (errors[k - 1] / errors[k]).log2();
        println!(
            "dt {:.3}: orientation error {:.3e} rad, order {order:.3}",
            dts[k], errors[k]
        );
        assert!((order - 2.0).abs() < 0.1, "order {order}");
    }
}

#[test]
fn constant_torque_about_a_principal_axis_gives_its_angular_acceleration() {
    let dt = 1e-3;
    let steps = 1000;
    let ori = UnitQuaternion::from_scaled_axis(Vector3::new(0.2, 0.7, -0.4));
    let axis = ori * Vector3::y();
    let torque = axis * 0.6;
    let alpha = 0.6 / I123.y;
    let mut p = body(I123, ori, Vector3::zeros(), dt, Dofs::FREE);
    let integ = integrator(dt, 0.0);
    let mut ledger = Ledger::default();
    for _ in 0..steps {
        integ.reset_forces(&mut p);
        p.torque[0] = torque;
        assert!(integ.step(&mut p, &mut ledger));
    }
    let t = steps as f64 * dt;
    let expected = axis * (alpha * t);
    assert!((p.angvel[0] - expected).norm() < 1e-12 * expected.norm());
    // Leap-frog angle: sum of alpha k dt^2 over k = 1..n = alpha t^2 (1 + 1/n) / 2.
    let turn = p.ori[0] * ori.inverse();
    let angle = turn.angle();
    let closed = 0.5 * alpha * t * t;
    assert!(
        (angle - closed).abs() < 1.5 / steps as f64 * closed,
        "{angle} vs {closed}"
    );
    let turn_axis = turn.axis().unwrap().into_inner();
    assert!((turn_axis - axis).norm() < 1e-9);
}

#[test]
fn blocked_global_axes_keep_their_angular_velocity() {
    let dt = 1e-3;
    let ori = UnitQuaternion::from_scaled_axis(Vector3::new(0.3, 0.1, 0.8));
    let w = Vector3::new(0.0, 0.0, 2.0);
    let mut p = Particles::default();
    let shape = Shape::Sphere(SphereShape { radius: 1.0 });
    let blocked = Dofs::parse("XY").unwrap();
    p.push(
        shape,
        Vector3::zeros(),
        Vector3::zeros(),
        w,
        1.0,
        I123,
        blocked,
        0,
    );
    p.ori[0] = ori;
    let integ = integrator(dt, 0.0);
    let mut ledger = Ledger::default();
    for _ in 0..10_000 {
        integ.reset_forces(&mut p);
        p.torque[0] = Vector3::new(0.5, -0.3, 0.0);
        assert!(integ.step(&mut p, &mut ledger));
        assert_eq!((p.angvel[0].x, p.angvel[0].y), (0.0, 0.0));
    }
    // About the fixed z axis the moment is constant: with no torque about z the spin is kept.
    let drift = (p.angvel[0].z - w.z).abs() / w.z;
    println!(
        "blocked XY: relative change of w_z {drift:.2e}, boundary work {:.2e} J, \
         non-viscous {:.2e} J",
        ledger.boundary_work, ledger.nonviscous
    );
    assert!(drift < 1e-6);
}

/// Ledger of a body held by the restoring torque `-k theta` (`theta` the rotation vector
/// of its orientation, an exactly conservative torque with potential `k |theta|^2 / 2`),
/// with Cundall damping `lambda`: returns (largest relative ledger error, energy dissipated
/// over the initial energy) after 2e4 steps of 1e-3 s.
fn damped_oscillator(inertia: Vector3<f64>, lambda: f64) -> (f64, f64) {
    let (dt, k) = (1e-3, 4.0);
    let ori = UnitQuaternion::from_scaled_axis(Vector3::new(0.2, -0.1, 0.15));
    let l = ori * inertia.component_mul(&Vector3::new(0.3, 0.5, -0.2));
    let mut p = body(inertia, ori, l, dt, Dofs::FREE);
    let integ = integrator(dt, lambda);
    let mut ledger = Ledger::default();
    let (mut first, mut worst) = (None, 0.0f64);
    for _ in 0..20_000 {
        integ.reset_forces(&mut p);
        let theta = p.ori[0].scaled_axis();
        p.torque[0] = -theta * k;
        assert!(integ.step(&mut p, &mut ledger));
        let total = ledger.total() + 0.5 * k * theta.norm_squared();
        let e0 = *first.get_or_insert(total);
        worst = worst.max((total - e0).abs() / e0);
    }
    (worst, ledger.nonviscous / first.unwrap())
}

#[test]
fn the_ledger_closes_with_torques_and_damping() {
    let (free, _) = damped_oscillator(I123, 0.0);
    let (damped, dissipated) = damped_oscillator(I123, 0.2);
    // The same measure for an isotropic body (the sphere path; `body` then stores the
    // angular velocity I^-1 L, which is what the sphere path reads).
    let (sphere, _) = damped_oscillator(Vector3::repeat(2.0), 0.2);
    println!(
        "restoring torque: ledger error {free:.2e} undamped, {damped:.2e} with lambda 0.2 \
         ({dissipated:.3} of the energy dissipated); isotropic body with lambda 0.2: \
         {sphere:.2e}"
    );
    // Undamped: O(dt^2) for a nonlinear torque. Damped: the work of the damping torque is
    // booked with the mean angular velocity over the kick, which lags the kinetic term by
    // O(lambda T w dt), as for spheres.
    assert!(free < 1e-6);
    assert!(damped < 1e-3 && sphere < 1e-3);
    assert!(dissipated > 0.5);
}

#[test]
fn symmetric_top_precesses_at_the_closed_form_rate() {
    // I1 = I2 = 1, I3 = 2: the body-frame angular velocity turns about the symmetry axis
    // at (I3 - I1) / I1 w3 = 1 rad/s, so w1 changes sign every pi seconds.
    let (dt, steps) = (1e-3, 20_000);
    let inertia = Vector3::new(1.0, 1.0, 2.0);
    let w0 = Vector3::new(0.3, 0.0, 1.0);
    let l0 = inertia.component_mul(&w0);
    let mut p = body(inertia, UnitQuaternion::identity(), l0, dt, Dofs::FREE);
    let integ = integrator(dt, 0.0);
    let mut ledger = Ledger::default();
    let mut w1 = Vec::with_capacity(steps);
    for _ in 0..steps {
        integ.reset_forces(&mut p);
        assert!(integ.step(&mut p, &mut ledger));
        w1.push(p.ori[0].inverse_transform_vector(&p.angvel[0]).x);
    }
    let measured = 2.0 * mean_interval(&crossings(&w1, 0.5 * dt, dt));
    let closed = 2.0 * std::f64::consts::PI;
    println!("symmetric top: precession period {measured:.8} s, closed form {closed:.8} s");
    assert!((measured - closed).abs() < 1e-5 * closed);
}
