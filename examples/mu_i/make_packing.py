#!/usr/bin/env python3
"""mu(I) study, step 2: hand the packing compressed by dem (compress.ron) to both codes.

Reads the final state of the compression run (particles.csv) and the cell edges that
`dem run` logs at the end of the compression stage (the run's log, saved as log.txt),
wraps the centres into the cell, sets every velocity and spin to zero (both codes start
the shear from the same packing at rest, without tangential history) and writes:
  packing.csv   for dem  (Csv body: x, y, z, radius)
  packing.data  for LAMMPS (read_data, atom_style sphere: id type diameter density x y z,
                triclinic box with zero tilt so that fix deform may tilt it)
Usage: make_packing.py COMPRESS_OUT_DIR DEST_DIR
"""
import re
import sys
from pathlib import Path

import numpy as np

DENSITY = 2500.0  # kg/m^3, as in compress.ron


def cell_edges(log: str):
    """Diagonal of the cell at the end of the compression stage, m (last such line)."""
    found = re.findall(r"edges H_xx, H_yy, H_zz = ([^,\s]+), ([^,\s]+), ([^,\s]+) m", log)
    if not found:
        sys.exit("make_packing.py: no 'edges H_xx, H_yy, H_zz = ...' line in the log")
    return np.array([float(v) for v in found[-1]])


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    src, dest = Path(sys.argv[1]), Path(sys.argv[2])
    edges = cell_edges((src / "log.txt").read_text())
    rows = np.genfromtxt(src / "particles.csv", delimiter=",", names=True, dtype=None,
                         encoding="utf-8")
    rows = rows[rows["kind"] == "Sphere"]
    x = np.stack([rows["x"], rows["y"], rows["z"]], axis=1)
    x = np.mod(x, edges)  # wrap into [0, L)
    x, r, edges = x.tolist(), rows["radius"].tolist(), edges.tolist()
    dest.mkdir(parents=True, exist_ok=True)
    with open(dest / "packing.csv", "w") as f:
        f.write(f"# {len(r)} spheres compressed to 1 kPa by compress.ron; cell edges "
                f"{edges[0]!r} {edges[1]!r} {edges[2]!r} m\n")
        f.write("x,y,z,radius\n")
        for p, q in zip(x, r):
            f.write(f"{p[0]!r},{p[1]!r},{p[2]!r},{q!r}\n")
    with open(dest / "packing.data", "w") as f:
        f.write("mu(I) study: packing compressed to 1 kPa by dem (compress.ron)\n\n")
        f.write(f"{len(r)} atoms\n1 atom types\n\n")
        f.write(f"0.0 {edges[0]!r} xlo xhi\n0.0 {edges[1]!r} ylo yhi\n"
                f"0.0 {edges[2]!r} zlo zhi\n0.0 0.0 0.0 xy xz yz\n\nAtoms # sphere\n\n")
        for i, (p, q) in enumerate(zip(x, r)):
            f.write(f"{i + 1} 1 {2 * q!r} {DENSITY!r} {p[0]!r} {p[1]!r} {p[2]!r}\n")
    phi = (4.0 / 3.0 * np.pi * np.array(r) ** 3).sum() / np.prod(edges)
    print(f"{len(r)} spheres, cell {edges} m, volume fraction {phi:.4f}, "
          f"mean diameter {2 * np.mean(r):.6e} m")
    # The cell edges the shear scenes must give (dem reads them from the scene).
    print(f"cell edges for the dem scenes: (({edges[0]!r}, 0, 0), (0, {edges[1]!r}, 0), "
          f"(0, 0, {edges[2]!r}))")


if __name__ == "__main__":
    main()
