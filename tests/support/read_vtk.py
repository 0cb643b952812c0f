"""Reads VTK XML files with VTK itself (Python's `vtk` package, the library ParaView is
built on) and prints their content as JSON, so that the Rust tests compare what an
independent reader sees with what was written.

    python3 read_vtk.py FILE.vtu|FILE.pvd ...

A .vtu gives its points, cells (connectivity, offsets, types) and point and cell arrays
(VTK type name, number of components, values); a .pvd (read with Python's own XML parser)
gives its data sets (timestep, file).
"""

import json
import sys
import xml.etree.ElementTree as ET

from vtkmodules.util.numpy_support import vtk_to_numpy
from vtkmodules.vtkIOXML import vtkXMLUnstructuredGridReader


def arrays(data):
    out = {}
    for i in range(data.GetNumberOfArrays()):
        a = data.GetArray(i)
        out[a.GetName()] = {
            "type": a.GetDataTypeAsString(),
            "components": a.GetNumberOfComponents(),
            "values": vtk_to_numpy(a).reshape(-1).tolist(),
        }
    return out


def vtu(path):
    reader = vtkXMLUnstructuredGridReader()
    reader.SetFileName(path)
    reader.Update()
    if reader.GetErrorCode() != 0:
        raise SystemExit(f"{path}: VTK read error {reader.GetErrorCode()}")
    grid = reader.GetOutput()
    cells = grid.GetCells()
    points = grid.GetPoints()
    return {
        "points": [] if points is None else vtk_to_numpy(points.GetData()).reshape(-1).tolist(),
        "connectivity": vtk_to_numpy(cells.GetConnectivityArray()).tolist(),
        "offsets": vtk_to_numpy(cells.GetOffsetsArray()).tolist(),
        "types": [grid.GetCellType(i) for i in range(grid.GetNumberOfCells())],
        "point_data": arrays(grid.GetPointData()),
        "cell_data": arrays(grid.GetCellData()),
    }


def pvd(path):
    root = ET.parse(path).getroot()
    assert root.tag == "VTKFile" and root.get("type") == "Collection", root.attrib
    return {
        "datasets": [
            [float(d.get("timestep")), d.get("file")]
            for d in root.find("Collection").findall("DataSet")
        ]
    }


result = {}
for path in sys.argv[1:]:
    result[path] = pvd(path) if path.endswith(".pvd") else vtu(path)
print(json.dumps(result))
