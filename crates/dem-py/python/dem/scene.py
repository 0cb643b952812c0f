"""Scenes built in Python: the RON scene format (docs/scenes.md) as Python values.

A scene is written with the names of the scene format, and checked by the same parser as
a scene file when a simulation is made from it (errors name the field, and the line of
``scene.to_ron()``)::

    from dem.scene import Scene, Sphere, Wall, Critical, Time

    scene = Scene(
        materials={"glass": dict(density=2500, young=1e8, poisson=0.25, friction=0.5)},
        laws=[dict(materials=("*", "*"), law="Law2_L6Geom_LinearElPl",
                   params=dict(restitution=0.8))],
        bodies=[Sphere(center=(0, 0, 0.1), radius=0.01, material="glass"),
                Wall(point=(0, 0, 0), normal=(0, 0, 1), sense=1, material="glass")],
        gravity=(0, 0, -9.81),
        timestep=Critical(0.1),
        duration=Time(1.0),
    )
    sim = dem.Simulation(scene)        # the same simulation as the same scene in RON
    print(scene.to_ron())

How Python values become RON:

- a ``dict`` is a struct, ``(name: value, ...)``, except the scene's ``materials`` and
  ``clump_templates``, which are maps from names (``Map`` makes any other map);
- a ``tuple`` (or a numpy array) is a RON tuple: vectors are tuples, ``(0, 0, 0.1)``;
- a ``list`` is a RON list, ``[...]``;
- ``Sphere(...)``, ``Critical(0.1)`` and any other capitalised name imported from this
  module is an enum variant of that name (``Variant("Sphere", ...)`` is the same);
- ``None`` leaves a field out (its default applies); strings, numbers and booleans are
  themselves.
"""

import json
import math
import os

__all__ = ["Scene", "Variant", "Map", "to_ron"]


class Variant:
    """An enum variant of the scene format: ``Name(field: value, ...)``, ``Name(value)``
    or ``Name``."""

    def __init__(self, name, *args, **fields):
        if args and fields:
            raise TypeError(f"{name}: give either one value or named fields, not both")
        if len(args) > 1:
            raise TypeError(f"{name}: give one value (a tuple for several)")
        self.name = name
        self.value = args[0] if args else None
        self.fields = {k: v for k, v in fields.items() if v is not None}
        self.has_value = bool(args)

    def __repr__(self):
        if self.has_value:
            return f"{self.name}({self.value!r})"
        inner = ", ".join(f"{k}={v!r}" for k, v in self.fields.items())
        return f"{self.name}({inner})"

    def __eq__(self, other):
        return isinstance(other, Variant) and (
            self.name,
            self.has_value,
            self.value,
            self.fields,
        ) == (other.name, other.has_value, other.value, other.fields)


class Map(dict):
    """A RON map ``{"key": value}`` (where a plain dict would be a struct)."""


def _number(x):
    if isinstance(x, bool):
        return "true" if x else "false"
    if isinstance(x, int):
        return str(x)
    x = float(x)
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return repr(x)


def _is_number(x):
    try:
        import numpy as np

        if isinstance(x, np.generic):
            return True
    except ImportError:  # pragma: no cover - numpy is a dependency
        pass
    return isinstance(x, (int, float))


def to_ron(value, indent=0):
    """The RON text of ``value`` (see the module docs), nested lines indented by 4."""
    pad = " " * (indent + 4)
    end = " " * indent

    def fields(items):
        items = [(k, v) for k, v in items if v is not None]
        if not items:
            return "()"
        lines = [f"{pad}{k}: {to_ron(v, indent + 4)}," for k, v in items]
        return "(\n" + "\n".join(lines) + f"\n{end})"

    if isinstance(value, Variant):
        if value.has_value:
            return f"{value.name}({to_ron(value.value, indent)})"
        if not value.fields:
            return value.name
        return value.name + fields(value.fields.items())
    if isinstance(value, Map):
        if not value:
            return "{}"
        lines = [f"{pad}{json.dumps(str(k))}: {to_ron(v, indent + 4)}," for k, v in value.items()]
        return "{\n" + "\n".join(lines) + f"\n{end}}}"
    if isinstance(value, dict):
        return fields(value.items())
    if isinstance(value, str):
        return json.dumps(value)
    if _is_number(value):
        return _number(value)
    if hasattr(value, "tolist") and not isinstance(value, (list, tuple)):
        value = tuple(value.tolist())
    if isinstance(value, tuple):
        if all(_is_number(x) for x in value):
            return "(" + ", ".join(_number(x) for x in value) + ")"
        return "(" + ", ".join(to_ron(x, indent) for x in value) + ")"
    if isinstance(value, list):
        if not value:
            return "[]"
        lines = [f"{pad}{to_ron(v, indent + 4)}," for v in value]
        return "[\n" + "\n".join(lines) + f"\n{end}]"
    if isinstance(value, os.PathLike):
        return json.dumps(os.fspath(value))
    raise TypeError(f"cannot write {value!r} ({type(value).__name__}) in a scene")


class Scene:
    """A scene: the top-level fields of the scene format as keywords (``materials``,
    ``laws``, ``bodies``, ``timestep`` and ``duration`` are required; ``gravity``,
    ``damping``, ``output``, ``contacts``, ``cell``, ``fluid``, ``inlets``, ``outlets``,
    ``stop``, ``geometry``, ``clump_templates``, ``plugins`` as in docs/scenes.md).
    ``base_dir`` is where its relative paths (meshes, CSV files, plugins) start."""

    _MAPS = ("materials", "clump_templates")

    def __init__(self, *, materials, laws, bodies, timestep, duration, base_dir=".", **rest):
        self.base_dir = os.fspath(base_dir)
        self.fields = dict(
            materials=materials, laws=laws, bodies=bodies, timestep=timestep, duration=duration
        )
        self.fields.update(rest)

    def __getitem__(self, name):
        return self.fields[name]

    def __setitem__(self, name, value):
        self.fields[name] = value

    def to_ron(self):
        """The scene as the text of a scene file."""
        items = [
            (k, Map(v) if k in self._MAPS and isinstance(v, dict) else v)
            for k, v in self.fields.items()
        ]
        body = to_ron(dict(items))
        return "Scene" + body + "\n"

    def __repr__(self):
        return f"dem.scene.Scene({', '.join(self.fields)})"


def __getattr__(name):
    # `from dem.scene import Sphere`: any capitalised name is a variant of that name.
    if name[:1].isupper() and name.isidentifier():

        def make(*args, **fields):
            return Variant(name, *args, **fields)

        make.__name__ = name
        make.__doc__ = f"The scene format's variant `{name}(...)` (see docs/scenes.md)."
        return make
    raise AttributeError(f"module 'dem.scene' has no attribute {name!r}")
