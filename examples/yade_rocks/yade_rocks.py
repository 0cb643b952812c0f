# Yade counterpart of dem's scenes/rocks.ron, for a speed comparison (see README.md).
#
# Run with Yade's own interpreter, one thread:
#   yade -j1 -n -x yade_rocks.py ROCKS.jsonl STEPS DT [DAMPING] [COUNT_EVERY]
#
# ROCKS.jsonl  rocks as vertex lists in the world frame (export_rocks.py), with the
#              velocities of the frame they come from
# STEPS        number of time steps to run
# DT           time step, s: the one dem prints for the scene (`dem check`)
# DAMPING      Cundall non-viscous damping of NewtonIntegrator (default 0: free fall at g)
# COUNT_EVERY  if given, count the contacts (penetration volume > 0) every that many steps
#              and print their min/mean/max at the end; leave it out for timed runs
#
# Written from Yade's documentation (class docstrings of the Polyhedra classes).
import json
import math
import os
import sys
import time

from yade import log, polyhedra_utils

# The polyhedron intersection test logs a warning for a case it does not handle (tens per
# step in this scene); writing them costs time, so keep errors only.
log.setLevel("Polyhedra_support.cpp", log.ERROR)

rocks_file = sys.argv[1]
steps = int(sys.argv[2])
dt = float(sys.argv[3])
damping = float(sys.argv[4]) if len(sys.argv) > 4 else 0.0
count_every = int(sys.argv[5]) if len(sys.argv) > 5 else 0
VERLET = float(os.environ.get("VERLET", "0"))

# dem: density 2600, friction 0.5, normal stiffness k = 1e8 N/m^3 per unit of overlap
# volume (kn_per_area), tangential stiffness kt = 0.5 kn. Yade's Ip2 gives
# kn = 1/(1/Y1 + 1/Y2) = Y/2 for one material, so Y = 2e8 gives kn = 1e8 N/m^3 (force =
# kn * overlap volume); ks = Y P / 2 is a fixed N/m.
KN = 1e8
KS = 0.5 * KN * 1e-5  # kt = 0.5 kn at a contact area of 1e-5 m^2 (a rock's face is ~1 cm^2)
rock = PolyhedraMat(
    young=2 * KN, poisson=2 * KS / (2 * KN), density=2600, frictionAngle=math.atan(0.5)
)
O.materials.append(rock)

box = (0.12, 0.12, 0.5)
for axis in range(3):
    O.bodies.append(utils.wall(0.0, axis=axis, sense=1, material=rock))
    O.bodies.append(utils.wall(box[axis], axis=axis, sense=-1, material=rock))

for line in open(rocks_file):
    r = json.loads(line)
    b = polyhedra_utils.polyhedra(rock, v=[Vector3(*p) for p in r["vertices"]])
    b.state.vel = Vector3(*r["velocity"])
    b.state.angVel = Vector3(*r["angular_velocity"])
    O.bodies.append(b)

O.engines = [
    ForceResetter(),
    # without spheres the collider's default verlet distance is 0 (a rebuild every step);
    # VERLET (m, environment) enlarges the bounding boxes instead
    InsertionSortCollider([Bo1_Polyhedra_Aabb(), Bo1_Wall_Aabb()], verletDist=VERLET),
    InteractionLoop(
        [Ig2_Wall_Polyhedra_PolyhedraGeom(), Ig2_Polyhedra_Polyhedra_PolyhedraGeom()],
        [Ip2_PolyhedraMat_PolyhedraMat_PolyhedraPhys()],
        [Law2_PolyhedraGeom_PolyhedraPhys_Volumetric()],
    ),
    NewtonIntegrator(damping=damping, gravity=(0, 0, -9.81)),
]
O.dt = dt

counts = []


def count_contacts():
    # interactions Yade keeps (bounding boxes overlap) and those with an overlap volume
    real = touching = 0
    for i in O.interactions:
        if i.isReal:
            real += 1
            touching += i.geom.penetrationVolume > 0
    counts.append((touching, real))


if count_every:
    O.engines = O.engines + [PyRunner(command="count_contacts()", iterPeriod=count_every)]

t0 = time.time()
O.run(steps, True)
t1 = time.time()
kin = sum(0.5 * b.state.mass * b.state.vel.squaredNorm() for b in O.bodies if isinstance(b.shape, Polyhedra))
print(f"yade: {len(O.bodies) - 6} rocks, {steps} steps, dt {O.dt:.4e} s, loop wall time {t1 - t0:.3f} s, "
      f"{steps / (t1 - t0):.1f} steps/s, kinetic energy {kin:.4e} J")
if counts:
    for k, what in enumerate(("contacts (overlap volume > 0)", "interactions (boxes overlap)")):
        c = [n[k] for n in counts]
        print(f"yade: {what} min/mean/max {min(c)} / {sum(c) / len(c):.1f} / {max(c)} "
              f"(every {count_every} steps, {len(c)} samples)")
zs = sorted(b.state.pos[2] for b in O.bodies if isinstance(b.shape, Polyhedra))
print(f"yade: rock centre heights min/median/max {zs[0]:.4f} / {zs[len(zs) // 2]:.4f} / {zs[-1]:.4f} m")
