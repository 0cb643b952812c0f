//! Expansion of a `Mesh` body: read the file, place it, build its facets and connectivity,
//! attach its motion.

use super::boundaries::Boundaries;
use super::{BodySpec, Scene};
use crate::engines::motion::{Motion, Prescribed};
use crate::model::mesh::read::{check, read_triangles};
use crate::model::mesh::{build_facets, MeshBody};
use crate::model::particles::{Dofs, Particles, Shape};
use crate::support::error::DemError;
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
        if matches!(m, Motion::Servo { .. }) {
            return Err(scene.error(format!(
                "bodies[{k}].motion: Servo is for walls only (a mesh has no single normal)"
            )));
        }
    }
    let base = scene.origin.parent().unwrap_or(std::path::Path::new("."));
    let path = base.join(file);
    let rot = UnitQuaternion::from_scaled_axis(v(*rotate));
    let shift = v(*translate);
    let tris: Vec<[Vector3<f64>; 3]> = read_triangles(&path)
        .map_err(|e| scene.error(format!("bodies[{k}].file: {e}")))?
        .iter()
        .map(|t| t.map(|x| rot * (v(x) * *scale) + shift))
        .collect();
    // Placed, a triangle can collapse (a tiny scale, or a large translation that rounds
    // its vertices together) or overflow.
    for (i, t) in tris.iter().enumerate() {
        check(&t.map(|x| [x.x, x.y, x.z])).map_err(|why| {
            scene.error(format!(
                "bodies[{k}]: triangle {i} (0-based) of {}, placed with scale {scale:e}, \
                 rotate and translate: {why}",
                path.display()
            ))
        })?;
    }
    let (duplicates, non_manifold) = defects(&tris);
    if duplicates + non_manifold > 0 {
        tracing::warn!(
            "{}: bodies[{k}] ({}): {duplicates} duplicate triangles and {non_manifold} edges \
             shared by more than two triangles: contacts there may be counted twice",
            scene.origin.display(),
            path.display()
        );
    }
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

/// Numbers of duplicate triangles (the same three vertices as an earlier one) and of
/// non-manifold edges (shared by more than two triangles) of a placed mesh.
pub(crate) fn defects(tris: &[[Vector3<f64>; 3]]) -> (usize, usize) {
    let key = |x: &Vector3<f64>| [x.x.to_bits(), x.y.to_bits(), x.z.to_bits()];
    let mut faces = std::collections::HashSet::new();
    let mut edges: std::collections::HashMap<_, usize> = std::collections::HashMap::new();
    let mut duplicates = 0;
    for t in tris {
        let mut f = t.map(|x| key(&x));
        f.sort();
        if !faces.insert(f) {
            duplicates += 1;
            continue;
        }
        for (a, b) in [(f[0], f[1]), (f[1], f[2]), (f[0], f[2])] {
            *edges.entry((a, b)).or_default() += 1;
        }
    }
    (duplicates, edges.values().filter(|&&n| n > 2).count())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn duplicate_and_non_manifold_facets_are_counted() {
        let p = |x: f64, y: f64, z: f64| Vector3::new(x, y, z);
        let a = [p(0., 0., 0.), p(1., 0., 0.), p(0., 1., 0.)];
        let b = [p(1., 0., 0.), p(0., 0., 0.), p(0., -1., 0.)];
        let c = [p(0., 0., 0.), p(1., 0., 0.), p(0., 0., 1.)];
        assert_eq!(defects(&[a, b]), (0, 0));
        // `a` again in another vertex order; a third triangle on the edge 0-1.
        assert_eq!(defects(&[a, b, [a[1], a[2], a[0]]]), (1, 0));
        assert_eq!(defects(&[a, b, c]), (0, 1));
    }
}
