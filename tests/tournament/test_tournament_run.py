"""Whole round robins: workers, resuming, the UCI path, reference engines, the CLI and the demo."""

import io
import shlex
from pathlib import Path

import chess.pgn
import pytest
from pgn_helpers import games_of

import tournament.runner
from engine.cbr.configurations import parse_configurations
from engine.outside.clock import TimeControl
from engine.outside.launch import own_engine
from tournament.__main__ import main
from tournament.players import casebase_entrant, engine_entrant
from tournament.runner import TournamentSettings, run

pytestmark = pytest.mark.slow  # round robins of engine games


@pytest.fixture(scope="module")
def settings(kosteniuk_casebase, gaprindashvili_casebase):
    return TournamentSettings(
        entrants=(casebase_entrant(kosteniuk_casebase), casebase_entrant(gaprindashvili_casebase)),
        configs=tuple(parse_configurations(["near-to", "near-from"])),
        rounds=2,
        seed=11,
    )


@pytest.fixture(scope="module")
def reference(settings, tmp_path_factory):
    """The run played serially: the games every other way of playing must reproduce."""
    out = tmp_path_factory.mktemp("serial")
    return games_of(run(settings, out, workers=1, progress=False))


def test_a_run_plays_the_schedule_with_every_tag(reference, settings):
    assert len(reference) == 8
    for (round_, _white, _black), text in reference.items():
        game = chess.pgn.read_game(io.StringIO(text))
        h = game.headers
        assert h["Result"] in ("1-0", "0-1", "1/2-1/2") and h["Mode"] == "pure"
        assert h["WeightConfig"] == {"1": "0.8 0.2 0.5", "2": "0.8 0.8 0.5"}[round_.split(".")[0]]
        assert int(h["PlyCount"]) == len(list(game.mainline_moves())) > 0
        assert h["TimeRequirementMet"] == "yes" and h["TimeControl"] == "40/5400"
        assert {h["WhiteElo"], h["BlackElo"]} == {"2290", "2355"}


def test_games_do_not_depend_on_the_number_of_workers(reference, settings, tmp_path):
    assert games_of(run(settings, tmp_path, workers=2, progress=False)) == reference


def test_an_interrupted_run_resumes_without_replaying_or_losing_games(
    reference, settings, tmp_path, monkeypatch
):
    real, calls = tournament.runner.play_game, []

    def interrupted_after_three(*args, **kwargs):
        if len(calls) == 3:
            raise KeyboardInterrupt
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(tournament.runner, "play_game", interrupted_after_three)
    with pytest.raises(KeyboardInterrupt):
        run(settings, tmp_path, workers=1, progress=False)
    kept = sorted((tmp_path / "games").glob("*.pgn"))
    assert len(kept) == 3 and not (tmp_path / "results.pgn").exists()
    stamps = {p: p.stat().st_mtime_ns for p in kept}

    monkeypatch.setattr(tournament.runner, "play_game", real)
    played = []
    monkeypatch.setattr(
        tournament.runner, "play_game", lambda *a, **k: played.append(1) or real(*a, **k)
    )
    assert games_of(run(settings, tmp_path, workers=1, progress=False)) == reference
    assert len(played) == 5
    assert {p: p.stat().st_mtime_ns for p in kept} == stamps


@pytest.mark.parametrize("damage", ["another game", "empty", "not PGN"])
def test_a_resumed_run_replays_game_files_that_are_not_the_scheduled_game(
    reference, settings, tmp_path, monkeypatch, damage
):
    run(settings, tmp_path, workers=1, progress=False)
    first, second = sorted((tmp_path / "games").glob("*.pgn"))[:2]
    first.write_text(
        {"another game": second.read_text(encoding="utf-8"), "empty": "", "not PGN": "\x00garbage"}[
            damage
        ],
        encoding="utf-8",
    )
    (tmp_path / "results.pgn").unlink()
    real, played = tournament.runner.play_game, []
    monkeypatch.setattr(
        tournament.runner, "play_game", lambda *a, **k: played.append(1) or real(*a, **k)
    )
    assert games_of(run(settings, tmp_path, workers=1, progress=False)) == reference
    assert len(played) == 1  # only the damaged game is played again


def test_resuming_with_other_settings_is_refused(settings, tmp_path):
    run(
        TournamentSettings(settings.entrants, settings.configs[:1], rounds=1, seed=11),
        tmp_path,
        workers=1,
        progress=False,
    )
    with pytest.raises(ValueError, match="another tournament.*seed"):
        run(
            TournamentSettings(settings.entrants, settings.configs[:1], rounds=1, seed=12),
            tmp_path,
            workers=1,
            progress=False,
        )


def test_uci_path_plays_the_same_games_and_outside_engines_join(
    reference, settings, kosteniuk_casebase, tmp_path
):
    # Our own engine, started as any outside engine would be, as a rated reference player.
    command = shlex.join([*own_engine(), "--casebase", str(kosteniuk_casebase), "--seed", "5"])
    ref = engine_entrant(f"name=ref cmd={shlex.quote(command)} option.Mode=pure elo=2000")
    uci = TournamentSettings(
        settings.entrants + (ref,),
        settings.configs[:1],
        rounds=1,
        seed=11,
        via_uci=True,
        control=TimeControl(40, 600),
    )
    played = games_of(run(uci, tmp_path, workers=2, progress=False))
    assert len(played) == 6
    for key in [
        ("1.1", "kosteniuk-2200", "gaprindashvili-2300"),
        ("1.1", "gaprindashvili-2300", "kosteniuk-2200"),
    ]:
        assert played[key].replace("40/600", "40/5400") == reference[key]
    engine_games = [
        chess.pgn.read_game(io.StringIO(t)).headers for k, t in played.items() if "ref" in k
    ]
    assert len(engine_games) == 4
    assert all("2000" in (h["WhiteElo"], h["BlackElo"]) for h in engine_games)
    report = main(["report", str(tmp_path)])
    assert (
        report == 0
        and "anchored to the reference engines' ratings" in (tmp_path / "report.md").read_text()
    )


def test_command_line_run_prints_the_report(
    kosteniuk_casebase, gaprindashvili_casebase, tmp_path, capsys
):
    code = main(
        [
            "run",
            "--casebases",
            str(kosteniuk_casebase),
            str(gaprindashvili_casebase),
            "--configs",
            "0.2 0.5 0.2",
            "--rounds",
            "1",
            "--workers",
            "1",
            "--out",
            str(tmp_path),
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert "| content-to (0.2 0.5 0.2) | yes |" in out
    assert {p.name for p in tmp_path.iterdir()} >= {
        "results.pgn",
        "report.md",
        "results.csv",
        "results.json",
        "strength.png",
        "tournament.json",
    }


@pytest.mark.parametrize(
    "args, message",
    [
        (["--casebases", "missing.npz"], "no such casebase"),
        (["--casebases", "{k}", "{k}", "--tc", "fast"], "time control"),
        (["--casebases", "{k}"], "at least two players"),
        (["--casebases", "{k}", "{k}"], "distinct"),
        (["--casebases", "{k}", "{g}", "--engine", "name=x"], "cmd="),
        (["--casebases", "{k}", "{g}", "--seed", "-1"], "seed"),
        (["--casebases", "{k}", "{g}", "--workers", "0"], "--workers"),
        (["--casebases", "{k}", "{g}", "--configs", "0.5 0.5"], "v1 v2 v3"),
        (
            ["--casebases", "{k}", "{g}", "--mode", "guided", "--model", "{k}"],
            "not a cbr-chess-model file",
        ),
    ],
)
def test_command_line_errors_are_clear(
    args, message, kosteniuk_casebase, gaprindashvili_casebase, tmp_path, capsys
):
    args = [a.format(k=kosteniuk_casebase, g=gaprindashvili_casebase) for a in args]
    assert main(["run", *args, "--out", str(tmp_path / "out")]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def demo(white: Path, black: Path, *words: str) -> int:
    """``tournament demo``'s exit status: ``white``'s casebase against ``black``'s, ``words``."""
    return main(["demo", "--white", str(white), "--black", str(black), *words])


def test_demo_plays_through_the_uci_engine_and_explains_each_move(
    kosteniuk_casebase, gaprindashvili_casebase, capsys
):
    assert demo(kosteniuk_casebase, gaprindashvili_casebase, "--plies", "4", "--mode", "pure") == 0
    out = capsys.readouterr().out
    assert (
        out.count("similarity") >= 4 and "\n1. " in out and "\n2... " in out and "pure mode" in out
    )
    assert "casebase Alexandra Kosteniuk" in out and "of Nona Gaprindashvili" in out
    assert "  a b c d e f g h" in out and "Stopped after 4 plies" in out


def test_the_demo_plays_guided_engines_by_default(
    kosteniuk_casebase, gaprindashvili_casebase, capsys
):
    assert demo(kosteniuk_casebase, gaprindashvili_casebase, "--plies", "2") == 0
    out = capsys.readouterr().out
    assert "guided mode" in out and "time control 40/12" in out
    assert "the style model" in out and "search depth" in out and "Stopped after 2 plies" in out


def test_engine_specs_parse_into_reference_players():
    sf = engine_entrant(
        "name=sf1350 cmd=/usr/games/stockfish option.UCI_LimitStrength=true"
        " option.UCI_Elo=1350 elo=1350"
    )
    assert (sf.id, sf.elo, sf.command, sf.is_engine) == (
        "sf1350",
        1350,
        ("/usr/games/stockfish",),
        True,
    )
    assert dict(sf.options) == {"UCI_LimitStrength": "true", "UCI_Elo": "1350"}
    quoted = engine_entrant("name=x cmd='python3 my engine.py'")
    assert quoted.command == ("python3", "my", "engine.py") and quoted.elo is None
    for bad, message in [
        ("name=x cmd=y elo=strong", "not an integer"),
        ("name=x cmd=y colour=red", "unknown key"),
        ("name=x cmd", "KEY=VALUE"),
    ]:
        with pytest.raises(ValueError, match=message):
            engine_entrant(bad)


def test_similarity_sets_pure_modes_option_for_every_casebase_player():
    from tournament.__main__ import _options

    assert _options("learned", []) == {"Similarity": "learned"} and _options("shallow", []) == {}
    # --option names it last
    assert _options("learned", ["Similarity=shallow"]) == {"Similarity": "shallow"}
