#!/usr/bin/env python3
"""Writes the meshes shipped with the scenes (run once; the outputs are committed).

hopper.stl (binary STL): a conical hopper, axis z, outlet radius 0.025 m at z = 0, cone up
  to radius 0.1 m at z = 0.12 m, then a cylinder up to z = 0.42 m; open at both ends.
hopper_gate.obj: a square plate 0.145 x 0.1 m (x from -0.085 to 0.06, y from -0.05 to
  0.05) at z = -0.004 m, closing the hopper's outlet until it slides away.
drum.obj: a closed drum, axis y, radius 0.06 m, from y = -0.02 to 0.02 m, end caps as fans.
silo.stl (binary STL): a flat-bottomed cylindrical silo, axis z, radius 0.06 m, from z = 0
  to 0.25 m, its floor an annulus around a central orifice of radius 0.02 m.
silo_gate.obj: a plate 0.16 x 0.06 m (x from -0.13 to 0.03, y from -0.03 to 0.03) at
  z = -0.003 m, closing the silo's orifice until it slides away.
Normals point inwards (the facet functor is two-sided; this is only tidiness).
"""
import math
import struct

N = 48


def ring(r, z, n=N):
    return [(r * math.cos(2 * math.pi * k / n), r * math.sin(2 * math.pi * k / n), z) for k in range(n)]


def hopper():
    # (radius, z) profile: cone in 4 bands, cylinder in 3 bands.
    prof = [(0.025 + (0.1 - 0.025) * i / 4, 0.12 * i / 4) for i in range(5)]
    prof += [(0.1, 0.12 + 0.1 * i) for i in range(1, 4)]
    rings = [ring(r, z) for r, z in prof]
    tris = []
    for lo, hi in zip(rings, rings[1:]):
        for k in range(N):
            a, b, c, d = lo[k], lo[(k + 1) % N], hi[(k + 1) % N], hi[k]
            # Inward normals: clockwise seen from outside.
            tris += [(a, c, b), (a, d, c)]
    return tris


def silo(radius=0.06, height=0.25, orifice=0.02, n=N, wall_bands=5, floor_bands=2):
    """A flat-bottomed cylindrical silo, axis z, its floor an annulus around a central
    orifice (also used by examples/beverloo/beverloo.py)."""
    rings = [ring(radius, height * i / wall_bands, n) for i in range(wall_bands + 1)]
    floor = [ring(orifice + (radius - orifice) * i / floor_bands, 0.0, n) for i in range(floor_bands + 1)]
    tris = []
    for band in (rings, floor):
        for lo, hi in zip(band, band[1:]):
            for k in range(n):
                a, b, c, d = lo[k], lo[(k + 1) % n], hi[(k + 1) % n], hi[k]
                tris += [(a, c, b), (a, d, c)]
    return tris


def write_binary_stl(path, tris):
    with open(path, "wb") as f:
        f.write(b"dem hopper".ljust(80, b" "))
        f.write(struct.pack("<I", len(tris)))
        for t in tris:
            f.write(struct.pack("<3f", 0.0, 0.0, 0.0))
            for v in t:
                f.write(struct.pack("<3f", *v))
            f.write(struct.pack("<H", 0))


def drum(n=32, r=0.06, half=0.02):
    verts = []
    for y in (-half, half):
        for k in range(n):
            a = 2 * math.pi * k / n
            verts.append((r * math.cos(a), y, r * math.sin(a)))
    verts += [(0.0, -half, 0.0), (0.0, half, 0.0)]
    c0, c1 = 2 * n, 2 * n + 1
    faces = []
    for k in range(n):
        a, b = k, (k + 1) % n
        A, B = n + a, n + b
        faces += [(a, A, B), (a, B, b)]
        faces += [(c0, b, a), (c1, A, B)]
    return verts, faces


def write_obj(path, verts, faces):
    with open(path, "w") as f:
        f.write("# written by make_meshes.py\n")
        for v in verts:
            f.write("v %.17g %.17g %.17g\n" % v)
        for t in faces:
            f.write("f %d %d %d\n" % tuple(i + 1 for i in t))


if __name__ == "__main__":
    write_binary_stl("hopper.stl", hopper())
    write_obj("drum.obj", *drum())
    gate = [(-0.085, -0.05, -0.004), (0.06, -0.05, -0.004), (0.06, 0.05, -0.004), (-0.085, 0.05, -0.004)]
    write_obj("hopper_gate.obj", gate, [(0, 1, 2), (0, 2, 3)])
    write_binary_stl("silo.stl", silo())
    gate = [(-0.13, -0.03, -0.003), (0.03, -0.03, -0.003), (0.03, 0.03, -0.003), (-0.13, 0.03, -0.003)]
    write_obj("silo_gate.obj", gate, [(0, 1, 2), (0, 2, 3)])
