#!/usr/bin/env python3
"""Beverloo check: discharge of a flat-bottomed cylindrical silo through four orifices.

For each orifice diameter D (D/d = 5, 7, 9, 11 by default) this script writes a scene
(silo and gate meshes included) under OUT/D<n>/, runs `dem run` on it, reads flow.csv and
particles.csv, and then fits Beverloo's law

    W = C rho_b sqrt(g) (D - k d)^(5/2)

to the measured steady mass flow rates W, by least squares in C and k. It prints the
table and the fit with their standard errors and writes the plot (--plot).

The silo: radius 60 mm (30 d across), floor an annulus around a central orifice, closed
by a gate plate under the floor that slides away at 0.5 m/s. Glass spheres of diameter
d = 4 mm +- 5 % (uniform by number: a little spread keeps the bed from crystallising on
the flat floor); linear law, restitution 0.5, friction 0.3 everywhere. 14,000 spheres are
inserted at t = 0 into a tall region and settle; the gate starts to uncover the orifice
at t = T_OPEN. A feed inlet then pours spheres onto the bed at about the discharge rate
(Beverloo's estimate with C = 0.58, k = 1.5) so that the bed height stays roughly
constant; the flow rate through the orifice does not depend on the bed height once the
bed is higher than the orifice is wide (the height is reported). Spheres that fall 5 cm
below the floor leave through the outlet.

W is the slope of the discharged mass against time over the window [T_OPEN + 0.3 s, end]
(flow.csv, every output step), its error the slope's standard error from the residuals
of ten 0.1 s-long batch rates. rho_b is the bulk density of the bed at rest just before
the gate opens (the last VTK frame before it): the mass of the spheres (exact sphere-slab intersections) in a slab from
z = 10 mm to z = 40 mm over the silo's cross-section, divided by the slab's volume.

Usage: python3 beverloo.py --dem ./target/release/dem --out out/beverloo [--ratios 5 7 9 11]
       [--plot docs/beverloo.png] [--analyse-only]
"""
import argparse
import csv
import math
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scenes", "meshes"))
import make_meshes  # noqa: E402  (the silo mesh and the STL writer of the shipped scenes)

D_PARTICLE = 0.004
R_SILO = 0.06
H_SILO = 0.32
DENSITY = 2500.0
G = 9.81
T_OPEN = 0.45
GATE_SPEED = 0.5
DURATION = 1.6
N_FILL = 14000
SLAB = (0.010, 0.040)
N_RING = 64


def silo_triangles(orifice_radius):
    return make_meshes.silo(R_SILO, H_SILO, orifice_radius, n=N_RING, wall_bands=6, floor_bands=3)


def write_gate(path, orifice_radius):
    # The plate's trailing edge reaches the orifice's near rim at T_OPEN.
    x0 = -orifice_radius - GATE_SPEED * T_OPEN
    x1 = orifice_radius + 0.01
    y = orifice_radius + 0.01
    z = -0.003
    with open(path, "w") as f:
        f.write("# beverloo gate\n")
        for v in [(x0, -y, z), (x1, -y, z), (x1, y, z), (x0, y, z)]:
            f.write("v %.17g %.17g %.17g\n" % v)
        f.write("f 1 2 3\nf 1 3 4\n")


def beverloo_estimate(orifice):
    rho_b = 0.6 * DENSITY
    return 0.58 * rho_b * math.sqrt(G) * max(orifice - 1.5 * D_PARTICLE, 0.0) ** 2.5


def write_scene(path, orifice):
    feed = beverloo_estimate(orifice)
    r = D_PARTICLE / 2
    text = f"""// Beverloo study, orifice D = {orifice * 1e3:.1f} mm (D/d = {orifice / D_PARTICLE:g}),
// written by examples/beverloo/beverloo.py.
Scene(
    materials: {{
        "glass": (density: {DENSITY}, young: 1e6, poisson: 0.25, friction: 0.3),
        "steel": (density: 7800, young: 1e6, poisson: 0.3, friction: 0.3),
    }},
    laws: [
        (materials: ("*", "*"), law: "Law2_L6Geom_LinearElPl",
         params: (kt_kn: 0.25, restitution: 0.5)),
    ],
    bodies: [
        Mesh(file: "silo.stl", material: "steel", name: "silo"),
        Mesh(file: "gate.obj", material: "steel", name: "gate",
             motion: Translate(velocity: ({GATE_SPEED}, 0, 0))),
    ],
    inlets: [
        Inlet(name: "fill", region: Cylinder(base: (0, 0, 0.004), axis: (0, 0, 1),
                                             radius: {R_SILO - 0.003}, height: {H_SILO - 0.01}),
              radius: Uniform({r * 0.95}, {r * 1.05}), material: "glass", rate: Number(1e7),
              total: {N_FILL}, every: 1, attempts: 200, seed: 3),
        Inlet(name: "feed", region: Cylinder(base: (0, 0, 0.13), axis: (0, 0, 1),
                                             radius: {R_SILO - 0.003}, height: 0.05),
              radius: Uniform({r * 0.95}, {r * 1.05}), material: "glass",
              rate: Mass({feed:.6g}), start: {T_OPEN}, velocity: (0, 0, -0.5), seed: 5),
    ],
    outlets: [
        Outlet(name: "discharge", region: Box(min: (-1, -1, -1), max: (1, 1, -0.05))),
    ],
    gravity: (0, 0, -9.81),
    timestep: Critical(0.25),
    duration: Time({DURATION}),
    output: (every: 1000),
)
"""
    with open(path, "w") as f:
        f.write(text)


def read_flow(path):
    rows = []
    with open(path) as f:
        for row in csv.DictReader(f):
            if row["name"] == "discharge":
                rows.append((float(row["time"]), float(row["mass"]), int(row["count"])))
    return rows


def slope(ts, ms):
    n = len(ts)
    tm = sum(ts) / n
    mm = sum(ms) / n
    sxx = sum((t - tm) ** 2 for t in ts)
    return sum((t - tm) * (m - mm) for t, m in zip(ts, ms)) / sxx


def steady_rate(rows):
    """Slope of discharged mass over the steady window, and its error from batch rates."""
    t0 = T_OPEN + 0.3
    pts = [(t, m) for t, m, _ in rows if t >= t0 - 1e-12]
    w = slope([p[0] for p in pts], [p[1] for p in pts])
    # Batch rates over ten equal sub-windows: their spread gives the error of the mean.
    t_end = pts[-1][0]
    batches = []
    nb = 10
    for b in range(nb):
        lo, hi = t0 + (t_end - t0) * b / nb, t0 + (t_end - t0) * (b + 1) / nb
        sub = [p for p in pts if lo - 1e-12 <= p[0] <= hi + 1e-12]
        if len(sub) >= 2:
            batches.append((sub[-1][1] - sub[0][1]) / (sub[-1][0] - sub[0][0]))
    mean = sum(batches) / len(batches)
    sd = math.sqrt(sum((x - mean) ** 2 for x in batches) / (len(batches) - 1))
    return w, sd / math.sqrt(len(batches)), t0, t_end


def cap_volume(r, h):
    """Volume of a spherical cap of height h (0 <= h <= 2r)."""
    h = min(max(h, 0.0), 2 * r)
    return math.pi * h * h * (3 * r - h) / 3


def slab_volume(zc, r, z1, z2):
    """Volume of the sphere (centre height zc, radius r) between the planes z1 < z2."""
    below = lambda z: cap_volume(r, z - (zc - r))  # part of the sphere under the plane z
    return below(z2) - below(z1)


def frames(out):
    """(time, path) of each particles frame of a run, from particles.pvd."""
    import xml.etree.ElementTree as ET

    root = ET.parse(os.path.join(out, "particles.pvd")).getroot()
    return [(float(d.get("timestep")), os.path.join(out, d.get("file"))) for d in root.iter("DataSet")]


def spheres(vtu):
    """Centres and radii of the spheres of one VTK frame (walls and facets have radius 0)."""
    import vtk
    from vtk.util.numpy_support import vtk_to_numpy

    reader = vtk.vtkXMLUnstructuredGridReader()
    reader.SetFileName(vtu)
    reader.Update()
    grid = reader.GetOutput()
    pos = vtk_to_numpy(grid.GetPoints().GetData())
    rad = vtk_to_numpy(grid.GetPointData().GetArray("radius"))
    return [(p, r) for p, r in zip(pos, rad) if r > 0]


def bulk_density(vtu):
    mass = sum(DENSITY * slab_volume(float(p[2]), float(r), *SLAB) for p, r in spheres(vtu))
    return mass / (math.pi * R_SILO**2 * (SLAB[1] - SLAB[0]))


def bed_height(vtu):
    """Height under which 95 % of the spheres inside the silo lie (the feed's falling
    spheres are above it)."""
    zs = sorted(float(p[2]) for p, _ in spheres(vtu) if p[2] > 0)
    return zs[int(0.95 * (len(zs) - 1))] if zs else 0.0


def fit(ds, ws, rho_bs, es):
    """Weighted least squares of W = C rho_b sqrt(g) (D - k d)^2.5 in (C, k) by Gauss-Newton."""
    c, k = 0.58, 1.5
    for _ in range(100):
        jtj = [[0.0, 0.0], [0.0, 0.0]]
        jtr = [0.0, 0.0]
        for D, w, rb, e in zip(ds, ws, rho_bs, es):
            base = D - k * D_PARTICLE
            f = c * rb * math.sqrt(G) * base**2.5
            dc = rb * math.sqrt(G) * base**2.5
            dk = c * rb * math.sqrt(G) * 2.5 * base**1.5 * (-D_PARTICLE)
            wt = 1.0 / (e * e)
            res = w - f
            jtj[0][0] += wt * dc * dc
            jtj[0][1] += wt * dc * dk
            jtj[1][1] += wt * dk * dk
            jtr[0] += wt * dc * res
            jtr[1] += wt * dk * res
        jtj[1][0] = jtj[0][1]
        det = jtj[0][0] * jtj[1][1] - jtj[0][1] ** 2
        dcs = (jtj[1][1] * jtr[0] - jtj[0][1] * jtr[1]) / det
        dks = (-jtj[1][0] * jtr[0] + jtj[0][0] * jtr[1]) / det
        c += dcs
        k += dks
        if abs(dcs) < 1e-12 and abs(dks) < 1e-12:
            break
    # Covariance, scaled by the reduced chi-square when it exceeds 1.
    chi2 = sum(
        ((w - c * rb * math.sqrt(G) * (D - k * D_PARTICLE) ** 2.5) / e) ** 2
        for D, w, rb, e in zip(ds, ws, rho_bs, es)
    )
    dof = max(len(ds) - 2, 1)
    scale = max(chi2 / dof, 1.0)
    cov_cc = jtj[1][1] / det * scale
    cov_kk = jtj[0][0] / det * scale
    return c, math.sqrt(cov_cc), k, math.sqrt(cov_kk), chi2 / dof


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dem", default="./target/release/dem")
    ap.add_argument("--out", default="out/beverloo")
    ap.add_argument("--ratios", type=float, nargs="+", default=[5, 7, 9, 11])
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--plot")
    ap.add_argument("--analyse-only", action="store_true")
    args = ap.parse_args()

    results = []
    for ratio in args.ratios:
        orifice = ratio * D_PARTICLE
        run = os.path.join(args.out, "D%g" % ratio)
        if not args.analyse_only:
            os.makedirs(run, exist_ok=True)
            make_meshes.write_binary_stl(os.path.join(run, "silo.stl"), silo_triangles(orifice / 2))
            write_gate(os.path.join(run, "gate.obj"), orifice / 2)
            write_scene(os.path.join(run, "scene.ron"), orifice)
            subprocess.run(
                [args.dem, "run", os.path.join(run, "scene.ron"), "--out", os.path.join(run, "out"),
                 "--threads", str(args.threads), "--quiet"],
                check=True,
            )
        results.append((ratio, orifice, run))

    print("| D/d | D mm | W kg/s | err | rho_b kg/m^3 | lowest bed height mm | window s |")
    print("|---|---|---|---|---|---|---|")
    ds, ws, rbs, es = [], [], [], []
    for ratio, orifice, run in results:
        out = os.path.join(run, "out")
        rows = read_flow(os.path.join(out, "flow.csv"))
        w, e, t0, t1 = steady_rate(rows)
        fr = frames(out)
        rest = max((f for f in fr if f[0] <= T_OPEN), key=lambda f: f[0])
        rb = bulk_density(rest[1])
        hb = min(bed_height(p) for t, p in fr if t >= t0)
        print(f"| {ratio:g} | {orifice * 1e3:.0f} | {w:.4f} | {e:.4f} | {rb:.0f} | {hb * 1e3:.0f} | {t0:.2f}-{t1:.2f} |")
        ds.append(orifice)
        ws.append(w)
        rbs.append(rb)
        es.append(e)
    if len(ds) < 3:
        print("fewer than three orifices: no fit")
        return 0
    c, ec, k, ek, chi = fit(ds, ws, rbs, es)
    print(f"fit: C = {c:.3f} +- {ec:.3f}, k = {k:.2f} +- {ek:.2f} (reduced chi^2 {chi:.2f})")
    if args.plot:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(5, 4))
        xs = [(D / D_PARTICLE) for D in ds]
        ax.errorbar(xs, ws, yerr=es, fmt="o", label="dem")
        rb = sum(rbs) / len(rbs)
        grid = [5 + 0.05 * i for i in range(int((max(xs) + 1 - 5) / 0.05))]
        ax.plot(grid, [c * rb * math.sqrt(G) * max(x * D_PARTICLE - k * D_PARTICLE, 0) ** 2.5 for x in grid],
                label=f"fit C={c:.2f}, k={k:.2f}")
        ax.plot(grid, [0.58 * rb * math.sqrt(G) * max(x * D_PARTICLE - 1.5 * D_PARTICLE, 0) ** 2.5 for x in grid],
                "--", label="C=0.58, k=1.5")
        ax.set_xlabel("D/d")
        ax.set_ylabel("W (kg/s)")
        ax.set_title("Silo discharge: Beverloo")
        ax.legend()
        fig.tight_layout()
        fig.savefig(args.plot, dpi=120)


if __name__ == "__main__":
    sys.exit(main())
