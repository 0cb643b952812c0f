//! Documentation of the parameters several laws share, for their `PARAMS` tables.

use crate::sdk::Param;

/// `restitution: Option<f64>`: requested normal coefficient of restitution.
pub const RESTITUTION: Param = Param {
    name: "restitution",
    unit: "-",
    doc: "normal coefficient of restitution e in (0,1] that a normal impact delivers \
          (see damping_from); none = undamped",
};

/// `damping_from: DampingFrom`: what `restitution` means.
pub const DAMPING_FROM: Param = Param {
    name: "damping_from",
    unit: "-",
    doc: "Collision (default: the impact rebounds with e, clamped or not) | Oscillator \
          (zeta = -ln e / sqrt(ln^2 e + pi^2) as Yade, LIGGGHTS, EDEM: a clamped impact \
          rebounds faster)",
};

/// `friction: Option<f64>`: Coulomb coefficient, default from the materials.
pub const FRICTION: Param = Param {
    name: "friction",
    unit: "-",
    doc: "Coulomb coefficient; default min of the materials'",
};

/// `rolling: Resistance`.
pub const ROLLING: Param = Param {
    name: "rolling",
    unit: "-",
    doc: "Off | Cdt(mu: m) | Epsd(mu: m): rolling torque limit m R* |F_n|",
};

/// `twisting: Resistance`.
pub const TWISTING: Param = Param {
    name: "twisting",
    unit: "-",
    doc: "Off | Cdt(mu: m) | Epsd(mu: m): twisting torque limit m R* |F_n|",
};
