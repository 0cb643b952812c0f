"""Fixtures of the Python module's tests.

The plugin libraries and the `dem` executable are built as the Rust test suite builds them
(tests/support/mod.rs): with cargo, into target/test-plugins, so that after `cargo test
--workspace` this is a no-op. The tests load the plugins from there explicitly
(`plugins=[...]`), never from the repository's target/release.
"""

import json
import os
import pathlib
import re
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[3]
TARGET = ROOT / "target" / "test-plugins"


def _cargo_build(packages):
    """Builds `packages` into target/test-plugins; returns cargo's artifact messages."""
    cmd = [os.environ.get("CARGO", "cargo"), "build", "--message-format=json-render-diagnostics"]
    for p in packages:
        cmd += ["-p", p]
    env = dict(os.environ, CARGO_TARGET_DIR=str(TARGET))
    out = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    assert out.returncode == 0, f"cargo build failed:\n{out.stderr}"
    return [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]


def _plugin_packages():
    """The workspace's plugin packages: the list the Rust test suite builds."""
    text = (ROOT / "tests" / "support" / "mod.rs").read_text()
    block = re.search(r"pub const PLUGINS: \[&str; \d+\] = \[(.*?)\];", text, re.S)
    return re.findall(r'"([^"]+)"', block.group(1))


@pytest.fixture(scope="session")
def built():
    """(plugin libraries, dem executable), built once per test session."""
    libs = []
    for m in _cargo_build(_plugin_packages()):
        if m.get("reason") == "compiler-artifact" and "cdylib" in m["target"]["kind"]:
            libs += [f for f in m["filenames"] if f.endswith((".so", ".dylib", ".dll"))]
    exe = next(
        m["executable"]
        for m in _cargo_build(["dem-cli"])
        if m.get("reason") == "compiler-artifact" and m.get("executable")
    )
    return libs, exe


@pytest.fixture(scope="session")
def plugins(built):
    """The workspace's plugin libraries, for `plugins=`."""
    return built[0]


@pytest.fixture(scope="session")
def dem_exe(built):
    """The `dem` executable (beside the plugins, where it finds them)."""
    return built[1]


@pytest.fixture(scope="session")
def scenes():
    return ROOT / "scenes"


@pytest.fixture(autouse=True)
def _no_plugin_path(monkeypatch):
    """The tests give their plugins explicitly: DEM_PLUGIN_PATH would add a second copy."""
    monkeypatch.delenv("DEM_PLUGIN_PATH", raising=False)
