"""Changing the parameters of a prescribed motion between steps: checked as the scene's
(ValueError naming the motion and the field), the motion goes on from its pose (a floor's
height is the sum of speed times time), the ledger stays balanced, and checkpoints carry
the change, for `Simulation.resume` and for `dem resume`."""

import math
import subprocess

import numpy as np
import pytest

import dem

from test_setters import MESH

# Spheres on a shaking floor, between a wall moving sideways and a wall turning about a
# vertical axis (as tests/checkpoint.rs).
MOVING = """Scene(
    materials: { "m": (density: 2500, young: 1e7, poisson: 0.25, friction: 0.4) },
    laws: [(materials: ("*", "*"), law: "Law2_L6Geom_LinearElPl", params: (restitution: 0.5))],
    bodies: [
        Wall(point: (0, 0, 0), normal: (0, 0, 1), sense: 1, material: "m",
             motion: Shake(amplitude: (0, 0, 0.0001), frequency: 30)),
        Wall(point: (0, 0, 0), normal: (1, 0, 0), sense: 1, material: "m",
             motion: Translate(velocity: (0.01, 0, 0))),
        Wall(point: (0.02, 0, 0), normal: (1, 0, 0), sense: -1, material: "m",
             motion: Rotate(center: (0.02, 0.01, 0), axis: (0, 0, 1), omega: 0.5)),
        Lattice(origin: (0.003, 0.003, 0.001), count: (4, 4, 2), spacing: 0.002,
                radius: 0.001, material: "m"),
    ],
    gravity: (0, 0, -9.81),
    timestep: Critical(0.2),
    duration: Steps(1600),
    output: (every: 250),
)
"""


def change(sim):
    """New parameters for the three motions of MOVING, and a new gravity."""
    sim.set_motion(0, frequency=45.0, amplitude=[0, 0, 0.00006])
    sim.set_motion(1, velocity=[-0.02, 0, 0])
    sim.set_motion(2, center=[0.02, 0, 0], axis=[0, 1, 1], omega=-0.3)
    sim.gravity = [0.0, 0.0, -6.0]


@pytest.mark.parametrize(
    "index, params, message",
    [
        (0, dict(omega=1.0), r"motion 0: a Translate has no parameter `omega` \(its parameters: velocity\)"),
        (0, dict(velocity=[0, float("nan"), 0]), r"motion 0: Translate: velocity \(0, NaN, 0\) must be finite"),
        (0, dict(velocity=[1, 2]), r"motion 0: velocity: give one \[x, y, z\]"),
        (0, dict(velocity="up"), r"motion 0: velocity: give one \[x, y, z\]"),
        (3, dict(velocity=[0, 0, 1]), r"motion 3: no such motion \(the scene has 1\)"),
    ],
)
def test_motion_changes_are_checked(plugins, index, params, message):
    sim = dem.Simulation.from_ron(MESH, plugins=plugins)
    before = sim.motions()
    with pytest.raises(ValueError, match=message):
        sim.set_motion(index, **params)
    assert sim.motions() == before


def test_each_kind_names_its_bad_field(plugins):
    sim = dem.Simulation.from_ron(MOVING, plugins=plugins)
    for index, params, message in [
        (0, dict(frequency=-1.0), r"motion 0: Shake: frequency = -1 must be finite and >= 0, Hz"),
        (0, dict(frequency="fast"), r"motion 0: frequency: give a number"),
        (2, dict(axis=[0, 0, 0]), r"motion 2: Rotate: axis \(0, 0, 0\) must not be zero"),
        (2, dict(omega=math.inf), r"motion 2: Rotate: omega = inf must be finite, rad/s"),
    ]:
        with pytest.raises(ValueError, match=message):
            sim.set_motion(index, **params)
    with pytest.raises(ValueError, match="motion 1 is a Translate, not a Servo: change it with set_motion"):
        sim.set_servo(1, stress=1e3)
    change(sim)
    m = sim.motions()
    assert (m[0]["amplitude"], m[0]["frequency"]) == ([0, 0, 0.00006], 45.0)
    assert (m[2]["center"], m[2]["axis"], m[2]["omega"]) == ([0.02, 0, 0], [0, 1, 1], -0.3)


def test_a_floor_whose_speed_changes_goes_on_from_its_height(plugins):
    """A sphere on a floor rising at 0.01 m/s (MESH); the floor speeds up to 0.2 m/s, then
    goes down at 0.05 m/s: its height is the sum of speed times time, the velocity that of
    the last change, and the ledger's total stays balanced (the floor's work is booked
    from its new speed)."""
    sim = dem.Simulation.from_ron(MESH.replace("Steps(100)", "Steps(1000000)"), plugins=plugins)
    sim.set_positions([[0.2, 0.2, 0.01]], ids=[0])  # on the floor
    sim.run(time=0.05)
    start, height = sim.ledger, sim.positions[1, 2]
    for v in [0.2, -0.05]:
        t0 = sim.time
        sim.set_motion(0, velocity=[0.0, 0.0, v])
        sim.run(time=0.1)
        height += v * (sim.time - t0)
        assert sim.positions[1, 2] == pytest.approx(height, abs=1e-15)
        assert sim.velocities[1, 2] == v
    ledger = sim.ledger
    work = ledger["boundary_work"] - start["boundary_work"]
    # The floor lifted the sphere by (0.2 - 0.05) * 0.1 m, and threw it when it went down.
    assert work > 0.9 * sim.masses[0] * 9.81 * 0.015
    assert ledger["damping"] > start["damping"]
    # Each change throws the sphere (an impact): the ledger errs through impacts by the
    # leap-frog's first order in dt (1.2e-7 J here, 1.5e-4 of the work; 1e-15 J for the
    # same run without a change, which has no impact), as tests/motion.rs measures.
    assert abs(ledger["total"] - start["total"]) < 1e-3 * work


def test_changed_motions_are_resumed_bitwise(tmp_path, plugins):
    whole = dem.Simulation.from_ron(MOVING, plugins=plugins)
    whole.run(steps=700)
    change(whole)
    whole.run(steps=300)
    whole.checkpoint(tmp_path / "run.ckpt")
    whole.run()
    resumed = dem.Simulation.resume(tmp_path / "run.ckpt", plugins=plugins)
    assert resumed.motions() == dem.Simulation.resume(tmp_path / "run.ckpt", plugins=plugins).motions()
    assert resumed.motions()[1]["velocity"] == [-0.02, 0, 0]
    assert resumed.gravity == [0.0, 0.0, -6.0]
    resumed.run()
    assert whole.ledger["damping"] > 0.0  # the spheres hit the floor
    np.testing.assert_array_equal(resumed.positions, whole.positions)
    np.testing.assert_array_equal(resumed.orientations, whole.orientations)
    assert resumed.ledger == whole.ledger


def test_dem_resume_goes_on_with_a_checkpoint_of_the_module(tmp_path, plugins, dem_exe):
    """`dem resume` of a checkpoint written from Python, after motions and gravity were
    changed: the same particles.csv and energy.csv as the run finished in Python."""
    scene = tmp_path / "moving.ron"
    scene.write_text(MOVING)
    py, cli = tmp_path / "py", tmp_path / "cli"
    sim = dem.Simulation.load(scene, plugins=plugins, threads=1)
    sim.run(steps=700)
    change(sim)
    sim.run(steps=300)
    sim.checkpoint(tmp_path / "run.ckpt")
    sim.run()
    sim.write_particles_csv(py)
    sim.write_energy_csv(py)
    out = subprocess.run(
        [dem_exe, "resume", "--quiet", "--threads", "1", "--out", cli, tmp_path / "run.ckpt"],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stderr
    for name in ["particles.csv", "energy.csv"]:
        assert (cli / name).read_bytes() == (py / name).read_bytes(), name
