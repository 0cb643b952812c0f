"""Loading a scene, running it and reading its state."""

import math

import numpy as np
import pytest

import dem

# A sphere falling freely (no contact until t = 0.14 s), as in scenes/bounce.ron.
FALL = """Scene(
    materials: {
        "glass": (density: 2500, young: 1e8, poisson: 0.25, friction: 0.5),
        "steel": (density: 7800, young: 2e11, poisson: 0.3, friction: 0.5),
    },
    laws: [(materials: ("*", "*"), law: "Law2_L6Geom_LinearElPl", params: (restitution: 0.8))],
    bodies: [
        Sphere(center: (0, 0, 0.1), radius: 0.01, material: "glass"),
        Wall(point: (0, 0, 0), normal: (0, 0, 1), sense: 1, material: "steel"),
    ],
    gravity: (0, 0, -9.81),
    timestep: Fixed(1e-4),
    duration: Time(0.5),
    output: (every: 100),
)
"""


def fall(plugins, **kw):
    return dem.Simulation.from_ron(FALL, plugins=plugins, **kw)


def test_state_arrays_in_scene_order(plugins):
    sim = fall(plugins)
    assert len(sim) == 2
    assert sim.positions.shape == (2, 3) and sim.positions.dtype == np.float64
    np.testing.assert_array_equal(sim.positions[0], [0, 0, 0.1])
    assert list(sim.kinds) == ["Sphere", "Wall"]
    assert sim.radii[0] == 0.01 and math.isinf(sim.radii[1])
    # Mass of a glass sphere: 4/3 pi r^3 rho.
    assert sim.masses[0] == pytest.approx(4 / 3 * math.pi * 0.01**3 * 2500, rel=1e-12)
    assert math.isinf(sim.masses[1])
    assert sim.material_names == ["glass", "steel"]
    assert list(sim.materials) == [0, 1]
    np.testing.assert_array_equal(sim.orientations[0], [0, 0, 0, 1])
    assert sim.velocities.shape == sim.angular_velocities.shape == sim.forces.shape == (2, 3)
    assert sim.dt == 1e-4 and sim.step == 0 and sim.time == 0.0
    assert sim.end_step == 5000
    assert sim.gravity == [0, 0, -9.81]


def test_free_fall_follows_the_leap_frog_closed_form(plugins):
    """x_n = x_0 - g dt^2 n (n + 1) / 2 from v(-dt/2) = 0 (no contact yet)."""
    sim = fall(plugins)
    assert sim.run(steps=1000) == 1000
    assert sim.step == 1000 and sim.time == pytest.approx(0.1, rel=1e-12)
    n, dt, g = 1000, 1e-4, 9.81
    assert sim.positions[0, 2] == pytest.approx(0.1 - g * dt**2 * n * (n + 1) / 2, rel=1e-12)
    assert sim.velocities[0, 2] == pytest.approx(-g * dt * n, rel=1e-12)


def test_run_by_time_until_and_callback(plugins):
    sim = fall(plugins)
    assert sim.run(time=0.01) == 100
    seen = []
    done = sim.run(steps=1000, every=250, callback=lambda s: seen.append(s.step))
    assert done == 1000 and seen == [350, 600, 850, 1100]
    # The sphere touches the floor at t = sqrt(2 h / g), h = 0.09 m: 0.1355 s.
    sim.run(until=lambda s: s.contacts()["ids"].shape[0] > 0, every=1)
    assert sim.time == pytest.approx(math.sqrt(2 * 0.09 / 9.81), abs=2e-4)
    # To the scene's end.
    sim.run()
    assert sim.step == sim.end_step == 5000


def test_contacts_during_the_bounce(plugins):
    sim = fall(plugins)
    sim.run(until=lambda s: s.contacts()["overlap"].size > 0 and s.contacts()["overlap"][0] > 1e-5, every=1)
    c = sim.contacts()
    assert c["ids"].tolist() == [[1, 0]] or c["ids"].tolist() == [[0, 1]]
    np.testing.assert_allclose(np.abs(c["normal"][0]), [0, 0, 1], atol=1e-12)
    assert c["point"].shape == c["force"].shape == c["tangential_force"].shape == (1, 3)
    # The contact's force on the sphere plus its weight is the sphere's force.
    m = sim.masses[0]
    on_sphere = c["force"][0] if c["ids"][0, 1] == 0 else -c["force"][0]
    np.testing.assert_allclose(on_sphere + m * np.array([0, 0, -9.81]), sim.forces[0], rtol=1e-12)
    assert c["normal_force"][0] == pytest.approx(abs(on_sphere[2]), rel=1e-12)


def test_contact_energies_are_the_ledgers(plugins):
    # Step by step into the bounce: the contact's stored energy is the ledger's, and what
    # it dissipated in the step is what the ledger's dissipation grew by.
    sim = fall(plugins)
    for _ in range(sim.end_step):
        before = sim.ledger
        sim.run(steps=1)
        c = sim.contacts()
        if c["overlap"].size > 0 and c["overlap"][0] > 1e-5:
            break
    else:
        pytest.fail("the sphere never pressed into the floor")
    after = sim.ledger
    assert c["elastic"].shape == c["friction"].shape == c["damping"].shape == (1,)
    assert c["elastic"][0] > 0
    assert c["elastic"][0] == pytest.approx(after["elastic"], rel=1e-12)
    assert c["damping"][0] > 0
    assert c["damping"][0] == pytest.approx(after["damping"] - before["damping"], rel=1e-9)
    assert c["friction"][0] == pytest.approx(after["friction"] - before["friction"], abs=1e-18)


def test_ledger_and_energy_history(plugins):
    sim = fall(plugins)
    sim.run(steps=1001)
    ledger = sim.ledger
    assert set(ledger) >= {"kinetic", "potential", "total", "boundary_work"}
    history = sim.energy(dataframe=False)
    # Rows at the output steps (every 100), as energy.csv.
    assert history["step"].tolist() == list(range(0, 1001, 100))
    # Free fall conserves kinetic + potential.
    total = history["total"]
    assert np.ptp(total) <= 1e-12 * abs(history["potential"][0])


def test_threads(plugins):
    with pytest.raises(ValueError, match="threads=0"):
        fall(plugins, threads=0)
    a, b = fall(plugins, threads=1), fall(plugins, threads=2)
    a.run(steps=2000)
    b.run(steps=2000)
    np.testing.assert_array_equal(a.positions, b.positions)


def test_plugins_catalogue_is_the_clis(plugins, dem_exe, tmp_path):
    import json
    import shutil
    import subprocess

    cat = dem.plugins(plugins=plugins)
    names = {f["name"] for p in cat["plugins"] for f in p["functors"]}
    assert "Law2_L6Geom_LinearElPl" in names and "Cg2_Sphere_Sphere_L6Geom" in names
    # `dem` also loads the libraries beside itself, and its build directory holds others
    # (the Rust tests build a template plugin there): a copy alone in a directory loads
    # only the ones given, as `dem.plugins` does.
    alone = shutil.copy(dem_exe, tmp_path / "dem")
    args = [alone, "plugins", "--json"]
    for lib in plugins:
        args += ["--plugin", lib]
    cli = json.loads(subprocess.run(args, capture_output=True, text=True, check=True).stdout)
    assert cat == cli
