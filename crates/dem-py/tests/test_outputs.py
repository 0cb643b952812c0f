"""VTK frames written from Python, listed in their .pvd collections."""

import re

import dem

from test_run import fall


def test_write_vtk_frames(tmp_path, plugins):
    sim = fall(plugins)
    out = tmp_path / "vtk"
    sim.write_vtk(out)
    sim.run(steps=100)
    sim.write_vtk(out)
    names = sorted(p.name for p in out.iterdir())
    for stream in ["particles", "contacts", "walls"]:
        assert f"{stream}_000000000.vtu" in names and f"{stream}_000000100.vtu" in names
        pvd = (out / f"{stream}.pvd").read_text()
        assert re.findall(r'file="([^"]+)"', pvd) == [
            f"{stream}_000000000.vtu",
            f"{stream}_000000100.vtu",
        ]


def test_vtk_particles_read_back(tmp_path, plugins):
    vtk = __import__("pytest").importorskip("vtk")
    sim = fall(plugins)
    sim.run(steps=100)
    sim.write_vtk(tmp_path)
    reader = vtk.vtkXMLUnstructuredGridReader()
    reader.SetFileName(str(tmp_path / "particles_000000100.vtu"))
    reader.Update()
    grid = reader.GetOutput()
    assert grid.GetNumberOfPoints() == 1
    assert grid.GetPoint(0)[2] == sim.positions[0, 2]
