//! Measuring one collision of a test scene: rebound, contact duration, largest overlap and
//! largest normal force.

use dem_core::Simulation;

/// The two bodies of a collision test.
#[derive(Clone, Copy, Debug)]
pub enum Collision {
    /// Sphere 0 (radius m) falling along -z onto a floor at z = 0.
    Floor {
        /// Sphere radius, m.
        radius: f64,
    },
    /// Spheres 0 (left) and 1 (right) of equal radius (m) meeting head-on along x.
    HeadOn {
        /// Sphere radius, m.
        radius: f64,
    },
}

/// What one collision gave.
#[derive(Clone, Copy, Debug)]
pub struct Impact {
    /// Normal relative speed after / before.
    pub rebound: f64,
    /// Time with positive overlap (zero crossings interpolated within their step), s.
    pub duration: f64,
    /// Largest overlap seen at a step, m.
    pub max_overlap: f64,
    /// Largest normal contact force seen at a step, N.
    pub peak_force: f64,
}

impl Collision {
    /// Overlap, m (positive in contact).
    pub fn overlap(&self, s: &Simulation) -> f64 {
        let p = &s.particles.pos;
        match *self {
            Collision::Floor { radius } => radius - p[0].z,
            Collision::HeadOn { radius } => 2.0 * radius - (p[1].x - p[0].x),
        }
    }

    /// Normal approach speed, m/s (positive approaching).
    pub fn approach(&self, s: &Simulation) -> f64 {
        let v = &s.particles.vel;
        match *self {
            Collision::Floor { .. } => -v[0].z,
            Collision::HeadOn { .. } => v[0].x - v[1].x,
        }
    }

    /// Normal contact force of the last step, N (no gravity in these scenes).
    pub fn force(&self, s: &Simulation) -> f64 {
        let f = &s.particles.force;
        match *self {
            Collision::Floor { .. } => f[0].z,
            Collision::HeadOn { .. } => f[1].x,
        }
    }

    /// Runs `sim` until the bodies have separated again and returns what the collision
    /// gave. Panics when the bodies have not separated after `max_steps`.
    pub fn run(&self, sim: &mut Simulation, max_steps: u64) -> Impact {
        let dt = sim.integrator.dt;
        let v_in = self.approach(sim);
        let (mut t_in, mut t_out) = (None, None);
        let (mut max_overlap, mut peak_force) = (0.0f64, 0.0f64);
        let mut prev = self.overlap(sim);
        let start = sim.step;
        while t_out.is_none() {
            sim.step().unwrap();
            let o = self.overlap(sim);
            // Positions are at sim.time; interpolate the crossing within the step.
            if t_in.is_none() && o > 0.0 {
                t_in = Some(sim.time - dt * o / (o - prev));
            } else if t_in.is_some() && o <= 0.0 {
                t_out = Some(sim.time - dt * o / (o - prev));
            }
            max_overlap = max_overlap.max(o);
            peak_force = peak_force.max(self.force(sim));
            prev = o;
            assert!(
                sim.step - start < max_steps,
                "no rebound in {max_steps} steps"
            );
        }
        sim.run_steps(5).unwrap();
        Impact {
            rebound: -self.approach(sim) / v_in,
            duration: t_out.unwrap() - t_in.unwrap(),
            max_overlap,
            peak_force,
        }
    }
}

/// A sphere above a floor wall at z = 0 (sphere 0, wall 1), both of one material.
#[derive(Clone, Debug)]
pub struct FloorScene<'a> {
    /// Law name.
    pub law: &'a str,
    /// Law parameters, RON fields without the parentheses.
    pub params: &'a str,
    /// Material record, e.g. `(density: 2800, young: 4.8e10, poisson: 0.2, friction: 0.3)`.
    pub material: &'a str,
    /// Sphere radius, m.
    pub radius: f64,
    /// Height of the centre, m.
    pub height: f64,
    /// Velocity, m/s.
    pub velocity: [f64; 3],
    /// Angular velocity, rad/s.
    pub angular_velocity: [f64; 3],
    /// Gravity, m/s^2.
    pub gravity: [f64; 3],
    /// Time step, s.
    pub dt: f64,
}

impl FloorScene<'_> {
    /// The simulation of this scene.
    pub fn build(&self) -> Simulation {
        let v = |a: [f64; 3]| format!("({:e}, {:e}, {:e})", a[0], a[1], a[2]);
        let text = format!(
            r#"Scene(
            materials: {{ "m": {material} }},
            laws: [(materials: ("*", "*"), law: "{law}", params: ({params}))],
            bodies: [
                Sphere(center: (0, 0, {z:e}), radius: {r:e}, material: "m", velocity: {vel},
                       angular_velocity: {w}),
                Wall(point: (0, 0, 0), normal: (0, 0, 1), sense: 1, material: "m"),
            ],
            gravity: {g},
            timestep: Fixed({dt:e}),
            duration: Steps(1),
        )"#,
            material = self.material,
            law = self.law,
            params = self.params,
            z = self.height,
            r = self.radius,
            vel = v(self.velocity),
            w = v(self.angular_velocity),
            g = v(self.gravity),
            dt = self.dt,
        );
        crate::sim_from_text(&text, "floor.ron").unwrap()
    }
}
