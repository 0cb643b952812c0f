#!/usr/bin/env python3
"""Writes the LAMMPS data file of the dense bed from the CSV dem reads, with the same
decimal text for every number, so that both codes start from the same doubles.

    python3 bench/lammps/bed.py [scenes/data/bed_N10000.csv] [bench/lammps/data.bed_N10000]
"""
import sys

src = sys.argv[1] if len(sys.argv) > 1 else "scenes/data/bed_N10000.csv"
dst = sys.argv[2] if len(sys.argv) > 2 else "bench/lammps/data.bed_N10000"
# The box of scenes/bench-settle.ron (and of in.settle_hooke at N = 10,000), m.
BOX = ("0", "0.02625"), ("0", "0.041999999999999996"), ("0", "0.0126")
DIAMETER, DENSITY = "0.001", "2500"

rows = []
with open(src) as f:
    header = None
    for line in f:
        if line.startswith("#"):
            continue
        cells = line.strip().split(",")
        if header is None:
            header = cells
            continue
        rows.append(dict(zip(header, cells)))

with open(dst, "w") as out:
    out.write(f"LAMMPS data file: the dense bed of the settle benchmark, from {src}\n\n")
    out.write(f"{len(rows)} atoms\n1 atom types\n\n")
    for (lo, hi), axis in zip(BOX, "xyz"):
        out.write(f"{lo} {hi} {axis}lo {axis}hi\n")
    out.write("\nAtoms # sphere\n\n")
    for r in rows:
        out.write(f"{r['id']} 1 {DIAMETER} {DENSITY} {r['x']} {r['y']} {r['z']}\n")
    out.write("\nVelocities\n\n")
    for r in rows:
        v = " ".join(r[k] for k in ("vx", "vy", "vz", "wx", "wy", "wz"))
        out.write(f"{r['id']} {v}\n")
