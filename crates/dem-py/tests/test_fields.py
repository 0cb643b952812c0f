"""Coarse-grained fields from Python, against numbers computed here from the particles and
contacts the module returns: over a grid that holds every kernel, the density integrates
to the particles' mass and the contact stress to the Love-Weber sum over the contacts,
-sum f_b (x) (c - x_b) over each contact's sphere sides; arrays are indexed [i, j, k]
along x, y, z."""

import numpy as np
import pytest

import dem

BOX = """Scene(
    materials: {"m": (density: 2500, young: 1e7, poisson: 0.25, friction: 0.3),
                "w": (density: 2500, young: 1e7, poisson: 0.25, friction: 0)},
    laws: [(materials: ("*", "*"), law: "Law2_L6Geom_LinearElPl", params: (restitution: 0.3))],
    bodies: [
        Box(min: (0, 0, 0), max: (0.01, 0.01, 0.03), material: "w"),
        Lattice(origin: (0.0012, 0.0012, 0.0011), count: (4, 4, 4), spacing: 0.0025,
                radius: 0.001, material: "m", velocity_spread: 0.05, seed: 2),
    ],
    gravity: (0, 0, -9.81),
    damping: 0.4,
    timestep: Critical(0.2),
    duration: Time(0.05),
)
"""


def love_weber(sim):
    """-sum over contacts and their sphere sides of f_b (x) (c - x_b), J."""
    c = sim.contacts()
    x, kinds = sim.positions, sim.kinds
    total = np.zeros((3, 3))
    for (b1, b2), point, f in zip(c["ids"], c["point"], c["force"]):
        for b, force in ((b1, -f), (b2, f)):
            if kinds[b] == "Sphere":
                total -= np.outer(force, point - x[b])
    return total


def test_the_fields_integrate_to_the_mass_and_the_contact_sum(plugins):
    sim = dem.Simulation.from_ron(BOX, plugins=plugins)
    sim.run()
    assert len(sim.contacts()["force"]) > 50
    h, cutoff = 0.0002, 0.003
    pad = cutoff + h
    lo, hi = [-pad] * 3, [0.01 + pad, 0.01 + pad, 0.03 + pad]
    cells = [round((b - a) / h) for a, b in zip(lo, hi)]
    f = sim.coarse_grain(lo, hi, cells, kernel="lucy", size=cutoff)
    assert f["density"].shape == tuple(cells)
    assert f["contact_stress"].shape == tuple(cells) + (3, 3)
    assert f["x"].shape == (cells[0],) and f["x"][0] == pytest.approx(lo[0] + h / 2)
    dv = np.prod([(b - a) / n for a, b, n in zip(lo, hi, cells)])
    spheres = sim.kinds == "Sphere"
    mass = sim.masses[spheres].sum()
    assert f["density"].sum() * dv == pytest.approx(mass, rel=1e-6)
    sigma = f["contact_stress"].sum(axis=(0, 1, 2)) * dv
    want = love_weber(sim)
    assert np.abs(sigma - want).max() <= 1e-6 * np.abs(want).max()
    assert want[2, 2] > 0  # the weight on the floor: compression along z
    # The stress is the kinetic part plus the contact part.
    np.testing.assert_allclose(f["stress"], f["kinetic_stress"] + f["contact_stress"])
    # Where the density is, the velocity is the momentum over it; the bed sits near the
    # floor, so the density is highest low in the box.
    k_low, k_high = np.searchsorted(f["z"], 0.003), np.searchsorted(f["z"], 0.025)
    assert f["density"][:, :, k_low].mean() > f["density"][:, :, k_high].mean()


def test_the_fields_written_as_a_vtk_image_read_back_with_vtk(plugins, tmp_path):
    vtk_xml = pytest.importorskip("vtkmodules.vtkIOXML")
    from vtkmodules.util.numpy_support import vtk_to_numpy

    sim = dem.Simulation.from_ron(BOX, plugins=plugins)
    sim.run(steps=2000)
    lo, hi, cells = [-0.001, -0.001, -0.001], [0.011, 0.011, 0.02], [6, 5, 7]
    path = tmp_path / "fields.vti"
    f = sim.coarse_grain(lo, hi, cells, size=0.003, vti=path)
    reader = vtk_xml.vtkXMLImageDataReader()
    reader.SetFileName(str(path))
    reader.Update()
    image = reader.GetOutput()
    assert image.GetDimensions() == tuple(cells)
    np.testing.assert_allclose(image.GetOrigin(), [f["x"][0], f["y"][0], f["z"][0]])
    np.testing.assert_allclose(image.GetSpacing(), [0.002, 0.0024, 0.003])
    data = image.GetPointData()
    # VTK stores points x fastest, each tuple's components together: the arrays with
    # their grid axes reversed, in C order.
    for name, tail in [("density", ()), ("velocity", (3,)), ("stress", (3, 3))]:
        got = vtk_to_numpy(data.GetArray(name))
        want = f[name].transpose(*([2, 1, 0] + [3 + i for i in range(len(tail))]))
        np.testing.assert_array_equal(got.reshape(-1), want.reshape(-1))
    with pytest.raises(OSError, match="nowhere"):
        sim.coarse_grain(lo, hi, cells, size=0.003, vti=tmp_path / "nowhere" / "f.vti")


def test_bad_requests_raise_value_errors_naming_the_field(plugins):
    sim = dem.Simulation.from_ron(BOX, plugins=plugins)
    grid = ([0, 0, 0], [0.01, 0.01, 0.03], [4, 4, 8])
    with pytest.raises(ValueError, match="size"):
        sim.coarse_grain(*grid)
    with pytest.raises(ValueError, match="unknown kernel"):
        sim.coarse_grain(*grid, kernel="tophat", size=0.002)
    with pytest.raises(ValueError, match="width"):
        sim.coarse_grain(*grid, kernel="gaussian", size=-1.0)
    with pytest.raises(ValueError, match=r"max\[2\]"):
        sim.coarse_grain([0, 0, 0], [0.01, 0.01, 0.0], [4, 4, 8], size=0.002)
    f = sim.coarse_grain(*grid, kernel="gaussian", size=0.001, widths=5.0)
    assert f["velocity"].shape == (4, 4, 8, 3)


def contact_keys(sim):
    """Each live contact's name: its scene ids, its term and its creation time."""
    c = sim.contacts()
    return {(a, b, f, t) for (a, b), f, t in zip(c["ids"].tolist(), c["feature"], c["onset"])}


def test_a_contact_keeps_its_name_across_steps_and_checkpoints(plugins, tmp_path):
    sim = dem.Simulation.from_ron(BOX, plugins=plugins)
    sim.run(steps=3000)
    before = contact_keys(sim)
    assert len(before) > 10
    c = sim.contacts()
    # Created at a past step, never after now.
    assert np.all((c["onset"] >= 0) & (c["onset"] <= sim.time))
    assert np.all(c["feature"] == 0)  # one term per sphere pair
    sim.run(steps=50)
    after = contact_keys(sim)
    # A settling bed: most contacts live on, under the same name.
    assert len(before & after) > 0.5 * len(before)
    sim.checkpoint(tmp_path / "bed.ckpt")
    resumed = dem.Simulation.resume(tmp_path / "bed.ckpt", plugins=plugins)
    assert contact_keys(resumed) == after
