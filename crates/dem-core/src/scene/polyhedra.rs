//! Expansion of polyhedral bodies: one `Polyhedron` (hull of its vertices, or vertices
//! and faces) or a `Rocks` generator. Every body is stored in its principal axes: the
//! particle position is the centroid, the orientation maps the principal axes to the
//! global frame, `inertia` holds the principal moments (density times the unit-density
//! moments `dem_convex` computes from the surface).

use super::random_packing::place_balls;
use super::{BodySpec, Scene};
use crate::model::particles::{Dofs, Particles, PolyBody, Shape};
use crate::support::error::DemError;
use crate::support::sampling::random_rotation;
use dem_api::convex::{generate, Polyhedron};
use dem_api::PolyhedronData;
use nalgebra::{Point3, UnitQuaternion, Vector3};
use rand::{Rng, SeedableRng};

fn v(a: [f64; 3]) -> Vector3<f64> {
    Vector3::new(a[0], a[1], a[2])
}

/// A polyhedron ready to be placed: body-frame data, pose of the principal frame,
/// mass, kg, and principal moments, kg m^2.
struct Placed {
    data: PolyhedronData,
    pos: Vector3<f64>,
    ori: UnitQuaternion<f64>,
    mass: f64,
    inertia: Vector3<f64>,
}

/// The body `poly` (global frame) in principal axes with density `rho`, kg/m^3.
fn principal(poly: &Polyhedron, rho: f64) -> Placed {
    let (body, frame, pose) = poly.to_principal();
    let data = PolyhedronData::of(&body);
    Placed {
        mass: rho * data.volume,
        inertia: rho * frame.moments,
        data,
        pos: pose.translation.vector,
        ori: pose.rotation,
    }
}

fn push(p: &mut Particles, b: Placed, vel: Vector3<f64>, w: Vector3<f64>, dofs: Dofs, mat: u32) {
    let id = p.push(
        Shape::Polyhedron(Box::new(PolyBody::new(b.data))),
        b.pos,
        vel,
        w,
        b.mass,
        b.inertia,
        dofs,
        mat,
    );
    p.ori[id] = b.ori;
}

/// Adds polyhedron body `k` (a [`BodySpec::Polyhedron`]) of density `rho` and material
/// `mat`.
pub(super) fn add_polyhedron(
    scene: &Scene,
    k: usize,
    spec: &BodySpec,
    rho: f64,
    mat: u32,
    dofs: Dofs,
    p: &mut Particles,
) -> Result<(), DemError> {
    let BodySpec::Polyhedron {
        vertices,
        faces,
        velocity,
        angular_velocity,
        ..
    } = spec
    else {
        unreachable!("add_polyhedron is called for polyhedra only")
    };
    let points: Vec<Point3<f64>> = vertices.iter().map(|&a| Point3::from(v(a))).collect();
    let poly = match faces {
        None => Polyhedron::from_points(&points)
            .map_err(|e| scene.error(format!("bodies[{k}].vertices: no convex hull: {e}")))?,
        Some(f) => Polyhedron::from_faces(points, f.clone())
            .map_err(|e| scene.error(format!("bodies[{k}].faces: {e}")))?,
    };
    if !(rho > 0.0 && rho.is_finite()) {
        return Err(scene.error(format!(
            "bodies[{k}].material: a polyhedron needs a positive finite density, got {rho}"
        )));
    }
    let b = principal(&poly, rho);
    push(p, b, v(*velocity), v(*angular_velocity), dofs, mat);
    Ok(())
}

/// Adds the rocks of generator body `k` (a [`BodySpec::Rocks`]).
pub(super) fn add_rocks(
    scene: &Scene,
    k: usize,
    spec: &BodySpec,
    rho: f64,
    mat: u32,
    p: &mut Particles,
) -> Result<(), DemError> {
    let BodySpec::Rocks {
        min,
        max,
        count,
        size,
        axes,
        points,
        seed,
        ..
    } = spec
    else {
        unreachable!("add_rocks is called for rocks only")
    };
    let field = |name: &str, why: String| scene.error(format!("bodies[{k}].{name}: {why}"));
    let (a, b) = *size;
    if !(a > 0.0 && b >= a && b.is_finite()) {
        return Err(field(
            "size",
            format!("need 0 < a <= b, finite, got ({a}, {b})"),
        ));
    }
    if !axes.iter().all(|&x| x > 0.0) {
        return Err(field("axes", format!("must be positive, got {axes:?}")));
    }
    if *points < 4 {
        return Err(field("points", format!("at least 4, got {points}")));
    }
    if !(rho > 0.0 && rho.is_finite()) {
        return Err(field(
            "material",
            format!("rocks need a positive finite density, got {rho}"),
        ));
    }
    let (lo, hi) = (v(*min), v(*max));
    let mut rng = rand_pcg::Pcg64::seed_from_u64(*seed);
    // Each rock is made once (a hull of `points` points: the costly part), then all are
    // placed by their bounding spheres.
    let mut bodies = Vec::with_capacity(*count as usize);
    for n in 0..*count as usize {
        let s = if b > a { rng.random_range(a..=b) } else { a };
        let rock = generate::rock(rng.random(), *points as usize, v(*axes) * s)
            .map_err(|e| field("points", format!("rock {n}: {e}")))?;
        let rot = random_rotation(&mut rng);
        let mut body = principal(&rock, rho);
        let r = body.data.bounding_radius;
        if !(0..3).all(|i| (hi[i] - lo[i]).is_finite() && lo[i] + r < hi[i] - r) {
            return Err(scene.error(format!(
                "bodies[{k}]: the box must be finite and wider than a rock of bounding \
                 radius {r}"
            )));
        }
        body.ori = rot * body.ori;
        bodies.push(body);
    }
    let radii: Vec<f64> = bodies.iter().map(|b| b.data.bounding_radius).collect();
    let centres = place_balls(&radii, lo, hi, &mut rng).map_err(|e| {
        scene.error(format!(
            "bodies[{k}]: could place only {} of {count} rocks without overlap; \
             enlarge the box",
            e.placed
        ))
    })?;
    for (mut body, c) in bodies.into_iter().zip(centres) {
        body.pos = c;
        push(p, body, Vector3::zeros(), Vector3::zeros(), Dofs::FREE, mat);
    }
    Ok(())
}
