"""The installed module carries the shipped plugins (crates/dem-py/build.rs puts them in
`dem/plugins`): without `plugins=` or DEM_PLUGIN_PATH it finds them there first, and runs
every shipped scene with nothing else built."""

import os
import pathlib

import pytest

import dem

BUNDLE = pathlib.Path(dem.__file__).parent / "plugins"

pytestmark = pytest.mark.skipif(
    os.environ.get("DEM_PY_NO_PLUGINS") is not None,
    reason="built with DEM_PY_NO_PLUGINS: the module carries no plugins",
)


def test_the_module_carries_the_shipped_plugins():
    crates = sorted(
        p.name
        for p in (pathlib.Path(__file__).parents[3] / "plugins").iterdir()
        if (p / "Cargo.toml").is_file() and not p.name.startswith("test-")
    )
    carried = sorted(p.name for p in BUNDLE.iterdir())
    assert carried == [f"lib{c.replace('-', '_')}.so" for c in crates]
    assert dem.plugin_dirs() == [BUNDLE]
    catalogue = dem.plugins()
    assert catalogue["refused"] == []
    assert {pathlib.Path(p["path"]).parent for p in catalogue["plugins"]} == {BUNDLE}


@pytest.mark.parametrize(
    "scene", sorted(p.name for p in (pathlib.Path(__file__).parents[3] / "scenes").glob("*.ron"))
)
def test_every_shipped_scene_runs_on_the_carried_plugins(scenes, scene):
    sim = dem.Simulation.load(scenes / scene)
    sim.run(steps=3)
    assert sim.step == 3
