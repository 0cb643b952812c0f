"""Errors are Python exceptions with the `dem` command's messages."""

import subprocess

import pytest

import dem

from test_run import FALL


def cli_error(dem_exe, *args):
    out = subprocess.run([dem_exe, *map(str, args)], capture_output=True, text=True)
    assert out.returncode != 0
    line = out.stderr.strip().splitlines()[-1]
    assert line.startswith("error: ")
    return line[len("error: "):]


def test_scene_error_names_file_line_and_field(tmp_path, plugins, dem_exe):
    bad = tmp_path / "bad.ron"
    bad.write_text(FALL.replace("poisson: 0.25,", "poisson: 0.25, colour: 1,"))
    with pytest.raises(dem.SceneError) as e:
        dem.Simulation.load(bad, plugins=plugins)
    assert str(e.value).startswith(f"{bad}:3:")
    assert "colour" in str(e.value)
    assert str(e.value) == cli_error(dem_exe, "check", bad)


def test_from_ron_errors_name_the_given_file(plugins):
    with pytest.raises(dem.SceneError, match=r"^here/my.ron:1:6: Unexpected end of RON"):
        dem.Simulation.from_ron("Scene(", base_dir="here", name="my.ron", plugins=plugins)


def test_missing_file(tmp_path, plugins):
    with pytest.raises(FileNotFoundError, match="nowhere.ron"):
        dem.Simulation.load(tmp_path / "nowhere.ron", plugins=plugins)


def test_missing_plugin(tmp_path):
    with pytest.raises(dem.PluginError, match="cannot find the library"):
        dem.Simulation.from_ron(FALL, plugins=[tmp_path / "libnothing.so"])


def test_failing_law_names_plugin_and_contact(tmp_path, plugins, dem_exe):
    scene = tmp_path / "faulty.ron"
    scene.write_text(
        FALL.replace(
            'law: "Law2_L6Geom_LinearElPl", params: (restitution: 0.8)',
            'law: "Law2_Test_Faulty", params: (fault: "panic")',
        ).replace("center: (0, 0, 0.1)", "center: (0, 0, 0.0101)")
    )
    sim = dem.Simulation.load(scene, plugins=plugins)
    with pytest.raises(dem.PluginError) as e:
        sim.run()
    message = str(e.value)
    assert "Law2_Test_Faulty" in message and "contact 0-1" in message
    assert message == cli_error(dem_exe, "run", "--quiet", "--out", tmp_path / "out", scene)
    assert isinstance(e.value, dem.Error)


def test_negative_counts_say_what_is_wrong(plugins):
    sim = dem.Simulation.from_ron(FALL, plugins=plugins)
    with pytest.raises(ValueError, match=r"steps=-1: steps must be >= 0"):
        sim.run(steps=-1)
    with pytest.raises(ValueError, match=r"every=-5: give a number of steps >= 1"):
        sim.run(steps=3, every=-5)
    with pytest.raises(ValueError, match=r"every=0"):
        sim.run(steps=3, every=0)
    assert sim.run(steps=0) == 0
