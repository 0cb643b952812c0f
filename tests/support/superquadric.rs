//! Scenes of superquadric particles (the plugin shape `Superquadric`) for the
//! superquadric tests.

/// A scene of material "m" (density 1000) with the linear law (`law` parameters),
/// `bodies`, gravity `g` along -z, global damping `damping`, `Critical(f)`, `time` s.
pub fn scene(bodies: &str, law: &str, g: f64, damping: f64, f: f64, time: f64) -> String {
    format!(
        r#"Scene(
    materials: {{ "m": (density: 1000, young: 1e7, friction: 0.5) }},
    laws: [(materials: ("*", "*"), law: "Law2_L6Geom_LinearElPl", params: ({law}))],
    bodies: [{bodies}],
    gravity: (0, 0, -{g}),
    damping: {damping},
    timestep: Critical({f}),
    duration: Time({time}),
    contacts: (l6geom: (no_ratch: false, point_rate: true)),
)"#
    )
}

/// A frictional floor of material "m": the plane z = 0.
pub const FLOOR: &str = r#"Wall(point: (0, 0, 0), normal: (0, 0, 1), sense: 1, material: "m")"#;

/// An ellipsoid (a superquadric of blockiness (2, 2)) of material "m" with half-axes
/// `axes` (m), centred `at`, turned by `rotate` (a rotation vector, rad), with `extra`
/// fields of the body appended (`", velocity: (...)"`).
pub fn ellipsoid(axes: [f64; 3], at: [f64; 3], rotate: [f64; 3], extra: &str) -> String {
    format!(
        r#"Shaped(shape: "Superquadric", params: (half_axes: ({}, {}, {}), blockiness: (2, 2)),
                 position: ({}, {}, {}), rotate: ({}, {}, {}), material: "m"{extra})"#,
        axes[0], axes[1], axes[2], at[0], at[1], at[2], rotate[0], rotate[1], rotate[2]
    )
}
