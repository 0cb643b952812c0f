#!/usr/bin/env python3
"""Periodic triaxial tests from two initial densities: peak and critical-state friction.

The classic way to make a dense and a loose sample of the same grains (Thornton 2000) is to
compress them isotropically with a different interparticle friction: frictionless grains
slide into a dense packing, frictional ones lock early in a loose one. The test itself is
then run with the same friction for both. For each sample this script

1. writes `compress.ron`: 2000 glass spheres (radius 0.8-1.2 mm, +-20 %, uniform by
   number, the random gas of `scenes/triaxial.ron`) in a fully periodic cell, compressed
   isotropically under servo control to p0 = 10 kPa with friction MU_C until at rest
   (stress within 1 % of p0, unbalanced force below 1 %); the run ends with the stage
   (`stop: [Stages]`); `dem run` logs the cell's edges at that step;
2. writes `triaxial.ron`: the same spheres, read back from the compression's
   `particles.csv` (positions and radii) into a cell of those edges, with friction 0.5:
   stage 1 brings the sample to rest again at p0 (the contacts start afresh with the new
   friction), stage 2 shortens the cell along z at a strain rate of 1/s (inertial number
   about 1e-3) while the servo holds s_xx = s_yy = p0, to 30 % axial strain;
3. reads `stress.csv` of the axial stage: the axial strain is `1 - exp(-(t - t0))` (the
   cell's edge follows `dH/dt = L H`; t0 the time the axial stage started, from the log),
   the mobilised friction `sin(phi) = (s_zz - s_xx_yy) / (s_zz + s_xx_yy)` with s_xx_yy the
   mean lateral stress, and the volume fraction.

It prints, per sample: the volume fraction at the start of shearing, the peak friction
angle (the largest row), the critical-state angle and volume fraction (mean and standard
deviation of the rows between 20 % and 30 % axial strain), the ledger's drift over the
boundary work, and writes the plot (--plot).

Usage: python3 triaxial.py --dem ./target/release/dem --out out/triaxial
       [--plot docs/triaxial.png] [--analyse-only] [--threads 1]
"""
import argparse
import csv
import math
import os
import re
import subprocess
import sys

P0 = 1e4
MU = 0.5
SAMPLES = [("dense", 0.0), ("loose", 0.5)]
EDGE = 0.03

HEAD = """Scene(
    materials: {{
        "glass": (density: 2500, young: 1e7, poisson: 0.25, friction: {mu}),
    }},
    laws: [
        (materials: ("glass", "glass"), law: "Law2_L6Geom_LinearElPl",
         params: (kt_kn: 0.25, restitution: 0.5)),
    ],
"""

COMPRESS = HEAD + """    bodies: [
        RandomFill(min: (0, 0, 0), max: ({edge}, {edge}, {edge}), count: 2000,
                   radius: Uniform(0.0008, 0.0012), material: "glass", seed: 11),
    ],
    cell: (
        edges: (({edge}, 0, 0), (0, {edge}, 0), (0, 0, {edge})),
        periodic: "xyz",
        stages: [
            (stress: ({p0}, {p0}, {p0}), gain: 4, max_rate: 2,
             until: [StressReached(0.01), Unbalanced(0.01)]),
        ],
    ),
    stop: [Stages],
    gravity: (0, 0, 0),
    damping: 0.2,
    timestep: Critical(0.3),
    duration: Time(5),
    output: (every: 20000),
)
"""

TRIAXIAL = HEAD + """    bodies: [
        Csv(file: "{csv}", radius: 0.001, material: "glass"),
    ],
    cell: (
        edges: (({hx:.17g}, 0, 0), (0, {hy:.17g}, 0), (0, 0, {hz:.17g})),
        periodic: "xyz",
        stages: [
            (stress: ({p0}, {p0}, {p0}), gain: 4, max_rate: 2,
             until: [StressReached(0.01), Unbalanced(0.01)]),
            (velocity_gradient: ((0, 0, 0), (0, 0, 0), (0, 0, -1)),
             stress: ({p0}, {p0}, None), gain: 20, max_rate: 2,
             until: [Strain(2, -0.3)]),
        ],
    ),
    stop: [Stages],
    gravity: (0, 0, 0),
    damping: 0.2,
    timestep: Critical(0.3),
    duration: Time(5),
    output: (every: 500),
)
"""

STAGE_END = re.compile(
    r"cell stage (\d+) of (\d+) ended at step (\d+): edges H_xx, H_yy, H_zz = (\S+), (\S+), (\S+) m"
)


def run(dem, scene, out, threads, log):
    with open(log, "w") as f:
        subprocess.run(
            [dem, "run", scene, "--out", out, "--threads", str(threads)],
            check=True,
            stdout=f,
            stderr=subprocess.STDOUT,
        )


def stage_ends(log):
    """(stage, step, (H_xx, H_yy, H_zz)) for each stage end that `dem run` logged."""
    ends = []
    with open(log) as f:
        for line in f:
            m = STAGE_END.search(line)
            if m:
                ends.append((int(m.group(1)), int(m.group(3)), tuple(float(m.group(k)) for k in (4, 5, 6))))
    return ends


def read_rows(path):
    with open(path) as f:
        return [{k: float(v) for k, v in row.items()} for row in csv.DictReader(f)]


def simulate(dem, root, name, mu_c, threads):
    d = os.path.join(root, name)
    os.makedirs(d, exist_ok=True)
    compress = os.path.join(d, "compress.ron")
    with open(compress, "w") as f:
        f.write(COMPRESS.format(mu=mu_c, edge=EDGE, p0=P0))
    log = os.path.join(d, "compress.log")
    run(dem, compress, os.path.join(d, "compress"), threads, log)
    ends = stage_ends(log)
    if not ends:
        sys.exit(f"{log}: the compression did not end within its duration")
    _, _, (hx, hy, hz) = ends[-1]
    triaxial = os.path.join(d, "triaxial.ron")
    with open(triaxial, "w") as f:
        f.write(TRIAXIAL.format(mu=MU, csv="compress/particles.csv", hx=hx, hy=hy, hz=hz, p0=P0))
    run(dem, triaxial, os.path.join(d, "triaxial"), threads, os.path.join(d, "triaxial.log"))


def analyse(root, name):
    d = os.path.join(root, name)
    ends = stage_ends(os.path.join(d, "triaxial.log"))
    if len(ends) != 2:
        sys.exit(f"{d}/triaxial.log: expected the ends of two stages, found {len(ends)}")
    rows = read_rows(os.path.join(d, "triaxial", "stress.csv"))
    energy = read_rows(os.path.join(d, "triaxial", "energy.csv"))
    # The axial stage starts after the step that ended stage 1.
    start_step = ends[0][1]
    start = next(r for r in rows if r["step"] >= start_step)
    t0 = start["time"]
    curve = []
    for r in rows:
        if r["step"] < start_step:
            continue
        strain = 1.0 - math.exp(-(r["time"] - t0))
        lateral = 0.5 * (r["s_xx"] + r["s_yy"])
        sin_phi = (r["s_zz"] - lateral) / (r["s_zz"] + lateral)
        curve.append((strain, sin_phi, r["volume_fraction"], r["coordination"]))
    peak = max(curve, key=lambda c: c[1])
    window = [c for c in curve if 0.2 <= c[0] <= 0.3]
    mean = lambda xs: sum(xs) / len(xs)  # noqa: E731
    sd = lambda xs: math.sqrt(sum((x - mean(xs)) ** 2 for x in xs) / (len(xs) - 1))  # noqa: E731
    cs_sin = [c[1] for c in window]
    cs_phi = [c[2] for c in window]
    # The ledger's total starts at the elastic energy of the compressed packing read back.
    first, last = energy[0], energy[-1]
    scale = max(abs(last["boundary_work"]), 1e-300)
    return {
        "name": name,
        "curve": curve,
        "phi0": curve[0][2],
        "z0": curve[0][3],
        "peak_angle": math.degrees(math.asin(peak[1])),
        "peak_strain": peak[0],
        "cs_angle": math.degrees(math.asin(mean(cs_sin))),
        "cs_angle_sd": math.degrees(sd(cs_sin) / math.sqrt(1.0 - mean(cs_sin) ** 2)),
        "cs_phi": mean(cs_phi),
        "cs_phi_sd": sd(cs_phi),
        "cs_rows": len(window),
        "ledger": (last["total"] - first["total"]) / scale,
        "boundary_work": last["boundary_work"],
    }


def plot(results, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (a, b) = plt.subplots(2, 1, figsize=(6, 7), sharex=True)
    for r, style in zip(results, ["-", "--"]):
        e = [100 * c[0] for c in r["curve"]]
        a.plot(e, [math.degrees(math.asin(c[1])) for c in r["curve"]], style, label=f"{r['name']} (start {r['phi0']:.3f})")
        b.plot(e, [c[2] for c in r["curve"]], style, label=r["name"])
    a.set_ylabel("mobilised friction angle (deg)")
    a.legend()
    a.grid(alpha=0.3)
    b.set_xlabel("axial strain (%)")
    b.set_ylabel("volume fraction")
    b.grid(alpha=0.3)
    a.set_title(f"periodic triaxial, 2000 spheres, friction {MU}, p0 = {P0 / 1e3:g} kPa")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dem", default="./target/release/dem")
    ap.add_argument("--out", default="out/triaxial")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--plot")
    ap.add_argument("--analyse-only", action="store_true")
    args = ap.parse_args()
    root = os.path.abspath(args.out)
    if not args.analyse_only:
        for name, mu_c in SAMPLES:
            simulate(os.path.abspath(args.dem), root, name, mu_c, args.threads)
    results = [analyse(root, name) for name, _ in SAMPLES]
    print("| sample | compression friction | phi at start | Z at start | peak angle (deg) | at strain | critical angle (deg) | critical phi | ledger / boundary work |")
    print("|---|---|---|---|---|---|---|---|---|")
    for (name, mu_c), r in zip(SAMPLES, results):
        print(
            f"| {name} | {mu_c} | {r['phi0']:.4f} | {r['z0']:.2f} | {r['peak_angle']:.1f} | {100 * r['peak_strain']:.1f} % "
            f"| {r['cs_angle']:.1f} ± {r['cs_angle_sd']:.1f} | {r['cs_phi']:.4f} ± {r['cs_phi_sd']:.4f} | {r['ledger']:.1e} |"
        )
    if args.plot:
        plot(results, args.plot)
        print(f"plot: {args.plot}")


if __name__ == "__main__":
    main()
