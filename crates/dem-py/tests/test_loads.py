"""Loads applied from outside (Yade's addF, persistent): a sphere held up by a force
falls at what is left of its weight, on the leap-frog's closed-form trajectory, with the
work booked in the ledger; loads follow checkpoints; bad loads name the particle."""

import numpy as np
import pytest

import dem

from test_run import fall


def test_a_lifted_sphere_falls_at_the_rest_of_its_weight(plugins):
    sim = fall(plugins)
    m = sim.masses[0]
    g = 9.81
    sim.set_applied_forces([[0.0, 0.0, 0.75 * m * g]], ids=[0])
    np.testing.assert_array_equal(sim.applied_forces, [[0, 0, 0.75 * m * g], [0, 0, 0]])
    np.testing.assert_array_equal(sim.applied_torques, np.zeros((2, 3)))
    sim.run(steps=1)
    e0 = sim.ledger["total"]
    n = 1000
    sim.run(steps=n - 1)
    # z_n = z_0 + a dt^2 n (n + 1) / 2 with a = -g / 4 (v(-dt/2) = 0).
    dt = sim.dt
    z = 0.1 - g / 4 * dt * dt * n * (n + 1) / 2
    assert sim.positions[0][2] == pytest.approx(z, rel=1e-12)
    # The force did negative work; the ledger closes with it.
    assert sim.ledger["boundary_work"] < 0
    assert sim.ledger["total"] == pytest.approx(e0, abs=1e-12 * abs(sim.ledger["potential"]))
    # A torque spins it up at T / J.
    sim.set_applied_torques([[0.0, 1e-6, 0.0]], ids=[0])
    sim.run(steps=10)
    j = 0.4 * m * 0.01**2
    assert sim.angular_velocities[0][1] == pytest.approx(1e-6 / j * 10 * dt, rel=1e-12)
    sim.clear_applied()
    assert not sim.applied_forces.any()


def test_loads_are_kept_by_checkpoints(tmp_path, plugins):
    whole = fall(plugins)
    whole.set_applied_forces([[0.01, 0.0, 0.0], [0.0, 0.0, 0.0]])
    whole.run(steps=300)
    whole.checkpoint(tmp_path / "run.ckpt")
    whole.run(steps=300)
    resumed = dem.Simulation.resume(tmp_path / "run.ckpt", plugins=plugins)
    np.testing.assert_array_equal(resumed.applied_forces, [[0.01, 0, 0], [0, 0, 0]])
    resumed.run(steps=300)
    np.testing.assert_array_equal(resumed.positions, whole.positions)
    assert resumed.ledger == whole.ledger


def test_bad_loads_name_the_particle(plugins):
    sim = fall(plugins)
    with pytest.raises(ValueError, match="particle 5: no such particle"):
        sim.set_applied_forces([[1.0, 0.0, 0.0]], ids=[5])
    with pytest.raises(ValueError, match="particle 0: the load .* is not finite"):
        sim.set_applied_forces([[np.nan, 0.0, 0.0]], ids=[0])
    with pytest.raises(ValueError, match="2 values for 1 particles"):
        sim.set_applied_forces([[1.0, 0.0, 0.0], [1.0, 0.0, 0.0]], ids=[0])
    with pytest.raises(ValueError, match="particle 0 is given twice"):
        sim.set_applied_forces([[1.0, 0.0, 0.0], [2.0, 0.0, 0.0]], ids=[0, 0])
    assert not sim.applied_forces.any(), "a refused call sets nothing"
