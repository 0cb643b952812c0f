//! Documentation of the parameters several laws share, for their `PARAMS` tables.

use crate::sdk::Param;

/// `restitution: Option<f64>`: requested normal coefficient of restitution.
pub const RESTITUTION: Param = Param {
    name: "restitution",
    unit: "-",
    doc: "normal coefficient of restitution e in (0,1]; none = undamped",
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
