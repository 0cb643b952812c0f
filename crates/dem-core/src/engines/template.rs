//! Particle templates: what an inlet inserts. A template is a shape without a size; the
//! inlet draws a radius from its size distribution and makes the particle at that size.
//!
//! The radius of a template particle is its **volume-equivalent radius**: the radius of
//! the sphere of the same volume. A particle of radius `r` and density `rho` so has the
//! mass `4/3 pi r^3 rho` whatever its shape, and an inlet's rate by mass and distributions
//! by mass mean the same for every template. Placement keeps clear of other particles by
//! the particle's bounding sphere, `kappa r` with `kappa` the template's ratio of bounding
//! radius to volume-equivalent radius (1 for a sphere).
//!
//! A clump template (`Clump("name")`, one of the scene's `clump_templates`) is scaled the
//! same way: to the volume of the union of its members (overlaps counted once), so that
//! its mass is `4/3 pi r^3 rho` too; its bounding sphere is the one about its centroid
//! enclosing every member. The template's own `scale` does not count (only the shape).
//!
//! A plugin shape's template (`Shaped(shape: "Superquadric", params: (...))`) is the body
//! its parameters give, scaled by its plugin to the drawn radius (dem-api 0.5.3's
//! scaler): every length of the shape times `r / r0`, `r0` the template body's
//! volume-equivalent radius.

use crate::engines::clump::ClumpTemplate;
use crate::model::particles::{PolyBody, Shape};
use crate::model::plugin_body::{ScalableShape, ShapeSource};
use dem_api::convex::Polyhedron;
use dem_api::{PolyhedronData, ShapeKind, SphereShape};
use nalgebra::{Point3, UnitQuaternion, Vector3};
use serde::Deserialize;
use std::sync::Arc;

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
    /// A rigid clump of spheres: the scene's clump template of this name, scaled to the
    /// drawn volume-equivalent radius and turned to a uniformly random orientation.
    Clump(String),
    /// A body of a shape a plugin offers: the body `params` give (any size: only the
    /// shape counts), scaled by its plugin to the drawn volume-equivalent radius and
    /// turned to a uniformly random orientation.
    Shaped {
        /// Shape name, e.g. `"Superquadric"`.
        shape: String,
        /// The shape's parameters, passed verbatim to its plugin.
        #[serde(default)]
        params: Option<Box<ron::value::RawValue>>,
    },
}

/// A particle made from a template, in its principal axes at the origin.
#[derive(Clone, Debug)]
pub struct Made {
    /// Its shape (for a clump: the sphere of its volume-equivalent radius, which is not
    /// inserted; the members come from `clump`).
    pub shape: Shape,
    /// A clump's shape at its size, in its principal frame (`None`: not a clump).
    pub clump: Option<Arc<ClumpTemplate>>,
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
    /// A clump's shape in its principal frame at volume-equivalent radius 1 m.
    clump: Option<ClumpTemplate>,
    /// A plugin shape's template.
    plugin: Option<ScalableShape>,
}

impl Maker {
    /// Checks `template` and prepares it; `clump` is the scene's clump template a
    /// `Clump` template names (built by the caller, which checks the name); `shapes`
    /// builds a `Shaped` template's bodies. The error names the field (the caller
    /// prefixes the inlet).
    pub fn new(
        template: &Template,
        clump: Option<&ClumpTemplate>,
        shapes: &dyn ShapeSource,
    ) -> Result<Maker, String> {
        let clump = match (template, clump) {
            (Template::Clump(_), Some(t)) => {
                let s = (4.0 / 3.0 * std::f64::consts::PI / t.volume).cbrt();
                if !(s > 0.0 && s.is_finite()) {
                    return Err(format!("shape: the clump has no volume ({:e})", t.volume));
                }
                Some(t.scaled(s))
            }
            (Template::Clump(name), None) => {
                return Err(format!("shape: unknown clump template `{name}`"))
            }
            _ => None,
        };
        let plugin = match template {
            Template::Shaped { shape, params } => {
                let text = params.as_ref().map_or("", |r| r.get_ron());
                Some(
                    shapes
                        .scalable_shape(shape, text)
                        .map_err(|e| format!("shape.params: {e}"))?,
                )
            }
            _ => None,
        };
        let unit = match template {
            Template::Sphere | Template::Clump(_) | Template::Shaped { .. } => None,
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
            clump,
            plugin,
        })
    }

    /// Checks that bodies of every volume-equivalent radius in `[min, max]` (m) can be
    /// made (a plugin shape's scaled parameters may leave its range).
    pub fn check_sizes(&self, min: f64, max: f64) -> Result<(), String> {
        if let Some(p) = &self.plugin {
            for r in [min, max] {
                p.body(r)
                    .map_err(|e| format!("shape: at radius {r:e} m: {e}"))?;
            }
        }
        Ok(())
    }

    /// What it makes, for messages: `spheres`, `polyhedra`, `clumps of template "tri"`,
    /// or `Superquadric bodies (params), scaled to each radius`.
    pub fn describe(&self) -> String {
        match &self.template {
            Template::Sphere => "spheres".into(),
            Template::Polyhedron { .. } => "polyhedra".into(),
            Template::Clump(name) => format!("clumps of template `{name}`"),
            Template::Shaped { shape, .. } => {
                let params = self.plugin.as_ref().map_or("", |p| p.params.as_str());
                format!("{shape} bodies {params}, scaled to each radius")
            }
        }
    }

    /// Does it make plain spheres (no orientation to draw)?
    pub fn is_sphere(&self) -> bool {
        matches!(self.template, Template::Sphere)
    }

    /// Does it make clumps?
    pub fn is_clump(&self) -> bool {
        self.clump.is_some()
    }

    /// The kind of the particles it makes (a clump's members are spheres).
    pub fn kind(&self) -> ShapeKind {
        if let Some(p) = &self.plugin {
            return p.kind;
        }
        match self.unit {
            None => ShapeKind::SPHERE,
            Some(_) => ShapeKind::POLYHEDRON,
        }
    }

    /// Bounding radius over volume-equivalent radius (1 for a sphere).
    pub fn kappa(&self) -> f64 {
        if let Some(c) = &self.clump {
            return c.bounding_radius;
        }
        if let Some(p) = &self.plugin {
            return p.kappa;
        }
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
    /// polyhedron or a clump, widened by 1e-12 of it against the round-off of the scaled
    /// vertices or members; a plugin shape's by 1e-9 (its plugin rounds its own bounds).
    pub fn bound(&self, radius: f64) -> f64 {
        match (self.is_sphere(), &self.plugin) {
            (true, _) => radius,
            (false, Some(_)) => self.kappa() * radius * (1.0 + 1e-9),
            (false, None) => self.kappa() * radius * (1.0 + 1e-12),
        }
    }

    /// The particle of volume-equivalent radius `radius` (m) and density `rho` (kg/m^3)
    /// turned by `ori` (ignored for a sphere). The same arguments make the same bits: a
    /// checkpoint keeps only the radius and the orientation of an inserted particle.
    /// `Err` only if a plugin shape's plugin fails to make the body.
    pub fn make(&self, radius: f64, rho: f64, ori: UnitQuaternion<f64>) -> Result<Made, String> {
        if let Some(p) = &self.plugin {
            let body = p.body(radius)?;
            let props = body.properties;
            return Ok(Made {
                mass: rho * props.volume,
                inertia: Vector3::new(props.inertia.x, props.inertia.y, props.inertia.z) * rho,
                shape: Shape::Plugin(Arc::new(body)),
                clump: None,
                ori,
            });
        }
        Ok(self.make_built_in(radius, rho, ori))
    }

    /// [`Maker::make`] of a sphere, a polyhedron or a clump.
    fn make_built_in(&self, radius: f64, rho: f64, ori: UnitQuaternion<f64>) -> Made {
        if let Some(unit) = &self.clump {
            let t = unit.scaled(radius);
            return Made {
                shape: Shape::Sphere(SphereShape { radius }),
                ori,
                mass: rho * t.volume,
                inertia: t.moments * rho,
                clump: Some(Arc::new(t)),
            };
        }
        match &self.unit {
            None => {
                let mass = rho * 4.0 / 3.0 * std::f64::consts::PI * radius.powi(3);
                Made {
                    shape: Shape::Sphere(SphereShape { radius }),
                    clump: None,
                    ori: UnitQuaternion::identity(),
                    mass,
                    inertia: Vector3::repeat(0.4 * mass * radius * radius),
                }
            }
            Some((poly, moments)) => {
                let data = PolyhedronData::of(&poly.scaled(radius));
                Made {
                    clump: None,
                    mass: rho * data.volume,
                    shape: Shape::Polyhedron(Box::new(PolyBody::new(data))),
                    ori,
                    inertia: moments * (rho * radius.powi(5)),
                }
            }
        }
    }
}
