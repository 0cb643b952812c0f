"""A simulation in notebooks and sweeps: pickle and copy.deepcopy make an independent copy
that goes on bitwise as the original; run(progress=True) shows tqdm's bar; _repr_html_
summarises the state."""

import copy
import pickle

import numpy as np
import pytest

import dem

from test_run import fall


def test_pickle_and_deepcopy_branch_a_run_bitwise(plugins):
    sim = fall(plugins)
    sim.set_applied_forces([[0.001, 0.0, 0.0]], ids=[0])
    sim.run(steps=1700)
    copies = [pickle.loads(pickle.dumps(sim)), copy.deepcopy(sim), copy.copy(sim)]
    for c in copies:
        assert c.step == 1700 and c is not sim
        np.testing.assert_array_equal(c.applied_forces, sim.applied_forces)
    sim.run(steps=1000)
    for c in copies:
        c.run(steps=1000)
        np.testing.assert_array_equal(c.positions, sim.positions)
        np.testing.assert_array_equal(c.velocities, sim.velocities)
        assert c.ledger == sim.ledger
        a, b = c.energy(dataframe=False), sim.energy(dataframe=False)
        for k in a:
            np.testing.assert_array_equal(a[k], b[k])
    # Independent: changing a copy leaves the original alone.
    copies[0].set_velocities([[0.0, 0.0, 5.0]], ids=[0])
    copies[0].run(steps=10)
    assert copies[0].positions[0][2] != sim.positions[0][2]


def test_progress_bar(plugins, capsys):
    pytest.importorskip("tqdm")
    sim = fall(plugins)
    assert sim.run(steps=300, progress=True) == 300
    err = capsys.readouterr().err
    assert "300/300" in err and "step" in err


def test_progress_true_without_tqdm_says_so(plugins, monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "tqdm", None)
    monkeypatch.setitem(sys.modules, "tqdm.auto", None)
    sim = fall(plugins)
    with pytest.raises(ImportError, match="progress=True needs tqdm"):
        sim.run(steps=3, progress=True)
    assert sim.run(steps=3) == 3, "without progress=True no bar is asked for"


def test_html_summary(plugins):
    sim = fall(plugins)
    sim.run(steps=20)
    html = sim._repr_html_()
    assert html.startswith("<table>") and "20 of 5000" in html
    assert "ledger total" in html and "particles</th><td>2<" in html
