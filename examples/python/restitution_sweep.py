"""Restitution of a sphere bouncing on a wall, measured against the restitution the
linear law is asked for: a parameter sweep driven from Python, plotted with matplotlib.

    python3 -m pip install ./crates/dem-py matplotlib
    cargo build --release --workspace          # the plugins, found in target/release
    python3 examples/python/restitution_sweep.py --out restitution.png

A glass sphere (r = 1 cm) hits a steel wall at 1 m/s without gravity; the ratio of its
speeds after and before the contact is its coefficient of restitution. The linear law
computes its damping from the requested value (the closed form of a linear
spring-dashpot), so the points should lie on the diagonal; the lower panel shows what
is left: the time step's discretisation of the contact.
"""

import argparse

import numpy as np

import dem

SCENE = """Scene(
    materials: {{
        "glass": (density: 2500, young: 1e8, poisson: 0.25, friction: 0.5),
        "steel": (density: 7800, young: 2e11, poisson: 0.3, friction: 0.5),
    }},
    laws: [(materials: ("*", "*"), law: "Law2_L6Geom_LinearElPl",
            params: (restitution: {e}))],
    bodies: [
        Sphere(center: (0, 0, 0.0102), radius: 0.01, material: "glass"),
        Wall(point: (0, 0, 0), normal: (0, 0, 1), sense: 1, material: "steel"),
    ],
    gravity: (0, 0, 0),
    timestep: Critical(0.02),
    duration: Time(1.0),
)
"""


def measured_restitution(e, plugins, impact_speed=1.0):
    sim = dem.Simulation.from_ron(SCENE.format(e=e), plugins=plugins)
    sim.set_velocities([[0.0, 0.0, -impact_speed]], ids=[0])
    in_contact = lambda s: s.contacts()["ids"].shape[0] > 0
    sim.run(until=in_contact, every=1)
    sim.run(until=lambda s: not in_contact(s), every=1)
    return sim.velocities[0, 2] / impact_speed


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="restitution.png", help="PNG file to write")
    parser.add_argument("--plugin", action="append", help="plugin library or directory")
    args = parser.parse_args()
    requested = np.linspace(0.05, 0.95, 19)
    measured = np.array([measured_restitution(e, args.plugin) for e in requested])
    for e, m in zip(requested, measured):
        print(f"requested {e:.2f}  measured {m:.4f}")

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax, err) = plt.subplots(
        2, 1, figsize=(5, 6), sharex=True, gridspec_kw={"height_ratios": [3, 1]}
    )
    ax.plot([0, 1], [0, 1], color="0.7", label="measured = requested")
    ax.plot(requested, measured, "o", label="dem, Law2_L6Geom_LinearElPl")
    ax.set_ylabel("measured restitution\n(rebound / impact speed)")
    ax.set_title("Sphere on a wall, 1 m/s, no gravity")
    ax.legend()
    err.axhline(0, color="0.7")
    err.plot(requested, measured - requested, "o")
    err.set_xlabel("requested restitution")
    err.set_ylabel("measured - requested")
    fig.tight_layout()
    fig.savefig(args.out, dpi=120)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
