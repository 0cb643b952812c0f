"""Scenes built in Python (dem.scene) load to the same simulation as the same scene in
RON: bitwise the same run; the parser checks them, errors name the field. Every shipped
scene file read into Python values (Scene.load) and written back runs as the file does."""

import pathlib

import numpy as np
import pytest

import dem
from dem.scene import (
    Box,
    Critical,
    Lattice,
    Map,
    Scene,
    Sphere,
    Steps,
    Time,
    Variant,
    Wall,
    from_ron,
    to_ron,
)

SCENES = sorted(p.name for p in (pathlib.Path(__file__).parents[3] / "scenes").glob("*.ron"))


def bounce(base_dir):
    """scenes/bounce.ron, in Python."""
    return Scene(
        materials={
            "glass": dict(density=2500, young=1e8, poisson=0.25, friction=0.5),
            "steel": dict(density=7800, young=2e11, poisson=0.3, friction=0.5),
        },
        laws=[
            dict(materials=("*", "*"), law="Law2_L6Geom_LinearElPl", params=dict(restitution=0.8))
        ],
        bodies=[
            Sphere(center=(0, 0, 0.1), radius=0.01, material="glass"),
            Wall(point=(0, 0, 0), normal=(0, 0, 1), sense=1, material="steel"),
        ],
        gravity=(0, 0, -9.81),
        timestep=Critical(0.1),
        duration=Time(1.0),
        output=dict(every=200),
        base_dir=base_dir,
    )


def same_run(a, b, steps):
    a.run(steps=steps)
    b.run(steps=steps)
    np.testing.assert_array_equal(a.positions, b.positions)
    np.testing.assert_array_equal(a.velocities, b.velocities)
    np.testing.assert_array_equal(a.angular_velocities, b.angular_velocities)
    assert a.ledger == b.ledger
    assert (a.dt, a.end_step) == (b.dt, b.end_step)


def test_bounce_in_python_is_bounce_in_ron(scenes, plugins):
    py = dem.Simulation(bounce(scenes), plugins=plugins)
    ron = dem.Simulation.load(scenes / "bounce.ron", plugins=plugins)
    same_run(py, ron, 3000)


def test_a_packing_with_generators_is_the_same_in_both(tmp_path, plugins):
    scene = Scene(
        materials={
            "m": dict(density=2500, young=1e7, poisson=0.25, friction=0.3),
            "w": dict(density=2500, young=1e7, poisson=0.25, friction=0),
        },
        laws=[dict(materials=("*", "*"), law="Law2_L6Geom_LinearElPl", params=dict(restitution=0.3))],
        bodies=[
            Box(min=(0, 0, 0), max=np.array([0.01, 0.01, 0.02]), material="w"),
            Lattice(
                origin=(0.0012, 0.0012, 0.0011),
                count=(4, 4, 4),
                spacing=0.0025,
                radius=0.001,
                material="m",
                velocity_spread=0.05,
                seed=2,
            ),
        ],
        gravity=(0, 0, -9.81),
        damping=0.4,
        timestep=Critical(0.2),
        duration=Steps(3000),
        base_dir=tmp_path,
    )
    text = scene.to_ron()
    (tmp_path / "packing.ron").write_text(text)
    py = dem.Simulation(scene, plugins=plugins)
    ron = dem.Simulation.load(tmp_path / "packing.ron", plugins=plugins)
    assert len(py) == 6 + 64
    same_run(py, ron, 1500)


def test_ron_text_of_python_values():
    assert to_ron((0, 0, 0.1)) == "(0, 0, 0.1)"
    assert to_ron(np.array([1.5, -2.0, 3e-7])) == "(1.5, -2.0, 3e-07)"
    assert to_ron(Critical(0.1)) == "Critical(0.1)"
    assert to_ron(Variant("Unit")) == "Unit"
    assert to_ron(Map({"a b": dict(x=1)})) == '{\n    "a b": (\n        x: 1,\n    ),\n}'
    assert to_ron(dict(x=None, y=True)) == "(\n    y: true,\n)"
    assert to_ron([]) == "[]" and to_ron(float("inf")) == "inf"
    with pytest.raises(TypeError, match="cannot write"):
        to_ron(object())
    with pytest.raises(TypeError, match="either values or named fields"):
        Critical(0.1, x=1)


def test_a_bad_field_is_named(scenes, plugins):
    scene = bounce(scenes)
    scene["bodies"] = [Sphere(center=(0, 0, 0.1), radus=0.01, material="glass")]
    with pytest.raises(dem.SceneError, match="radus"):
        dem.Simulation(scene, plugins=plugins)
    scene = bounce(scenes)
    scene["materials"]["glass"]["young"] = -1.0
    with pytest.raises(dem.SceneError, match="young"):
        dem.Simulation(scene, plugins=plugins)


@pytest.mark.parametrize("name", SCENES)
def test_every_scene_file_round_trips_through_python_values(scenes, plugins, name):
    scene = Scene.load(scenes / name)
    text = scene.to_ron()
    assert Scene.from_ron(text, scene.base_dir).to_ron() == text
    a = dem.Simulation(scene, plugins=plugins)
    b = dem.Simulation.load(scenes / name, plugins=plugins)
    same_run(a, b, 3)


def test_a_scene_file_edited_in_python(scenes, plugins):
    scene = Scene.load(scenes / "bounce.ron")
    scene["materials"]["glass"]["friction"] = 0.3
    scene["bodies"][0].fields["velocity"] = (0.5, 0, 0)
    sim = dem.Simulation(scene, plugins=plugins)
    assert sim.velocities[0][0] == 0.5
    assert from_ron("Uniform(0.002, 0.003)") == Variant("Uniform", 0.002, 0.003)
    assert from_ron("(a: [1, 2.5], b: {\"x\": Off}) // note") == dict(
        a=[1, 2.5], b=Map(x=Variant("Off"))
    )
    with pytest.raises(ValueError, match="bad.ron:2:7: expected `,` or `\\)`"):
        from_ron("(a: 1,\n b: 2 3)", "bad.ron")
