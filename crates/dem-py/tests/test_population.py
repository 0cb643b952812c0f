"""Adding and removing particles from Python between steps: the others keep their ids and
state, the ledger's total stays (the energy moves to inflow or outflow), a checkpoint
keeps the new population; bad requests change nothing."""

import pickle

import numpy as np
import pytest

import dem

from test_fields import BOX
from test_run import fall


def test_removed_particles_leave_and_the_rest_goes_on(tmp_path, plugins):
    sim = dem.Simulation.from_ron(BOX, plugins=plugins)
    sim.run(steps=5000)
    ids, pos = sim.ids.copy(), sim.positions.copy()
    total = sim.ledger["total"]
    carried = sim.remove_particles([10, 11, 40])
    assert carried != 0.0 and len(sim) == 70 - 3
    keep = ~np.isin(ids, [10, 11, 40])
    np.testing.assert_array_equal(sim.ids, ids[keep])
    np.testing.assert_array_equal(sim.positions, pos[keep])
    assert sim.ledger["total"] == pytest.approx(total, abs=1e-15)
    assert sim.ledger["outflow"] == pytest.approx(carried, rel=1e-12)
    assert not np.isin(sim.contacts()["ids"], [10, 11, 40]).any()
    sim.checkpoint(tmp_path / "run.ckpt")
    sim.run(steps=1000)
    resumed = dem.Simulation.resume(tmp_path / "run.ckpt", plugins=plugins)
    resumed.run(steps=1000)
    np.testing.assert_array_equal(resumed.ids, sim.ids)
    np.testing.assert_array_equal(resumed.positions, sim.positions)
    assert resumed.ledger == sim.ledger


def test_bad_ids_remove_nothing(plugins):
    sim = fall(plugins)
    with pytest.raises(ValueError, match="particle 9: no such particle"):
        sim.remove_particles([0, 9])
    with pytest.raises(ValueError, match="particle 0 is given twice"):
        sim.remove_particles([0, 0])
    with pytest.raises(ValueError, match="particle -1: no such particle"):
        sim.remove_particles([-1])
    assert len(sim) == 2


def test_added_spheres_fall_and_bring_their_energy(tmp_path, plugins):
    sim = fall(plugins)
    sim.run(steps=100)
    total = sim.ledger["total"]
    ids = sim.add_spheres([[0.05, 0.0, 0.2], [-0.05, 0.0, 0.3]], 0.01, "glass")
    np.testing.assert_array_equal(ids, [2, 3])
    np.testing.assert_array_equal(sim.ids, [0, 1, 2, 3])
    assert sim.masses[2] == sim.masses[0], "a scene sphere's mass"
    assert sim.ledger["total"] == pytest.approx(total, abs=1e-12)
    m, g, dt = sim.masses[2], 9.81, sim.dt
    assert sim.ledger["inflow"] == pytest.approx(m * g * (0.2 + 0.3), rel=1e-12)
    n = 1000
    sim.checkpoint(tmp_path / "run.ckpt")
    sim.run(steps=n)
    # Free fall from rest, v(-dt/2) = 0: z_n = z_0 - g dt^2 n (n + 1) / 2.
    z = 0.2 - g * dt * dt * n * (n + 1) / 2
    assert sim.positions[2][2] == pytest.approx(z, rel=1e-12)
    resumed = dem.Simulation.resume(tmp_path / "run.ckpt", plugins=plugins)
    resumed.run(steps=n)
    np.testing.assert_array_equal(resumed.positions, sim.positions)


def test_bad_additions_add_nothing(plugins):
    sim = fall(plugins)
    with pytest.raises(ValueError, match="sphere 1 overlaps particle 0"):
        sim.add_spheres([[0.5, 0, 0.5], [0.0, 0.0, 0.105]], [0.01, 0.01], "glass")
    with pytest.raises(ValueError, match="no material `gold`"):
        sim.add_spheres([[0.5, 0, 0.5]], 0.01, "gold")
    with pytest.raises(ValueError, match="2 radii for 1 spheres"):
        sim.add_spheres([[0.5, 0, 0.5]], [0.01, 0.02], "glass")
    assert len(sim) == 2


ROCKS = """Scene(
    materials: {
        "rock": (density: 2600, young: 1e8, poisson: 0.25, friction: 0.5),
    },
    laws: [(materials: ("*", "*"), law: "Law2_L6Geom_LinearElPl",
            params: (kn: 1e5, restitution: 0.5))],
    clump_templates: { "pair": (members: [((-0.01, 0, 0), 0.01), ((0.01, 0, 0), 0.01)]) },
    bodies: [
        Polyhedron(vertices: [(0, 0, 0), (0.03, 0, 0), (0, 0.03, 0), (0, 0, 0.03)],
                   material: "rock"),
        Sphere(center: (0.2, 0, 0.01), radius: 0.01, material: "rock"),
        Wall(point: (0, 0, 0), normal: (0, 0, 1), sense: 1, material: "rock"),
    ],
    gravity: (0, 0, -9.81),
    timestep: Critical(0.1),
    duration: Steps(100000),
)"""


def test_polyhedra_and_clumps_added_as_scene_bodies(plugins):
    from dem.scene import Clump, Polyhedron

    sim = dem.Simulation.from_ron(ROCKS, plugins=plugins)
    sim.run(steps=200)
    total = sim.ledger["total"]
    tet = [(0.1, 0, 0.05), (0.13, 0, 0.05), (0.1, 0.03, 0.05), (0.1, 0, 0.08)]
    ids = sim.add_bodies(
        [
            Polyhedron(vertices=tet, material="rock", velocity=(0, 0, -0.1)),
            Clump(template="pair", position=(-0.1, 0, 0.1), material="rock"),
        ]
    )
    np.testing.assert_array_equal(ids, [3, 4, 5])
    assert list(sim.kinds[3:]) == ["Polyhedron", "Sphere", "Sphere"]
    # A tetrahedron of legs 3 cm: volume 4.5e-6 m^3; its centroid a quarter up.
    assert sim.masses[3] == pytest.approx(2600 * 0.03**3 / 6, rel=1e-12)
    np.testing.assert_allclose(sim.positions[3], [0.1075, 0.0075, 0.0575], rtol=1e-12)
    assert sim.ledger["total"] == pytest.approx(total, abs=1e-15)
    assert sim.ledger["inflow"] > 0
    # RON text works too; what cannot be added says why.
    with pytest.raises(ValueError, match="overlaps"):
        sim.add_bodies('[Sphere(center: (0.2, 0, 0.015), radius: 0.01, material: "rock")]')
    twin = pickle.loads(pickle.dumps(sim))
    sim.run(steps=3000)
    twin.run(steps=3000)
    np.testing.assert_array_equal(sim.positions, twin.positions)
    assert sim.positions[3][2] < 0.0575, "it fell"
