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

    bed = Scene.load("scenes/settle.ron")           # a scene file, as Python values
    bed["materials"]["glass"]["friction"] = 0.3      # edited, then run

How Python values become RON:

- a ``dict`` is a struct, ``(name: value, ...)``, except the scene's ``materials``,
  ``clump_templates`` and ``fields``, which are maps from names (``Map`` makes any other
  map, such as a field's ``capacity``);
- a ``tuple`` (or a numpy array) is a RON tuple: vectors are tuples, ``(0, 0, 0.1)``;
- a ``list`` is a RON list, ``[...]``;
- ``Sphere(...)``, ``Critical(0.1)`` and any other capitalised name imported from this
  module is an enum variant of that name (``Variant("Sphere", ...)`` is the same), with
  named fields or positional values (``Uniform(0.002, 0.003)``);
- ``None`` leaves a field out (its default applies); strings, numbers and booleans are
  themselves.

``Scene.load(path)`` and ``from_ron(text)`` read RON into these values (comments are not
kept), so that a scene file can be edited in Python and run.
"""

import json
import math
import os

__all__ = ["Scene", "Variant", "Map", "to_ron", "from_ron"]


class Variant:
    """An enum variant of the scene format: ``Name(field: value, ...)``, ``Name(a, b)``
    (positional values: ``Uniform(0.002, 0.003)``) or ``Name``."""

    def __init__(self, name, /, *values, **fields):
        if values and fields:
            raise TypeError(f"{name}: give either values or named fields, not both")
        self.name = name
        self.values = values
        self.fields = {k: v for k, v in fields.items() if v is not None}

    def __repr__(self):
        inner = [repr(v) for v in self.values]
        inner += [f"{k}={v!r}" for k, v in self.fields.items()]
        return f"{self.name}({', '.join(inner)})"

    def __eq__(self, other):
        return isinstance(other, Variant) and (self.name, self.values, self.fields) == (
            other.name,
            other.values,
            other.fields,
        )


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
        if value.values:
            return f"{value.name}(" + ", ".join(to_ron(v, indent) for v in value.values) + ")"
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

    _MAPS = ("materials", "clump_templates", "fields")

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

    @classmethod
    def from_ron(cls, text, base_dir=".", name="scene.ron"):
        """The scene of RON ``text`` as Python values, to edit and run; ``base_dir`` is
        where its relative paths start (errors name ``name``, line and column)."""
        v = from_ron(text, name)
        if isinstance(v, Variant) and v.name == "Scene" and not v.values:
            fields = v.fields
        elif isinstance(v, dict):
            fields = v
        else:
            raise ValueError(f"{name}: not a scene (`Scene(...)`)")
        scene = cls.__new__(cls)
        scene.base_dir = os.fspath(base_dir)
        scene.fields = dict(fields)
        return scene

    @classmethod
    def load(cls, path):
        """The scene of a scene file, as Python values (relative paths from its
        directory)."""
        path = os.fspath(path)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        return cls.from_ron(text, os.path.dirname(path) or ".", os.path.basename(path))

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


class _Reader:
    """A reader of RON text into the values of this module (see :func:`from_ron`)."""

    def __init__(self, text, name):
        self.s, self.i, self.name = text, 0, name

    def error(self, what):
        line = self.s.count("\n", 0, self.i) + 1
        col = self.i - (self.s.rfind("\n", 0, self.i) + 1) + 1
        return ValueError(f"{self.name}:{line}:{col}: {what}")

    def skip(self):
        s = self.s
        while self.i < len(s):
            if s[self.i].isspace():
                self.i += 1
            elif s.startswith("//", self.i):
                end = s.find("\n", self.i)
                self.i = len(s) if end < 0 else end + 1
            elif s.startswith("/*", self.i):
                end = s.find("*/", self.i + 2)
                if end < 0:
                    raise self.error("unclosed comment")
                self.i = end + 2
            else:
                break

    def peek(self):
        self.skip()
        return self.s[self.i] if self.i < len(self.s) else ""

    def expect(self, c):
        if self.peek() != c:
            raise self.error(f"expected `{c}`")
        self.i += 1

    def ident(self):
        self.skip()
        start = self.i
        while self.i < len(self.s) and (self.s[self.i].isalnum() or self.s[self.i] == "_"):
            self.i += 1
        return self.s[start : self.i]

    def items(self, close, item):
        """Items up to `close`, comma separated (a trailing comma allowed)."""
        out = []
        while self.peek() != close:
            out.append(item())
            if self.peek() == ",":
                self.i += 1
            elif self.peek() != close:
                raise self.error(f"expected `,` or `{close}`")
        self.i += 1
        return out

    def fields_or_values(self):
        """After `(`: named fields (a dict) or positional values (a list)."""
        save = self.i
        first = self.ident()
        named = bool(first) and first[0].isalpha() and self.peek() == ":"
        self.i = save
        if not named:
            return None, self.items(")", self.value)

        def field():
            k = self.ident()
            self.expect(":")
            return k, self.value()

        return dict(self.items(")", field)), None

    def string(self):
        self.skip()
        start = self.i
        self.i += 1
        while self.i < len(self.s) and self.s[self.i] != '"':
            self.i += 2 if self.s[self.i] == "\\" else 1
        if self.i >= len(self.s):
            raise self.error("unclosed string")
        self.i += 1
        return json.loads(self.s[start : self.i])

    def number(self):
        self.skip()
        start = self.i
        while self.i < len(self.s) and (self.s[self.i].isalnum() or self.s[self.i] in "+-._"):
            self.i += 1
        text = self.s[start : self.i].replace("_", "")
        try:
            return int(text)
        except ValueError:
            pass
        try:
            return float(text)
        except ValueError:
            raise self.error(f"not a number: `{text}`") from None

    def value(self):
        c = self.peek()
        if c == '"':
            return self.string()
        if c == "[":
            self.i += 1
            return self.items("]", self.value)
        if c == "{":
            self.i += 1

            def entry():
                k = self.value()
                self.expect(":")
                return k, self.value()

            return Map(self.items("}", entry))
        if c == "(":
            self.i += 1
            fields, values = self.fields_or_values()
            return fields if fields is not None else tuple(values)
        if c.isdigit() or c in "+-.":
            return self.number()
        name = self.ident()
        if not name:
            raise self.error(f"unexpected `{c}`")
        if name in ("true", "false"):
            return name == "true"
        if name in ("inf", "NaN"):
            return float(name.replace("NaN", "nan"))
        if self.peek() != "(":
            return Variant(name)
        self.i += 1
        fields, values = self.fields_or_values()
        if fields is not None:
            return Variant(name, **fields)
        return Variant(name, *values)


def from_ron(text, name="scene.ron"):
    """The values of RON ``text`` (errors name ``name``, line and column): the inverse
    of :func:`to_ron` (a struct becomes a dict, a map a :class:`Map`, a tuple a tuple, a
    list a list, a variant a :class:`Variant`)."""
    r = _Reader(text, name)
    v = r.value()
    if r.peek():
        raise r.error("text after the value")
    return v


def __getattr__(name):
    # `from dem.scene import Sphere`: any capitalised name is a variant of that name.
    if name[:1].isupper() and name.isidentifier():

        def make(*args, **fields):
            return Variant(name, *args, **fields)

        make.__name__ = name
        make.__doc__ = f"The scene format's variant `{name}(...)` (see docs/scenes.md)."
        return make
    raise AttributeError(f"module 'dem.scene' has no attribute {name!r}")
