"""The vertical stress in a settling bed, coarse-grained, against the momentum balance.

    python3 -m pip install ./crates/dem-py matplotlib
    cargo build --release --workspace          # the plugins, found in target/release
    python3 examples/python/stress_profile.py --out stress_profile.png

Spheres settle under gravity in a box whose side walls have no friction, so that the
floor carries all the weight. The fields come from ``Simulation.coarse_grain``, with
Lucy's kernel on a grid wider than the box.

Integrated over the planes ``z = const``, the vertical force the contacts carry through
a plane is ``S(z) = integral sigma_zz dx dy`` (compression positive). By each particle's
momentum balance (its contact forces are its net force ``F_i`` less its weight), it is
``E(z) = sum_i (F_iz + m_i g) A(z - z_i)``, where ``A`` is the fraction of a particle's
smeared mass above the plane (the tail of the kernel's marginal along z). This holds
exactly, moving bed or not, wherever the floor's contacts are out of the kernel's reach:
the contact stress spreads each force along the branches, between the centres and the
contact points.

At rest, ``F_i = 0`` and E is the weight above the plane, ``W(z)``. The plot shows S, E
and W.
"""

import argparse

import numpy as np

import dem

SCENE = """Scene(
    materials: {{
        "glass": (density: 2500, young: 1e7, poisson: 0.25, friction: 0.4),
        "smooth": (density: 2500, young: 1e7, poisson: 0.25, friction: 0),
    }},
    laws: [(materials: ("*", "*"), law: "Law2_L6Geom_LinearElPl", params: (restitution: 0.3))],
    bodies: [
        Box(min: (0, 0, 0), max: ({side}, {side}, {height}), material: "smooth"),
        Lattice(origin: (0.0013, 0.0013, 0.0012), count: ({n}, {n}, {layers}), spacing: 0.0024,
                radius: 0.001, material: "glass", velocity_spread: 0.05, seed: 3),
    ],
    gravity: (0, 0, -{g}),
    damping: 0.5,
    timestep: Critical(0.2),
    duration: Time({settle}),
)
"""

G = 9.81


def lucy_above(t, c):
    """The fraction of a particle's mass that Lucy's kernel (cutoff c) spreads above the
    height t relative to its centre: the tail of the kernel's marginal along z,
    ``phi_z(s) = 105 / (8 c) (1/10 - P(|s| / c))`` with
    ``P(x) = x^2/2 - 3 x^4/2 + 8 x^5/5 - x^6/2``."""
    x = np.clip(np.abs(t) / c, 0.0, 1.0)
    q = lambda x: x**3 / 6 - 0.3 * x**5 + 0.8 * x**6 / 3 - x**7 / 14
    tail = 105.0 / 8.0 * (0.1 * (1.0 - x) - (q(1.0) - q(x)))
    return np.where(t >= 0, tail, 1.0 - tail)


def profile(plugins=None, n=5, layers=8, settle=0.8, cutoff=0.003, cell=0.0004):
    """Settles the bed for ``settle`` s. Returns the planes' heights ``z`` (m) and, through
    each (N): ``contact``, the contacts' vertical force S(z) from the contact stress;
    ``stress``, with the kinetic stress too; ``balance``, E(z) from the particles' net
    forces and weights; ``weight``, W(z) from the density. Also ``bed``, the bed's weight
    (N), and ``sim``."""
    side, height = n * 0.0024 + 0.0002, layers * 0.0024 + 0.01
    text = SCENE.format(side=side, height=height, n=n, layers=layers, g=G, settle=settle)
    sim = dem.Simulation.from_ron(text, plugins=plugins)
    sim.run()
    pad = cutoff + cell
    lo = [-pad, -pad, -pad]
    hi = [side + pad, side + pad, height + pad]
    cells = [int(round((b - a) / cell)) for a, b in zip(lo, hi)]
    f = sim.coarse_grain(lo, hi, cells, kernel="lucy", size=cutoff)
    h = [(b - a) / c for a, b, c in zip(lo, hi, cells)]
    area = h[0] * h[1]
    z = f["z"]
    rho_plane = f["density"].sum(axis=(0, 1)) * area
    # The mass above each plane z_k: the cells above it, and the upper half of its own.
    above = np.cumsum(rho_plane[::-1])[::-1] - 0.5 * rho_plane
    spheres = sim.kinds == "Sphere"
    zi, m = sim.positions[spheres, 2], sim.masses[spheres]
    carried = sim.forces[spheres, 2] + m * G
    return {
        "z": z,
        "contact": f["contact_stress"][:, :, :, 2, 2].sum(axis=(0, 1)) * area,
        "stress": f["stress"][:, :, :, 2, 2].sum(axis=(0, 1)) * area,
        "balance": np.array([(carried * lucy_above(zk - zi, cutoff)).sum() for zk in z]),
        "weight": G * above * h[2],
        "bed": G * m.sum(),
        "sim": sim,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="stress_profile.png", help="PNG file to write")
    parser.add_argument("--plugin", action="append", help="plugin library or directory")
    args = parser.parse_args()
    p = profile(args.plugin)
    z, bed = p["z"], p["bed"]
    print(f"weight of the bed {bed:.4e} N, kinetic energy left {p['sim'].ledger['kinetic']:.1e} J")
    for k in range(0, len(z), 4):
        print(
            f"z = {z[k] * 1000:6.2f} mm  S = {p['contact'][k]:.4e} N  "
            f"E = {p['balance'][k]:.4e} N  W = {p['weight'][k]:.4e} N"
        )

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5, 5))
    ax.plot(p["contact"], z * 1000, label="S(z): contact stress over the plane")
    ax.plot(p["balance"], z * 1000, "--", label="E(z): from the particles' momentum balance")
    ax.plot(p["weight"], z * 1000, ":", label="W(z): weight above, from the density")
    ax.axvline(bed, color="0.7", label="the bed's weight")
    ax.set_xlabel("vertical force through the plane z (N)")
    ax.set_ylabel("z (mm)")
    ax.set_title("Settled bed, frictionless side walls (Lucy kernel)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(args.out, dpi=120)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
