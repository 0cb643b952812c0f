"""Setting the state between steps: values checked as the scene's are (ValueError naming
the particle), energy added from outside booked so that the ledger stays balanced."""

import numpy as np
import pytest

import dem

from test_run import fall

MESH = """Scene(
    materials: {"m": (density: 1000, young: 1e7, poisson: 0.3, friction: 0.3)},
    laws: [(materials: ("*", "*"), law: "Law2_L6Geom_LinearElPl", params: (restitution: 0.5))],
    bodies: [
        Sphere(center: (0.2, 0.2, 0.2), radius: 0.01, material: "m"),
        Wall(point: (0, 0, 0), normal: (0, 0, 1), sense: 1, material: "m",
             motion: Translate(velocity: (0, 0, 0.01))),
    ],
    gravity: (0, 0, -9.81),
    timestep: Critical(0.1),
    duration: Steps(100),
)
"""


def test_positions_and_velocities_round_trip(plugins):
    sim = fall(plugins)
    sim.set_positions([[0.0, 0.0, 0.05]], ids=[0])
    sim.set_velocities([0.5, 0.0, 0.0], ids=[0])
    sim.set_angular_velocities(np.array([[1.0, 2.0, 3.0]]), ids=[0])
    np.testing.assert_array_equal(sim.positions[0], [0, 0, 0.05])
    np.testing.assert_array_equal(sim.velocities[0], [0.5, 0, 0])
    np.testing.assert_array_equal(sim.angular_velocities[0], [1, 2, 3])
    # Every particle at once (the wall's values unchanged are accepted).
    v = sim.velocities
    v[0] = [0.0, 0.0, 1.0]
    sim.set_velocities(v)
    sim.run(steps=10)
    # Leap-frog: x_10 = x_0 + sum of v_{k+1/2} dt, v_{k+1/2} = 1 - g dt (k + 1).
    dt, g = sim.dt, 9.81
    expected = 0.05 + sum((1.0 - g * dt * (k + 1)) * dt for k in range(10))
    assert sim.positions[0, 2] == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize(
    "values, ids, message",
    [
        ([[0, 0, float("nan")]], [0], "particle 0: velocity \\[0, 0, NaN\\] is not finite"),
        ([[0, 0, 1]], [5], "particle 5: no such particle \\(the scene has 2"),
        ([[0, 0, 1], [0, 0, 1]], [0, 0], "particle 0 is given twice"),
        ([[0, 0, 1]], [0, 1], "1 values for 2 particles"),
        ([0, 0], [0], "shape \\(n, 3\\)"),
    ],
)
def test_bad_values_are_value_errors(plugins, values, ids, message):
    sim = fall(plugins)
    before = sim.velocities
    with pytest.raises(ValueError, match=message):
        sim.set_velocities(values, ids=ids)
    np.testing.assert_array_equal(sim.velocities, before)


def test_bodies_moved_by_a_motion_are_refused(plugins):
    sim = dem.Simulation.from_ron(MESH, plugins=plugins)
    with pytest.raises(ValueError, match="particle 1 has a prescribed motion"):
        sim.set_positions([[0, 0, 1]], ids=[1])
    motions = sim.motions()
    assert motions == [{"index": 0, "kind": "Translate", "velocity": [0, 0, 0.01], "ids": [1]}]
    with pytest.raises(ValueError, match="motion 0 is a Translate, not a Servo"):
        sim.set_servo(0, stress=1e3)
    with pytest.raises(ValueError, match="motion 3: no such motion"):
        sim.set_servo(3, stress=1e3)


def test_gravity(plugins):
    sim = fall(plugins)
    for bad in ([0, 0, float("inf")], [1, 2]):
        with pytest.raises(ValueError):
            sim.gravity = bad
    sim.gravity = [0.0, 0.0, 0.0]
    sim.set_velocities([[0.1, 0, 0]], ids=[0])
    sim.run(steps=100)
    # Without gravity the sphere moves at constant velocity.
    np.testing.assert_allclose(sim.positions[0], [0.1 * 100 * sim.dt, 0, 0.1], rtol=1e-12)


def test_energy_set_from_outside_is_booked(plugins):
    """Kick the falling sphere: its kinetic energy jumps, the total stays balanced, the
    kick counted as work done on it."""
    sim = fall(plugins)
    sim.run(steps=100)
    before = sim.ledger["total"]
    m = sim.masses[0]
    v = sim.velocities[0]
    kick = v + [0.0, 0.0, 2.0]
    sim.set_velocities([kick], ids=[0])
    added = 0.5 * m * (kick @ kick - v @ v)
    assert sim.ledger["boundary_work"] == pytest.approx(added, rel=1e-12)
    sim.run(steps=100)
    # The leap-frog ledger books kinetic energy from the two mid-step velocities around a
    # step: the kick is booked to within m g dt |dv| / 2.
    after = sim.ledger["total"]
    assert abs(after - before) <= m * 9.81 * sim.dt * 2.0
    assert abs(after - before) < 1e-3 * added
