//! Particle templates: what an inlet inserts. A template is a shape without a size; the
//! inlet draws a radius from its size distribution and makes the particle at that size.
//!
//! The radius of a template particle is its **volume-equivalent radius**: the radius of
//! the sphere of the same volume. A particle of radius `r` and density `rho` so has the
//! mass `4/3 pi r^3 rho` whatever its shape, and an inlet's rate by mass and distributions
//! by mass mean the same for every template. Placement keeps clear of other particles by
//! the particle's bounding sphere, `kappa r` with `kappa` the template's ratio of bounding
//! radius to volume-equivalent radius (1 for a sphere).

use crate::particles::{PolyBody, Shape};
use dem_api::convex::Polyhedron;
use dem_api::{PolyhedronData, ShapeKind, SphereShape};
use nalgebra::{Point3, UnitQuaternion, Vector3};
use serde::Deserialize;

/// A template as a scene writes it (the inlet's `shape`).
#[derive(Deserialize, Debug, Clone, PartialEq, Default)]
#[serde(deny_unknown_fields)]
pub enum Template {
    /// A sphere (the default).
    #[default]
    Sphere,
    /// A rigid convex polyhedron: the convex hull of `vertices` (any frame, any scale:
    /// only the shape counts), scaled to the drawn volume-equivalent radius and turned to
    /// a uniformly random orientation.
    Polyhedron {
        /// Vertices of the shape, m (any scale).
        vertices: Vec<[f64; 3]>,
    },
}

/// A particle made from a template, in its principal axes at the origin.
#[derive(Clone, Debug)]
pub struct Made {
    /// Its shape.
    pub shape: Shape,
    /// Orientation (principal axes to global).
    pub ori: UnitQuaternion<f64>,
    /// Mass, kg.
    pub mass: f64,
    /// Principal moments of inertia, kg m^2.
    pub inertia: Vector3<f64>,
}

/// A template ready to make particles.
#[derive(Clone, Debug)]
pub struct Maker {
    /// As the scene gives it.
    pub template: Template,
    /// A polyhedron's shape in its principal axes at volume-equivalent radius 1 m, with
    /// its principal moments per unit density (m^5).
    unit: Option<(Polyhedron, Vector3<f64>)>,
}

impl Maker {
    /// Checks `template` and prepares it; the error names the field (the caller prefixes
    /// the inlet).
    pub fn new(template: &Template) -> Result<Maker, String> {
        let unit = match template {
            Template::Sphere => None,
            Template::Polyhedron { vertices } => {
                if !vertices.iter().flatten().all(|x| x.is_finite()) {
                    return Err("shape.vertices: must be finite".into());
                }
                let points: Vec<Point3<f64>> = vertices.iter().map(|&a| a.into()).collect();
                let poly = Polyhedron::from_points(&points)
                    .map_err(|e| format!("shape.vertices: no convex hull: {e}"))?;
                let (body, frame, _) = poly.to_principal();
                let volume = body.volume();
                if !(volume > 0.0 && volume.is_finite()) {
                    return Err(format!(
                        "shape.vertices: the hull has no volume ({volume:e})"
                    ));
                }
                let s = (4.0 / 3.0 * std::f64::consts::PI / volume).cbrt();
                Some((body.scaled(s), frame.moments * s.powi(5)))
            }
        };
        Ok(Maker {
            template: template.clone(),
            unit,
        })
    }

    /// The kind of the particles it makes.
    pub fn kind(&self) -> ShapeKind {
        match self.unit {
            None => ShapeKind::SPHERE,
            Some(_) => ShapeKind::POLYHEDRON,
        }
    }

    /// Bounding radius over volume-equivalent radius (1 for a sphere).
    pub fn kappa(&self) -> f64 {
        match &self.unit {
            None => 1.0,
            Some((poly, _)) => poly
                .vertices()
                .iter()
                .map(|v| v.coords.norm())
                .fold(0.0, f64::max),
        }
    }

    /// The bounding radius (m) placement keeps clear with, for a particle of
    /// volume-equivalent radius `radius` (m): the radius of a sphere; `kappa radius` for a
    /// polyhedron, widened by 1e-12 of it against the round-off of the scaled vertices.
    pub fn bound(&self, radius: f64) -> f64 {
        match self.unit {
            None => radius,
            Some(_) => self.kappa() * radius * (1.0 + 1e-12),
        }
    }

    /// The particle of volume-equivalent radius `radius` (m) and density `rho` (kg/m^3)
    /// turned by `ori` (ignored for a sphere). The same arguments make the same bits: a
    /// checkpoint keeps only the radius and the orientation of an inserted particle.
    pub fn make(&self, radius: f64, rho: f64, ori: UnitQuaternion<f64>) -> Made {
        match &self.unit {
            None => {
                let mass = rho * 4.0 / 3.0 * std::f64::consts::PI * radius.powi(3);
                Made {
                    shape: Shape::Sphere(SphereShape { radius }),
                    ori: UnitQuaternion::identity(),
                    mass,
                    inertia: Vector3::repeat(0.4 * mass * radius * radius),
                }
            }
            Some((poly, moments)) => {
                let data = PolyhedronData::of(&poly.scaled(radius));
                Made {
                    mass: rho * data.volume,
                    shape: Shape::Polyhedron(Box::new(PolyBody::new(data))),
                    ori,
                    inertia: moments * (rho * radius.powi(5)),
                }
            }
        }
    }
}
