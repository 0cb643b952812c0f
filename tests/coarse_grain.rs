//! Coarse-grained fields (`crates/dem-core/src/engines/coarse_grain.rs`) against numbers
//! that do not come from them: a simple cubic lattice's density far from its edges is its
//! solid fraction times the material density, `rho_s (4/3 pi r^3) / d^3`, and its velocity
//! the lattice's; over a grid that holds every kernel, the density integrates to the
//! particles' mass, the momentum to theirs, and the contact stress to the Love-Weber sum
//! of `Stress::of` (`crates/dem-core/src/engines/stress.rs`) times its volume.

use dem_core::engines::coarse_grain::{Fields, Grid, Kernel};
use dem_core::engines::stress::{Region, Stress};
use dem_core::model::particles::Shape;
use dem_verification::sim_from_text;
use nalgebra::{Matrix3, Vector3};

const RHO: f64 = 2500.0;

/// The grid's integral of a field: its sum times the cell volume.
fn integral<T: Copy + std::iter::Sum<T> + std::ops::Mul<f64, Output = T>>(
    f: &[T],
    grid: &Grid,
) -> T {
    f.iter().copied().sum::<T>() * grid.cell_volume()
}

#[test]
fn a_lattice_has_its_solid_fraction_times_the_material_density() {
    // 16^3 spheres of radius r at spacing d (apart: no contacts), moving together.
    let (r, d, n): (f64, f64, usize) = (0.001, 0.0025, 16);
    let u = Vector3::new(0.3, -0.1, 0.05);
    let text = format!(
        r#"Scene(
        materials: {{ "m": (density: {RHO}, young: 1e7, poisson: 0.25, friction: 0.3) }},
        laws: [(materials: ("*", "*"), law: "Law2_L6Geom_LinearElPl", params: (kn: 1e3))],
        bodies: [Lattice(origin: (0, 0, 0), count: ({n}, {n}, {n}), spacing: {d:e},
                         radius: {r:e}, material: "m", velocity: ({}, {}, {}))],
        gravity: (0, 0, 0),
        timestep: Fixed(1e-6),
        duration: Steps(1),
    )"#,
        u.x, u.y, u.z
    );
    let mut sim = sim_from_text(&text, "lattice.ron").unwrap();
    sim.step().unwrap();
    assert_eq!(sim.live_contacts, 0);
    let fraction = 4.0 / 3.0 * std::f64::consts::PI * r.powi(3) / d.powi(3);
    let side = (n - 1) as f64 * d;
    let gauss = |cutoff| Kernel::Gaussian { width: d, cutoff };
    for kernel in [gauss(3.0), gauss(5.0), Kernel::Lucy { cutoff: 3.0 * d }] {
        // Points at least a cutoff inside the lattice's outer centres (plus half a
        // spacing, the cell of the outer spheres): there the lattice fills the kernel.
        let inset = kernel.cutoff() + 0.5 * d;
        let grid = Grid {
            min: [inset; 3],
            max: [side - inset; 3],
            cells: [7, 7, 7],
        };
        let f = sim.coarse_grain(grid, kernel).unwrap();
        let want = RHO * fraction;
        let worst = f
            .density
            .iter()
            .map(|rho| (rho / want - 1.0).abs())
            .fold(0.0, f64::max);
        eprintln!("{kernel:?}: density within {worst:.1e} of rho_s phi = {want:.3} kg/m^3");
        // A smooth Gaussian's sum over a lattice of spacing d errs by about
        // exp(-2 pi^2 w^2 / d^2) (3e-9 at w = d); cut at c widths it steps down by
        // exp(-c^2 / 2) of its peak there, and the sum wavers by about that much (1.1e-2
        // at 3 widths, 4e-6 at 5). Lucy's polynomial errs by its Fourier tail.
        let tolerance = match kernel {
            Kernel::Gaussian { cutoff, .. } => 2.0 * (-0.5 * cutoff * cutoff).exp(),
            Kernel::Lucy { .. } => 1e-2,
        };
        assert!(worst < tolerance, "{kernel:?}: {worst:e}");
        for (v, s) in f.velocity.iter().zip(&f.kinetic_stress) {
            assert!((v - u).norm() < 1e-12, "velocity {v:?} vs {u:?}");
            // Every particle moves with the local mean: no kinetic stress.
            assert!(s.norm() < 1e-9 * RHO * u.norm_squared(), "{s:?}");
        }
    }
}

#[test]
fn the_fields_integrate_to_the_mass_the_momentum_and_the_love_weber_stress() {
    // The boxed sample of tests/stress.rs, settled under gravity.
    let (lx, lz) = (0.01, 0.03);
    let text = format!(
        r#"Scene(
        materials: {{ "m": (density: {RHO}, young: 1e7, poisson: 0.25, friction: 0.3),
                      "w": (density: {RHO}, young: 1e7, poisson: 0.25, friction: 0) }},
        laws: [(materials: ("*", "*"), law: "Law2_L6Geom_LinearElPl", params: (restitution: 0.3))],
        bodies: [
            Box(min: (0, 0, 0), max: ({lx:e}, {lx:e}, {lz:e}), material: "w"),
            Lattice(origin: (0.0012, 0.0012, 0.0011), count: (4, 4, 4), spacing: 0.0025,
                    radius: 0.001, material: "m", velocity_spread: 0.05, seed: 2),
        ],
        gravity: (0, 0, -9.81),
        damping: 0.4,
        timestep: Critical(0.2),
        duration: Time(0.1),
    )"#
    );
    let mut sim = sim_from_text(&text, "box.ron").unwrap();
    let steps = sim.end_step;
    sim.run_steps(steps).unwrap();
    assert!(sim.live_contacts > 50, "{} contacts", sim.live_contacts);
    let p = &sim.particles;
    let spheres: Vec<usize> = (0..p.len())
        .filter(|&i| matches!(p.shape[i], Shape::Sphere(_)))
        .collect();
    let mass: f64 = spheres.iter().map(|&i| p.mass[i]).sum();
    let momentum: Vector3<f64> = spheres.iter().map(|&i| p.vel[i] * p.mass[i]).sum();
    let region = Region {
        min: [0.0; 3],
        max: [lx, lx, lz],
    };
    let stress = Stress::of(&sim, Some(&region)).unwrap();
    let love_weber = stress.contact * (lx * lx * lz);
    let scale = love_weber.norm();
    for (kernel, h) in [
        (
            Kernel::Gaussian {
                width: 0.001,
                cutoff: 3.0,
            },
            0.0002,
        ),
        (Kernel::Lucy { cutoff: 0.003 }, 0.0002),
    ] {
        // A grid that holds every kernel: the box grown by the cutoff and a cell.
        let pad = kernel.cutoff() + h;
        let (lo, hi) = ([-pad; 3], [lx + pad, lx + pad, lz + pad]);
        let cells = [0, 1, 2].map(|k| ((hi[k] - lo[k]) / h).round() as usize);
        let grid = Grid {
            min: lo,
            max: hi,
            cells,
        };
        let f: Fields = sim.coarse_grain(grid, kernel).unwrap();
        let m = integral(&f.density, &grid);
        let mv: Vector3<f64> = f
            .density
            .iter()
            .zip(&f.velocity)
            .map(|(rho, v)| v * *rho)
            .sum::<Vector3<f64>>()
            * grid.cell_volume();
        let sigma: Matrix3<f64> = integral(&f.contact_stress, &grid);
        let err_m = (m / mass - 1.0).abs();
        let err_s = (sigma - love_weber).norm() / scale;
        eprintln!(
            "{kernel:?}: mass {err_m:.1e}, momentum {:.1e} of {:.1e} kg m/s, stress {err_s:.1e} \
             of |sigma V| = {scale:.3e} J",
            (mv - momentum).norm(),
            momentum.norm()
        );
        // The grid's midpoint sums of a kernel: the Gaussian's cut at 3 w steps to 1 % of
        // its peak there, which a grid of w / 5 sums to about 1e-4; Lucy's is smooth.
        assert!(err_m < 1e-3, "{kernel:?}: mass off by {err_m:e}");
        assert!(err_s < 1e-3, "{kernel:?}: stress off by {err_s:e}");
        assert!(
            (mv - momentum).norm() <= 1e-3 * (momentum.norm() + mass * 1e-3),
            "{kernel:?}: {mv:?} vs {momentum:?}"
        );
        // The weight rests on the floor: compression along z.
        assert!(sigma[(2, 2)] > 0.0);
    }
}

#[test]
fn a_periodic_cell_and_a_bad_grid_are_refused_with_the_field_named() {
    let text = r#"Scene(
        materials: { "m": (density: 2500, young: 1e7, poisson: 0.25, friction: 0.3) },
        laws: [(materials: ("*", "*"), law: "Law2_L6Geom_LinearElPl", params: (kn: 1e3))],
        bodies: [Lattice(origin: (0.001, 0.001, 0.001), count: (2, 2, 2), spacing: 0.0025,
                         radius: 0.001, material: "m")],
        cell: (edges: ((0.005, 0, 0), (0, 0.005, 0), (0, 0, 0.005)), periodic: "xyz"),
        gravity: (0, 0, 0),
        timestep: Fixed(1e-6),
        duration: Steps(1),
    )"#;
    let sim = sim_from_text(text, "cell.ron").unwrap();
    let grid = Grid {
        min: [0.0; 3],
        max: [0.005; 3],
        cells: [4, 4, 4],
    };
    let kernel = Kernel::Lucy { cutoff: 0.002 };
    let e = sim.coarse_grain(grid, kernel).unwrap_err();
    assert!(e.contains("periodic"), "{e}");
    let text = text.replace(
        "cell: (edges: ((0.005, 0, 0), (0, 0.005, 0), (0, 0, 0.005)), periodic: \"xyz\"),",
        "",
    );
    let sim = sim_from_text(&text, "open.ron").unwrap();
    let flat = Grid {
        max: [0.005, 0.005, 0.0],
        ..grid
    };
    let e = sim.coarse_grain(flat, kernel).unwrap_err();
    assert!(e.contains("max[2]"), "{e}");
    assert!(sim.coarse_grain(grid, kernel).is_ok());
}
