"""benchmarks/learn_vector.py: its batched features equal ActionFeatures, and a tiny run
trains, checkpoints, resumes and is evaluated against greedy (seconds)."""
from __future__ import annotations

import csv
import importlib.util
import json
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("numpy")
pytest.importorskip("gymnasium")

from lostcities.envs import ActionFeatures, VectorEnv  # noqa: E402

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "learn_vector.py"


def _script():
    """The script as a module, its folder on the path as when it runs (it imports
    train_greedy beside it)."""
    sys.path.insert(0, str(SCRIPT.parent))
    try:
        spec = importlib.util.spec_from_file_location("learn_vector", SCRIPT)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(SCRIPT.parent))
    return module


lv = _script()


def test_batch_features_equal_action_features_row_for_row():
    env = VectorEnv("duel-classic", 24, seed=3)
    batch, one = lv.BatchFeatures(), ActionFeatures("duel-classic")
    rng = np.random.default_rng(1)
    compared = 0
    for step in range(400):                 # past the first round's end in every game
        obs = env.observe_view()
        x = batch(obs)
        if step % 5 == 0:
            for i in range(env.n):
                np.testing.assert_allclose(x[i], one(obs[i]), atol=1e-6, err_msg=f"step {step}")
                compared += 1
        env.step(env.random_actions(rng))
    assert compared == 80 * 24
    assert env.round.max() >= 2             # the rows, piles and scores of a later round seen


def test_policy_samples_only_legal_ids():
    env = VectorEnv("duel-classic", 64, seed=0)
    feats = lv.BatchFeatures()
    rng = np.random.default_rng(0)
    w = rng.normal(size=len(feats.names))
    for _ in range(50):
        mask = env.legal_mask()
        p = lv.policy(feats(env.observe_view()), mask, w)
        assert np.allclose(p.sum(1), 1) and not (p[mask == 0] > 0).any()
        a = lv.sample(p, rng)
        assert mask[np.arange(env.n), a].all()
        env.step(a)


def _rows(run):
    with open(run / "curve.csv", newline="") as fh:
        return list(csv.DictReader(fh))


def test_a_tiny_run_trains_checkpoints_resumes_and_is_evaluated(tmp_path, capsys):
    run = tmp_path / "run"
    # 16 games for about 0.6 CPU s in chunks of 0.2 s: a few hundred decisions a chunk
    lv.main(["train", str(run), "--n", "16", "--minutes", "0.01", "--chunk", "0.2",
             "--update", "2", "--lr", "0.5", "--curve-seeds", "1"])
    meta = json.loads((run / "run.json").read_text())
    assert meta["chunks"] >= 2 and meta["decisions"] >= 300 and meta["updates"] >= 1
    with np.load(run / "checkpoint.npz") as z:
        w = z["w"].copy()
        assert int(z["t"]) == meta["updates"]
    assert np.abs(w).sum() > 0                              # it moved from uniform
    rows = _rows(run)
    assert len(rows) == 1 + meta["chunks"]                   # before training, then each chunk
    assert all(int(r["curve_matches"]) == 2 for r in rows)   # one seed, both seats
    assert [float(r["cpu_s"]) for r in rows] == sorted(float(r["cpu_s"]) for r in rows)

    lv.main(["train", str(run), "--resume", "--minutes", "0.004"])
    again = json.loads((run / "run.json").read_text())
    assert again["chunks"] > meta["chunks"] and again["cpu_s"] > meta["cpu_s"]
    assert again["decisions"] > meta["decisions"]
    assert again["options"] == meta["options"]             # the run's own options kept
    assert len(_rows(run)) == 1 + again["chunks"]
    capsys.readouterr()

    lv.main(["eval", str(run), "--seeds", "1"])
    line = capsys.readouterr().out.strip()
    assert "won" in line and " of 2 " in line and "95% interval" in line
    assert (run / "eval.txt").read_text().strip() == line


def test_a_run_is_not_overwritten_and_a_missing_one_is_one_line(tmp_path):
    run = tmp_path / "run"
    with pytest.raises(SystemExit, match="no checkpoint to resume"):
        lv.main(["train", str(run), "--resume"])
    with pytest.raises(SystemExit, match="no checkpoint"):
        lv.main(["eval", str(run)])
    lv.main(["train", str(run), "--n", "4", "--minutes", "0.001", "--curve-seeds", "0"])
    with pytest.raises(SystemExit, match="already has a checkpoint"):
        lv.main(["train", str(run)])
    with pytest.raises(SystemExit):
        lv.main(["train", str(run), "--resume", "--n", "0"])
    with pytest.raises(SystemExit, match="--resume cannot change it"):
        lv.main(["train", str(run), "--resume", "--n", "8"])


def test_resume_keeps_the_options_unless_given_again(tmp_path):
    run = tmp_path / "run"
    lv.main(["train", str(run), "--n", "4", "--minutes", "0.001", "--curve-seeds", "0",
             "--lr", "0.3"])
    lv.main(["train", str(run), "--resume", "--minutes", "0.001"])
    meta = json.loads((run / "run.json").read_text())
    assert meta["options"]["lr"] == 0.3 and meta["options"]["n"] == 4 and "changes" not in meta
    lv.main(["train", str(run), "--resume", "--minutes", "0.001", "--lr", "0.01"])
    meta = json.loads((run / "run.json").read_text())
    assert meta["options"]["lr"] == 0.01 and meta["changes"][0]["lr"] == 0.01


def test_plot_draws_the_curve_or_says_what_it_needs(tmp_path):
    run = tmp_path / "run"
    lv.main(["train", str(run), "--n", "4", "--minutes", "0.001", "--curve-seeds", "1"])
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        with pytest.raises(SystemExit, match=r"plot needs matplotlib: pip install 'lostcities\[plot\]'"):
            lv.main(["plot", str(run)])
        return
    lv.main(["plot", str(run)])
    assert (run / "curve.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
