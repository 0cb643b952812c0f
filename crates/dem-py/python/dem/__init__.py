"""dem: the Python front end of the dem Discrete Element Method solver.

Load a scene, run it, read its state as numpy arrays, set it between steps::

    import dem
    sim = dem.Simulation.load("scenes/bounce.ron")
    sim.run(time=0.1)
    print(sim.positions[:3], sim.ledger["total"])

Scenes can be built in Python as well (``dem.scene``)::

    from dem.scene import Scene, Sphere, Critical, Time
    sim = dem.Simulation(Scene(materials=..., laws=..., bodies=[Sphere(...)], ...))

See docs/python.md in the repository.
"""

from . import scene
from ._dem import (
    CheckpointError,
    Error,
    PluginError,
    SceneError,
    Simulation,
    StateError,
    __version__,
    plugin_dirs,
    plugins,
)

__all__ = [
    "CheckpointError",
    "Error",
    "PluginError",
    "SceneError",
    "Simulation",
    "StateError",
    "__version__",
    "plugin_dirs",
    "plugins",
    "scene",
]
