//! The step: the simulation, the one place that knows the order of a step, built from a
//! scene; and the law tester, which drives one contact through it.

pub mod law_tester;
pub mod simulation;
