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
    let text = dem_verification::boxed_sample(lx, lz, 0.1);
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
fn a_pressed_periodic_lattice_has_the_closed_form_stress_and_its_affine_velocity_everywhere() {
    // The lattice of tests/stress.rs: spheres at spacing d < 2r in a periodic cell, so
    // that every contact carries f = kn (2r - d): sigma = f / d^2 on the diagonal, the
    // density rho_s 4/3 pi r^3 / d^3, at every point, inside the cell or not.
    let (r, d, n): (f64, f64, usize) = (0.001, 0.00199, 4);
    let kn = 1e4;
    let c = n as f64 * d;
    let text = format!(
        r#"Scene(
        materials: {{ "m": (density: {RHO}, young: 1e8, poisson: 0.25, friction: 0.5) }},
        laws: [(materials: ("*", "*"), law: "Law2_L6Geom_LinearElPl", params: (kn: {kn:e}))],
        bodies: [Lattice(origin: ({h:e}, {h:e}, {h:e}), count: ({n}, {n}, {n}), spacing: {d:e},
                         radius: {r:e}, material: "m")],
        cell: (edges: (({c:e}, 0, 0), (0, {c:e}, 0), (0, 0, {c:e})), periodic: "xyz",
               velocity_gradient: ((0, 0, 2), (0, 0, 0), (0, 0, 0))),
        gravity: (0, 0, 0),
        timestep: Fixed(1e-9),
        duration: Steps(1),
    )"#,
        h = d / 2.0,
    );
    let mut sim = sim_from_text(&text, "lattice.ron").unwrap();
    sim.step().unwrap();
    assert_eq!(sim.live_contacts, 3 * n * n * n);
    // Lees-Edwards: the particles move with the cell's affine field v = L x, L_xz = 2/s.
    let gradient = Matrix3::new(0.0, 0.0, 2.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
    for i in 0..sim.particles.len() {
        sim.particles.vel[i] = gradient * sim.particles.pos[i];
    }
    let f = kn * (2.0 * r - d);
    let sigma = f / (d * d);
    let density = RHO * 4.0 / 3.0 * std::f64::consts::PI * r.powi(3) / d.powi(3);
    let kernel = Kernel::Gaussian {
        width: d,
        cutoff: 5.0,
    };
    // A grid across a corner of the cell: half of it in the images.
    let grid = Grid {
        min: [-0.5 * c, 0.1 * c, 0.6 * c],
        max: [0.5 * c, 1.1 * c, 1.6 * c],
        cells: [5, 5, 5],
    };
    let fields = sim.coarse_grain(grid, kernel).unwrap();
    let mut worst = [0.0f64; 3];
    for g in 0..grid.len() {
        let [i, j, k] = [g % 5, g / 5 % 5, g / 25];
        let x = grid.point([i, j, k]);
        worst[0] = worst[0].max((fields.density[g] / density - 1.0).abs());
        let s = fields.contact_stress[g];
        worst[1] = worst[1].max((s - Matrix3::identity() * sigma).abs().max() / sigma);
        // The velocity of the affine field at the point, of the images too.
        let v = gradient * x;
        worst[2] = worst[2].max((fields.velocity[g] - v).norm() / (2.0 * c));
    }
    eprintln!(
        "density {:.1e}, contact stress {:.1e}, velocity {:.1e}",
        worst[0], worst[1], worst[2]
    );
    assert!(worst[0] < 1e-5, "density off by {:e}", worst[0]);
    assert!(worst[1] < 1e-5, "stress off by {:e}", worst[1]);
    assert!(worst[2] < 1e-5, "velocity off by {:e}", worst[2]);
    // The cell's Love-Weber stress is the same (the shear of the step moved the contacts
    // by about 2e-6 of their overlap).
    let lw = Stress::of(&sim, None).unwrap().contact;
    let off = (lw - Matrix3::identity() * sigma).abs().max() / sigma;
    assert!(off < 1e-5, "Love-Weber off by {off:e}");
}

#[test]
fn bad_grids_are_refused_with_the_field_named() {
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
    let kernel = Kernel::Lucy { cutoff: 0.002 };
    // A box of 40 cells per edge: 64,000 images of the cell.
    let huge = Grid {
        min: [0.0; 3],
        max: [0.2; 3],
        cells: [4, 4, 4],
    };
    let e = sim.coarse_grain(huge, kernel).unwrap_err();
    assert!(e.contains("images"), "{e}");
    let flat = Grid {
        max: [0.005, 0.005, 0.0],
        ..huge
    };
    let e = sim.coarse_grain(flat, kernel).unwrap_err();
    assert!(e.contains("max[2]"), "{e}");
    let cell = Grid {
        max: [0.005; 3],
        ..huge
    };
    assert!(sim.coarse_grain(cell, kernel).is_ok());
}

/// A small bed with `output.fields` (`extra` added to its `output` block).
fn bed_with_fields(fields: &str) -> String {
    format!(
        r#"Scene(
        materials: {{ "m": (density: {RHO}, young: 1e7, poisson: 0.25, friction: 0.3) }},
        laws: [(materials: ("*", "*"), law: "Law2_L6Geom_LinearElPl", params: (restitution: 0.3))],
        bodies: [
            Box(min: (0, 0, 0), max: (0.01, 0.01, 0.02), material: "m"),
            Lattice(origin: (0.0012, 0.0012, 0.0011), count: (3, 3, 3), spacing: 0.0025,
                    radius: 0.001, material: "m", velocity_spread: 0.05, seed: 4),
        ],
        gravity: (0, 0, -9.81),
        timestep: Critical(0.2),
        duration: Steps(400),
        output: (every: 200, fields: {fields}),
    )"#
    )
}

const FIELDS: &str = "(grid: (min: (-0.002, -0.002, -0.002), max: (0.012, 0.012, 0.012), \
                      cells: (7, 7, 7)), kernel: Gaussian(width: 0.001))";

#[test]
fn a_scene_writes_its_fields_at_every_frame_as_the_simulation_computes_them() {
    let text = bed_with_fields(FIELDS);
    let mut sim = sim_from_text(&text, "bed.ron").unwrap();
    let f = sim.scene.output.fields.unwrap();
    assert_eq!(
        f.kernel,
        Kernel::Gaussian {
            width: 0.001,
            cutoff: 3.0
        }
    );
    let dir = dem_verification::cli::fresh_dir("coarse_grain", "frames");
    let mut frames = Vec::new();
    for _ in 0..2 {
        sim.run_steps(200).unwrap();
        frames.push((sim.step, sim.time));
        dem_core::files::output::write_vtk(&dir, &sim, &frames).unwrap();
    }
    let written = std::fs::read(dir.join("fields_000000400.vti")).unwrap();
    let fields = sim.coarse_grain(f.grid, f.kernel).unwrap();
    assert_eq!(written, dem_core::files::vti::image(&fields));
    assert!(fields.density.iter().any(|&rho| rho > 0.0));
    let pvd = std::fs::read_to_string(dir.join("fields.pvd")).unwrap();
    assert!(pvd.contains("fields_000000200.vti") && pvd.contains("fields_000000400.vti"));
}

#[test]
fn dem_check_names_a_bad_fields_block_and_dem_run_lists_the_files() {
    use dem_verification::cli::{dem, fresh_dir, ok, refused, s};
    let dir = fresh_dir("coarse_grain", "cli");
    // Values checked after parsing name the block; a kernel the parser does not know is
    // named with the ones it does, at its line.
    let bad = [
        (
            FIELDS.replace("cells: (7, 7, 7)", "cells: (7, 0, 7)"),
            ["output.fields", "cells"],
        ),
        (
            FIELDS.replace("width: 0.001", "width: -1"),
            ["output.fields", "width"],
        ),
        (
            FIELDS.replace("width: 0.001", "width: 0.001, cutoff: 0.5"),
            ["output.fields", "cutoff"],
        ),
        (
            FIELDS.replace("Gaussian(width: 0.001)", "Box(size: 1)"),
            ["Box", "Lucy"],
        ),
    ];
    for (k, (fields, words)) in bad.iter().enumerate() {
        let path = dir.join(format!("bad{k}.ron"));
        std::fs::write(&path, bed_with_fields(fields)).unwrap();
        let err = refused(&dem(&["check", s(&path)]));
        assert!(words.iter().all(|w| err.contains(w)), "{words:?}: {err}");
    }
    let path = dir.join("good.ron");
    std::fs::write(&path, bed_with_fields(FIELDS)).unwrap();
    let out = dir.join("out");
    let summary = ok(&dem(&["run", s(&path), "--out", s(&out)]));
    for step in [0, 200, 400] {
        assert!(out.join(format!("fields_{step:09}.vti")).exists(), "{step}");
    }
    assert!(out.join("fields.pvd").exists());
    assert!(summary.contains("3 x fields_<step>.vti"), "{summary}");
}
