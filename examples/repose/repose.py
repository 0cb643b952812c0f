#!/usr/bin/env python3
"""Angle of repose: a heap of clumps against the same heap of spheres (issue 24).

Particles are poured from a small inlet above the centre of a rough circular plate (a
square grid of fixed spheres, radius 2 mm at 4 mm spacing, within R_PLATE = 40 mm of the
axis); what rolls off the plate falls into an outlet below it. The two scenes differ only
in the inlet's `shape`: spheres, or triangular clumps of three overlapping equal spheres
(`tri`), both with the volume-equivalent radius uniform in [1.8, 2.2] mm, the same
material (density 2500 kg/m^3, friction 0.5 everywhere, linear law with restitution
0.3), the same rate and number (600 particles/s, 1500 in all: 2.5 s) and then 1 s to
come to rest.

Measurement (from the final particles.csv): the heap's particles are the rows of kind
`Sphere` (the free spheres; the plate's fixed spheres have the first ids and are left out)
or `Clump` (by centroid) whose centre is above the plate. The plate's disc is cut into
cells of about one particle diameter (rings of width DR = 4 mm, each ring into sectors of
arc length about DR); the surface height of a cell is the highest centre in it. The
surface profile h(r) is the mean over the cells of a ring of their surface heights, and
the angle of repose is atan(-slope) of the least-squares line h = a + b r fitted over the
flank, rings with centres between 0.3 R_PLATE and 0.85 R_PLATE (the rounded top and the
plate's edge left out); its error is from the spread of the same fit over 8 sectors of
45 degrees (standard deviation / sqrt(8)). A second estimate, atan((h_top - h_edge) /
(0.85 - 0.3) R_PLATE) from the same rings' mean heights, is printed as a check.

Usage:
    python3 repose.py write --out out/repose   # writes spheres.ron and clumps.ron there
    python3 repose.py run --dem ./target/release/dem --out out/repose   # writes, runs, measures
    python3 repose.py measure out/repose/spheres/particles.csv
"""
import argparse
import csv
import math
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
R_PLATE = 0.040
PLATE_SPHERE = 0.002
PLATE_SPACING = 0.004
DR = 0.004
BAND = (0.3, 0.85)
SECTORS = 8
BLOCKINESS = [2, 3, 4, 6]


def plate_spheres():
    """Centres of the plate's fixed spheres: a square grid within R_PLATE of the axis."""
    n = int(R_PLATE / PLATE_SPACING)
    out = []
    for i in range(-n, n + 1):
        for j in range(-n, n + 1):
            x, y = i * PLATE_SPACING, j * PLATE_SPACING
            if math.hypot(x, y) <= R_PLATE:
                out.append((x, y))
    return out


def scene(shape):
    plate = "\n".join(
        f'        Sphere(center: ({x:.4f}, {y:.4f}, {PLATE_SPHERE}), radius: {PLATE_SPHERE}, '
        f'material: "grain", blocked: "xyzXYZ"),'
        for x, y in plate_spheres()
    )
    what = WHAT[shape]
    return f"""// Angle of repose: {what} poured onto a rough plate (written by repose.py; see
// that script and docs/scenes.md, clumps). The plate: {len(plate_spheres())} fixed spheres of
// radius 2 mm on a 4 mm square grid within 40 mm of the axis; what rolls off it falls into
// the outlet. 1500 particles of volume-equivalent radius 1.8 to 2.2 mm, 600/s (2.5 s), then
// 1 s to come to rest. Run: dem run {NAME[shape]}.ron --threads 1 --out DIR;
// measure: python3 examples/repose/repose.py measure DIR/particles.csv
Scene(
    materials: {{
        "grain": (density: 2500, young: 1e6, poisson: 0.3, friction: 0.5),
    }},
    laws: [
        (materials: ("grain", "grain"), law: "Law2_L6Geom_LinearElPl",
         params: (kt_kn: 0.25, restitution: 0.3)),
    ],
    clump_templates: {{
        // Three equal spheres at the corners of an equilateral triangle, side = radius.
        "tri": (members: [((0, 0, 0), 1.0), ((1.0, 0, 0), 1.0), ((0.5, 0.8660254037844386, 0), 1.0)]),
    }},
    bodies: [
{plate}
    ],
    inlets: [
        Inlet(name: "pour", region: Cylinder(base: (0, 0, 0.05), axis: (0, 0, 1), radius: 0.010,
              height: 0.025),
              shape: {shape}, radius: Uniform(0.0018, 0.0022), material: "grain",
              rate: Number(600), total: 1500, velocity: (0, 0, -0.5), velocity_spread: 0.02,
              seed: 1, every: 200, attempts: 50),
    ],
    outlets: [
        Outlet(name: "off", region: Box(min: (-1, -1, -1), max: (1, 1, -0.02))),
    ],
    gravity: (0, 0, -9.81),
    timestep: Critical(0.15),
    duration: Time(3.5),
    output: (every: 20000),{CONTACTS if "Superquadric" in shape else ""}
)
"""


def superquadric(n):
    """The inlet's shape for superquadrics of equal half-axes and blockiness (n, n): from
    the sphere (n = 2) towards the cube."""
    return f'Shaped(shape: "Superquadric", params: (half_axes: (1, 1, 1), blockiness: ({n}, {n})))'


# The scenes: name, the inlet's shape, what it is.
SHAPES = [("spheres", "Sphere", "spheres"),
          ("clumps", 'Clump("tri")', "triangular clumps of three spheres")]
SHAPES += [(f"superquadrics_{n}", superquadric(n),
            f"superquadrics of equal half-axes and blockiness ({n}, {n})") for n in BLOCKINESS]
NAME = {shape: name for name, shape, _ in SHAPES}
WHAT = {shape: what for _, shape, what in SHAPES}
# Aspherical bodies of a plugin shape need the true branch vectors, and the normal rate
# from the contact point's velocity (docs/scenes.md, `point_rate`).
CONTACTS = "\n    contacts: (l6geom: (no_ratch: false, point_rate: true)),"


def write(out, names=None):
    """Writes the scenes (all, or those of `names`) into `out` (they differ only in the
    inlet's shape, so they are written, not kept several times in the repository)."""
    os.makedirs(out, exist_ok=True)
    for name, shape, _ in SHAPES:
        if names and name not in names:
            continue
        path = os.path.join(out, f"{name}.ron")
        with open(path, "w") as f:
            f.write(scene(shape))
        print("wrote", path)


def read(path):
    """(x, y, z) of the heap's particles: free spheres and clumps, not the plate."""
    n_plate = len(plate_spheres())
    out = []
    with open(path) as f:
        for row in csv.DictReader(f):
            if row["kind"] not in ("Sphere", "Clump", "Superquadric") or int(row["id"]) < n_plate:
                continue
            x, y, z = float(row["x"]), float(row["y"]), float(row["z"])
            if math.hypot(x, y) <= R_PLATE and z > 0:
                out.append((x, y, z))
    return out


def fit(rs, hs):
    n = len(rs)
    mr, mh = sum(rs) / n, sum(hs) / n
    sxx = sum((r - mr) ** 2 for r in rs)
    b = sum((r - mr) * (h - mh) for r, h in zip(rs, hs)) / sxx
    return mh - b * mr, b


def profile(points, sector=None):
    """Ring centres and mean surface heights (over the ring's cells, or those of one of
    the SECTORS sectors)."""
    rings = int(R_PLATE / DR)
    tops = {}
    for x, y, z in points:
        r, phi = math.hypot(x, y), math.atan2(y, x) % (2 * math.pi)
        k = min(int(r / DR), rings - 1)
        if sector is not None and int(phi / (2 * math.pi / SECTORS)) != sector:
            continue
        cells = max(1, round(2 * math.pi * (k + 0.5) * DR / DR))
        c = int(phi / (2 * math.pi / cells))
        tops[(k, c)] = max(tops.get((k, c), -1.0), z)
    rs, hs = [], []
    for k in range(rings):
        zs = [z for (kk, _), z in tops.items() if kk == k]
        if zs:
            rs.append((k + 0.5) * DR)
            hs.append(sum(zs) / len(zs))
    return rs, hs


def angle(rs, hs):
    band = [(r, h) for r, h in zip(rs, hs) if BAND[0] * R_PLATE <= r <= BAND[1] * R_PLATE]
    a, b = fit([r for r, _ in band], [h for _, h in band])
    return math.degrees(math.atan(-b)), band


def measure(path):
    points = read(path)
    rs, hs = profile(points)
    alpha, band = angle(rs, hs)
    per_sector = [angle(*profile(points, s))[0] for s in range(SECTORS)]
    m = sum(per_sector) / SECTORS
    sd = math.sqrt(sum((a - m) ** 2 for a in per_sector) / (SECTORS - 1))
    chord = math.degrees(math.atan((band[0][1] - band[-1][1]) / (band[-1][0] - band[0][0])))
    print(f"{path}: {len(points)} particles on the plate, top at {max(p[2] for p in points) * 1e3:.1f} mm")
    print("  r (mm)  h (mm)")
    for r, h in zip(rs, hs):
        print(f"  {r * 1e3:6.1f}  {h * 1e3:6.2f}")
    print(f"  angle of repose {alpha:.1f} deg +- {sd / math.sqrt(SECTORS):.1f} "
          f"(sectors {', '.join(f'{a:.1f}' for a in per_sector)}); chord {chord:.1f} deg")
    return alpha


def run(dem, out, names):
    names = names or ["spheres", "clumps"]
    write(out, names)
    for name in names:
        d = os.path.join(out, name)
        cmd = ["nice", "-n", "10", dem, "run", os.path.join(out, f"{name}.ron"), "--threads", "1",
               "--out", d]
        print(" ".join(cmd), flush=True)
        subprocess.run(cmd, check=True)
    for name in names:
        measure(os.path.join(out, name, "particles.csv"))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    w = sub.add_parser("write")
    w.add_argument("--out", default="out/repose")
    r = sub.add_parser("run")
    r.add_argument("--dem", default=os.path.join(HERE, "..", "..", "target", "release", "dem"))
    r.add_argument("--out", default="out/repose")
    r.add_argument("names", nargs="*", help="scenes to run (default: spheres clumps), of: "
                   + ", ".join(n for n, _, _ in SHAPES))
    m = sub.add_parser("measure")
    m.add_argument("csv", nargs="+")
    a = ap.parse_args()
    if a.cmd == "write":
        write(a.out)
    elif a.cmd == "run":
        run(a.dem, a.out, a.names)
    else:
        for p in a.csv:
            measure(p)


if __name__ == "__main__":
    sys.exit(main())
