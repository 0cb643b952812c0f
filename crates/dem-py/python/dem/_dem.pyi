"""Type stubs and documentation of dem's compiled module (``dem._dem``, re-exported by ``dem``).

Arrays are numpy copies of the solver's state, in scene-id order: row ``i`` is the ``i``-th
body of the scene (walls and mesh facets included), whatever the order the solver stores
them in. Units are SI. Changing a returned array changes nothing in the simulation: use
the ``set_*`` methods.
"""

from os import PathLike
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Union

import numpy as np
import numpy.typing as npt

_Path = Union[str, PathLike]
_Vectors = Union[npt.ArrayLike, Sequence[Sequence[float]]]

__version__: str

class Error(Exception):
    """Base class of dem's errors; the message is the one the ``dem`` command prints."""

class SceneError(Error):
    """A scene that does not parse (``file:line:col`` and the field) or is inconsistent."""

class PluginError(Error):
    """A plugin library that cannot be loaded, or a functor that failed during a step
    (plugin, functor, contact and step named)."""

class CheckpointError(Error):
    """A checkpoint that cannot be read, is corrupted, or does not fit its plugins or scene."""

class StateError(Error):
    """A run stopped by a guard: non-finite state or energy growth (particle and step named)."""

def plugins(plugins: Optional[Sequence[_Path]] = None) -> Dict[str, Any]:
    """The plugin catalogue, as ``dem plugins --json`` prints it: ``{"plugins": [{name,
    version, api_version, path, functors: [{name, role, shapes, description, defaults,
    params: [{name, unit, doc}]}]}], "refused": [{path, reason}]}``.

    ``plugins``: more libraries, or directories of libraries, to load first (see
    ``plugin_dirs`` for the ones scanned after them).
    """

def plugin_dirs(plugins: Optional[Sequence[_Path]] = None) -> List[Path]:
    """The directories scanned for plugins after the scene's own ``plugins`` list and the
    ``plugins`` argument: every directory of ``DEM_PLUGIN_PATH``; when that is unset and
    ``plugins`` is empty, the ``target/release`` directory of the repository the module was
    built from (where ``cargo build --release --workspace`` puts the plugins)."""

class Simulation:
    """A scene turned into particles and contact functors, advanced step by step.

    Build one from a scene built in Python (``Simulation(scene)``, see ``dem.scene``),
    or with :meth:`load`, :meth:`from_ron` or :meth:`resume`. Not thread-safe for
    concurrent runs: a second thread's call waits for the running chunk of steps.
    """

    def __init__(
        self,
        scene: Any,
        plugins: Optional[Sequence[_Path]] = None,
        threads: Optional[int] = None,
    ) -> None:
        """A simulation of ``scene`` (a ``dem.scene.Scene``): its ``to_ron()`` text, loaded
        as :meth:`from_ron` loads one from the scene's ``base_dir``; a SceneError names the
        field and the line of that text."""

    @staticmethod
    def load(
        path: _Path, plugins: Optional[Sequence[_Path]] = None, threads: Optional[int] = None
    ) -> "Simulation":
        """Loads the scene file ``path`` (RON, see docs/scenes.md) and its plugins.

        ``plugins``: libraries or directories to load besides the scene's own list (then
        ``plugin_dirs()``). ``threads``: worker threads for every step (default: up to
        one per core, each step taking as many as its work pays for and as were measured
        fastest); results do not depend on it. Raises ``SceneError``, ``PluginError``, ``FileNotFoundError``.
        """

    @staticmethod
    def from_ron(
        text: str,
        base_dir: _Path = ".",
        name: str = "scene.ron",
        plugins: Optional[Sequence[_Path]] = None,
        threads: Optional[int] = None,
    ) -> "Simulation":
        """Builds a simulation from scene text. Relative paths in the scene (meshes, CSV
        files, plugins) start at ``base_dir``; errors name ``base_dir/name``."""

    @staticmethod
    def resume(
        checkpoint: _Path, plugins: Optional[Sequence[_Path]] = None, threads: Optional[int] = None
    ) -> "Simulation":
        """Goes on with a checkpointed run: one written by :meth:`checkpoint` (with the
        gravity and motions set from Python, and the energy rows), or by ``dem run
        --checkpoint-every`` (energy rows start anew). Raises ``CheckpointError`` when the
        checkpoint is damaged or does not fit its plugins or scene."""

    def run(
        self,
        steps: Optional[int] = None,
        time: Optional[float] = None,
        until: Optional[Callable[["Simulation"], bool]] = None,
        every: Optional[int] = None,
        callback: Optional[Callable[["Simulation"], Any]] = None,
        progress: Optional[bool] = None,
    ) -> int:
        """Advances the simulation; returns the number of steps done.

        Runs ``steps`` steps, or ``time`` seconds of simulated time, whichever ends first;
        with neither, to the scene's end (``end_step``). ``callback(sim)`` is called, and
        ``until(sim)`` asked (the run stops when it returns true), every ``every`` steps
        (default: the scene's ``output.every``) counted from this call's first step.

        ``progress``: a tqdm progress bar (``tqdm.auto``: a widget in Jupyter) moved about
        every 50 ms. True asks for it (ImportError when tqdm is missing), False never;
        None (default) shows it in a Jupyter kernel when tqdm is installed.

        The GIL is released while stepping: other Python threads run. Ctrl-C raises
        ``KeyboardInterrupt`` between two steps (within about 50 ms), leaving a whole
        state that can be read, checkpointed or run on. A failing step raises
        ``PluginError`` or ``StateError``; the state is then that of the failed step.
        """

    def __reduce__(self) -> Any:
        """``pickle``: the state as checkpoint bytes, with the ``plugins=`` and ``threads=``
        it was made with. The copy loads its plugins as this process did, goes on bitwise
        as the original would, and keeps the energy rows of :meth:`energy`."""

    def __copy__(self) -> "Simulation":
        """``copy.copy``: a whole, independent copy (as ``pickle``)."""

    def __deepcopy__(self, memo: Any) -> "Simulation":
        """``copy.deepcopy``: as ``copy.copy``."""

    def _repr_html_(self) -> str:
        """Jupyter's summary: scene, step and time, particles, contacts, ledger."""

    def checkpoint(self, path: _Path) -> None:
        """Writes a checkpoint of the state now, atomically and durably (see the README's
        "Checkpoints and resume"), with the gravity and motions set from Python and the
        energy rows. Resume it with :meth:`resume` or ``dem resume``."""

    def write_vtk(self, dir: _Path) -> None:
        """Writes a VTK frame of the state now into ``dir`` (``particles_<step>.vtu``,
        ``contacts_…``, ``walls_…``, ``polyhedra_…`` with polyhedra) and rewrites the
        ``.pvd`` collections there to list every frame this object wrote into ``dir``."""

    def write_particles_csv(self, dir: _Path) -> Path:
        """Writes ``particles.csv`` (the state now, as ``dem run`` writes it at its end)
        into ``dir``; returns its path."""

    def write_energy_csv(self, dir: _Path) -> Path:
        """Writes ``energy.csv`` (the ledger at the output steps so far, as ``dem run``
        writes it) into ``dir``; returns its path."""

    def __len__(self) -> int:
        """Number of particles, walls and mesh facets included."""

    step: int
    """Steps done."""
    end_step: int
    """The step at which the scene's duration ends (or a stop condition ended it)."""
    time: float
    """Time t, s."""
    dt: float
    """Time step, s."""
    critical_dt: float
    """Critical time step estimate, s."""
    scene_path: Path
    """The scene file (or ``base_dir/name`` of ``from_ron``)."""
    gravity: List[float]
    """Gravity, m/s^2. Setting it (a finite [x, y, z]) books the change of potential
    energy as work done on the particles and is kept in checkpoints."""

    @property
    def positions(self) -> npt.NDArray[np.float64]:
        """Positions, m: (n, 3)."""
    @property
    def velocities(self) -> npt.NDArray[np.float64]:
        """Velocities, m/s: (n, 3); the leap-frog mid-step values v(t - dt/2)."""
    @property
    def angular_velocities(self) -> npt.NDArray[np.float64]:
        """Angular velocities, rad/s: (n, 3)."""
    @property
    def orientations(self) -> npt.NDArray[np.float64]:
        """Orientations as unit quaternions (x, y, z, w), scalar last: (n, 4)."""
    @property
    def forces(self) -> npt.NDArray[np.float64]:
        """Forces of the last step (contacts and gravity), N: (n, 3)."""
    @property
    def torques(self) -> npt.NDArray[np.float64]:
        """Torques of the last step, N m: (n, 3)."""
    @property
    def radii(self) -> npt.NDArray[np.float64]:
        """Bounding radii, m: (n,); infinite for walls and facets."""
    @property
    def masses(self) -> npt.NDArray[np.float64]:
        """Masses, kg: (n,); infinite for walls, facets and fixed bodies."""
    @property
    def materials(self) -> npt.NDArray[np.uint32]:
        """Material indices into ``material_names``: (n,)."""
    @property
    def ids(self) -> npt.NDArray[np.int64]:
        """Scene ids of the rows of the per-particle arrays: 0 to n - 1, unless inlets
        inserted particles (their ids follow the scene's, in order of insertion) or outlets
        removed some (their ids are missing): (n,)."""
    @property
    def material_names(self) -> List[str]:
        """The scene's material names, in index order (sorted by name)."""
    @property
    def kinds(self) -> npt.NDArray[np.str_]:
        """Shape names: "Sphere", "Wall", "Facet", "Polyhedron" or a plugin shape's own
        (e.g. "Superquadric"): (n,)."""
    @property
    def field_names(self) -> List[str]:
        """The scene's particle fields (e.g. ``["temperature"]``), in name order."""
    def field(self, name: str) -> npt.NDArray[np.float64]:
        """Values of particle field ``name`` in its unit (a temperature in K): (n,)."""
    @property
    def bonds(self) -> Dict[str, npt.NDArray[Any]]:
        """The intact bonds at the last step (see docs/scenes.md, *Bonds*): ``ids``
        ((n, 2) int64, the scene ids of each bond's spheres, the smaller first),
        ``tension`` ((n,), N, negative in compression), ``shear_force`` ((n,), N) and
        ``elastic`` ((n,), J)."""
    @property
    def bond_counts(self) -> Dict[str, int]:
        """``made`` (at t = 0 and by ``reform`` rules since), ``intact``, ``broken``
        and ``removed`` (gone with a removed sphere)."""
    def field_balance(self, name: str) -> Dict[str, float]:
        """``stored``, ``initial``, ``from_fixed_bodies``, ``inflow``, ``outflow``,
        ``balance_error`` and
        ``largest_step_ratio`` of particle field ``name`` (see the heat ledger in
        docs/scenes.md, *Particle fields*)."""
    @property
    def ledger(self) -> Dict[str, float]:
        """The energy ledger of the last step, J: the columns of ``energy.csv``
        (kinetic, rotational, potential, elastic, friction, damping, nonviscous,
        broken, boundary_work, inflow, outflow, total)."""

    def set_positions(self, values: _Vectors, ids: Optional[Sequence[int]] = None) -> None:
        """Sets the positions (m) of the particles ``ids`` (scene ids; every particle when
        None), one [x, y, z] per particle. Raises ``ValueError`` naming the particle for a
        non-finite value, an unknown or repeated id, a wrong shape, or a particle moved by
        a prescribed motion or part of a mesh (unless its value is unchanged). The change
        of potential energy is booked as work done on the particles."""
    def set_velocities(self, values: _Vectors, ids: Optional[Sequence[int]] = None) -> None:
        """Sets the velocities (m/s, the mid-step values) of the particles ``ids``; checked
        as :meth:`set_positions`. The change of kinetic energy is booked as work done on
        the particles (to within m g dt |dv| / 2 of the leap-frog ledger)."""
    def set_angular_velocities(
        self, values: _Vectors, ids: Optional[Sequence[int]] = None
    ) -> None:
        """Sets the angular velocities (rad/s) of the particles ``ids``; checked as
        :meth:`set_positions`."""

    def set_applied_forces(
        self, values: _Vectors, ids: Optional[Sequence[int]] = None
    ) -> None:
        """Sets the forces (N, global frame, through the centre of mass) applied from
        outside to the particles ``ids`` (scene ids; all when None): they act at every
        step from the next on until changed, and their work is booked as
        ``boundary_work`` in the ledger. Zero removes a particle's force. Raises
        ValueError naming the particle for clump members, mesh facets and particles
        with a prescribed motion. Checkpoints keep them."""

    def set_applied_torques(
        self, values: _Vectors, ids: Optional[Sequence[int]] = None
    ) -> None:
        """Sets the torques (N m, global frame) applied from outside to the particles
        ``ids``: see :meth:`set_applied_forces`."""

    @property
    def applied_forces(self) -> npt.NDArray[np.float64]:
        """The forces applied from outside (N), (n, 3) in scene-id order (zero where none
        is set)."""

    @property
    def applied_torques(self) -> npt.NDArray[np.float64]:
        """The torques applied from outside (N m), (n, 3) in scene-id order."""

    def add_spheres(
        self,
        centers: _Vectors,
        radii: Union[float, Sequence[float]],
        material: str,
        velocities: Optional[_Vectors] = None,
        angular_velocities: Optional[_Vectors] = None,
    ) -> npt.NDArray[np.int64]:
        """Adds spheres between two steps, as an inlet inserts them: ``centers`` (n, 3) m,
        ``radii`` m (one per sphere, or one for all), of ``material`` (a scene material's
        name), with ``velocities`` (m/s, the mid-step value as a scene's) and
        ``angular_velocities`` (rad/s), zero when None. Their mass and inertia are a scene
        sphere's; their energy is booked as ``inflow`` so that ``total`` stays. Returns
        their scene ids (the next ones). Raises ValueError naming the sphere, with nothing
        added, for a bad radius, an unknown material, non-finite values, or an overlap with
        a sphere or a wall (on the wrong side of a one-sided wall included). Checkpoints
        keep them."""

    def add_bodies(self, bodies: Union[str, Sequence[Any]]) -> npt.NDArray[np.int64]:
        """Adds bodies between two steps, written as a scene's ``bodies``: a list of
        ``dem.scene`` variants (``Polyhedron(vertices=..., material="rock")``,
        ``Clump(template="pair", position=(0, 0, 0.1), material="glass")``, ``Sphere(...)``,
        generators such as ``RandomFill(...)`` or ``Rocks(...)``) or its RON text. Each is
        made as the scene makes its bodies; returns the scene ids of their particles (a
        clump's members), the next ones. Their energy is booked as ``inflow`` so that
        ``total`` stays. Raises ValueError naming the body, with nothing added, for what
        the scene parser refuses (line and field named), walls, boxes, meshes, CSV imports
        and blocked degrees of freedom, a rigid material, an overlap with a particle
        present or another added body (a polyhedron by its bounding sphere), a shape or
        material pair the run has no functor or law for (chosen when the run is built:
        put a body of that shape in the scene), or a critical step below the time step.
        Checkpoints keep them whole."""

    def remove_particles(self, ids: Sequence[int]) -> float:
        """Removes the particles ``ids`` (scene ids) with their contacts, between two
        steps, as an outlet does: the others keep their ids (``ids`` shows who is left);
        their kinetic, rotational and potential energy and their contacts' elastic energy
        leave the ledger as ``outflow``, so that ``total`` stays. Returns that energy, J.
        Raises ValueError naming the particle, with nothing removed, for an unknown or
        repeated id, a clump member, a mesh facet or a body with a prescribed motion.
        Checkpoints keep the new population."""

    def clear_applied(self) -> None:
        """Removes every force and torque applied from outside."""

    def set_law_params(self, law: int, params: Union[str, Dict[str, Any]]) -> None:
        """Builds law ``law`` (its place in the scene's ``laws``, from 0) again with new
        parameters, RON text (``"(kn: 2e4, restitution: 0.5)"``) or a dict
        (``{"kn": 2e4, "restitution": 0.5}``, written as ``dem.scene`` writes a scene);
        parameters not given take the law's defaults, as in a scene. Between two steps:
        the contacts keep their state (L6Geom, springs) and compute their constants again
        at the next step; what that changes of the energy stored in them is booked as
        ``boundary_work``, so that ``total`` stays. Raises ValueError, with nothing
        changed, for a law that does not exist, parameters the plugin refuses, a changed
        number of state slots or interaction distance, a time step above the new critical
        step, or a plugin built before dem-api 0.5.1. Checkpoints keep the change."""

    def set_material(
        self,
        name: str,
        young: Optional[float] = None,
        poisson: Optional[float] = None,
        friction: Optional[float] = None,
    ) -> None:
        """Sets material ``name``'s Young's modulus (Pa), Poisson's ratio or friction
        coefficient between two steps (None keeps the present value; the density, and
        with it the masses, cannot change). The contacts of every law serving the
        material keep their state and compute their constants again at the next step, as
        with ``set_law_params``. Raises ValueError, with nothing changed, for an unknown
        material, a value out of range, a rigid material's Young's modulus, or a time
        step above the new critical step. Checkpoints keep the change."""

    @property
    def material_properties(self) -> Dict[str, Dict[str, float]]:
        """The materials now: name -> ``density`` (kg/m^3), ``young`` (Pa, inf when
        rigid), ``poisson``, ``friction``."""

    @property
    def law_changes(self) -> Dict[int, str]:
        """The laws' parameters set since the scene was built: law index -> RON text."""

    def energy(self, dataframe: Optional[bool] = None) -> Any:
        """The ledger at the output steps so far (the rows of ``energy.csv``: ``step``,
        ``time`` and the ledger's columns): a pandas DataFrame when pandas is installed
        (``dataframe=False``: never; ``True``: pandas required), else a dict of numpy
        arrays."""

    def contacts(self) -> Dict[str, npt.NDArray[Any]]:
        """The live contacts, one row each: ``ids`` (m, 2) scene ids of body 1 and body 2,
        ``point`` (m, 3) m, ``normal`` (m, 3), ``force`` (m, 3) on body 2 N,
        ``normal_force`` (m,) magnitude N, ``tangential_force`` (m, 3) N, ``overlap``
        (m,) m; ``feature`` (m,) the pair's contact term (0 for a one-term functor) and
        ``onset`` (m,) s, the contact's creation time: with ``ids`` they name a contact for
        its whole life, checkpoints included (a pair that separates and touches again is a
        new contact, with a later onset); and the energies the law booked for each at the
        last step (J, times the term's weight): ``elastic`` (stored now), ``friction`` and
        ``damping``; ``law`` (m,) its law's name and ``state`` (m, k) its law's state
        slots, NaN past the law's own count (the law's per-contact constants first, in
        declaration order, then its own slots: named by ``law_state_names``)."""

    @property
    def law_state_names(self) -> Dict[str, List[str]]:
        """The names of each law's state slots, the columns of ``contacts()["state"]`` for
        its contacts: law name -> names (its constants' names first, then its own; a
        plugin that gives none, built before dem-api 0.5.1 or in C, ``slot_<j>``)."""

    def coarse_grain(
        self,
        min: Sequence[float],
        max: Sequence[float],
        cells: Sequence[int],
        kernel: str = "lucy",
        size: Optional[float] = None,
        widths: float = 3.0,
        vti: Optional[_Path] = None,
    ) -> Dict[str, npt.NDArray[np.float64]]:
        """Coarse-grained fields of the spheres and polyhedra now, at the centres of
        ``cells`` (nx, ny, nz) cells of the box ``[min, max]`` (m), smoothed by ``kernel``:
        ``"lucy"`` (``size`` its cutoff, m) or ``"gaussian"`` (``size`` its width, m, cut at
        ``widths`` widths). Returns ``x``, ``y``, ``z`` (the cell centres, m), ``density``
        (nx, ny, nz) kg/m^3, ``velocity`` (nx, ny, nz, 3) m/s, ``kinetic_stress``,
        ``contact_stress`` and ``stress`` (their sum), (nx, ny, nz, 3, 3) Pa, compression
        positive. With ``vti``, also writes them there (atomically) as a VTK image for
        ParaView (point data of the same names; tensors by rows). In a periodic cell
        every particle and contact counts at each of its images (the grid may lie
        anywhere). Raises ``ValueError`` naming the field for a bad grid or kernel, and with
        clumps (not supported yet); ``OSError`` naming the file when it cannot be written."""

    def motions(self) -> List[Dict[str, Any]]:
        """The boundaries with a prescribed motion, in scene order: ``index``, ``kind``
        (Translate, Rotate, Shake, Servo), its parameters, ``ids`` (scene ids of the moved
        particles); a servo also gives ``measured_stress`` (Pa) and ``displacement`` (m)."""

    def set_motion(self, index: int, **params: Any) -> None:
        """Changes parameters of the prescribed motion ``index`` (see :meth:`motions`),
        named as in the scene; the others keep their values: ``velocity`` (Translate, m/s),
        ``center`` (m), ``axis``, ``omega`` (Rotate, rad/s), ``amplitude`` (m), ``frequency``
        (Shake, Hz), ``stress`` (Pa), ``area`` (m^2), ``max_velocity``, ``gain`` (Servo,
        m/s). Vectors are one [x, y, z]. The kind of a motion cannot change.

        The motion goes on from the pose its bodies have now (the pose is continuous), with
        the new velocity from the next step; a Shake keeps its phase (a new frequency goes on
        from the same point of the cycle; a new amplitude moves the centre of the
        oscillation by (old - new) amplitude x sin(phase), none at a zero crossing); a Servo
        keeps its displacement. The work the moving boundary does is booked in the ledger's
        ``boundary_work`` from its new velocity. Kept in checkpoints (for :meth:`resume` and
        ``dem resume``). Raises ``ValueError`` naming the motion and the field for an
        unknown motion or parameter, or a value the scene would refuse; nothing changes
        then."""

    def set_servo(
        self,
        index: int,
        stress: Optional[float] = None,
        area: Optional[float] = None,
        max_velocity: Optional[float] = None,
        gain: Optional[float] = None,
    ) -> None:
        """Changes the settings of the servo-controlled wall of motion ``index`` (the
        others keep theirs): :meth:`set_motion` for a Servo. ``ValueError`` for another
        kind of motion."""
