"""A scene run from Python gives bitwise the same particles.csv and energy.csv (the
ledger at every output step) as `dem run`."""

import subprocess

import pytest

import dem


def bounce_short(scenes, tmp_path):
    """scenes/bounce.ron to t = 0.16 s: the fall and the first bounce (contact from
    0.1355 s)."""
    text = (scenes / "bounce.ron").read_text().replace("duration: Time(1.0)", "duration: Time(0.16)")
    path = tmp_path / "bounce-short.ron"
    path.write_text(text)
    return path


def settle_short(scenes, tmp_path):
    """scenes/settle.ron cut to 3000 steps (the spheres fall, the first reach the floor),
    output every 500: a file beside the original, so that it reads the same way."""
    text = (scenes / "settle.ron").read_text()
    text = text.replace("duration: Time(0.3)", "duration: Steps(3000)")
    text = text.replace("output: (every: 2000)", "output: (every: 500)")
    path = tmp_path / "settle-short.ron"
    path.write_text(text)
    return path


# Results do not depend on the number of threads; one for the two bodies of the bounce
# (two threads only wait on each other there), two for the thousand of settle.
@pytest.mark.parametrize("scene, threads", [(bounce_short, 1), (settle_short, 2)])
def test_python_run_is_bitwise_the_clis(scene, threads, scenes, tmp_path, plugins, dem_exe):
    path = scene(scenes, tmp_path)
    cli, py = tmp_path / "cli", tmp_path / "py"
    subprocess.run(
        [dem_exe, "run", "--quiet", "--threads", str(threads), "--out", cli, path], check=True
    )
    sim = dem.Simulation.load(path, plugins=plugins, threads=threads)
    sim.run()
    sim.write_particles_csv(py)
    sim.write_energy_csv(py)
    for name in ["particles.csv", "energy.csv"]:
        assert (py / name).read_bytes() == (cli / name).read_bytes(), name
