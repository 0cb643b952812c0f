"""The notebook-like scripts of examples/python, run with small parameters: the parameter
sweep of restitution_sweep.py against the restitution the law is asked for, and the
coarse-grained stress profile of stress_profile.py against each particle's momentum
balance, and the slip threshold of slip_threshold.py against Coulomb's law (see their
docstrings)."""

import importlib.util

import numpy as np
import pytest

from conftest import ROOT


def example(name):
    path = ROOT / "examples" / "python" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_restitution_sweep_measures_what_the_law_is_asked_for(plugins):
    sweep = example("restitution_sweep")
    for e in (0.2, 0.5, 0.9):
        measured = sweep.measured_restitution(e, plugins)
        # The time step's discretisation of the contact (the sweep's lower panel).
        assert measured == pytest.approx(e, abs=0.01), (e, measured)


def test_the_stress_profile_is_the_momentum_balance_of_the_particles(plugins):
    sp = example("stress_profile")
    # Lucy's marginal: all of a particle's mass above a plane a cutoff below it, half at
    # its centre, none a cutoff above.
    np.testing.assert_allclose(sp.lucy_above(np.array([-1.0, 0.0, 1.0]), 1.0), [1, 0.5, 0])
    p = sp.profile(plugins, settle=0.3)
    z, bed = p["z"], p["bed"]
    # The weight from the density: the whole bed below the floor's kernel reach.
    assert p["weight"][0] == pytest.approx(bed, rel=1e-6)
    # Out of the floor contacts' reach (one cutoff), the contact stress carries exactly
    # what the particles' momentum balance says, though the bed still moves a little.
    clear = z > 0.003 + 0.0005
    assert np.abs(p["contact"] - p["balance"])[clear].max() < 1e-4 * bed
    # And nearly the weight above, the bed being nearly at rest.
    assert np.abs(p["contact"] - p["weight"])[clear].max() < 2e-2 * bed


def test_the_slip_threshold_is_coulombs(plugins):
    ex = example("slip_threshold")
    # Slides iff the push exceeds mu times the weight: between the two pushes around mu.
    found, moved = ex.threshold(0.3, np.array([0.2, 0.27, 0.33, 0.4]), plugins)
    assert found == 0.33, moved
    assert moved[1] < 1e-5 and moved[2] > 1e-4
