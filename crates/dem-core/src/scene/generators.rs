//! Expansion of body specifications (single bodies and generators) into particles.

use super::boundaries::Boundaries;
use super::random_packing::place_balls;
use super::{BodySpec, Scene};
use crate::engines::motion::Prescribed;
use crate::model::particles::{Dofs, Particles, Shape, MAX_COORDINATE};
use crate::model::plugin_body::ShapeSource;
use crate::support::error::DemError;
use dem_api::{SphereShape, WallShape};
use nalgebra::Vector3;
use rand::{Rng, SeedableRng};
use std::collections::BTreeMap;
use std::f64::consts::PI;
use std::path::Path;

fn v(a: [f64; 3]) -> Vector3<f64> {
    Vector3::new(a[0], a[1], a[2])
}

#[allow(clippy::too_many_arguments)]
pub(crate) fn add_sphere(
    p: &mut Particles,
    c: Vector3<f64>,
    r: f64,
    rho: f64,
    mat: u32,
    vel: Vector3<f64>,
    w: Vector3<f64>,
    blocked: Dofs,
) {
    let m = rho * 4.0 / 3.0 * PI * r.powi(3);
    let i = 0.4 * m * r * r;
    p.push(
        Shape::Sphere(SphereShape { radius: r }),
        c,
        vel,
        w,
        m,
        Vector3::repeat(i),
        blocked,
        mat,
    );
}

fn add_wall(
    p: &mut Particles,
    point: Vector3<f64>,
    normal: Vector3<f64>,
    sense: i32,
    mat: u32,
    vel: Vector3<f64>,
) {
    let shape = Shape::Wall(WallShape {
        normal: normal.normalize().into(),
        sense,
    });
    p.push(
        shape,
        point,
        vel,
        Vector3::zeros(),
        f64::INFINITY,
        Vector3::repeat(f64::INFINITY),
        Dofs::ALL,
        mat,
    );
}

/// Refuses particles `start..` (those of `bodies[k]`) whose mass or moments of inertia are
/// zero, subnormal or not finite (walls and rigid bodies have infinite ones): a radius or
/// density too small (or large) for a mass gives accelerations of no meaning at step 0.
fn masses_hold(scene: &Scene, k: usize, p: &Particles, start: usize) -> Result<(), DemError> {
    let holds = |x: f64| x == f64::INFINITY || (x > 0.0 && x.is_normal());
    for i in start..p.len() {
        let (m, j) = (p.mass[i], p.inertia[i]);
        if !(holds(m) && holds(j.x) && holds(j.y) && holds(j.z)) {
            return Err(scene.error(format!(
                "bodies[{k}]: a particle's mass ({m:e} kg) or moments of inertia ({:e}, {:e}, \
                 {:e} kg m^2) are zero, subnormal or not finite: its size or its material's \
                 density is out of range",
                j.x, j.y, j.z
            )));
        }
    }
    Ok(())
}

/// Adds every body of the scene to `p`; `materials` maps names to indices, `shapes`
/// builds the bodies of plugin shapes.
pub fn expand_bodies(
    scene: &Scene,
    materials: &BTreeMap<String, u32>,
    shapes: &dyn ShapeSource,
    p: &mut Particles,
) -> Result<Boundaries, DemError> {
    super::budget::check(scene, super::budget::available_memory())?;
    let mut out = Boundaries::default();
    let mats: Vec<_> = scene.materials.values().collect();
    let mut spans = Vec::with_capacity(scene.bodies.len());
    for (k, spec) in scene.bodies.iter().enumerate() {
        let start = p.len();
        let vectors: Vec<[f64; 3]> = match spec {
            BodySpec::Sphere {
                center,
                velocity,
                angular_velocity,
                ..
            } => vec![*center, *velocity, *angular_velocity],
            BodySpec::Lattice {
                origin,
                velocity,
                velocity_spread,
                ..
            } => vec![*origin, *velocity, [*velocity_spread; 3]],
            BodySpec::Csv { .. } => vec![],
            BodySpec::RandomFill { min, max, .. } | BodySpec::Box { min, max, .. } => {
                vec![*min, *max]
            }
            // The normal is a direction: its size does not matter (checked with the wall).
            BodySpec::Wall {
                point, velocity, ..
            } => vec![*point, *velocity],
            BodySpec::Mesh {
                rotate, translate, ..
            } => vec![*rotate, *translate],
            BodySpec::Polyhedron {
                vertices,
                velocity,
                angular_velocity,
                ..
            } => {
                let mut all = vertices.clone();
                all.extend([*velocity, *angular_velocity]);
                all
            }
            BodySpec::Rocks { min, max, axes, .. } => vec![*min, *max, *axes],
            BodySpec::Clump {
                position,
                rotate,
                velocity,
                angular_velocity,
                ..
            } => vec![*position, *rotate, *velocity, *angular_velocity],
            BodySpec::ClumpFill { min, max, .. } | BodySpec::ShapeFill { min, max, .. } => {
                vec![*min, *max]
            }
            BodySpec::Shaped {
                position,
                rotate,
                velocity,
                angular_velocity,
                ..
            } => vec![*position, *rotate, *velocity, *angular_velocity],
        };
        if vectors
            .iter()
            .flatten()
            .any(|x| x.is_nan() || x.abs() > MAX_COORDINATE)
        {
            return Err(scene.error(format!(
                "bodies[{k}]: every coordinate and velocity must be finite and at most \
                 {MAX_COORDINATE:e} in size (m, m/s)"
            )));
        }
        let mat = |name: &str| -> Result<u32, DemError> {
            materials.get(name).copied().ok_or_else(|| {
                scene.error(format!(
                    "bodies[{k}].material: unknown material `{name}` (defined: {})",
                    materials.keys().cloned().collect::<Vec<_>>().join(", ")
                ))
            })
        };
        let dofs = |blocked: &str| {
            Dofs::parse(blocked).map_err(|c| {
                scene.error(format!("bodies[{k}].blocked: `{c}` is not one of xyzXYZ"))
            })
        };
        let positive = |field: &str, x: f64| -> Result<(), DemError> {
            if x > 0.0 && x.is_normal() {
                Ok(())
            } else {
                Err(scene.error(format!(
                    "bodies[{k}].{field}: must be positive and finite (at least {:e}), got {x:e}",
                    f64::MIN_POSITIVE
                )))
            }
        };
        match spec {
            BodySpec::Sphere {
                center,
                radius,
                material,
                velocity,
                angular_velocity,
                blocked,
            } => {
                positive("radius", *radius)?;
                let m = mat(material)?;
                let dofs = dofs(blocked)?;
                add_sphere(
                    p,
                    v(*center),
                    *radius,
                    mats[m as usize].density,
                    m,
                    v(*velocity),
                    v(*angular_velocity),
                    dofs,
                );
            }
            BodySpec::Lattice {
                origin,
                count,
                spacing,
                radius,
                material,
                velocity,
                velocity_spread,
                seed,
            } => {
                positive("radius", *radius)?;
                positive("spacing", *spacing)?;
                // The random part is drawn from [-spread, spread]: its width must be finite.
                if !(*velocity_spread >= 0.0 && (2.0 * velocity_spread).is_finite()) {
                    return Err(scene.error(format!(
                        "bodies[{k}].velocity_spread: must be >= 0 and at most {:e} m/s (half \
                         the largest float), got {velocity_spread:e}",
                        f64::MAX / 2.0
                    )));
                }
                let m = mat(material)?;
                let mut rng = rand_pcg::Pcg64::seed_from_u64(*seed);
                let s = *velocity_spread;
                let mut spread = move || {
                    if s > 0.0 {
                        Vector3::from_fn(|_, _| rng.random_range(-s..=s))
                    } else {
                        Vector3::zeros()
                    }
                };
                for z in 0..count[2] {
                    for y in 0..count[1] {
                        for x in 0..count[0] {
                            let c =
                                v(*origin) + Vector3::new(x as f64, y as f64, z as f64) * *spacing;
                            add_sphere(
                                p,
                                c,
                                *radius,
                                mats[m as usize].density,
                                m,
                                v(*velocity) + spread(),
                                Vector3::zeros(),
                                Dofs::FREE,
                            );
                        }
                    }
                }
            }
            BodySpec::Csv {
                file,
                radius,
                material,
            } => {
                let m = mat(material)?;
                let base = scene.origin.parent().unwrap_or(std::path::Path::new("."));
                let path = base.join(file);
                let spheres = super::csv::read(&path)
                    .map_err(|e| scene.error(format!("bodies[{k}].file: {e}")))?;
                if spheres.is_empty() {
                    return Err(scene.error(format!(
                        "bodies[{k}].file: {} holds no sphere (a header without rows, or \
                         rows of other kinds only)",
                        path.display()
                    )));
                }
                for (row, s) in spheres.into_iter().enumerate() {
                    let r = s.radius.or(*radius).ok_or_else(|| {
                        scene.error(format!(
                            "bodies[{k}]: {} has no `radius` column and the body gives no \
                             radius (row {})",
                            path.display(),
                            row + 1
                        ))
                    })?;
                    positive("radius", r)?;
                    add_sphere(
                        p,
                        s.center,
                        r,
                        mats[m as usize].density,
                        m,
                        s.velocity,
                        s.angular_velocity,
                        Dofs::FREE,
                    );
                }
            }
            BodySpec::RandomFill {
                min,
                max,
                count,
                radius,
                material,
                seed,
            } => {
                let mix = material
                    .resolve(materials)
                    .map_err(|e| scene.error(format!("bodies[{k}].material: {e}")))?;
                let (lo, hi) = (v(*min), v(*max));
                let base = scene.origin.parent().unwrap_or(Path::new("."));
                let sizes = radius
                    .sampler(base)
                    .map_err(|e| scene.error(format!("bodies[{k}].radius: {e}")))?;
                let mut rng = rand_pcg::Pcg64::seed_from_u64(*seed);
                let radii: Vec<f64> = (0..*count).map(|_| sizes.sample(&mut rng)).collect();
                // The largest radius drawn (an unclipped log-normal has no largest one).
                let rmax = radii.iter().copied().fold(0.0, f64::max);
                // Every centre range `lo + r .. hi - r` must be finite and non-empty.
                let fits = |i: usize| (hi[i] - lo[i]).is_finite() && lo[i] + rmax < hi[i] - rmax;
                if !(0..3).all(fits) {
                    return Err(scene.error(format!(
                        "bodies[{k}]: the box must be finite and wider than a sphere of radius {rmax}"
                    )));
                }
                let centres = place_balls(&radii, lo, hi, &mut rng).map_err(|e| {
                    scene.error(format!(
                        "bodies[{k}]: could place only {} of {count} spheres without \
                         overlap; enlarge the box",
                        e.placed
                    ))
                })?;
                // The materials, drawn after the placement so that a scene with one
                // material places its spheres as before.
                for (c, r) in centres.into_iter().zip(radii) {
                    let m = crate::support::sampling::material_choice::pick(&mix, &mut rng);
                    add_sphere(
                        p,
                        c,
                        r,
                        mats[m as usize].density,
                        m,
                        Vector3::zeros(),
                        Vector3::zeros(),
                        Dofs::FREE,
                    );
                }
            }
            BodySpec::Wall {
                point,
                normal,
                sense,
                material,
                velocity,
                motion,
            } => {
                let m = mat(material)?;
                // The length of a normal of huge components overflows: the normal is
                // scaled first.
                let n = v(*normal);
                let n = n / n.amax();
                if n.norm().is_nan() || n.norm() == 0.0 || !(-1..=1).contains(sense) {
                    return Err(scene.error(format!(
                        "bodies[{k}]: wall normal must be finite and non-zero, and sense one of \
                         -1, 0, 1"
                    )));
                }
                add_wall(p, v(*point), n, *sense, m, v(*velocity));
                if let Some(motion) = motion {
                    super::mesh_body::check_motion(scene, k, motion, *velocity)?;
                    out.motions
                        .push(Prescribed::new(*motion, vec![p.len() - 1], p));
                }
            }
            BodySpec::Mesh { material, .. } => {
                super::mesh_body::add_mesh(scene, k, spec, mat(material)?, p, &mut out)?;
            }
            BodySpec::Polyhedron {
                material, blocked, ..
            } => {
                let m = mat(material)?;
                let dofs = dofs(blocked)?;
                super::polyhedra::add_polyhedron(
                    scene,
                    k,
                    spec,
                    mats[m as usize].density,
                    m,
                    dofs,
                    p,
                )?;
            }
            BodySpec::Shaped {
                material, blocked, ..
            } => {
                let m = mat(material)?;
                let dofs = dofs(blocked)?;
                let rho = mats[m as usize].density;
                super::plugin_bodies::add_shaped(scene, k, spec, rho, m, dofs, shapes, p)?;
            }
            BodySpec::ShapeFill { material, .. } => {
                let m = mat(material)?;
                let rho = mats[m as usize].density;
                super::plugin_bodies::add_shape_fill(scene, k, spec, rho, m, shapes, p)?;
            }
            BodySpec::Rocks { material, .. } => {
                let m = mat(material)?;
                super::polyhedra::add_rocks(scene, k, spec, mats[m as usize].density, m, p)?;
            }
            BodySpec::Clump { material, .. } | BodySpec::ClumpFill { material, .. } => {
                let m = mat(material)?;
                let rho = mats[m as usize].density;
                super::clumps::add_clumps(scene, k, spec, rho, m, p, &mut out.clumps)?;
            }
            BodySpec::Box { min, max, material } => {
                let m = mat(material)?;
                if let Some(axis) = (0..3).find(|&i| min[i] >= max[i]) {
                    return Err(scene.error(format!(
                        "bodies[{k}]: Box max must exceed min on every axis; on {} min is {} \
                         and max {}",
                        ["x", "y", "z"][axis],
                        min[axis],
                        max[axis]
                    )));
                }
                for axis in 0..3 {
                    let n = Vector3::ith(axis, 1.0);
                    add_wall(p, v(*min), n, 1, m, Vector3::zeros());
                    add_wall(p, v(*max), n, -1, m, Vector3::zeros());
                }
            }
        }
        masses_hold(scene, k, p, start)?;
        spans.push(start..p.len());
    }
    super::placement::check_sides(scene, p, &spans)?;
    super::placement::check_facets(scene, p, &spans)?;
    Ok(out)
}
