"""The expert's personal model: made by ``learn personalise``, chosen by option Model auto."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from engine_helpers import favourite_model, shipped_personal

from casebase.builder import build
from casebase.format import Casebase
from casebase.games import GameFilter, date_key
from engine.style.model import ModelError, StyleModel, save_model
from engine.style.personal import beside, choose_model
from engine.style.planes import encode

torch = pytest.importorskip("torch")

from test_learn import random_net  # noqa: E402
from uci_helpers import session, strings  # noqa: E402

from learn.__main__ import main as learn_main  # noqa: E402
from learn.personal import PersonalConfig, latest_games, personalise  # noqa: E402

pytestmark = [
    pytest.mark.slow,  # it trains personal models (torch)
    # its module fixture is built once, on one worker
    pytest.mark.xdist_group("personal"),
]


@pytest.fixture(scope="module")
def made(kosteniuk_casebase: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A copy of Kosteniuk's casebase, a small random generic model beside it, and the casebase's
    personal model made on top of it by the command (where the engine looks: X.model.npz)."""
    folder = tmp_path_factory.mktemp("personal")
    casebase = folder / "kosteniuk.npz"
    shutil.copy(kosteniuk_casebase, casebase)
    base = folder / "generic.npz"
    save_model(base, random_net(2, 8).export_arrays(), {"blocks": 2, "filters": 8})
    assert (
        learn_main(
            ["personalise", str(casebase), "--base", str(base), "--epochs", "2", "--lr", "3e-3"]
        )
        == 0
    )
    return casebase, base


def log_likelihood(model: StyleModel, casebase: Casebase) -> float:
    """The mean log-probability (over the 4096 indices) of the cases' own moves."""
    from engine.style.planes import move_index

    logits = model.logits(encode(casebase.boards, casebase.turn)).astype(np.float64)
    logits -= logits.max(axis=1, keepdims=True)
    logp = logits - np.log(np.exp(logits).sum(axis=1, keepdims=True))
    moves = move_index(casebase.from_square, casebase.to_square, casebase.turn)
    return float(logp[np.arange(len(moves)), moves].mean())


def test_personalising_moves_the_prior_toward_the_experts_moves(made):
    casebase_path, base = made
    personal, generic = StyleModel.load(beside(casebase_path)), StyleModel.load(base)
    casebase = Casebase.load(casebase_path)
    assert log_likelihood(personal, casebase) > log_likelihood(generic, casebase) + 0.1
    info = personal.personal
    assert info is not None and info["expert"] == "Alexandra Kosteniuk" and info["epochs"] >= 1
    assert info["casebase"]["cases"] == len(casebase) and info["top1"] >= info["generic_top1"]
    # the file holds only what was fitted: the last block and the head
    with np.load(beside(casebase_path)) as npz:
        assert {n for n in npz.files if "." in n} == {
            "block1.conv1.w",
            "block1.conv1.b",
            "block1.conv2.w",
            "block1.conv2.b",
            "head.w",
            "head.b",
        }
    assert np.array_equal(personal.arrays()["stem.w"], generic.arrays()["stem.w"])


def test_the_numpy_inference_equals_the_torch_network_for_a_personal_model(made, tmp_path):
    casebase_path, base = made
    out = tmp_path / "p.npz"
    shutil.copy(base, tmp_path / base.name)
    result = personalise(
        casebase_path, out, base, PersonalConfig(epochs=1, lr=3e-3), progress=False
    )
    casebase = Casebase.load(casebase_path)
    planes = encode(casebase.boards[:64], casebase.turn[:64])
    with torch.no_grad():
        expected = result.net(torch.from_numpy(planes)).numpy()
    got = StyleModel.load(out).logits(planes)
    assert np.abs(got - expected).max() < 0.05 * np.abs(expected).max()  # float16 weights
    assert (got.argmax(axis=1) == expected.argmax(axis=1)).mean() >= 0.9


def test_the_latest_games_check_and_at_least_one_game_is_left_to_fit(
    kosteniuk_casebase, data_dir, expert_names
):
    casebase = Casebase.load(kosteniuk_casebase)
    latest = latest_games(casebase, 0.1)
    games = np.asarray(casebase.game)
    # 10 % of 121 games, rounded as the hold-out rounds it
    assert len(np.unique(games[latest])) == 12
    dates = [date_key(d) for d in np.asarray(casebase.games["date"]).astype(str)]
    assert min(dates[g] for g in games[latest]) >= max(dates[g] for g in games[~latest])
    assert not latest_games(casebase, 1.0).all() and latest_games(casebase, 0.0).any()
    # one definition of the latest games: the casebase built without them holds the others exactly
    kept = build(
        [data_dir / "experts" / "kosteniuk-2200.pgn"],
        GameFilter(expert_names["kosteniuk-2200"], exclude_latest=0.1),
        workers=1,
        progress=False,
    )
    source = np.asarray(casebase.games["index"])
    assert set(np.asarray(kept.games["index"]).tolist()) == set(
        source[np.unique(games[~latest])].tolist()
    )


def test_auto_plays_the_casebases_personal_model_and_an_explicit_model_wins(
    without_networks, made, tmp_path
):
    casebase_path, _ = made
    choice = choose_model(Casebase.load(casebase_path))
    assert choice.personal and choice.path == str(beside(casebase_path))
    lines = session(["setoption name Mode value guided", "go depth 1"], Casebase=str(casebase_path))
    assert (
        f"info string model: personal model of Alexandra Kosteniuk ({beside(casebase_path)}"
        in "\n".join(lines)
    )
    assert lines[-1].startswith("bestmove")
    model = favourite_model(tmp_path / "e4.npz", 28)
    lines = session(
        [
            "setoption name Mode value guided",
            f"setoption name Model value {model}",
            "setoption name Prior value model",
            "go depth 1",
        ],
        Casebase=str(casebase_path),
    )
    assert "personal model" not in strings(lines) and lines[-1] == "bestmove e2e4"


def test_a_personal_model_of_another_casebase_is_passed_over(
    without_networks, made, gaprindashvili_casebase, tmp_path
):
    casebase_path, base = made
    other = tmp_path / "gaprindashvili.npz"
    shutil.copy(gaprindashvili_casebase, other)
    shutil.copy(beside(casebase_path), beside(other))
    shutil.copy(base, tmp_path / base.name)
    choice = choose_model(Casebase.load(other))
    assert not choice.personal and "was made from another casebase (5613 cases" in choice.note
    assert choice.note.startswith("model: the generic model (")


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        ("truncated", "not a model file, or a damaged one"),
        ("no base", "neither beside it nor the shipped generic model"),
        ("base of another shape", "its base"),
        ("personal meta", "a personal model records casebase, expert"),
    ],
)
def test_a_damaged_personal_model_is_refused_with_its_reason_and_the_generic_model_plays(
    without_networks, made, tmp_path, damage, message
):
    casebase_path, base = made
    casebase = tmp_path / casebase_path.name
    shutil.copy(casebase_path, casebase)
    personal = beside(casebase)
    if damage == "truncated":
        personal.write_bytes(beside(casebase_path).read_bytes()[:5000])
    else:
        shutil.copy(beside(casebase_path), personal)
        if damage == "personal meta":
            with np.load(personal) as npz:
                stored = dict(npz)
            meta = json.loads(str(stored["meta"]))
            meta["personal"] = {"expert": "X"}
            stored["meta"] = np.array(json.dumps(meta))
            np.savez(personal, **stored)
        # a base with the recorded hash but other arrays: meta lies
        if damage == "base of another shape":
            with np.load(personal) as npz:
                stored = dict(npz)
            meta = json.loads(str(stored["meta"]))
            save_model(
                tmp_path / base.name, random_net(3, 8).export_arrays(), {"blocks": 3, "filters": 8}
            )
            from engine.style.model import file_sha256

            meta["base"]["sha256"] = file_sha256(tmp_path / base.name)
            stored["meta"] = np.array(json.dumps(meta))
            np.savez(personal, **stored)
    with pytest.raises(ModelError, match=message):
        StyleModel.load(personal)
    choice = choose_model(Casebase.load(casebase))
    assert (
        not choice.personal
        and "cannot load the personal model" in choice.note
        and message in choice.note
    )
    lines = session(["setoption name Mode value guided", "go depth 1"], Casebase=str(casebase))
    assert "cannot load the personal model" in strings(lines) and lines[-1].startswith("bestmove")


def test_personalising_needs_two_games_and_a_generic_base(made, tmp_path):
    casebase_path, _ = made
    with pytest.raises(ValueError, match="itself a personal model"):
        personalise(casebase_path, tmp_path / "x.npz", beside(casebase_path), progress=False)
    with pytest.raises(ValueError, match="tune takes 1..2 blocks"):
        personalise(
            casebase_path, tmp_path / "x.npz", made[1], PersonalConfig(tune=3), progress=False
        )


def test_the_cross_expert_table_compares_each_personal_model_with_the_generic_one(
    heldout, tmp_path
):
    from fidelity.personal_table import cross_table

    casebase, games = heldout
    mine, other = tmp_path / "mine.npz", tmp_path / "other.npz"
    for path in (mine, other):
        shutil.copy(casebase, path)
        shutil.copy(games, path.with_suffix(".pgn"))
    shipped_personal(mine)  # the generic model itself
    shipped_personal(other, {28: 30.0})  # a model that plays any move to e4 (e5 for Black) it can
    table = cross_table([mine, other], 60, progress=False)
    assert table.experts == ["mine", "other"] and len(table.hits) == 3
    assert np.array_equal(table.hits[1][0], table.hits[0][0]) and table.gain(0)[0] == 0
    assert table.gain(1)[0] < 0 and table.share(2, 1) < table.share(1, 1)
    text = table.markdown()
    assert "| generic |" in text and "own best of column | yes | no" in text
    table.plot(tmp_path / "t.png")
    assert (tmp_path / "t.png").read_bytes()[:4] == b"\x89PNG"
    (mine.with_name("mine.model.npz")).unlink()
    with pytest.raises(ValueError, match="no personal model made from it"):
        cross_table([mine], 10, progress=False)


def test_personalising_without_torch_says_how_to_install_it(
    monkeypatch, capsys, kosteniuk_casebase
):
    import sys

    monkeypatch.setitem(sys.modules, "torch", None)  # as if torch were not installed
    monkeypatch.delitem(sys.modules, "learn.personal")
    monkeypatch.delitem(sys.modules, "learn.net", raising=False)
    assert learn_main(["personalise", str(kosteniuk_casebase)]) == 2
    assert (
        "training needs torch, which playing never does: pip install -e '.[train]'"
        in capsys.readouterr().err
    )


def test_the_gains_table_reads_what_each_personal_model_says_of_itself(made, tmp_path):
    from fidelity.personal_table import Gain, gains_markdown, plot_gains

    casebase_path, base = made
    gain = Gain.of(beside(casebase_path))
    assert (
        gain.expert == "Alexandra Kosteniuk"
        and gain.games == 121
        and gain.top1 >= gain.generic_top1
    )
    assert "| Alexandra Kosteniuk | 121 | 5613 |" in gains_markdown([gain])
    plot_gains([gain], tmp_path / "g.png")
    assert (tmp_path / "g.png").read_bytes()[:4] == b"\x89PNG"
    with pytest.raises(ValueError, match="not a personal model"):
        Gain.of(base)
