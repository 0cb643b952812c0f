//! Adhesive elastic contacts of fine particles: `Law2_L6Geom_JKR` (Johnson-Kendall-Roberts,
//! soft or large particles, strong short-range adhesion) and `Law2_L6Geom_DMT`
//! (Derjaguin-Muller-Toporov, stiff or small ones). The parameter `w` is the **work of
//! adhesion** (J/m^2), the energy to separate a unit area of contact: for two surfaces of
//! one solid of surface energy `gamma`, `w = 2 gamma`.
//!
//! With `E*`, `G*` the effective moduli, `R*` the effective radius (a wall: the sphere's)
//! and `m*` the effective mass of the pair, `delta = -u_n` the overlap (m):
//!
//! - **JKR** (see [`jkr_theory`]): the contact radius `a` solves
//!   `delta = a^2 / R* - sqrt(2 pi w a / E*)` on its stable branch and the normal force is
//!   `F = 4 E* a^3 / (3 R*) - sqrt(8 pi w E* a^3)`. A contact forms when the surfaces
//!   touch (`delta >= 0`), with the jump to `a = (2 pi w R*^2 / E*)^(1/3)` and the pull
//!   `-(4/3) pi w R*`; it holds in tension until the overlap falls below
//!   `delta_c = -(3/4) (pi^2 w^2 R* / E*^2)^(1/3)`, where it breaks with the force
//!   `-(5/6) pi w R*`. Under an imposed load it lets go at the pull-off force
//!   `-(3/2) pi w R*`, the minimum of `F` on the branch. The contact must exist at the
//!   negative overlaps: the parameter `reach` (m), the law's interaction distance, must
//!   exceed `|delta_c|` of every pair (a warning names a pair where it does not: its
//!   contact would end early, at `-reach`).
//! - **DMT**: Hertz less a constant pull, `F = (4/3) E* sqrt(R*) delta^(3/2) - 2 pi w R*`,
//!   while the bodies overlap (`delta > 0`); the pull-off force is `-2 pi w R*`, at zero
//!   overlap; no reach.
//!
//! Both: the contact radius `a` (DMT: Hertz's `sqrt(R* delta)`) sets the tangential
//! stiffness `8 G* a` (Mindlin) of an incremental spring, capped by Coulomb's
//! `mu (F_n + 2 F_po)` with `F_po` the pull-off force's magnitude (as LAMMPS' granular
//! `jkr` and `dmt`: adhesion adds to the load that friction holds; the cap is 0 out of
//! contact); rolling and twisting resistance from the SDK (`Cdt`, `Epsd`) with the same
//! load `F_n + 2 F_po` and normal stiffness `2 E* a`. `restitution` sets a viscous normal
//! force `-2 sqrt(5/6) beta sqrt(2 E* a m*) u_n_dot` while in contact, with EDEM's
//! oscillator ratio `beta = -ln e / sqrt(ln^2 e + pi^2)`: with adhesion the rebound is
//! slower than `e` (and none below the sticking velocity).
//!
//! Energy (the docs' rule for a force that jumps): `elastic` is the energy the contact
//! stores now, JKR's `U(a)` (negative when adhesion dominates) or Hertz's less
//! `2 pi w R* delta`; the work the normal force absorbs over the step (trapezoid) less
//! the change of that energy is booked as `friction`: it is the loss at snap-in and at
//! snap-off (the hysteresis loop), zero to second order elsewhere. Viscous work is
//! `damping`; slip, rolling and twisting as the SDK parts book them.
//!
//! Floors, bottom first: `common` (what both laws share) and `jkr_theory`; the laws
//! (`dmt`, `jkr`); this file (the export) on top.

pub mod jkr_theory;

mod common;
mod dmt;
mod jkr;

pub use dmt::Dmt;
pub use jkr::JkrLaw;

dem_api::export_plugin! { geometry: [], laws: [JkrLaw, Dmt] }
