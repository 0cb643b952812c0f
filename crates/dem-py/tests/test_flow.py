"""A changing population (inlets and outlets): the arrays follow it, row by row with
`ids`, as particles.csv does; setters refuse a removed particle."""

import csv

import numpy as np
import pytest

import dem

# A square chute fed from above and drained at one corner of its floor.
CHUTE = """Scene(
    materials: { "glass": (density: 2500, young: 1e6, poisson: 0.25, friction: 0.3) },
    laws: [(materials: ("*", "*"), law: "Law2_L6Geom_LinearElPl",
            params: (kt_kn: 0.25, restitution: 0.5))],
    bodies: [
        Wall(point: (0, 0, 0), normal: (0, 0, 1), sense: 1, material: "glass"),
        Wall(point: (0, 0, 0), normal: (1, 0, 0), sense: 1, material: "glass"),
        Wall(point: (0.03, 0, 0), normal: (1, 0, 0), sense: -1, material: "glass"),
        Wall(point: (0, 0, 0), normal: (0, 1, 0), sense: 1, material: "glass"),
        Wall(point: (0, 0.03, 0), normal: (0, 1, 0), sense: -1, material: "glass"),
    ],
    inlets: [Inlet(name: "feed", region: Box(min: (0, 0, 0.01), max: (0.03, 0.03, 0.03)),
                   radius: Uniform(0.0015, 0.0025), material: "glass", rate: Number(4000),
                   velocity: (0, 0, -0.5), seed: 3, every: 50)],
    outlets: [Outlet(name: "drain", region: Box(min: (0, 0, -0.01), max: (0.012, 0.012, 0.003)))],
    gravity: (0, 0, -9.81),
    timestep: Critical(0.25),
    duration: Steps(3000),
)
"""


def test_arrays_follow_inserted_and_removed_particles(plugins, tmp_path):
    sim = dem.Simulation.from_ron(CHUTE, plugins=plugins)
    assert list(sim.ids) == [0, 1, 2, 3, 4]
    sim.run(steps=3000)
    ids = sim.ids
    n = len(ids)
    assert sim.positions.shape == (n, 3) and sim.radii.shape == (n,)
    assert np.all(np.diff(ids) > 0) and list(ids[:5]) == [0, 1, 2, 3, 4]
    # Some were removed: the ids have gaps.
    assert ids[-1] >= n
    sim.write_particles_csv(str(tmp_path))
    with open(tmp_path / "particles.csv") as f:
        rows = list(csv.DictReader(f))
    assert [int(r["id"]) for r in rows] == list(ids)
    x = np.array([[float(r["x"]), float(r["y"]), float(r["z"])] for r in rows])
    np.testing.assert_array_equal(x, sim.positions)
    # A removed particle cannot be given a velocity; a present one can.
    gone = next(i for i in range(5, ids[-1]) if i not in set(ids))
    with pytest.raises(ValueError, match=f"particle {gone}: removed by an outlet"):
        sim.set_velocities([[0, 0, 0]], ids=[gone])
    sim.set_velocities([[0, 0, 1]], ids=[int(ids[-1])])
    assert list(sim.velocities[-1]) == [0, 0, 1]
