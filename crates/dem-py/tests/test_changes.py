"""A friction sweep from one settled state, as a Yade user runs it: a sphere (rotation
blocked) held on a tilted floor by static friction is copied, and each copy given another
friction coefficient with `set_material`; where the tangential spring stays below the new
Coulomb limit the copy moves bitwise as the unchanged run (the spring is kept), below
tan(theta) it slides at g (sin - mu cos) (closed form). Law
parameters change with `set_law_params` (RON text or a dict), pickles carry the changes,
and bad changes raise ValueError with nothing changed."""

import copy
import math
import pickle

import numpy as np
import pytest

import dem
from dem.scene import Fixed, Scene, Sphere, Steps, Wall

THETA = math.radians(15)
G = 9.81


def tilted(plugins, mu=0.8):
    """The sphere at its equilibrium overlap under gravity tilted by THETA about y."""
    r, rho, kn = 0.01, 2500.0, 1e4
    m = rho * 4 / 3 * math.pi * r**3
    overlap = m * G * math.cos(THETA) / kn
    scene = Scene(
        materials={"m": dict(density=rho, young=1e9, friction=mu)},
        laws=[
            dict(
                materials=("*", "*"),
                law="Law2_L6Geom_LinearElPl",
                params=dict(kn=kn, kt_kn=1.0, restitution=0.3),
            )
        ],
        bodies=[
            Sphere(center=(0, 0, r - overlap), radius=r, material="m", blocked="XYZ"),
            Wall(point=(0, 0, 0), normal=(0, 0, 1), sense=1, material="m"),
        ],
        gravity=(G * math.sin(THETA), 0, -G * math.cos(THETA)),
        timestep=Fixed(1e-5),
        duration=Steps(1000000),
    )
    return dem.Simulation(scene, plugins=plugins)


def slide(sim, steps=4000):
    """Least-squares acceleration along x over `steps` steps."""
    t, x = [], []
    for _ in range(steps // 10):
        sim.run(steps=10)
        t.append(sim.time)
        x.append(sim.positions[0][0])
    return np.polyfit(np.array(t), np.array(x), 2)[0] * 2


def test_a_friction_sweep_from_one_settled_state(plugins):
    settled = tilted(plugins)
    settled.run(steps=3000)
    held = settled.positions[0].copy()
    # The spring, loaded from zero, swings up to twice m g sin(theta): 0.536 of the
    # normal force. Above that no contact slips.
    for mu in [0.6, 0.55]:
        branch = copy.deepcopy(settled)
        branch.set_material("m", friction=mu)
        assert branch.material_properties["m"]["friction"] == mu
        branch.run(steps=3000)
        # The spring (kept) holds it: it moves as the unchanged run, bitwise.
        same = copy.deepcopy(settled)
        same.run(steps=3000)
        np.testing.assert_array_equal(branch.positions[0], same.positions[0])
        assert abs(branch.positions[0][0] - held[0]) < 1e-5
    assert settled.material_properties["m"]["friction"] == 0.8
    for mu in [0.2, 0.1]:
        branch = copy.deepcopy(settled)
        branch.set_material("m", friction=mu)
        branch.run(steps=1000)
        a = slide(branch)
        expected = G * (math.sin(THETA) - mu * math.cos(THETA))
        assert a == pytest.approx(expected, rel=1e-4)


def test_law_parameters_from_text_or_a_dict_and_kept_by_pickles(plugins):
    sim = tilted(plugins, mu=0.1)
    sim.run(steps=500)
    e0 = sim.ledger["total"]
    sim.set_law_params(0, {"kn": 2e4, "kt_kn": 1.0, "restitution": 0.3})
    assert sim.law_changes == {0: "(\n    kn: 20000.0,\n    kt_kn: 1.0,\n    restitution: 0.3,\n)"}
    twin = pickle.loads(pickle.dumps(sim))
    assert twin.law_changes == sim.law_changes
    sim.run(steps=2000)
    twin.run(steps=2000)
    np.testing.assert_array_equal(sim.positions, twin.positions)
    # The stiffer spring's energy came in as boundary work: the total stays (the sphere
    # slides along the blocked rotation, whose constraint does no work).
    assert sim.ledger["total"] == pytest.approx(e0, abs=1e-9 * abs(sim.ledger["potential"]))
    sim.set_law_params(0, "(kn: 1e4, kt_kn: 1.0, restitution: 0.3)")
    assert sim.law_changes[0].startswith("(kn: 1e4")


def test_bad_changes_raise_and_change_nothing(plugins):
    sim = tilted(plugins)
    sim.run(steps=100)
    with pytest.raises(ValueError, match="no law 1"):
        sim.set_law_params(1, {})
    with pytest.raises(ValueError, match="Unexpected field named `stiffness`"):
        sim.set_law_params(0, {"stiffness": 1.0})
    with pytest.raises(ValueError, match="critical step"):
        sim.set_law_params(0, {"kn": 1e12})
    with pytest.raises(ValueError, match="no material `rubber`"):
        sim.set_material("rubber", friction=0.1)
    with pytest.raises(ValueError, match="poisson"):
        sim.set_material("m", poisson=0.9)
    assert sim.law_changes == {}
    assert sim.material_properties["m"] == dict(density=2500.0, young=1e9, poisson=0.0, friction=0.8)
