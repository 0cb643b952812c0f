#!/usr/bin/env python3
"""Export the rocks of a dem `polyhedra_<step>.vtu` frame as vertex lists.

dem writes one polygon per face with its own copy of the face's vertices, in the world
frame, and the cell arrays `id`, `velocity` and `angular_velocity` (raw appended data,
UInt64 block headers). This script groups the points by body id, removes the duplicate
copies, and writes one JSON object per rock:

    {"id": 0, "vertices": [[x, y, z], ...], "velocity": [..], "angular_velocity": [..]}

Usage: export_rocks.py FRAME.vtu OUT.jsonl
Standard library only (no numpy, no vtk), so it runs under any Python 3.
"""

import json
import re
import struct
import sys

TYPES = {"Int64": "q", "Int32": "i", "UInt8": "B", "Float64": "d", "UInt64": "Q"}


def read_arrays(path):
    """Return {name: (list of values, components)} for every appended DataArray."""
    raw = open(path, "rb").read()
    mark = raw.index(b"<AppendedData")
    start = raw.index(b"_", mark) + 1
    head = raw[:mark].decode()
    if 'header_type="UInt64"' not in head or "LittleEndian" not in head:
        sys.exit(f"{path}: expected little-endian raw appended data with UInt64 headers")
    arrays = {}
    for tag in re.findall(r"<DataArray[^>]*>", head):
        attr = dict(re.findall(r'(\w+)="([^"]*)"', tag))
        code = TYPES[attr["type"]]
        pos = start + int(attr["offset"])
        (nbytes,) = struct.unpack_from("<Q", raw, pos)
        count = nbytes // struct.calcsize(code)
        values = struct.unpack_from(f"<{count}{code}", raw, pos + 8)
        arrays[attr["Name"]] = (values, int(attr.get("NumberOfComponents", "1")))
    return arrays


def rocks(arrays):
    """Group the faces' points by body id; yield (id, vertices, v, w) in id order."""
    ids = arrays["id"][0]
    pts = arrays["Points"][0]
    conn = arrays["connectivity"][0]
    offs = arrays["offsets"][0]
    vel = arrays["velocity"][0]
    ang = arrays["angular_velocity"][0]
    bodies = {}
    begin = 0
    for cell, end in enumerate(offs):
        body = bodies.setdefault(ids[cell], {"verts": {}, "cell": cell})
        for p in conn[begin:end]:
            xyz = tuple(pts[3 * p : 3 * p + 3])
            # copies of one vertex are bitwise equal: dem writes them from one value
            body["verts"][xyz] = None
        begin = end
    for bid in sorted(bodies):
        c = bodies[bid]["cell"]
        yield bid, list(bodies[bid]["verts"]), vel[3 * c : 3 * c + 3], ang[3 * c : 3 * c + 3]


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    n = 0
    with open(sys.argv[2], "w") as out:
        for bid, verts, v, w in rocks(read_arrays(sys.argv[1])):
            out.write(
                json.dumps(
                    {"id": bid, "vertices": verts, "velocity": list(v), "angular_velocity": list(w)}
                )
                + "\n"
            )
            n += 1
    print(f"{sys.argv[2]}: {n} rocks")


if __name__ == "__main__":
    main()
