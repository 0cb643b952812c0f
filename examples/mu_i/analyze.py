#!/usr/bin/env python3
"""mu(I) study, step 4: the steady-state friction coefficient mu = tau / p, volume fraction
phi and inertial number I of the dem and LAMMPS runs, side by side, with standard errors.

Inputs (the runs of README.md here, or the copies in results/):
  dem:    DIR/dem_I<I>.csv      (dem's stress.csv of shear_I<I>.ron)
  LAMMPS: DIR/lammps_I<I>.txt   (the `fix ave/time` file of in.shear)
Optional: DIR/dem_I<I>.time, DIR/lammps_I<I>.time (output of /usr/bin/time -v): CPU time.

Both codes write instantaneous values at the same steps (every strain 0.02). The steady
window is the shear strain from START (1 by default) to the run's end. Means over the window;
mu is the ratio of the means of tau and p. Standard errors from NB (default 5) consecutive
blocks of the window: se = std(block values, ddof=1) / sqrt(NB), each block's mu the ratio of
its means. The blocks are 0.54 (I = 1e-3, whose dem run stopped at strain 3.74) or 1
strain long: tau / p decorrelates within a
strain of about 0.1 and phi within 0.2-0.3, but at I = 1e-1 phi wanders over a strain of
about 1, so that 10 blocks would understate its error (docs/shear.md).

The shear stress compared is the same component in both codes: LAMMPS' pxy is the sum of
(x_i - x_j)_x f_y over pairs (branch x, force y), dem's s_yx (row = force y, column =
branch x); tau = -s_yx, p = s_yy (both compression positive). I = gamma_dot d / sqrt(p /
rho) with d the packing's mean diameter and p the measured mean s_yy.

Usage: analyze.py [DIR] [--start 1.0] [--blocks 10] [--plot PREFIX]
"""
import argparse
import re
from pathlib import Path

import numpy as np

RHO = 2500.0  # kg/m^3
D_NOMINAL = 1.0e-3  # m, the diameter the shear rates were set with
P_TARGET = 1.0e3  # Pa
DT = 2.5e-6  # s
LEVELS = ["1e-3", "1e-2", "1e-1"]
STEPS = {"1e-3": 2530000, "1e-2": 380000, "1e-1": 38000}  # of each run, both codes


def rate(level):
    """Shear rate of the runs at target inertial number `level`, 1/s."""
    return float(level) / (D_NOMINAL * np.sqrt(RHO / P_TARGET))


def mean_diameter(here):
    """Mean diameter of the packing (packing.csv beside this script), m."""
    rows = np.genfromtxt(here / "packing.csv", delimiter=",", names=True, skip_header=1)
    return 2.0 * rows["radius"].mean()


def on_grid(d, step):
    """The rows at whole output intervals (dem also writes the run's last step)."""
    every = step[1] - step[0]
    return d[step % every == 0]


def read_dem(path, level):
    d = np.genfromtxt(path, delimiter=",", names=True)
    d = on_grid(d, d["step"])
    return {
        "step": d["step"],
        "strain": d["time"] * rate(level),
        "tau": -d["s_yx"],
        "tau_xy": -d["s_xy"],
        "p": d["s_yy"],
        "phi": d["volume_fraction"],
    }


def read_lammps(path, level):
    d = np.loadtxt(path, comments="#")
    d = on_grid(d, d[:, 0])
    # TimeStep v_strain v_sxx v_syy v_szz v_sxy v_phi v_tilt
    return {
        "step": d[:, 0],
        "strain": d[:, 0] * DT * rate(level),
        "tau": -d[:, 5],
        "p": d[:, 3],
        "phi": d[:, 6],
    }


def cpu_seconds(path):
    """User + system time of a /usr/bin/time -v output, s (None if absent)."""
    if not path.exists():
        return None
    text = path.read_text()
    user = re.search(r"User time \(seconds\): ([0-9.]+)", text)
    system = re.search(r"System time \(seconds\): ([0-9.]+)", text)
    if not (user and system):
        return None
    return float(user.group(1)) + float(system.group(1))


def blocks(run, start, nb):
    """Window means and block standard errors of mu, phi, p."""
    w = run["strain"] >= start
    tau, p, phi = run["tau"][w], run["p"][w], run["phi"][w]
    n = len(tau) // nb * nb
    if n < nb:
        raise SystemExit(f"fewer than {nb} samples in the steady window")
    tb = tau[:n].reshape(nb, -1).mean(axis=1)
    pb = p[:n].reshape(nb, -1).mean(axis=1)
    fb = phi[:n].reshape(nb, -1).mean(axis=1)
    se = lambda x: x.std(ddof=1) / np.sqrt(nb)
    return {
        "mu": tau.mean() / p.mean(),
        "mu_se": se(tb / pb),
        "phi": phi.mean(),
        "phi_se": se(fb),
        "p": p.mean(),
        "p_se": se(pb),
        "window": (run["strain"][w][0], run["strain"][w][-1]),
        "samples": len(tau),
    }


def main():
    here = Path(__file__).resolve().parent
    ap = argparse.ArgumentParser()
    ap.add_argument("dir", nargs="?", default=str(here / "results"))
    ap.add_argument("--start", type=float, default=1.0, help="strain where the window starts")
    ap.add_argument("--blocks", type=int, default=5)
    ap.add_argument("--plot", help="write PREFIX.png (mu(I), phi(I)) and PREFIX_series.png")
    ap.add_argument("--markdown", action="store_true", help="also print the tables in Markdown")
    a = ap.parse_args()
    src = Path(a.dir)
    d = mean_diameter(here)
    runs, rows = {}, []
    for level in LEVELS:
        for code, reader, name in [("dem", read_dem, f"dem_I{level}.csv"),
                                   ("LAMMPS", read_lammps, f"lammps_I{level}.txt")]:
            path = src / name
            if not path.exists():
                print(f"(missing {path})")
                continue
            runs[(code, level)] = reader(path, level)
    # The same window in both codes: up to the last output step both wrote.
    for level in LEVELS:
        mine = [r for (c, lv), r in runs.items() if lv == level]
        last = min(r["step"][-1] for r in mine) if mine else 0
        for r in mine:
            keep = r["step"] <= last
            for k in r:
                r[k] = r[k][keep]
    for level in LEVELS:
        for code, name in [("dem", f"dem_I{level}.csv"), ("LAMMPS", f"lammps_I{level}.txt")]:
            if (code, level) not in runs:
                continue
            path = src / name
            run = runs[(code, level)]
            s = blocks(run, a.start, a.blocks)
            s["I"] = rate(level) * d / np.sqrt(s["p"] / RHO)
            s["I_se"] = 0.5 * s["I"] * s["p_se"] / s["p"]
            s["cpu"] = cpu_seconds(path.with_suffix(".time"))
            s["steps"] = STEPS[level]
            rows.append((level, code, s))
    print(f"steady window from strain {a.start}, {a.blocks} blocks; d = {d:.6e} m")
    print(f"{'I target':>8} {'code':>6} {'I measured':>20} {'mu':>18} {'phi':>20} "
          f"{'s_yy (Pa)':>14} {'strain window':>14} {'steps':>8} {'CPU s':>6}")
    for level, code, s in rows:
        cpu = f"{s['cpu']:.0f}" if s["cpu"] is not None else "-"
        print(f"{level:>8} {code:>6} {s['I']:.5f} ± {s['I_se']:.5f}  "
              f"{s['mu']:.4f} ± {s['mu_se']:.4f}  {s['phi']:.5f} ± {s['phi_se']:.5f}  "
              f"{s['p']:7.1f} ± {s['p_se']:4.1f}  {s['window'][0]:.2f}-{s['window'][1]:.2f}  "
              f"{s['steps']:>8} {cpu:>6}")
    print("\ndifference dem - LAMMPS, in combined standard errors:")
    by = {(level, code): s for level, code, s in rows}
    for level in LEVELS:
        if (level, "dem") in by and (level, "LAMMPS") in by:
            x, y = by[(level, "dem")], by[(level, "LAMMPS")]
            out = []
            for q in ["mu", "phi", "p"]:
                diff = x[q] - y[q]
                se = np.hypot(x[q + "_se"], y[q + "_se"])
                out.append(f"{q} {diff:+.4g} ({diff / se:+.2f} se)")
            print(f"  I = {level}: " + ", ".join(out))
    for level in LEVELS:
        if ("dem", level) in runs:
            r = runs[("dem", level)]
            w = r["strain"] >= a.start
            print(f"  dem I = {level}: mu from s_xy instead of s_yx: "
                  f"{r['tau_xy'][w].mean() / r['p'][w].mean():.4f}")
    if a.markdown:
        markdown(rows, by)
    if a.plot:
        plot(rows, runs, a.plot, a.start)


def markdown(rows, by):
    print("\n| I target | code | I measured | mu | phi | s_yy (Pa) | strain window | steps | CPU (s) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for level, code, s in rows:
        cpu = f"{s['cpu']:.0f}" if s["cpu"] is not None else "-"
        print(f"| {level} | {code} | {s['I']:.5f} ± {s['I_se']:.5f} | {s['mu']:.4f} ± {s['mu_se']:.4f} "
              f"| {s['phi']:.5f} ± {s['phi_se']:.5f} | {s['p']:.0f} ± {s['p_se']:.0f} "
              f"| {s['window'][0]:.2f}-{s['window'][1]:.2f} | {s['steps']:,} | {cpu} |")
    print("\n| I | mu: dem - LAMMPS | phi: dem - LAMMPS | s_yy: dem - LAMMPS |")
    print("|---|---|---|---|")
    for level in LEVELS:
        if (level, "dem") in by and (level, "LAMMPS") in by:
            x, y = by[(level, "dem")], by[(level, "LAMMPS")]
            cells = []
            for q, f in [("mu", ".4f"), ("phi", ".5f"), ("p", ".0f")]:
                diff = x[q] - y[q]
                se = np.hypot(x[q + "_se"], y[q + "_se"])
                cells.append(f"{diff:+{f}} ({diff / se:+.2f} se)")
            print(f"| {level} | " + " | ".join(cells) + " |")


def plot(rows, runs, prefix, start):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(1, 2, figsize=(9, 3.6))
    for code, marker, shift in [("dem", "o", 0.93), ("LAMMPS", "s", 1.07)]:
        pts = [s for _, c, s in rows if c == code]
        if not pts:
            continue
        I = np.array([s["I"] for s in pts]) * shift  # side by side, not on top
        for k, q in enumerate(["mu", "phi"]):
            ax[k].errorbar(I, [s[q] for s in pts], yerr=[s[q + "_se"] for s in pts],
                           marker=marker, ls="-" if code == "dem" else "--", capsize=3,
                           label=code)
    for k, name in enumerate([r"$\mu = \tau / p$", r"$\phi$"]):
        ax[k].set_xscale("log")
        ax[k].set_xlabel("I (points shifted apart by ±7 % in I for legibility)")
        ax[k].set_ylabel(name)
        ax[k].legend()
    fig.suptitle("Simple shear at constant p, 1000 spheres ±20 %, μp = 0.5, kn/(p d) = 1000")
    fig.tight_layout()
    fig.savefig(f"{prefix}.png", dpi=110)
    fig, ax = plt.subplots(2, 3, figsize=(11, 5.5), sharex="col")
    for j, level in enumerate(LEVELS):
        for code, ls in [("dem", "-"), ("LAMMPS", "--")]:
            r = runs.get((code, level))
            if r is None:
                continue
            ax[0, j].plot(r["strain"], r["tau"] / r["p"], ls, lw=0.8, label=code)
            ax[1, j].plot(r["strain"], r["phi"], ls, lw=0.8, label=code)
        ax[0, j].set_title(f"I = {level}")
        ax[1, j].set_xlabel("shear strain")
        for k in range(2):
            ax[k, j].axvline(start, color="grey", lw=0.5)
    ax[0, 0].set_ylabel(r"$\tau / p$ (instantaneous)")
    ax[1, 0].set_ylabel(r"$\phi$")
    ax[0, 0].legend()
    fig.tight_layout()
    fig.savefig(f"{prefix}_series.png", dpi=110)


if __name__ == "__main__":
    main()
