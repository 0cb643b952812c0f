"""Bodies of a shape offered by a plugin (superquadrics, `plugins/shape-superquadric`) in
Python: built with dem.scene's `Shaped`, named by `kinds`, turned as aspherical bodies
(`orientations`), and copied through checkpoints bitwise."""

import copy

import numpy as np

import dem
from dem.scene import Critical, Scene, Shaped, Steps, Wall


def spinning(plugins, w=7.0):
    """An ellipsoid spinning at `w` rad/s about its principal axis z (turned by 0.3 rad
    about x first), without gravity, above a floor it never reaches."""
    scene = Scene(
        materials={"m": dict(density=1000, young=1e7, friction=0.5)},
        laws=[dict(materials=("*", "*"), law="Law2_L6Geom_LinearElPl", params=dict(kn=1e4))],
        bodies=[
            Shaped(
                shape="Superquadric",
                params=dict(half_axes=(0.03, 0.02, 0.01), blockiness=(2, 2)),
                position=(0, 0, 0.1),
                rotate=(0.3, 0, 0),
                angular_velocity=tuple(w * np.array([0, -np.sin(0.3), np.cos(0.3)])),
                material="m",
            ),
            Wall(point=(0, 0, 0), normal=(0, 0, 1), sense=1, material="m"),
        ],
        gravity=(0, 0, 0),
        timestep=Critical(0.2),
        duration=Steps(2000),
        contacts=dict(l6geom=dict(no_ratch=False)),
    )
    return dem.Simulation(scene, plugins=plugins)


def quaternion(axis, angle):
    """[x, y, z, w] of the rotation by `angle` about the unit `axis`."""
    s = np.sin(angle / 2)
    return np.array([axis[0] * s, axis[1] * s, axis[2] * s, np.cos(angle / 2)])


def product(a, b):
    """The quaternion product a b, [x, y, z, w]."""
    (ax, ay, az, aw), (bx, by, bz, bw) = a, b
    return np.array(
        [
            aw * bx + ax * bw + ay * bz - az * by,
            aw * by - ax * bz + ay * bw + az * bx,
            aw * bz + ax * by - ay * bx + az * bw,
            aw * bw - ax * bx - ay * by - az * bz,
        ]
    )


def test_a_spinning_ellipsoid_turns_about_its_principal_axis(plugins):
    sim = spinning(plugins)
    assert list(sim.kinds) == ["Superquadric", "Wall"]
    v = 4 / 3 * np.pi * 0.03 * 0.02 * 0.01
    assert abs(sim.masses[0] - 1000 * v) < 1e-12 * sim.masses[0]
    start = sim.orientations[0].copy()
    sim.run(steps=1000)
    # Torque-free rotation about a principal axis keeps the axis: the orientation is the
    # start turned about the spin axis (global frame) by w t, less the rotation
    # integrator's phase error (about (w dt)^3 / 12 a step).
    axis = np.array([0, -np.sin(0.3), np.cos(0.3)])
    inverse = start * np.array([-1, -1, -1, 1])
    turn = product(sim.orientations[0], inverse)
    turn *= np.sign(turn[3])
    angle = 2 * np.arctan2(np.linalg.norm(turn[:3]), turn[3])
    assert np.abs(turn[:3] / np.linalg.norm(turn[:3]) - axis).max() < 1e-12
    dt = sim.time / 1000
    assert abs(angle - 7.0 * sim.time) < 1000 * (7.0 * dt) ** 3 / 12 * 1.5, angle
    assert np.allclose(sim.angular_velocities[0], 7.0 * axis, atol=1e-12)


def test_copies_of_plugin_shapes_run_bitwise(plugins):
    sim = spinning(plugins)
    sim.run(steps=500)
    copied = copy.deepcopy(sim)
    sim.run(steps=500)
    copied.run(steps=500)
    assert np.array_equal(sim.orientations, copied.orientations)
    assert np.array_equal(sim.positions, copied.positions)
    assert list(copied.kinds) == ["Superquadric", "Wall"]


def test_bodies_of_a_plugin_shape_are_added_between_steps(plugins):
    sim = spinning(plugins)
    sim.run(steps=10)
    ids = sim.add_bodies(
        [
            Shaped(
                shape="Superquadric",
                params=dict(half_axes=(0.01, 0.01, 0.02), blockiness=(3, 2)),
                position=(0.2, 0, 0.1),
                material="m",
            )
        ]
    )
    assert list(ids) == [2]
    assert list(sim.kinds) == ["Superquadric", "Wall", "Superquadric"]
    sim.run(steps=10)
    assert np.allclose(sim.positions[2], (0.2, 0, 0.1))
