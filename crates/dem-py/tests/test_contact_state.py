"""contacts() shows each contact's law and its state slots (the SDK keeps a law's
per-contact constants first, in declaration order, then the law's own slots), named by
law_state_names: a sphere held on a floor by friction against a pushing force stores
that force in its shear spring, as statics say."""

import math

import numpy as np
import pytest

from test_examples import example


def test_the_shear_spring_holds_the_pushing_force(plugins):
    # examples/python/slip_threshold.py's settled sphere (rotation blocked: friction
    # alone holds it), on a floor of friction 0.5.
    sim = example("slip_threshold").settled(0.5, plugins)
    m, g = sim.masses[0], 9.81
    push = 0.2 * m * g  # below mu m g: it sticks
    sim.set_applied_forces([[push, 0.0, 0.0]], ids=[0])
    sim.run(time=0.3)
    c = sim.contacts()
    assert list(c["law"]) == ["Law2_L6Geom_LinearElPl"]
    state = c["state"]
    # Law2_L6Geom_LinearElPl's slots (plugins/law-linear): constants kn, kt, eta, eta_t,
    # mu, r, i (0-6); then the normal damping force (7), the viscous rate (8), the
    # tangential spring's force y, z and stiffness (9-11), its dashpot (12-13), rolling
    # (14-16) and twisting (17-18).
    assert state.shape == (1, 19)
    names = sim.law_state_names["Law2_L6Geom_LinearElPl"]
    assert names[:7] == ["kn", "kt", "eta", "eta_t", "mu", "r", "i"]
    assert names[9:12] == ["shear_force_y", "shear_force_z", "shear_stiffness_prev"]
    assert len(names) == 19
    by_name = dict(zip(names, state[0]))
    kn, kt, fy, fz, k_prev = (by_name[k] for k in ["kn", "kt", "shear_force_y", "shear_force_z", "shear_stiffness_prev"])
    assert kn == 1e5 and kt == 0.5e5 and k_prev == 0.5e5
    # Statics: the normal force is the weight, the spring's force the push.
    assert c["normal_force"][0] == pytest.approx(m * g, rel=1e-6)
    assert math.hypot(fy, fz) == pytest.approx(push, rel=1e-6)
    np.testing.assert_allclose(np.linalg.norm(c["tangential_force"][0]), push, rtol=1e-6)
