/* The C interface of dem plugins (dem-api, C interface version 1).
 * Generated from crates/dem-api by cbindgen; do not edit: the test suite checks it
 * (regenerate with DEM_BLESS=1 cargo test --test third_party). */

#ifndef DEM_PLUGIN_H
#define DEM_PLUGIN_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/**
 * Version of the C plugin interface this solver speaks.
 */
#define DEM_C_ABI_VERSION 1

/**
 * One law parameter as the C plugin receives it.
 */
typedef struct DemCParam {
  /**
   * Parameter name, NUL-terminated.
   */
  const char *name;
  /**
   * Its value (booleans as 0 or 1).
   */
  double value;
} DemCParam;

/**
 * Material properties of one body, from the scene.
 */
typedef struct Material {
  /**
   * Density, kg/m^3.
   */
  double density;
  /**
   * Young's modulus, Pa.
   */
  double young;
  /**
   * Poisson's ratio, dimensionless.
   */
  double poisson;
  /**
   * Coulomb friction coefficient, dimensionless.
   */
  double friction;
} Material;

/**
 * The two bodies of a contact as a law sees them (body 1 first, as in the geometry).
 */
typedef struct LawPair {
  /**
   * Equivalent radii of body 1 and 2 at the contact, m (`f64::INFINITY` for a wall).
   */
  double radius[2];
  /**
   * Masses of body 1 and 2, kg (`f64::INFINITY` for a body whose translation is fully
   * blocked, such as a fixed wall).
   */
  double mass[2];
  /**
   * Materials of body 1 and 2.
   */
  struct Material material[2];
} LawPair;

/**
 * A 3-vector of `f64`. Units are those of the quantity it holds (documented at each use).
 */
typedef struct Vec3 {
  /**
   * First component.
   */
  double x;
  /**
   * Second component.
   */
  double y;
  /**
   * Third component.
   */
  double z;
} Vec3;

/**
 * A 3x3 matrix of `f64`, stored column-major (`cols[c]` is column `c`), as nalgebra does.
 */
typedef struct Mat3 {
  /**
   * The three columns.
   */
  struct Vec3 cols[3];
} Mat3;

/**
 * The contact's local frame and its six generalized displacements, as the solver's single
 * L6Geom update keeps them (Woo's L6Geom). This is what a contact law reads.
 */
typedef struct L6Geom {
  /**
   * Rotation from global to local coordinates at time t (rows are the local axes in the
   * global frame; row 0 is the normal `n`).
   */
  struct Mat3 frame;
  /**
   * Contact point at time t, global frame, m.
   */
  struct Vec3 point;
  /**
   * Relative displacement of body 2 with respect to body 1 at the contact, local frame,
   * m. `u.x` is the normal gap (evaluated directly, negative in overlap); `u.y`, `u.z`
   * are integrated tangential displacements since contact onset.
   */
  struct Vec3 u;
  /**
   * Relative rotation of body 2 with respect to body 1, local frame, rad: `phi.x` is
   * twist about the normal, `phi.y`, `phi.z` are bending. Integrated since onset.
   */
  struct Vec3 phi;
  /**
   * Rate of `u` at t - dt/2, local frame (mid-step frame), m/s. The normal component is
   * the approach rate (negative when closing).
   */
  struct Vec3 u_dot;
  /**
   * Rate of `phi` at t - dt/2, local frame, rad/s.
   */
  struct Vec3 phi_dot;
  /**
   * Branch lengths: distance from the body 1 and body 2 reference points to the contact
   * along the normal (equivalent radii), m. `f64::INFINITY` for a wall.
   */
  double lens[2];
  /**
   * Contact area from the geometry functor, m^2 (0 if not defined).
   */
  double area;
} L6Geom;

/**
 * Data stored once when the contact began, kept for its whole life.
 */
typedef struct Onset {
  /**
   * Time at which the contact was created, s.
   */
  double time;
  /**
   * Normal relative velocity at onset (pre-impact), m/s: negative when approaching.
   */
  double normal_velocity;
} Onset;

/**
 * Everything a law is given for one contact in one step.
 */
typedef struct LawInput {
  /**
   * The contact geometry at time t.
   */
  struct L6Geom geom;
  /**
   * The two bodies.
   */
  struct LawPair pair;
  /**
   * Data stored at contact onset.
   */
  struct Onset onset;
  /**
   * Time step, s.
   */
  double dt;
  /**
   * `1` on the step the contact was created (its state slots are all zero then), else `0`.
   */
  uint32_t is_new;
  /**
   * `1` on the step the contact ends (the gap reached the interaction distance plus
   * the hysteresis band), else `0`. The law is called this last time with the geometry of
   * the step so that it can book the dissipation of the final interval (its force is
   * gone now: e.g. the second half of a trapezoid rule); the solver applies no force or
   * torque from this call and takes the elastic energy as released.
   */
  uint32_t is_last;
} LawInput;

/**
 * What a law returns for one contact.
 */
typedef struct LawOutput {
  /**
   * Force of body 1 on body 2 at the contact point, local frame, N.
   */
  struct Vec3 force;
  /**
   * Torque of body 1 on body 2 in addition to the moment of `force` (rolling or twisting
   * resistance), local frame, N m.
   */
  struct Vec3 torque;
  /**
   * Elastic energy stored in the contact now (not an increment), J.
   */
  double elastic;
  /**
   * Energy dissipated by friction (plastic slip) during this step, J, >= 0.
   */
  double friction;
  /**
   * Energy dissipated by viscous damping during this step, J. Booked over the step
   * (e.g. with the trapezoid rule) a single step's value can be slightly negative; the
   * sum over a contact's life is >= 0.
   */
  double damping;
} LawOutput;

/**
 * One contact law of a C plugin.
 */
typedef struct DemCLaw {
  /**
   * Law name as scenes write it, NUL-terminated; unique among loaded plugins.
   */
  const char *name;
  /**
   * One paragraph for `dem plugins`, NUL-terminated.
   */
  const char *description;
  /**
   * Documentation of the parameters (names, units, defaults), NUL-terminated.
   */
  const char *params_doc;
  /**
   * Number of `f64` state slots per contact.
   */
  uint32_t state_len;
  /**
   * Gap below which a contact should exist, m (0: overlap only).
   */
  double interaction_distance;
  /**
   * Builds a law from its parameters; returns NULL on error after writing a
   * NUL-terminated message of at most `err_len` bytes into `err`.
   */
  void *(*create)(const struct DemCParam *params, size_t n_params, char *err, size_t err_len);
  /**
   * Frees a law made by `create`.
   */
  void (*destroy)(void *law);
  /**
   * The largest stiffness of a contact of this pair, N/m (for the critical time step).
   */
  double (*stiffness)(const void *law, const struct LawPair *pair);
  /**
   * One contact, one step: reads `input`, updates the contact's `state_len` state slots
   * (zero at contact onset), writes `out`. Returns 0, or a non-zero error code that
   * stops the run with the plugin, law and contact named.
   */
  int32_t (*compute)(const void *law,
                     const struct LawInput *input,
                     double *state,
                     struct LawOutput *out);
} DemCLaw;

/**
 * What `dem_c_plugin_v1` returns.
 */
typedef struct DemCPlugin {
  /**
   * `DEM_C_ABI_VERSION` as the plugin was compiled.
   */
  uint32_t abi_version;
  /**
   * `sizeof(LawInput)` as the plugin was compiled, bytes.
   */
  uint32_t size_law_input;
  /**
   * `sizeof(LawOutput)` as the plugin was compiled, bytes.
   */
  uint32_t size_law_output;
  /**
   * `sizeof(LawPair)` as the plugin was compiled, bytes.
   */
  uint32_t size_law_pair;
  /**
   * Plugin name, NUL-terminated.
   */
  const char *name;
  /**
   * Plugin version, NUL-terminated.
   */
  const char *version;
  /**
   * Number of laws in `laws`.
   */
  uint32_t n_laws;
  /**
   * The laws.
   */
  const struct DemCLaw *laws;
} DemCPlugin;

#endif  /* DEM_PLUGIN_H */

/* The one symbol a C plugin exports. */
const DemCPlugin *dem_c_plugin_v1(void);
