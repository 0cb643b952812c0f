//! Expansion of bodies of plugin shapes: one `Shaped` body or a `ShapeFill` generator.
//! The shape's plugin builds each body from the scene's parameters (through a
//! [`ShapeSource`]); the body is stored in the shape's frame, which is principal with
//! the centroid at the origin: the particle's position is the centroid, `inertia` the
//! density times the shape's moments per unit density.

use super::random_packing::place_balls;
use super::{BodySpec, Scene};
use crate::model::particles::{Dofs, Particles, Shape};
use crate::model::plugin_body::{PluginBody, ShapeSource};
use crate::support::error::DemError;
use crate::support::sampling::random_rotation;
use nalgebra::{UnitQuaternion, Vector3};
use rand::SeedableRng;
use ron::value::RawValue;
use std::sync::Arc;

fn v(a: [f64; 3]) -> Vector3<f64> {
    Vector3::new(a[0], a[1], a[2])
}

/// One body of shape `shape` built by its plugin; errors name the body's `params` (with
/// their line and column in the scene file when given) or its `shape`.
fn build(
    scene: &Scene,
    k: usize,
    shape: &str,
    params: &Option<Box<RawValue>>,
    shapes: &dyn ShapeSource,
) -> Result<PluginBody, DemError> {
    let text = params.as_ref().map_or("", |r| r.get_ron());
    shapes.make_shape(shape, text).map_err(|e| match params {
        Some(raw) => match scene.locate(raw.get_ron()) {
            Some((line, col)) => DemError::Scene(format!(
                "{}:{line}:{col}: bodies[{k}].params: {e}",
                scene.origin.display()
            )),
            None => scene.error(format!("bodies[{k}].params: {e}")),
        },
        None => scene.error(format!("bodies[{k}].shape: {e}")),
    })
}

/// Mass, kg, and principal moments, kg m^2, of `body` at density `rho`.
fn mass_of(
    scene: &Scene,
    k: usize,
    body: &PluginBody,
    rho: f64,
) -> Result<(f64, Vector3<f64>), DemError> {
    if !(rho > 0.0 && rho.is_finite()) {
        return Err(scene.error(format!(
            "bodies[{k}].material: a body of shape `{}` needs a positive finite density, got \
             {rho}",
            body.name
        )));
    }
    let pr = &body.properties;
    Ok((rho * pr.volume, rho * pr.inertia.na()))
}

#[allow(clippy::too_many_arguments)]
fn push(
    p: &mut Particles,
    body: Arc<PluginBody>,
    pos: Vector3<f64>,
    ori: UnitQuaternion<f64>,
    (mass, inertia): (f64, Vector3<f64>),
    vel: Vector3<f64>,
    w: Vector3<f64>,
    dofs: Dofs,
    mat: u32,
) {
    let id = p.push(Shape::Plugin(body), pos, vel, w, mass, inertia, dofs, mat);
    p.ori[id] = ori;
}

/// Adds body `k`, a [`BodySpec::Shaped`], of density `rho` and material `mat`.
#[allow(clippy::too_many_arguments)]
pub(super) fn add_shaped(
    scene: &Scene,
    k: usize,
    spec: &BodySpec,
    rho: f64,
    mat: u32,
    dofs: Dofs,
    shapes: &dyn ShapeSource,
    p: &mut Particles,
) -> Result<(), DemError> {
    let BodySpec::Shaped {
        shape,
        params,
        position,
        rotate,
        velocity,
        angular_velocity,
        ..
    } = spec
    else {
        unreachable!("add_shaped is called for `Shaped` bodies only")
    };
    let body = build(scene, k, shape, params, shapes)?;
    let mass = mass_of(scene, k, &body, rho)?;
    let ori = UnitQuaternion::from_scaled_axis(v(*rotate));
    let (vel, w) = (v(*velocity), v(*angular_velocity));
    push(
        p,
        Arc::new(body),
        v(*position),
        ori,
        mass,
        vel,
        w,
        dofs,
        mat,
    );
    Ok(())
}

/// Adds the bodies of generator `k`, a [`BodySpec::ShapeFill`]: one body built by the
/// plugin and shared by all (they are the same shape), placed by bounding spheres.
pub(super) fn add_shape_fill(
    scene: &Scene,
    k: usize,
    spec: &BodySpec,
    rho: f64,
    mat: u32,
    shapes: &dyn ShapeSource,
    p: &mut Particles,
) -> Result<(), DemError> {
    let BodySpec::ShapeFill {
        shape,
        params,
        min,
        max,
        count,
        seed,
        ..
    } = spec
    else {
        unreachable!("add_shape_fill is called for `ShapeFill` generators only")
    };
    let body = Arc::new(build(scene, k, shape, params, shapes)?);
    let mass = mass_of(scene, k, &body, rho)?;
    let (lo, hi) = (v(*min), v(*max));
    let r = body.properties.bounding_radius;
    if !(0..3).all(|i| (hi[i] - lo[i]).is_finite() && lo[i] + r < hi[i] - r) {
        return Err(scene.error(format!(
            "bodies[{k}]: the box must be finite and wider than a body of bounding radius {r} m"
        )));
    }
    let mut rng = rand_pcg::Pcg64::seed_from_u64(*seed);
    let radii = vec![r; *count as usize];
    let centres = place_balls(&radii, lo, hi, &mut rng).map_err(|e| {
        scene.error(format!(
            "bodies[{k}]: could place only {} of {count} bodies without overlap of their \
             bounding spheres; enlarge the box",
            e.placed
        ))
    })?;
    let zero = Vector3::zeros();
    for c in centres {
        let ori = random_rotation(&mut rng);
        push(p, body.clone(), c, ori, mass, zero, zero, Dofs::FREE, mat);
    }
    Ok(())
}
