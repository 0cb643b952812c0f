//! A capsule: the shape `Capsule` and its functors with walls (two terms, one per end
//! cap), other capsules and spheres (the closest points of the axes), a template for
//! writing a particle shape as a plugin (see `docs/writing-plugins.md`, "Writing a
//! shape").
//!
//! The body frame is the capsule's principal frame: its axis along z, its centre (the
//! centroid) at the origin.

use dem_api::nalgebra::Vector3;
use dem_api::sdk::{plugin_shape, Geometry, Param, Shape};
use dem_api::{BodyView, RawGeom, ShapeKind, ShapeProperties, Surface, Vec3};
use serde::{Deserialize, Serialize};
use std::f64::consts::PI;

/// Parameters of one capsule.
#[derive(Serialize, Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
pub struct Params {
    /// Radius of the cylinder and of the end caps, m.
    pub radius: f64,
    /// Half the length of the cylinder (the distance of each cap's centre from the
    /// capsule's centre), m.
    pub half_length: f64,
}

/// One capsule: the record its functors read.
#[repr(C)]
pub struct Capsule {
    /// Radius, m.
    pub radius: f64,
    /// Half-length of the cylinder, m.
    pub half_length: f64,
}

impl Shape for Capsule {
    type Params = Params;
    const NAME: &'static str = "Capsule";
    const DESCRIPTION: &'static str = "A cylinder of radius `radius` and half-length \
        `half_length` along body z, closed by two hemispheres.";
    const PARAMS: &'static [Param] = &[
        Param {
            name: "radius",
            unit: "m",
            doc: "radius of the cylinder and its end caps",
        },
        Param {
            name: "half_length",
            unit: "m",
            doc: "half the cylinder's length (0: a sphere)",
        },
    ];

    fn new(p: Params) -> Result<Self, String> {
        if !(p.radius.is_finite() && p.radius > 0.0) {
            return Err(format!(
                "radius: must be positive and finite, m; got {}",
                p.radius
            ));
        }
        if !(p.half_length.is_finite() && p.half_length >= 0.0) {
            return Err(format!(
                "half_length: must be at least 0 and finite, m; got {}",
                p.half_length
            ));
        }
        Ok(Capsule {
            radius: p.radius,
            half_length: p.half_length,
        })
    }

    fn properties(&self) -> ShapeProperties {
        let (r, h) = (self.radius, self.half_length);
        // Per unit density: the cylinder's and the two caps' (a whole sphere's) masses.
        let (cylinder, ball) = (PI * r * r * 2.0 * h, 4.0 / 3.0 * PI * r.powi(3));
        // About the axis; about a transverse axis through the centre (each cap's centroid
        // lies 3r/8 beyond the cylinder's end).
        let axial = cylinder * r * r / 2.0 + ball * 2.0 * r * r / 5.0;
        let transverse = cylinder * (h * h / 3.0 + r * r / 4.0)
            + ball * (2.0 * r * r / 5.0 + h * h + 3.0 * h * r / 4.0);
        ShapeProperties {
            volume: cylinder + ball,
            inertia: Vec3::new(transverse, transverse, axial),
            bounding_radius: h + r,
            half_extents: Vec3::new(r, r, h + r),
        }
    }

    fn surface(&self, detail: u32) -> Surface {
        // Latitude rings from the bottom pole to the top one: `detail / 2` on each cap.
        let (r, h) = (self.radius, self.half_length);
        let (rings, around) = ((detail / 2).max(2) as usize, 2 * detail as usize);
        let mut vertices = vec![Vec3::new(0.0, 0.0, -h - r)];
        for (cap, z0) in [(-1.0, -h), (1.0, h)] {
            for i in 1..=rings {
                // Bottom cap: from next to the pole up to the equator; top cap: from the
                // equator up to next to the pole.
                let step = (PI / 2.0) / rings as f64;
                let lat = if cap < 0.0 {
                    -PI / 2.0 + i as f64 * step
                } else {
                    (i - 1) as f64 * step
                };
                for j in 0..around {
                    let lon = 2.0 * PI * j as f64 / around as f64;
                    vertices.push(Vec3::new(
                        r * lat.cos() * lon.cos(),
                        r * lat.cos() * lon.sin(),
                        z0 + r * lat.sin(),
                    ));
                }
            }
        }
        let top = vertices.len() as u32;
        vertices.push(Vec3::new(0.0, 0.0, h + r));
        let ring = |i: usize, j: usize| (1 + i * around + j % around) as u32;
        let mut triangles = Vec::new();
        for j in 0..around {
            triangles.push([0, ring(0, j + 1), ring(0, j)]);
            triangles.push([top, ring(2 * rings - 1, j), ring(2 * rings - 1, j + 1)]);
        }
        for i in 0..2 * rings - 1 {
            for j in 0..around {
                triangles.push([ring(i, j), ring(i, j + 1), ring(i + 1, j + 1)]);
                triangles.push([ring(i, j), ring(i + 1, j + 1), ring(i + 1, j)]);
            }
        }
        Surface {
            vertices: vertices.into(),
            triangles: triangles.into(),
        }
    }

    fn support(&self, d: Vec3) -> Vec3 {
        let end = if d.z >= 0.0 {
            self.half_length
        } else {
            -self.half_length
        };
        Vec3::new(
            self.radius * d.x,
            self.radius * d.y,
            end + self.radius * d.z,
        )
    }

    fn scaled(p: &Params, factor: f64) -> Option<Params> {
        Some(Params {
            radius: p.radius * factor,
            half_length: p.half_length * factor,
        })
    }
}

/// Parameters of the wall functor (none).
#[derive(Serialize, Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
pub struct NoParams {}

/// A wall (body 1) and a capsule (body 2): term 0 is the wall against the hemisphere at
/// body `-z`, term 1 against the one at `+z`, each as a wall against a sphere.
pub struct WallCapsule;

impl Geometry for WallCapsule {
    type Params = NoParams;
    const NAME: &'static str = "Cg2_Wall_Capsule_L6Geom";
    const SHAPES: [ShapeKind; 2] = [ShapeKind::WALL, ShapeKind::NAMED];
    const SHAPE_NAMES: [&'static str; 2] = ["Wall", "Capsule"];
    const DESCRIPTION: &'static str = "Infinite plane and capsule: two terms, the plane \
        against each end cap as against a sphere (normal from the wall, gap the cap \
        centre's distance less the radius, point in the middle of the overlap).";
    const PARAMS: &'static [Param] = &[];

    fn new(_: NoParams) -> Result<Self, String> {
        Ok(WallCapsule)
    }

    fn features(&self) -> u32 {
        2
    }

    fn geom(&self, wall: &BodyView<'_>, body: &BodyView<'_>, distance: f64) -> Option<RawGeom> {
        self.term(wall, body, distance, 0)
    }

    fn term(
        &self,
        wall: &BodyView<'_>,
        body: &BodyView<'_>,
        distance: f64,
        feature: u32,
    ) -> Option<RawGeom> {
        let w = wall.shape.wall()?;
        // SAFETY: this functor declares "Capsule" for body 2, which this plugin exports
        // as `Capsule`.
        let c: &Capsule = unsafe { plugin_shape::<Capsule>(&body.shape) }?;
        let plane: Vector3<f64> = wall.ori.unit() * w.normal.na();
        let side = if feature == 0 { -1.0 } else { 1.0 };
        let cap = body.pos.na() + body.ori.unit() * Vector3::new(0.0, 0.0, side * c.half_length);
        let above = plane.dot(&(cap - wall.pos.na()));
        let sense = match w.sense {
            0 if plane.dot(&(body.pos.na() - wall.pos.na())) < 0.0 => -1.0,
            0 => 1.0,
            s => s.signum() as f64,
        };
        let normal = plane * sense;
        let gap = above * sense - c.radius;
        if gap >= distance {
            return None;
        }
        Some(RawGeom {
            touching: 1,
            point: (cap - normal * (c.radius + 0.5 * gap)).into(),
            normal: normal.into(),
            gap,
            radius1: f64::INFINITY,
            radius2: c.radius,
            area: PI * c.radius * c.radius,
            weight: 1.0,
        })
    }
}

/// The closest points of segments `p0 + s (p1 - p0)` and `q0 + t (q1 - q0)`, `s`, `t`
/// in [0, 1] (Ericson, Real-Time Collision Detection, 5.1.9, written again here).
fn closest(p: [Vector3<f64>; 2], q: [Vector3<f64>; 2]) -> (Vector3<f64>, Vector3<f64>) {
    let (d1, d2, r) = (p[1] - p[0], q[1] - q[0], p[0] - q[0]);
    let (a, e, f) = (d1.dot(&d1), d2.dot(&d2), d2.dot(&r));
    let tiny = 1e-300;
    let (s, t) = if a <= tiny && e <= tiny {
        (0.0, 0.0)
    } else if a <= tiny {
        (0.0, (f / e).clamp(0.0, 1.0))
    } else {
        let c = d1.dot(&r);
        if e <= tiny {
            ((-c / a).clamp(0.0, 1.0), 0.0)
        } else {
            let b = d1.dot(&d2);
            let denom = a * e - b * b;
            let mut s = if denom > 0.0 {
                ((b * f - c * e) / denom).clamp(0.0, 1.0)
            } else {
                0.0
            };
            let mut t = (b * s + f) / e;
            if t < 0.0 {
                t = 0.0;
                s = (-c / a).clamp(0.0, 1.0);
            } else if t > 1.0 {
                t = 1.0;
                s = ((b - c) / a).clamp(0.0, 1.0);
            }
            (s, t)
        }
    };
    (p[0] + d1 * s, q[0] + d2 * t)
}

/// The axis of capsule `c` of body `b`: its two cap centres, global frame, m.
fn axis(c: &Capsule, b: &BodyView<'_>) -> [Vector3<f64>; 2] {
    let half = b.ori.unit() * Vector3::new(0.0, 0.0, c.half_length);
    [b.pos.na() - half, b.pos.na() + half]
}

/// Two balls of radii `r1`, `r2` about the points `x1`, `x2`: the contact as between two
/// spheres, or `None` when the gap is not below `distance`. Points that (nearly) coincide
/// give no direction: the normal is then `across` (the direction out of the deepest
/// overlap, from body 1 to body 2; nonzero).
fn balls(
    (x1, r1): (Vector3<f64>, f64),
    (x2, r2): (Vector3<f64>, f64),
    across: Vector3<f64>,
    distance: f64,
) -> Option<RawGeom> {
    let d = x2 - x1;
    let len = d.norm();
    let gap = len - r1 - r2;
    if gap >= distance {
        return None;
    }
    let normal = if len > 1e-9 * (r1 + r2) {
        d / len
    } else {
        across.normalize()
    };
    Some(RawGeom {
        touching: 1,
        point: (x1 + normal * (r1 + 0.5 * gap)).into(),
        normal: normal.into(),
        gap,
        radius1: r1,
        radius2: r2,
        area: PI * (r1 * r2 / (r1 + r2)).powi(2),
        weight: 1.0,
    })
}

/// Two capsules: the closest points of their axes, each the centre of a ball of the
/// capsule's radius.
pub struct CapsuleCapsule;

impl Geometry for CapsuleCapsule {
    type Params = NoParams;
    const NAME: &'static str = "Cg2_Capsule_Capsule_L6Geom";
    const SHAPES: [ShapeKind; 2] = [ShapeKind::NAMED, ShapeKind::NAMED];
    const SHAPE_NAMES: [&'static str; 2] = ["Capsule", "Capsule"];
    const DESCRIPTION: &'static str = "Two capsules: the closest points of their axes as \
        the centres of two spheres of the capsules' radii.";
    const PARAMS: &'static [Param] = &[];

    fn new(_: NoParams) -> Result<Self, String> {
        Ok(CapsuleCapsule)
    }

    fn geom(&self, b1: &BodyView<'_>, b2: &BodyView<'_>, distance: f64) -> Option<RawGeom> {
        // SAFETY: "Capsule" is declared for both bodies; this plugin exports `Capsule`.
        let (c1, c2) = unsafe {
            (
                plugin_shape::<Capsule>(&b1.shape)?,
                plugin_shape::<Capsule>(&b2.shape)?,
            )
        };
        let (a1, a2) = (axis(c1, b1), axis(c2, b2));
        let (x1, x2) = closest(a1, a2);
        // Crossing axes: out along the common perpendicular, to body 2's side.
        let mut across = (a1[1] - a1[0]).cross(&(a2[1] - a2[0]));
        if across.norm() == 0.0 {
            across = b1.ori.unit() * Vector3::x();
        }
        if across.dot(&(b2.pos.na() - b1.pos.na())) < 0.0 {
            across = -across;
        }
        balls((x1, c1.radius), (x2, c2.radius), across, distance)
    }
}

/// A sphere and a capsule: the sphere against the ball about the closest point of the
/// capsule's axis.
pub struct SphereCapsule;

impl Geometry for SphereCapsule {
    type Params = NoParams;
    const NAME: &'static str = "Cg2_Sphere_Capsule_L6Geom";
    const SHAPES: [ShapeKind; 2] = [ShapeKind::SPHERE, ShapeKind::NAMED];
    const SHAPE_NAMES: [&'static str; 2] = ["Sphere", "Capsule"];
    const DESCRIPTION: &'static str = "Sphere and capsule: the sphere against a sphere of \
        the capsule's radius about the closest point of its axis.";
    const PARAMS: &'static [Param] = &[];

    fn new(_: NoParams) -> Result<Self, String> {
        Ok(SphereCapsule)
    }

    fn geom(&self, b1: &BodyView<'_>, b2: &BodyView<'_>, distance: f64) -> Option<RawGeom> {
        let r = b1.shape.sphere()?.radius;
        // SAFETY: "Capsule" is declared for body 2; this plugin exports `Capsule`.
        let c = unsafe { plugin_shape::<Capsule>(&b2.shape)? };
        let centre = *b1.pos.na();
        let (_, x2) = closest([centre, centre], axis(c, b2));
        // A centre on the axis: out across it.
        let across = -(b2.ori.unit() * Vector3::x());
        balls((centre, r), (x2, c.radius), across, distance)
    }
}

dem_api::export_plugin! {
    geometry: [WallCapsule, CapsuleCapsule, SphereCapsule],
    laws: [],
    shapes: [Capsule],
}
