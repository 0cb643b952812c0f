"""Bonds from Python (`plugins/law-bond`, Potyondy and Cundall's parallel bond): a scene
built with `dem.scene` (a `bonds` rule), the bonds as numpy arrays and their counts. Two
spheres, one fixed, the other pulled away at a constant speed by its blocked degrees of
freedom: the bond's tension is kn A dn, computed here, until it breaks at the first step
where kn dn reaches the strength."""

import math

import pytest

import dem
from dem.scene import Fixed, Scene, Sphere, Steps, Within

R, GAP, MODULUS, V, DT = 5e-3, 1e-5, 1e9, 0.01, 1e-6
KN = MODULUS / (2 * R)  # Pa/m
AREA = math.pi * R * R
STRENGTH = 1_000_500.0  # Pa: 1000 Pa of tension per step, reached at step 1001


def pulled(plugins):
    scene = Scene(
        materials={"steel": dict(density=7800, young=1e9, poisson=0.3, friction=0.3)},
        laws=[dict(materials=("*", "*"), law="Law2_L6Geom_LinearElPl")],
        bonds=[
            dict(
                materials=("steel", "steel"),
                bond="Bond_Parallel",
                params=dict(modulus=MODULUS, tensile_strength=STRENGTH),
                between=Within(1e-4),
            )
        ],
        bodies=[
            Sphere(center=(0, 0, 0), radius=R, material="steel", blocked="xyzXYZ"),
            Sphere(
                center=(2 * R + GAP, 0, 0),
                radius=R,
                material="steel",
                blocked="xyzXYZ",
                velocity=(V, 0, 0),
            ),
        ],
        timestep=Fixed(DT),
        duration=Steps(2000),
    )
    return dem.Simulation(scene, plugins=plugins)


def test_a_pulled_bond_pulls_back_then_breaks_at_its_strength(plugins):
    sim = pulled(plugins)
    assert sim.bond_counts == dict(made=1, intact=1, broken=0, removed=0)
    sim.run(steps=1001)
    bonds = sim.bonds
    assert bonds["ids"].tolist() == [[0, 1]]
    # At step 1000 the bond is stretched by 1000 v dt.
    tension = KN * AREA * 1000 * V * DT
    assert bonds["tension"][0] == pytest.approx(tension, rel=1e-6)
    assert bonds["shear_force"][0] < 1e-9 * tension
    assert bonds["elastic"][0] == pytest.approx(0.5 * tension * 1000 * V * DT, rel=1e-6)
    sim.run(steps=1)
    assert sim.bond_counts == dict(made=1, intact=0, broken=1, removed=0)
    assert sim.bonds["ids"].shape == (0, 2)
    assert sim.ledger["broken"] > 0
