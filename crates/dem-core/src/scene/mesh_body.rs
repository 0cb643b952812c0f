//! Expansion of a `Mesh` body: read the file, place it, build its facets and connectivity,
//! attach its motion.

use super::{BodySpec, Boundaries, Scene};
use crate::error::DemError;
use crate::mesh::read::read_triangles;
use crate::mesh::{build_facets, MeshBody};
use crate::motion::{Motion, Prescribed};
use crate::particles::{Dofs, Particles, Shape};
use nalgebra::{UnitQuaternion, Vector3};

fn v(a: [f64; 3]) -> Vector3<f64> {
    Vector3::new(a[0], a[1], a[2])
}

/// Checks a motion of body `k`; a wall may not have both a velocity and a motion.
pub(super) fn check_motion(
    scene: &Scene,
    k: usize,
    motion: &Motion,
    velocity: [f64; 3],
) -> Result<(), DemError> {
    motion
        .check()
        .map_err(|why| scene.error(format!("bodies[{k}].motion: {why}")))?;
    if velocity != [0.0; 3] {
        return Err(scene.error(format!(
            "bodies[{k}]: give either `velocity` or `motion`, not both"
        )));
    }
    Ok(())
}

/// Adds the facets of mesh body `k` (a [`BodySpec::Mesh`]) of material `mat`.
pub(super) fn add_mesh(
    scene: &Scene,
    k: usize,
    spec: &BodySpec,
    mat: u32,
    p: &mut Particles,
    out: &mut Boundaries,
) -> Result<(), DemError> {
    let BodySpec::Mesh {
        file,
        scale,
        rotate,
        translate,
        halfthick,
        motion,
        name,
        ..
    } = spec
    else {
        unreachable!("add_mesh is called for meshes only")
    };
    if !(*scale > 0.0 && scale.is_finite()) {
        return Err(scene.error(format!(
            "bodies[{k}].scale: must be positive and finite, got {scale}"
        )));
    }
    if !(*halfthick >= 0.0 && halfthick.is_finite()) {
        return Err(scene.error(format!(
            "bodies[{k}].halfthick: must be finite and >= 0, got {halfthick}"
        )));
    }
    if let Some(m) = motion {
        check_motion(scene, k, m, [0.0; 3])?;
    }
    let base = scene.origin.parent().unwrap_or(std::path::Path::new("."));
    let path = base.join(file);
    let rot = UnitQuaternion::from_scaled_axis(v(*rotate));
    let shift = v(*translate);
    let tris: Vec<[Vector3<f64>; 3]> = read_triangles(&path)?
        .iter()
        .map(|t| t.map(|x| rot * (v(x) * *scale) + shift))
        .collect();
    // The reference point: the rotation centre of a rotating mesh, else the translation.
    let origin = motion.and_then(|m| m.center()).unwrap_or(shift);
    let index = out.meshes.len() as u32;
    let start = p.len();
    for f in build_facets(&tris, &origin, *halfthick, index) {
        p.push(
            Shape::Facet(Box::new(f)),
            origin,
            Vector3::zeros(),
            Vector3::zeros(),
            f64::INFINITY,
            Vector3::repeat(f64::INFINITY),
            Dofs::ALL,
            mat,
        );
    }
    let facets = start..p.len();
    if let Some(m) = motion {
        out.motions
            .push(Prescribed::new(*m, facets.clone().collect(), p));
    }
    let name = name.clone().unwrap_or_else(|| {
        path.file_stem()
            .map_or_else(|| file.clone(), |s| s.to_string_lossy().to_string())
    });
    out.meshes.push(MeshBody { name, facets });
    Ok(())
}
