"""Particle fields from Python (a temperature, `plugins/heat-conduction`): a scene built
with `dem.scene` (fields and exchanges), the values in scene-id order, and the heat
ledger. Two equal blocked spheres pressed together by a fixed overlap relax towards
their mean with the closed-form time constant m c / (2 H), H = 2 k sqrt(R* delta)
(Batchelor and O'Brien 1977), R* = R / 2, computed here."""

import math

import numpy as np
import pytest

import dem
from dem.scene import Box, Fixed, Map, Scene, Sphere, Steps

R, DENSITY, C, K, OVERLAP = 1e-3, 7800.0, 500.0, 50.0, 2e-8


def pair(plugins, steps):
    x = R - OVERLAP / 2
    scene = Scene(
        materials={"steel": dict(density=DENSITY, young=2e8, poisson=0.3, friction=0.3)},
        laws=[dict(materials=("steel", "steel"), law="Law2_L6Geom_LinearElPl")],
        fields={
            "temperature": dict(
                capacity=Map({"steel": C}),
                initial=300.0,
                set=[dict(region=Box(min=(0, -1, -1), max=(1, 1, 1)), value=400.0)],
            )
        },
        exchanges=[
            dict(
                materials=("steel", "steel"),
                exchange="Exchange_HeatConduction",
                params=dict(conductivity=K),
            )
        ],
        bodies=[
            Sphere(center=(-x, 0, 0), radius=R, material="steel", blocked="xyzXYZ"),
            Sphere(center=(x, 0, 0), radius=R, material="steel", blocked="xyzXYZ"),
        ],
        timestep=Fixed(1e-2),
        duration=Steps(steps),
    )
    return dem.Simulation(scene, plugins=plugins)


def test_two_spheres_relax_to_their_mean_with_the_closed_form_time_constant(plugins):
    sim = pair(plugins, 1000)
    assert sim.field_names == ["temperature"]
    assert list(sim.field("temperature")) == [300.0, 400.0]
    sim.run()
    t = sim.field("temperature")
    m = DENSITY * 4 / 3 * math.pi * R**3
    tau = m * C / (2 * 2 * K * math.sqrt(R / 2 * OVERLAP))
    measured = -sim.time / math.log((t[1] - t[0]) / 100.0)
    assert measured == pytest.approx(tau, rel=1e-3)
    assert t.sum() == pytest.approx(700.0, abs=1e-9)
    b = sim.field_balance("temperature")
    assert b["from_fixed_bodies"] == 0.0
    assert abs(b["balance_error"]) < 1e-12 * b["stored"]
    assert b["stored"] == pytest.approx(m * C * 700.0, rel=1e-12)
    assert 0 < b["largest_step_ratio"] < 1


def test_an_unknown_field_names_the_fields_there_are(plugins):
    sim = pair(plugins, 1)
    with pytest.raises(ValueError, match="no particle field `heat`; the scene's fields: temperature"):
        sim.field("heat")
    assert isinstance(sim.field("temperature"), np.ndarray)
