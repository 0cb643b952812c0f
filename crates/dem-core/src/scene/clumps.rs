//! Expansion of clump bodies: a `Clump` (one placed template) or a `ClumpFill` (random
//! clumps in a box). Each clump adds its member spheres as particles (flagged
//! [`Dofs::MEMBER`], consecutive) and a [`ClumpBody`] holding the rigid body.

use super::random_packing::place_balls;
use super::{BodySpec, Scene};
use crate::engines::clump::{template_csv, ClumpBody, ClumpTemplate, Member};
use crate::model::particles::{Dofs, Particles, Shape};
use crate::support::error::DemError;
use crate::support::sampling::random_rotation;
use dem_api::SphereShape;
use nalgebra::{UnitQuaternion, Vector3};
use rand::SeedableRng;
use std::path::Path;
use std::sync::Arc;

fn v(a: [f64; 3]) -> Vector3<f64> {
    Vector3::new(a[0], a[1], a[2])
}

/// The template `name` of the scene, built (members read, mass properties computed);
/// `field` names the body field that refers to it.
pub(crate) fn template(scene: &Scene, name: &str, field: &str) -> Result<ClumpTemplate, DemError> {
    let Some(spec) = scene.clump_templates.get(name) else {
        let known: Vec<&str> = scene.clump_templates.keys().map(String::as_str).collect();
        return Err(scene.error(format!(
            "{field}: unknown clump template `{name}` (defined: {})",
            if known.is_empty() {
                "none".into()
            } else {
                known.join(", ")
            }
        )));
    };
    let at = format!("clump_templates.{name}");
    let members: Vec<Member> = match (&spec.members, &spec.file) {
        (Some(list), None) => list
            .iter()
            .map(|&(c, r)| Member {
                center: v(c),
                radius: r,
            })
            .collect(),
        (None, Some(file)) => {
            let base = scene.origin.parent().unwrap_or(Path::new("."));
            template_csv::read(&base.join(file))
                .map_err(|e| scene.error(format!("{at}.file: {e}")))?
        }
        _ => {
            return Err(scene.error(format!(
                "{at}: give either `members` or `file` (one of them)"
            )))
        }
    };
    ClumpTemplate::new(&members, spec.scale).map_err(|e| scene.error(format!("{at}: {e}")))
}

/// Adds one clump of `template` with its body frame at `pos`, `ori`, of density `rho`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn push(
    p: &mut Particles,
    out: &mut Vec<ClumpBody>,
    name: &str,
    template: &Arc<ClumpTemplate>,
    pos: Vector3<f64>,
    ori: UnitQuaternion<f64>,
    vel: Vector3<f64>,
    angvel: Vector3<f64>,
    rho: f64,
    mat: u32,
) {
    let mass = rho * template.volume;
    let start = p.len();
    for m in &template.members {
        let r = m.radius;
        p.push(
            Shape::Sphere(SphereShape { radius: r }),
            Vector3::zeros(),
            Vector3::zeros(),
            Vector3::zeros(),
            mass,
            Vector3::repeat(0.4 * mass * r * r),
            Dofs::MEMBER,
            mat,
        );
    }
    let body = ClumpBody {
        template_name: name.to_string(),
        template: template.clone(),
        members: start..p.len(),
        pos,
        vel,
        ori,
        angvel,
        mass,
        inertia: template.moments * rho,
    };
    body.place_members(p);
    out.push(body);
}

/// Adds clump body `k` (a [`BodySpec::Clump`] or [`BodySpec::ClumpFill`]).
pub(super) fn add_clumps(
    scene: &Scene,
    k: usize,
    spec: &BodySpec,
    rho: f64,
    mat: u32,
    p: &mut Particles,
    out: &mut Vec<ClumpBody>,
) -> Result<(), DemError> {
    match spec {
        BodySpec::Clump {
            template: name,
            position,
            rotate,
            velocity,
            angular_velocity,
            ..
        } => {
            let t = Arc::new(template(scene, name, &format!("bodies[{k}].template"))?);
            let turn = UnitQuaternion::from_scaled_axis(v(*rotate));
            // The body frame sits at `frame` in the template frame.
            let pos = v(*position) + turn * t.frame.translation.vector;
            let ori = turn * t.frame.rotation;
            let (vel, w) = (v(*velocity), v(*angular_velocity));
            push(p, out, name, &t, pos, ori, vel, w, rho, mat);
        }
        BodySpec::ClumpFill {
            template: name,
            min,
            max,
            count,
            seed,
            ..
        } => {
            let t = Arc::new(template(scene, name, &format!("bodies[{k}].template"))?);
            let (lo, hi) = (v(*min), v(*max));
            let r = t.bounding_radius;
            if !(0..3).all(|i| (hi[i] - lo[i]).is_finite() && lo[i] + r < hi[i] - r) {
                return Err(scene.error(format!(
                    "bodies[{k}]: the box must be finite and wider than a clump of bounding \
                     radius {r} m"
                )));
            }
            let mut rng = rand_pcg::Pcg64::seed_from_u64(*seed);
            let rotations: Vec<UnitQuaternion<f64>> =
                (0..*count).map(|_| random_rotation(&mut rng)).collect();
            let radii = vec![r; *count as usize];
            let centres = place_balls(&radii, lo, hi, &mut rng).map_err(|e| {
                scene.error(format!(
                    "bodies[{k}]: could place only {} of {count} clumps without overlap of \
                     their bounding spheres; enlarge the box",
                    e.placed
                ))
            })?;
            for (c, q) in centres.into_iter().zip(rotations) {
                let zero = Vector3::zeros();
                push(p, out, name, &t, c, q, zero, zero, rho, mat);
            }
        }
        _ => unreachable!("add_clumps is called for clumps only"),
    }
    Ok(())
}
