"""Where a sphere held on a floor starts to slide: the push (a force applied at its centre,
as a fraction of its weight) at which friction lets go, against Coulomb's law (it slides
when the push exceeds mu times the weight).

Shows three parts of the module: the scene built in Python (``dem.scene``), a settled
state branched once per push (``copy.deepcopy``: every branch goes on from the same bits),
and a force applied from outside (``set_applied_forces``). The sphere's rotation is
blocked, so that friction alone holds it (a free sphere would roll).

Run: ``python3 examples/python/slip_threshold.py`` (writes slip_threshold.png; needs
matplotlib: ``python3 -m pip install "./crates/dem-py[examples]"``).
"""

import copy

import numpy as np

import dem
from dem.scene import Critical, Scene, Sphere, Time, Wall

G = 9.81


def settled(mu, plugins=None):
    """A glass sphere (r = 1 cm) resting on a floor of friction ``mu``, settled."""
    scene = Scene(
        materials={"glass": dict(density=2500, young=1e8, poisson=0.25, friction=mu)},
        laws=[
            dict(
                materials=("*", "*"),
                law="Law2_L6Geom_LinearElPl",
                params=dict(kn=1e5, kt_kn=0.5, restitution=0.3),
            )
        ],
        bodies=[
            Sphere(center=(0, 0, 0.00999), radius=0.01, material="glass", blocked="XYZ"),
            Wall(point=(0, 0, 0), normal=(0, 0, 1), sense=1, material="glass"),
        ],
        gravity=(0, 0, -G),
        damping=0.3,
        timestep=Critical(0.1),
        duration=Time(10.0),
    )
    sim = dem.Simulation(scene, plugins=plugins)
    sim.run(time=0.2)
    return sim


def slid(base, push, time=0.1):
    """How far (m) the sphere of ``base`` moves along x in ``time`` s under a push of
    ``push`` times its weight (on a copy: ``base`` is left as it is)."""
    sim = copy.deepcopy(base)
    x0 = sim.positions[0][0]
    sim.set_applied_forces([[push * sim.masses[0] * G, 0.0, 0.0]], ids=[0])
    sim.run(time=time)
    return sim.positions[0][0] - x0


def threshold(mu, pushes, plugins=None):
    """The smallest of ``pushes`` (fractions of the weight) that makes the sphere slide
    (move more than 0.1 mm in 0.1 s; sticking, it moves a few micrometres as its
    tangential spring takes the push), and the distances for all."""
    base = settled(mu, plugins)
    moved = np.array([slid(base, p) for p in pushes])
    sliding = pushes[moved > 1e-4]
    return (sliding.min() if len(sliding) else np.inf), moved


def main():
    import matplotlib.pyplot as plt

    pushes = np.linspace(0.05, 0.8, 16)
    fig, ax = plt.subplots(figsize=(6, 4))
    for mu in (0.2, 0.4, 0.6):
        found, moved = threshold(mu, pushes)
        line = ax.semilogy(pushes, np.maximum(moved, 1e-9), "o-", label=f"mu = {mu}")[0]
        ax.axvline(mu, color=line.get_color(), ls=":")
        print(f"mu = {mu}: slides from a push of {found:.2f} of its weight")
    ax.set_xlabel("push / weight")
    ax.set_ylabel("distance moved in 0.1 s, m")
    ax.set_title("Slip threshold: Coulomb's mu (dotted)")
    ax.legend()
    fig.tight_layout()
    fig.savefig("slip_threshold.png", dpi=120)


if __name__ == "__main__":
    main()
