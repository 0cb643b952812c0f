//! Geometry functors for rigid convex polyhedra.
//!
//! - `Cg2_Polyhedron_Polyhedron_L6Geom` (this file): the contact of two polyhedra from
//!   their volumetric intersection. By default (`definition: Potential`) point, normal,
//!   gap and area are those of the depth-field potential ([`potential`]): with a linear
//!   law whose stiffness scales with the area (`kn_per_area`) the force is the gradient
//!   of the energy the law stores, so the energy ledger closes. `definition: Solfec`
//!   gives reference 000's definition (`dem_api::convex::contact`): point = centroid of
//!   the intersection surface, normal from A to B, area = half the intersection surface,
//!   gap from the vertex projections (GJK-checked); it is not energy-consistent.
//!   Touching pairs are reported (gap about 0; area 0 with the potential). Bodies apart
//!   by less than the interaction distance get a contact with the GJK distance as gap
//!   and area 0. Before the posed bodies are built, pairs are rejected by their bounding
//!   spheres and then by the gap of their shadows on the line of centres ([`support`]),
//!   with a margin that makes the rejection exact: only pairs the full computation
//!   would report as apart are skipped, so results do not change. Any other failure (degenerate input, hull failure) is logged and stops
//!   the run with the pair: a contact is never dropped silently.
//! - `Cg2_Wall_Polyhedron_L6Geom` ([`wall`]): a wall clipping a polyhedron.
//! - `Cg2_Sphere_Polyhedron_L6Geom` ([`sphere`]): GJK closest point, deepest-face rule
//!   for a centre inside.
//! - `Cg2_Facet_Polyhedron_L6Geom` ([`facet`]): a mesh triangle as the wall of its
//!   triangle's column.
//!
//! **Equivalent radii**: `radius1`/`radius2` of a polyhedron are its volume-equivalent
//! radius `(3 V / 4 pi)^(1/3)`, a characteristic length for laws that want one (a default
//! stiffness `2 E r`, rolling resistance). It is *not* a branch length: scenes with
//! polyhedra should set `contacts: (l6geom: (no_ratch: false))`, so that the solver uses
//! the true branch vectors from each centroid to the contact point for the relative
//! velocity.
//!
//! Floors, bottom first: the shared pieces (`cache`, `clip`, `epsilon`, `posed`,
//! `potential`, `section`, `support`); the other pairs' functors (`facet`, `sphere`,
//! `wall`); this file (the polyhedron pair and the export) on top.

pub mod cache;
pub mod clip;
pub mod epsilon;
pub mod facet;
pub mod posed;
pub mod potential;
pub mod section;
pub mod sphere;
pub mod support;
pub mod wall;

use dem_api::convex::clip::clip_then;
use dem_api::convex::{
    contact, intersect_exact, ContactOptions, IntersectionError, Surface, GEOMETRIC_EPSILON,
};
use dem_api::nalgebra::{Point3, Vector3};
use dem_api::sdk::{Geometry, Param};
use dem_api::{BodyView, GeomReads, RawGeom, ShapeKind};
use serde::{Deserialize, Serialize};

pub use facet::FacetPolyhedron;
pub use sphere::SpherePolyhedron;
pub use wall::WallPolyhedron;

/// Parameters of the polyhedron-polyhedron functor.
#[derive(Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Params {
    /// Geometric epsilon relative to the pair's size (the sum of the bounding radii):
    /// bodies whose common part has an inscribed radius below it touch.
    pub epsilon: f64,
    /// Geometric epsilon, m, from the scene (see [`epsilon`]); replaces `epsilon`.
    pub geometric_epsilon: Option<f64>,
    /// Which contact definition.
    pub definition: Definition,
}

/// The contact definition of the polyhedron-polyhedron functor.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Definition {
    /// The depth-field potential ([`potential`]): energy-consistent with `kn_per_area`.
    #[default]
    Potential,
    /// Reference 000 (Solfec): surface centroid, area-squared weighted normal,
    /// vertex-projection gap, half the intersection surface as area.
    Solfec,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            epsilon: GEOMETRIC_EPSILON,
            geometric_epsilon: None,
            definition: Definition::Potential,
        }
    }
}

/// The polyhedron-polyhedron functor.
pub struct PolyPoly {
    epsilon: f64,
    geometric_epsilon: Option<f64>,
    definition: Definition,
}

impl Geometry for PolyPoly {
    type Params = Params;
    const NAME: &'static str = "Cg2_Polyhedron_Polyhedron_L6Geom";
    const SHAPES: [ShapeKind; 2] = [ShapeKind::POLYHEDRON, ShapeKind::POLYHEDRON];
    /// Both orientations.
    const READS: GeomReads = GeomReads::ORIENTATION_1.union(GeomReads::ORIENTATION_2);
    const DESCRIPTION: &'static str = "Two convex polyhedra, from their volumetric \
        intersection (Muller-Preparata by polar duality). Potential definition (default): \
        energy e = V * depth of the overlap centroid below the shallowest face plane, force \
        = pressure (depth) on the other body's faces in the overlap, reported as gap -2e/f \
        and area f^2/2e so that a linear law with kn_per_area is energy-consistent. Solfec \
        definition: point = centroid of the intersection surface, normal from body 1 to \
        body 2, area = half the intersection surface, gap from the vertex projections. \
        Touching pairs are reported; degenerate pairs stop the run with an error. Radii are \
        the volume-equivalent radii.";
    const PARAMS: &'static [Param] = &[
        Param {
            name: "epsilon",
            unit: "-",
            doc: "geometric epsilon relative to the sum of the bounding radii (default 1e-6), \
                  used only without geometric_epsilon",
        },
        epsilon::PARAM,
        Param {
            name: "definition",
            unit: "-",
            doc: "Potential (default; energy-consistent with kn_per_area) or Solfec \
                  (reference 000)",
        },
    ];

    fn new(p: Params) -> Result<Self, String> {
        if !(p.epsilon > 0.0 && p.epsilon < 1.0) {
            return Err(format!("epsilon must be in (0, 1), got {}", p.epsilon));
        }
        epsilon::check(p.geometric_epsilon)?;
        Ok(PolyPoly {
            epsilon: p.epsilon,
            geometric_epsilon: p.geometric_epsilon,
            definition: p.definition,
        })
    }

    fn geom(&self, b1: &BodyView<'_>, b2: &BodyView<'_>, distance: f64) -> Option<RawGeom> {
        self.try_term(b1, b2, distance, 0).ok().flatten()
    }

    fn try_term(
        &self,
        b1: &BodyView<'_>,
        b2: &BodyView<'_>,
        distance: f64,
        feature: u32,
    ) -> Result<Option<RawGeom>, String> {
        self.term_with(b1, b2, distance, feature, None)
    }

    /// The pair cache ([`cache`]): the unit direction, world frame, along which the
    /// bodies were last found apart (zero: none).
    const CACHE_LEN: usize = cache::LEN;

    fn try_term_cached(
        &self,
        b1: &BodyView<'_>,
        b2: &BodyView<'_>,
        distance: f64,
        feature: u32,
        cache: &mut [f64],
    ) -> Result<Option<RawGeom>, String> {
        self.term_with(b1, b2, distance, feature, Some(cache))
    }
}

impl PolyPoly {
    /// The pair's term, with the pair cache when given (the same result either way):
    /// exact rejections first (bounding spheres, the cached separating direction, the
    /// line of centres), then the full computation.
    fn term_with(
        &self,
        b1: &BodyView<'_>,
        b2: &BodyView<'_>,
        distance: f64,
        feature: u32,
        cache: Option<&mut [f64]>,
    ) -> Result<Option<RawGeom>, String> {
        let (Some(s1), Some(s2)) = (b1.shape.polyhedron(), b2.shape.polyhedron()) else {
            return Err("not a pair of polyhedra".into());
        };
        if feature != 0 {
            return Ok(None);
        }
        let size = s1.bounding_radius + s2.bounding_radius;
        // Cheap rejection by the bounding spheres.
        if (b2.pos.na() - b1.pos.na()).norm() - size >= distance {
            return Ok(None);
        }
        let eps = self.geometric_epsilon.unwrap_or(self.epsilon * size);
        // Exact rejection by the gap along a direction, a lower bound of the distance:
        // beyond the interaction distance and epsilon by a margin far above the
        // round-off of it and of GJK, the full computation below is certain to find the
        // bodies apart beyond both and to return `None`. The direction is the one cached
        // from the pair's last GJK call, if any, then the line of centres.
        let margin = CULL_MARGIN * (size + b1.pos.na().norm() + b2.pos.na().norm());
        let beyond = |gap: f64| gap > distance.max(eps) + margin;
        let (p1, p2) = ((&b1.pos, &b1.ori), (&b2.pos, &b2.ori));
        let cached = cache.as_deref().and_then(cache::direction);
        if cached.is_some_and(|n| beyond(support::gap_along(s1, p1, s2, p2, &n))) {
            return Ok(None);
        }
        if support::centre_line_gap(s1, p1, s2, p2).is_some_and(beyond) {
            return Ok(None);
        }
        let mut apart = None;
        let found = self.full_term(b1, b2, distance, eps, &mut apart);
        if let Some(cache) = cache {
            cache::store(cache, apart);
        }
        found
    }
}

/// Margin of the centre-line rejection, relative to the pair's size plus the distances
/// of the centres from the origin (the scale of the world coordinates' round-off):
/// GJK's stopping rule and the round-off of both computations are below 1e-12 of it.
const CULL_MARGIN: f64 = 1e-9;

impl PolyPoly {
    /// The pair's term from the posed bodies (intersection, or GJK distance when
    /// apart), without the rejections: `eps` is the absolute geometric epsilon (m).
    /// When GJK finds the bodies apart, `apart` receives the unit direction from the
    /// closest point of body 1 to that of body 2.
    fn full_term(
        &self,
        b1: &BodyView<'_>,
        b2: &BodyView<'_>,
        distance: f64,
        eps: f64,
        apart: &mut Option<Vector3<f64>>,
    ) -> Result<Option<RawGeom>, String> {
        let (Some(s1), Some(s2)) = (b1.shape.polyhedron(), b2.shape.polyhedron()) else {
            return Err("not a pair of polyhedra".into());
        };
        let opts = ContactOptions { epsilon: eps };
        let (r1, r2) = (s1.equivalent_radius(), s2.equivalent_radius());
        let raw = |point: dem_api::nalgebra::Point3<f64>, normal, gap, area| RawGeom {
            touching: 1,
            point: point.coords.into(),
            normal,
            gap,
            radius1: r1,
            radius2: r2,
            area,
            weight: 1.0,
        };
        let definition = self.definition;
        let found =
            posed::with_posed_pair((s1, &b1.pos, &b1.ori), (s2, &b2.pos, &b2.ori), |a, b| {
                match definition {
                    Definition::Solfec => {
                        contact(a, b, &opts).map(|c| (c.point, c.normal, c.gap, c.area))
                    }
                    Definition::Potential => {
                        // As `intersect` would find it: clipped in place, else the exact
                        // path.
                        match clip_then(a, b, opts.epsilon, |view| {
                            potential_term(a, b, view, b1, b2)
                        }) {
                            Some(t) => Ok(t),
                            None => match intersect_exact(a, b, opts.epsilon) {
                                Ok(inter) => Ok(potential_term(a, b, &inter, b1, b2)),
                                Err(IntersectionError::Touching { point, normal, .. }) => {
                                    Ok((point, normal, 0.0, 0.0))
                                }
                                Err(e) => Err(e),
                            },
                        }
                    }
                }
            });
        match found {
            Ok((point, normal, gap, area)) => Ok(Some(raw(point, normal.into(), gap, area))),
            Err(IntersectionError::Separated {
                distance: d,
                point_a,
                point_b,
            }) => {
                if d <= 0.0 {
                    return Ok(None);
                }
                let n = (point_b - point_a) / d;
                *apart = Some(n);
                if d >= distance {
                    return Ok(None);
                }
                let mid = dem_api::nalgebra::center(&point_a, &point_b);
                Ok(Some(raw(mid, n.into(), d, 0.0)))
            }
            Err(e) => {
                dem_api::tracing::error!(
                    "{}: contact of bodies at {:?} and {:?} failed: {e}",
                    Self::NAME,
                    b1.pos,
                    b2.pos
                );
                Err(format!("polyhedron contact failed: {e}"))
            }
        }
    }
}

/// Point, normal, gap and area of the potential contact of the posed bodies `a`, `b`
/// with intersection surface `inter`; touching (no depth): the interior point, the
/// direction from centre to centre, gap and area 0.
fn potential_term(
    a: &dem_api::convex::Polyhedron,
    b: &dem_api::convex::Polyhedron,
    inter: &impl Surface,
    b1: &BodyView<'_>,
    b2: &BodyView<'_>,
) -> (Point3<f64>, Vector3<f64>, f64, f64) {
    match potential::potential_contact(a, b, inter) {
        Some(c) => (c.point, c.normal, c.gap, c.area),
        // No depth: touching, no force.
        None => {
            let d = b2.pos.na() - b1.pos.na();
            let n = if d.norm() > 0.0 {
                d.normalize()
            } else {
                Vector3::z()
            };
            (Point3::from(inter.interior_point()), n, 0.0, 0.0)
        }
    }
}

dem_api::export_plugin! { geometry: [PolyPoly, WallPolyhedron, SpherePolyhedron, FacetPolyhedron], laws: [] }

#[cfg(test)]
mod tests {
    use super::*;
    use dem_api::convex::generate::cube;
    use dem_api::{PolyhedronData, Quat, ShapeView, Vec3, WallShape};

    fn unit_cube() -> PolyhedronData {
        PolyhedronData::of(&cube(1.0).unwrap().to_principal().0)
    }

    #[test]
    fn overlapping_cubes_face_on() {
        let data = unit_cube();
        let rec = unsafe { data.record() };
        let a = BodyView {
            pos: Vec3::ZERO,
            ori: Quat::IDENTITY,
            vel: Vec3::ZERO,
            angvel: Vec3::ZERO,
            shape: ShapeView::of_polyhedron(&rec),
        };
        let b = BodyView {
            pos: Vec3::new(0.0, 0.0, 0.9),
            ..a
        };
        let f = PolyPoly::new(Params::default()).unwrap();
        let g = f.try_term(&a, &b, 0.0, 0).unwrap().unwrap();
        assert!((g.gap + 0.1).abs() < 1e-9, "{g:?}");
        assert!((g.normal.na() - Vector3::z()).norm() < 1e-9);
        // The face area (the potential's equivalent area of a flat overlap).
        assert!((g.area - 1.0).abs() < 1e-9);
        assert!((g.point.z - 0.45).abs() < 1e-9);
        let far = BodyView {
            pos: Vec3::new(0.0, 0.0, 1.05),
            ..a
        };
        assert!(f.try_term(&a, &far, 0.0, 0).unwrap().is_none());
        let near = f.try_term(&a, &far, 0.1, 0).unwrap().unwrap();
        assert!((near.gap - 0.05).abs() < 1e-9 && near.area == 0.0);
    }

    #[test]
    fn a_cube_sinking_into_a_wall() {
        let data = unit_cube();
        let rec = unsafe { data.record() };
        let w = WallShape {
            normal: Vec3::new(0.0, 0.0, 1.0),
            sense: 1,
        };
        let wall = BodyView {
            pos: Vec3::ZERO,
            ori: Quat::IDENTITY,
            vel: Vec3::ZERO,
            angvel: Vec3::ZERO,
            shape: ShapeView::of_wall(&w),
        };
        let body = BodyView {
            pos: Vec3::new(1.0, 2.0, 0.4),
            shape: ShapeView::of_polyhedron(&rec),
            ..wall
        };
        let g = WallPolyhedron.geom(&wall, &body, 0.0).unwrap();
        assert!((g.gap + 0.1).abs() < 1e-12);
        assert!((g.area - 1.0).abs() < 1e-12);
        assert!((g.point.na() - Vector3::new(1.0, 2.0, 0.0)).norm() < 1e-12);
        assert_eq!(g.normal, Vec3::new(0.0, 0.0, 1.0));
        let above = BodyView {
            pos: Vec3::new(1.0, 2.0, 0.6),
            ..body
        };
        assert!(WallPolyhedron.geom(&wall, &above, 0.0).is_none());
        let g = WallPolyhedron.geom(&wall, &above, 0.2).unwrap();
        assert!((g.gap - 0.1).abs() < 1e-12 && g.area == 0.0);
    }

    use dem_api::nalgebra::Vector3;

    /// Rock pairs around contact: overlapping, touching range and apart.
    fn rock_poses(n: usize) -> (Vec<PolyhedronData>, Vec<[(Vec3, Quat); 2]>) {
        use dem_api::convex::generate::rock;
        use dem_api::nalgebra::UnitQuaternion;
        let shapes: Vec<PolyhedronData> = (0..4)
            .map(|k| {
                let r = rock(k, 30, Vector3::new(0.6, 0.5, 0.4)).unwrap();
                PolyhedronData::of(&r.to_principal().0)
            })
            .collect();
        // A fixed sequence of poses (no random-number crate in this plugin).
        let poses = (0..n)
            .map(|i| {
                let t = i as f64;
                let dir = Vector3::new((1.3 * t).sin(), (0.7 * t).cos(), (2.1 * t).sin());
                let d = 0.6 + 0.9 * ((0.37 * t).sin() * 0.5 + 0.5);
                let q = |a: f64| {
                    let u = UnitQuaternion::from_scaled_axis(Vector3::new(a, 0.5 * a, -a) * 1.7);
                    Quat {
                        i: u.i,
                        j: u.j,
                        k: u.k,
                        w: u.w,
                    }
                };
                let p2 = dir.normalize() * d + Vector3::new(10.0, -3.0, 2.0);
                [
                    (Vec3::new(10.0, -3.0, 2.0), q(0.3 * t)),
                    (Vec3::new(p2.x, p2.y, p2.z), q(1.1 * t + 0.2)),
                ]
            })
            .collect();
        (shapes, poses)
    }

    /// The functor's terms for each pose, with the centre-line rejection (as run) or
    /// without it. Not inlined: the unit callgrind's `--toggle-collect` counts.
    #[inline(never)]
    fn terms(
        f: &PolyPoly,
        shapes: &[PolyhedronData],
        poses: &[[(Vec3, Quat); 2]],
        distance: f64,
        cull: bool,
    ) -> Vec<String> {
        poses
            .iter()
            .enumerate()
            .map(|(i, [(p1, o1), (p2, o2)])| {
                let (r1, r2) = unsafe {
                    (
                        shapes[i % shapes.len()].record(),
                        shapes[(i / 2) % shapes.len()].record(),
                    )
                };
                let body = |pos, ori, rec| BodyView {
                    pos,
                    ori,
                    vel: Vec3::ZERO,
                    angvel: Vec3::ZERO,
                    shape: ShapeView::of_polyhedron(rec),
                };
                let (b1, b2) = (body(*p1, *o1, &r1), body(*p2, *o2, &r2));
                let out = if cull {
                    f.try_term(&b1, &b2, distance, 0)
                } else {
                    let size = r1.bounding_radius + r2.bounding_radius;
                    let eps = f.geometric_epsilon.unwrap_or(f.epsilon * size);
                    f.full_term(&b1, &b2, distance, eps, &mut None)
                };
                // Debug of f64 round-trips: equal strings are equal bits.
                format!("{out:?}")
            })
            .collect()
    }

    /// Pairs moving through approach, contact and separation step by step, with the pair
    /// cache carried from call to call as the solver does: every result is bitwise that
    /// of the uncached call, and the cached direction does reject pairs.
    #[test]
    fn the_pair_cache_changes_no_result() {
        let (shapes, _) = rock_poses(0);
        let mut hits = 0;
        for definition in [Definition::Potential, Definition::Solfec] {
            let f = PolyPoly::new(Params {
                definition,
                ..Params::default()
            })
            .unwrap();
            for pair in 0..24 {
                let (r1, r2) = unsafe {
                    (
                        shapes[pair % shapes.len()].record(),
                        shapes[(pair / 2) % shapes.len()].record(),
                    )
                };
                let t = pair as f64;
                let dir =
                    Vector3::new((1.3 * t).sin(), (0.7 * t).cos(), (2.1 * t).sin()).normalize();
                let mut cache = [0.0; cache::LEN];
                for step in 0..120 {
                    let s = step as f64 / 120.0;
                    // From 1.6 apart to 0.6 (overlapping) and back, turning.
                    let d = 0.6 + 1.0 * (2.0 * s - 1.0).powi(2);
                    let turn = |a: f64| {
                        let u = dem_api::nalgebra::UnitQuaternion::from_scaled_axis(
                            Vector3::new(0.3, -0.2, 0.5) * a,
                        );
                        Quat {
                            i: u.i,
                            j: u.j,
                            k: u.k,
                            w: u.w,
                        }
                    };
                    let p2 = dir * d + Vector3::new(10.0, -3.0, 2.0);
                    let body = |pos, ori, rec| BodyView {
                        pos,
                        ori,
                        vel: Vec3::ZERO,
                        angvel: Vec3::ZERO,
                        shape: ShapeView::of_polyhedron(rec),
                    };
                    let b1 = body(Vec3::new(10.0, -3.0, 2.0), turn(0.4 * s + t), &r1);
                    let b2 = body(Vec3::new(p2.x, p2.y, p2.z), turn(1.5 * s - t), &r2);
                    for distance in [0.0, 0.02] {
                        let before = cache::direction(&cache);
                        let with = f.try_term_cached(&b1, &b2, distance, 0, &mut cache);
                        let without = f.try_term(&b1, &b2, distance, 0);
                        assert_eq!(format!("{with:?}"), format!("{without:?}"), "{pair} {step}");
                        let p = ((&b1.pos, &b1.ori), (&b2.pos, &b2.ori));
                        if before.is_some_and(|n| {
                            support::gap_along(&r1, p.0, &r2, p.1, &n) > distance + 1e-6
                        }) {
                            hits += 1;
                        }
                    }
                }
            }
        }
        assert!(hits > 200, "{hits} pairs rejected by the cached direction");
    }

    #[test]
    fn the_centre_line_rejection_changes_no_result() {
        let (shapes, poses) = rock_poses(600);
        for definition in [Definition::Potential, Definition::Solfec] {
            let f = PolyPoly::new(Params {
                definition,
                ..Params::default()
            })
            .unwrap();
            for distance in [0.0, 0.05] {
                let with = terms(&f, &shapes, &poses, distance, true);
                let without = terms(&f, &shapes, &poses, distance, false);
                for (i, (w, wo)) in with.iter().zip(&without).enumerate() {
                    assert_eq!(w, wo, "pose {i}, distance {distance}");
                }
                // The set spans contacts, near misses kept for GJK and rejected pairs.
                let contacts = with.iter().filter(|s| s.starts_with("Ok(Some")).count();
                assert!(contacts > 100 && contacts < 500, "{contacts} contacts");
            }
        }
        // And the rejection does fire on pairs that pass the bounding spheres.
        let rejected = poses
            .iter()
            .enumerate()
            .filter(|(i, [(p1, o1), (p2, o2)])| {
                let r1 = unsafe { shapes[i % shapes.len()].record() };
                let r2 = unsafe { shapes[(i / 2) % shapes.len()].record() };
                let near = (p2.na() - p1.na()).norm() < r1.bounding_radius + r2.bounding_radius;
                let gap = support::centre_line_gap(&r1, (p1, o1), &r2, (p2, o2)).unwrap();
                near && gap > 1e-3
            })
            .count();
        assert!(
            rejected > 20,
            "{rejected} pairs rejected by the centre line"
        );
    }
}
