//! Particles as structure of arrays. Walls and mesh facets are particles too: infinite
//! mass, every degree of freedom blocked, moving only with the velocity they were given or
//! with their prescribed motion. All facets of a mesh share one position (the mesh's
//! reference point) and orientation: together they are one rigid body.

use dem_api::{
    BodyColumns, FacetShape, PolyhedronData, PolyhedronShape, Quat, ShapeKind, ShapeView,
    SphereShape, Vec3, WallShape,
};
use nalgebra::{UnitQuaternion, Vector3};
use std::sync::Arc;

use super::plugin_body::PluginBody;

/// Largest size of a coordinate or velocity component a scene may give, m or m/s: far
/// beyond any granular system, small enough that squares and products stay finite.
pub const MAX_COORDINATE: f64 = 1e12;

/// One triangle of a mesh.
#[derive(Clone, Debug, PartialEq)]
pub struct Facet {
    /// The record handed to geometry functors.
    pub shape: FacetShape,
    /// Index of the mesh in [`crate::Simulation::meshes`].
    pub mesh: u32,
    /// The fan directions `shape` points into, kept alive here.
    pub fans: Arc<[Vec3]>,
}

impl Facet {
    /// Vertices in the global frame for a body at `pos` with orientation `ori`, m.
    pub fn vertices(&self, pos: &Vector3<f64>, ori: &UnitQuaternion<f64>) -> [Vector3<f64>; 3] {
        self.shape.vertices.map(|v| pos + ori * v.na())
    }
}

/// A rigid convex polyhedron: the record handed to geometry functors and the data it
/// borrows (shared, so clones of a particle keep pointing at live data).
#[derive(Clone, Debug)]
pub struct PolyBody {
    /// The record handed to geometry functors.
    pub shape: PolyhedronShape,
    /// Vertices and face planes in the body (principal) frame, kept alive here.
    pub data: Arc<PolyhedronData>,
}

impl PolyBody {
    /// A body from its data (body frame: centroid at the origin, principal axes).
    pub fn new(data: PolyhedronData) -> PolyBody {
        let data = Arc::new(data);
        // SAFETY: the Arc'd data never changes and lives as long as any clone of `self`,
        // and the record is only handed out borrowed from `self`.
        let shape = unsafe { data.record() };
        PolyBody { shape, data }
    }
}

impl PartialEq for PolyBody {
    fn eq(&self, other: &PolyBody) -> bool {
        self.data == other.data
    }
}

/// Shape of one particle.
#[derive(Clone, Debug, PartialEq)]
pub enum Shape {
    /// A sphere.
    Sphere(SphereShape),
    /// An infinite plane.
    Wall(WallShape),
    /// A triangle of a mesh (boxed: the record is large).
    Facet(Box<Facet>),
    /// A rigid convex polyhedron (boxed: the record is large).
    Polyhedron(Box<PolyBody>),
    /// A body of a shape offered by a plugin (shared: the plugin's object).
    Plugin(Arc<PluginBody>),
}

impl Shape {
    /// Is this a free rigid body that is not a sphere (a polyhedron, a plugin shape)?
    pub fn aspherical(&self) -> bool {
        matches!(self, Shape::Polyhedron(_) | Shape::Plugin(_))
    }

    /// The kind tag used for dispatch.
    pub fn kind(&self) -> ShapeKind {
        match self {
            Shape::Sphere(_) => ShapeKind::SPHERE,
            Shape::Wall(_) => ShapeKind::WALL,
            Shape::Facet(_) => ShapeKind::FACET,
            Shape::Polyhedron(_) => ShapeKind::POLYHEDRON,
            Shape::Plugin(b) => b.kind,
        }
    }

    /// The shape's name: its kind's (`"Sphere"`, ...), or a plugin shape's own.
    pub fn name(&self) -> &str {
        match self {
            Shape::Plugin(b) => &b.name,
            s => s.kind().name(),
        }
    }

    /// The ABI view handed to geometry functors.
    pub fn view(&self) -> ShapeView<'_> {
        match self {
            Shape::Sphere(s) => ShapeView::of_sphere(s),
            Shape::Wall(w) => ShapeView::of_wall(w),
            Shape::Facet(f) => ShapeView::of_facet(&f.shape),
            Shape::Polyhedron(b) => ShapeView::of_polyhedron(&b.shape),
            Shape::Plugin(b) => b.view(),
        }
    }

    /// Radius of the bounding sphere of a free particle (about its position: a sphere's
    /// centre, a polyhedron's centroid), m, or `None` for the boundary
    /// shapes (walls, facets), which the broad phase tests separately.
    pub fn bounding_radius(&self) -> Option<f64> {
        match self {
            Shape::Sphere(s) => Some(s.radius),
            Shape::Polyhedron(b) => Some(b.shape.bounding_radius),
            Shape::Plugin(b) => Some(b.properties.bounding_radius),
            Shape::Wall(_) | Shape::Facet(_) => None,
        }
    }
}

/// Blocked degrees of freedom: bits 0-2 translation x, y, z; bits 3-5 rotation x, y, z;
/// bit 6 ([`Dofs::MEMBER`]): a member of a clump, moved by its clump (see
/// [`crate::engines::clump::body`]), never by the integrator.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Dofs(pub u8);

impl Dofs {
    /// Nothing blocked.
    pub const FREE: Dofs = Dofs(0);
    /// Everything blocked.
    pub const ALL: Dofs = Dofs(0b11_1111);
    /// A clump member: the integrator skips it.
    pub const MEMBER: Dofs = Dofs(0b100_0000);

    /// Is this particle a clump member?
    pub fn member(self) -> bool {
        self.0 & Self::MEMBER.0 != 0
    }

    /// Parses a string of the letters `xyzXYZ` (lower case translation, upper case rotation).
    pub fn parse(s: &str) -> Result<Dofs, char> {
        let mut bits = 0u8;
        for c in s.chars() {
            bits |= match c {
                'x' => 1,
                'y' => 2,
                'z' => 4,
                'X' => 8,
                'Y' => 16,
                'Z' => 32,
                other => return Err(other),
            };
        }
        Ok(Dofs(bits))
    }

    /// Is translation along axis `i` blocked?
    pub fn translation(self, i: usize) -> bool {
        self.0 & (1 << i) != 0
    }

    /// Is rotation about axis `i` blocked?
    pub fn rotation(self, i: usize) -> bool {
        self.0 & (8 << i) != 0
    }

    /// Are all three translations blocked?
    pub fn all_translation(self) -> bool {
        self.0 & 7 == 7
    }
}

/// All particles of a simulation, one array per quantity, indexed by particle id.
#[derive(Clone, Debug, Default)]
pub struct Particles {
    /// Position at t, m.
    pub pos: Vec<Vector3<f64>>,
    /// Velocity at t - dt/2, m/s.
    pub vel: Vec<Vector3<f64>>,
    /// Orientation at t (body to global).
    pub ori: Vec<UnitQuaternion<f64>>,
    /// Angular velocity (global frame) at t - dt/2, rad/s. For an aspherical body this is
    /// the midpoint angular velocity of the last rotation step, from which the angular
    /// momentum is recovered (see [`crate::engines::rotation`]).
    pub angvel: Vec<Vector3<f64>>,
    /// Mass, kg (`INFINITY` for walls).
    pub mass: Vec<f64>,
    /// Principal moments of inertia in the body frame, kg m^2: bodies are stored in
    /// principal axes, so `ori` maps these axes to the global frame. Spheres: all equal
    /// (and then the frame does not matter); all three distinct or two equal: the body
    /// rotates as described in [`crate::engines::rotation`].
    pub inertia: Vec<Vector3<f64>>,
    /// Force accumulated during the current step, N.
    pub force: Vec<Vector3<f64>>,
    /// Torque accumulated during the current step, N m.
    pub torque: Vec<Vector3<f64>>,
    /// Blocked degrees of freedom.
    pub blocked: Vec<Dofs>,
    /// Index into the scene's materials.
    pub material: Vec<u32>,
    /// Shape.
    pub shape: Vec<Shape>,
    /// The values of the scene's particle fields, one array per field in the order of
    /// [`crate::engines::exchange::Exchanges::fields`] (empty without fields).
    pub fields: Vec<Vec<f64>>,
    /// The value each field gives a particle when it is pushed (a field's `initial`).
    pub field_initial: Vec<f64>,
}

impl Particles {
    /// Number of particles.
    pub fn len(&self) -> usize {
        self.pos.len()
    }

    /// True when there are no particles.
    pub fn is_empty(&self) -> bool {
        self.pos.is_empty()
    }

    /// Frees the room the arrays grew beyond their length (once the scene is built: a
    /// doubled array of a large scene is up to half empty).
    pub fn shrink_to_fit(&mut self) {
        self.pos.shrink_to_fit();
        self.vel.shrink_to_fit();
        self.ori.shrink_to_fit();
        self.angvel.shrink_to_fit();
        self.mass.shrink_to_fit();
        self.inertia.shrink_to_fit();
        self.force.shrink_to_fit();
        self.torque.shrink_to_fit();
        self.blocked.shrink_to_fit();
        self.material.shrink_to_fit();
        self.shape.shrink_to_fit();
        for f in &mut self.fields {
            f.shrink_to_fit();
        }
    }

    /// Puts the particle at index `new_to_old[i]` at index `i`, in every array
    /// (`new_to_old` is a permutation of the indices, or of a subset of them: the
    /// particles it leaves out are dropped, as an outlet removes them).
    pub fn permute(&mut self, new_to_old: &[u32]) {
        fn gather<T>(v: &mut Vec<T>, new_to_old: &[u32]) {
            let mut old: Vec<Option<T>> = std::mem::take(v).into_iter().map(Some).collect();
            *v = new_to_old
                .iter()
                .map(|&i| old[i as usize].take().expect("a permutation"))
                .collect();
        }
        gather(&mut self.pos, new_to_old);
        gather(&mut self.vel, new_to_old);
        gather(&mut self.ori, new_to_old);
        gather(&mut self.angvel, new_to_old);
        gather(&mut self.mass, new_to_old);
        gather(&mut self.inertia, new_to_old);
        gather(&mut self.force, new_to_old);
        gather(&mut self.torque, new_to_old);
        gather(&mut self.blocked, new_to_old);
        gather(&mut self.material, new_to_old);
        gather(&mut self.shape, new_to_old);
        for f in &mut self.fields {
            gather(f, new_to_old);
        }
    }

    /// Appends a particle; returns its id.
    #[allow(clippy::too_many_arguments)]
    pub fn push(
        &mut self,
        shape: Shape,
        pos: Vector3<f64>,
        vel: Vector3<f64>,
        angvel: Vector3<f64>,
        mass: f64,
        inertia: Vector3<f64>,
        blocked: Dofs,
        material: u32,
    ) -> usize {
        self.pos.push(pos);
        self.vel.push(vel);
        self.ori.push(UnitQuaternion::identity());
        self.angvel.push(angvel);
        self.mass.push(mass);
        self.inertia.push(inertia);
        self.force.push(Vector3::zeros());
        self.torque.push(Vector3::zeros());
        self.blocked.push(blocked);
        self.material.push(material);
        self.shape.push(shape);
        for (f, &v) in self.fields.iter_mut().zip(&self.field_initial) {
            f.push(v);
        }
        self.pos.len() - 1
    }

    /// The particles as the columns a geometry functor reads (positions, orientations and
    /// velocities in place), with `views` the shape view of each particle.
    pub fn columns<'a>(&'a self, views: &'a [ShapeView<'a>]) -> BodyColumns<'a> {
        BodyColumns {
            pos: bytemuck::cast_slice::<_, Vec3>(&self.pos).into(),
            ori: bytemuck::cast_slice::<_, Quat>(&self.ori).into(),
            vel: bytemuck::cast_slice::<_, Vec3>(&self.vel).into(),
            angvel: bytemuck::cast_slice::<_, Vec3>(&self.angvel).into(),
            shape: views.into(),
        }
    }

    /// Mass as a law sees it: infinite when all translations are blocked.
    pub fn law_mass(&self, i: usize) -> f64 {
        if self.blocked[i].all_translation() {
            f64::INFINITY
        } else {
            self.mass[i]
        }
    }
}
