/* Law2_C_Linear: a contact law for dem written in C.
 *
 * The same law as examples/plugin-template (Rust): a linear normal spring-dashpot that
 * never pulls, and a Coulomb tangential spring. Build it from the dem checkout into a
 * directory of your own (not into the checkout), e.g.
 *
 *     mkdir -p ~/dem-plugins
 *     cc -shared -fPIC -O2 -std=c11 -I include examples/c-plugin/law_c_linear.c \
 *        -o ~/dem-plugins/liblaw_c_linear.so -lm
 *
 * and load it like any plugin (scene `plugins: [...]`, --plugin, DEM_PLUGIN_PATH).
 * Parameters: kn (N/m, default 2 E* R*), kt_kn (-, default 0.25), restitution (-, in
 * (0, 1], default 1).
 *
 * State slots per contact (zero at onset): [0] previous damping force, N; [1], [2]
 * tangential spring force, N (local frame); [3] tangential stiffness of the previous step.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dem_plugin.h"

typedef struct {
    double kn; /* N/m; 0: from the materials */
    double kt_kn;
    double zeta; /* damping ratio of the requested restitution */
} Law;

static void *create(const DemCParam *params, size_t n, char *err, size_t err_len) {
    Law law = {0.0, 0.25, 0.0};
    double e = 1.0;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(params[i].name, "kn") == 0) {
            law.kn = params[i].value;
        } else if (strcmp(params[i].name, "kt_kn") == 0) {
            law.kt_kn = params[i].value;
        } else if (strcmp(params[i].name, "restitution") == 0) {
            e = params[i].value;
        } else {
            snprintf(err, err_len, "unknown parameter `%s`", params[i].name);
            return NULL;
        }
    }
    if (!(e > 0.0 && e <= 1.0)) {
        snprintf(err, err_len, "restitution must be in (0, 1], got %g", e);
        return NULL;
    }
    if (!(law.kn >= 0.0) || !(law.kt_kn >= 0.0)) {
        snprintf(err, err_len, "kn and kt_kn must be >= 0");
        return NULL;
    }
    double l = log(e);
    const double pi = 3.14159265358979323846;
    law.zeta = -l / sqrt(l * l + pi * pi);
    Law *out = malloc(sizeof(Law));
    if (out) {
        *out = law;
    }
    return out;
}

static void destroy(void *law) { free(law); }

/* Harmonic combination a b / (a + b), the finite one when the other is infinite. */
static double harmonic(double a, double b) {
    if (isinf(a)) {
        return b;
    }
    if (isinf(b)) {
        return a;
    }
    return a * b / (a + b);
}

static double normal_stiffness(const Law *law, const LawPair *pair) {
    if (law->kn > 0.0) {
        return law->kn;
    }
    double c = 0.0;
    for (int i = 0; i < 2; i++) {
        const Material *m = &pair->material[i];
        c += (1.0 - m->poisson * m->poisson) / m->young;
    }
    return 2.0 / c * harmonic(pair->radius[0], pair->radius[1]);
}

static double stiffness(const void *law, const LawPair *pair) {
    return normal_stiffness((const Law *)law, pair);
}

static int compute(const void *self, const LawInput *in, double *state, LawOutput *out) {
    const Law *law = (const Law *)self;
    const L6Geom *g = &in->geom;
    double kn = normal_stiffness(law, &in->pair);
    double m = harmonic(in->pair.mass[0], in->pair.mass[1]);
    double eta = (law->zeta == 0.0 || isinf(m)) ? 0.0 : 2.0 * law->zeta * sqrt(m * kn);
    int last = in->is_last != 0;

    /* Normal: elastic + viscous, no pull; the damping part booked by the trapezoid rule. */
    double delta = (!last && g->u.x < 0.0) ? -g->u.x : 0.0;
    double f_el = kn * delta;
    double f_n = f_el - eta * g->u_dot.x;
    if (last || f_n < 0.0) {
        f_n = 0.0;
    }
    double f_damp = f_n - f_el;
    double damping = -0.5 * (state[0] + f_damp) * g->u_dot.x * in->dt;
    state[0] = f_damp;

    /* Tangential: incremental spring, Coulomb limit; slip losses booked as friction. */
    double mu = fmin(in->pair.material[0].friction, in->pair.material[1].friction);
    double kt = law->kt_kn * kn;
    double prev[2] = {state[1], state[2]};
    double stored_before = state[3] > 0.0 ? (prev[0] * prev[0] + prev[1] * prev[1]) / (2.0 * state[3]) : 0.0;
    double ft[2] = {prev[0] - kt * g->u_dot.y * in->dt, prev[1] - kt * g->u_dot.z * in->dt};
    double size = sqrt(ft[0] * ft[0] + ft[1] * ft[1]);
    double limit = mu * f_n;
    if (size > limit) {
        ft[0] *= limit / size;
        ft[1] *= limit / size;
    }
    double stored = kt > 0.0 ? (ft[0] * ft[0] + ft[1] * ft[1]) / (2.0 * kt) : 0.0;
    double work = -0.5 * in->dt * ((prev[0] + ft[0]) * g->u_dot.y + (prev[1] + ft[1]) * g->u_dot.z);
    state[1] = ft[0];
    state[2] = ft[1];
    state[3] = kt;

    memset(out, 0, sizeof *out);
    out->force.x = f_n; /* on body 2, local frame */
    out->force.y = ft[0];
    out->force.z = ft[1];
    out->elastic = 0.5 * kn * delta * delta + stored;
    out->friction = work - (stored - stored_before);
    out->damping = damping;
    return 0;
}

#ifndef DEM_TEST_ABI_VERSION
#define DEM_TEST_ABI_VERSION DEM_C_ABI_VERSION
#endif
#ifndef DEM_TEST_EXTRA_BYTES
#define DEM_TEST_EXTRA_BYTES 0
#endif

static const DemCLaw LAWS[] = {{
    .name = "Law2_C_Linear",
    .description = "Linear spring-dashpot and Coulomb tangential spring, written in C.",
    .params_doc = "kn (N/m, default 2 E* R*), kt_kn (-, 0.25), restitution (-, 1)",
    .state_len = 4,
    .interaction_distance = 0.0,
    .create = create,
    .destroy = destroy,
    .stiffness = stiffness,
    .compute = compute,
}};

static const DemCPlugin PLUGIN = {
    .abi_version = DEM_TEST_ABI_VERSION, /* the test suite builds wrong variants */
    .size_law_input = sizeof(LawInput) + DEM_TEST_EXTRA_BYTES,
    .size_law_output = sizeof(LawOutput),
    .size_law_pair = sizeof(LawPair),
    .name = "law-c-linear",
    .version = "0.1.0",
    .n_laws = 1,
    .laws = LAWS,
};

const DemCPlugin *dem_c_plugin_v1(void) { return &PLUGIN; }
