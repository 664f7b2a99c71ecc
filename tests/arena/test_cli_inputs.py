"""Command-line input: numeric options are checked by argparse and name the option; output
paths are checked before any game is played; the path printed is the path written."""

import errno
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hunger_rl.arena import evaluation, tournament
from hunger_rl.arena.commands import output_folder
from hunger_rl.cli import main

EVALUATE = ["evaluate", "--game", "hungry", "--policies", "random", "--games", "2",
            "--workers", "1", "--no-progress"]


@pytest.fixture
def no_games(monkeypatch):
    """Fail the test if a command starts playing."""

    def played(*args, **kwargs):
        raise AssertionError("games were played before the output paths were checked")

    monkeypatch.setattr(evaluation, "evaluate", played)
    monkeypatch.setattr(tournament, "tournament", played)


@pytest.mark.parametrize("command", ["evaluate", "tournament"])
@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        # Defect 10: this played every game, then failed with a traceback.
        ("--json", "/nonexistent/x.json", "--json /nonexistent/x.json: there is no folder "
                                          "/nonexistent"),
        ("--csv", "/nonexistent/x.csv", "--csv /nonexistent/x.csv: there is no folder"),
        ("--plot", "/nonexistent/x.png", "--plot /nonexistent/x.png: there is no folder"),
        ("--plot", "{tmp}/x.docx", "matplotlib cannot write '.docx' files; use one of"),
        ("--json", "{tmp}/file.txt/x.json", "there is no folder"),
        # Permission bits said yes (to root, or on a virtual file system); the write did not.
        pytest.param("--csv", "/proc/x.csv",
                     "--csv /proc/x.csv: cannot write /proc/x.csv: No such file",
                     marks=pytest.mark.skipif(not Path("/proc").is_dir(), reason="no procfs")),
        ("--json", "{tmp}/" + "x" * 300 + ".json", ": File name too long"),
    ],
)
def test_output_paths_are_checked_before_playing(tmp_path, capsys, no_games, command, option,
                                                 value, message):
    (tmp_path / "file.txt").write_text("")
    argv = [command, *EVALUATE[1:], "--policies", "random", "greedy",
            option, value.format(tmp=tmp_path)]
    assert main(argv) == 2
    assert message in capsys.readouterr().err


def test_a_write_that_fails_after_the_games_is_one_line(tmp_path, capsys, monkeypatch):
    def disk_full(self, path):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), path)

    monkeypatch.setattr(evaluation.EvaluationResult, "to_csv", disk_full)
    assert main([*EVALUATE, "--csv", str(tmp_path / "x.csv")]) == 2
    assert capsys.readouterr().err == (f"hunger-rl: error: --csv {tmp_path / 'x.csv'}: cannot "
                                       f"write: No space left on device\n")


def test_plot_writes_where_it_says(tmp_path, capsys):
    """Defect 10: ``--plot DIR`` wrote ``DIR.png`` and said "wrote DIR"."""
    folder = tmp_path / "plots"
    folder.mkdir()
    assert main([*EVALUATE, "--plot", str(folder), "--json", str(folder)]) == 0
    out = capsys.readouterr().out
    assert f"wrote {folder / 'evaluate.png'}\n" in out
    assert f"wrote {folder / 'evaluate.json'}\n" in out
    assert sorted(p.name for p in folder.iterdir()) == ["evaluate.json", "evaluate.png"]
    assert main([*EVALUATE, "--plot", str(tmp_path / "curve")]) == 0
    assert f"wrote {tmp_path / 'curve.png'}\n" in capsys.readouterr().out
    assert (tmp_path / "curve.png").read_bytes()[:4] == b"\x89PNG"
    assert main([*EVALUATE, "--plot", str(tmp_path / "share.svg")]) == 0
    assert (tmp_path / "share.svg").read_text().startswith("<?xml")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        # Defect 10: the error did not name the option.
        (["demo", "hungry", "--seed", "-1"],
         "argument --seed: must be an integer in [0, 4294967295], got '-1'"),
        (["demo", "hungry", "--seed", "9" * 50], "argument --seed: must be an integer in"),
        # int() reads other scripts' digits and refuses '²', which str.isdigit passes.
        (["demo", "hungry", "--seed", "\u0661"], "argument --seed: must be an integer in "
                                                 "[0, 4294967295], got '\u0661'"),
        (["demo", "hungry", "--seed", "\u00b2"], "argument --seed: must be an integer in"),
        # Issue 50: served on 70000 - 65536 = 4464, silently.
        (["play", "--game", "hungry", "--opponents", "random", "--port", "70000"],
         "argument --port: must be an integer in [0, 65535], got '70000'"),
        (["demo", "hungry", "--players", "two"], "argument --players: must be an integer"),
        ([*EVALUATE, "--games", "0"], "argument --games: must be an integer in [1, 10000000]"),
        ([*EVALUATE, "--workers", "100000"], "argument --workers: must be an integer in [1, 256]"),
        ([*EVALUATE, "--seed", "1.5"], "argument --seed: must be an integer"),
        (["train", "hungry_2p", "--total-steps", "0"],
         "argument --total-steps: must be an integer >= 1, got '0'"),
        (["train", "hungry_2p", "--final-games", "x"],
         "argument --final-games: must be an integer >= 1, got 'x'"),
    ],
)
def test_numeric_options_are_checked_by_argparse(capsys, argv, message):
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 2
    assert message in capsys.readouterr().err


def test_train_overrides_meet_the_schema_and_out_is_checked_first(tmp_path, capsys):
    assert main(["train", "tests/training/tiny_hungry.yaml", "--total-steps", str(10**10)]) == 2
    assert "total_steps must be an integer in [1, 1000000000]" in capsys.readouterr().err
    blocker = tmp_path / "file"
    blocker.write_text("")
    assert main(["train", "tests/training/tiny_hungry.yaml", "--out", str(blocker / "run")]) == 2
    assert f"--out {blocker / 'run'}: {blocker} is a file, not a folder" in capsys.readouterr().err
    missing = tmp_path / "missing"
    assert main(["train", "tests/training/tiny_hungry.yaml", "--out", str(tmp_path / "run"),
                 "--resume", str(missing)]) == 2
    assert f"--resume {missing}: no such folder" in capsys.readouterr().err


BAD_NUMBERS = ["-1", "0", "1e3", "x", "", "2.0", "9" * 30, "4294967296"]
# Valid player counts stay small: a tournament plays every seat arrangement.
PLAYERS = st.sampled_from(["1", "2", "3", "7", " 2", *BAD_NUMBERS])
SEEDS = st.sampled_from(["1", " 2", "4294967295", *BAD_NUMBERS]) | st.integers(-5, 10).map(str)


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_fuzzed_command_lines_succeed_or_exit_2_with_a_message(tmp_path, capsys, data):
    """Any mix of option values: the command runs, or exits with status 2 and one error line."""
    game = data.draw(st.sampled_from(["hungry", "hunger_show", "chess"]))
    command = data.draw(st.sampled_from(["demo", "evaluate", "tournament"]))
    options = {"--players": PLAYERS, "--seed": SEEDS}
    if command == "demo":
        argv = ["demo", game]
    else:
        # --games always: its default is thousands of games.
        argv = [command, "--game", game, "--no-progress", "--workers", "1",
                "--games", data.draw(st.sampled_from(["1", "2", "0", "-3", "x", "20000000"])),
                "--policies",
                *data.draw(st.lists(st.sampled_from(["random", "greedy", "oracle", "", "x/y"]),
                                    min_size=1, max_size=2))]
        options |= {"--json": st.sampled_from([str(tmp_path / "r.json"), str(tmp_path),
                                               "/nonexistent/r.json"]),
                    "--plot": st.sampled_from([str(tmp_path / "p"), str(tmp_path / "p.nope")])}
    for option, values in options.items():
        if data.draw(st.booleans()):
            argv += [option, data.draw(values)]
    try:
        code = main(argv)
    except SystemExit as exit_:
        code = exit_.code
    captured = capsys.readouterr()
    assert code in (0, 2)
    if code == 2:
        assert "error: " in captured.err and "Traceback" not in captured.err


PROC = pytest.mark.skipif(not Path("/proc").is_dir(), reason="no procfs")


@PROC
def test_folders_that_cannot_be_made_fail_before_the_work(tmp_path, capsys, monkeypatch):
    """Issue 50: root passes the permission bits of /proc, where no folder can be made; train
    and exploit failed with a traceback once their work began."""
    from hunger_rl.training import exploit, train

    def trained(*args, **kwargs):
        raise AssertionError("the work started before the output folder was checked")

    monkeypatch.setattr(train, "train", trained)
    monkeypatch.setattr(exploit, "exploit", trained)
    config = tmp_path / "config.yaml"
    lines = Path("tests/training/tiny_hungry.yaml").read_text().splitlines()
    config.write_text("\n".join("out: /proc/x/run" if line.startswith("out:") else line
                                for line in lines))
    assert main(["train", str(config)]) == 2
    assert capsys.readouterr().err == ("hunger-rl: error: out /proc/x/run: cannot create or "
                                       "write in /proc/x/run: No such file or directory\n")
    assert main(["exploit", "random", "--game", "hungry", "--out", "/proc/x"]) == 2
    assert capsys.readouterr().err == ("hunger-rl: error: --out /proc/x: cannot create or write "
                                       "in /proc/x: No such file or directory\n")


def test_the_folder_check_leaves_nothing_behind(tmp_path):
    """It makes the folders and writes a file in them to know it can, then removes both."""
    assert output_folder("--out", str(tmp_path / "a" / "b")) == tmp_path / "a" / "b"
    assert list(tmp_path.iterdir()) == []
    (tmp_path / "kept").mkdir()
    assert output_folder("--out", str(tmp_path / "kept")) == tmp_path / "kept"
    assert [p.name for p in tmp_path.iterdir()] == ["kept"]
    assert list((tmp_path / "kept").iterdir()) == []


def test_view_checks_its_record_and_its_out_before_replaying(tmp_path, capsys):
    assert main([*EVALUATE, "--record", str(tmp_path)]) == 0
    record = tmp_path / "hungry_2p.jsonl"
    capsys.readouterr()
    # Issue 50: IsADirectoryError, then a traceback for an HTML file in /proc.
    assert main(["view", str(tmp_path), "--out", str(tmp_path / "x.html")]) == 2
    assert capsys.readouterr().err == (f"hunger-rl: error: {tmp_path} is a folder, not a record "
                                       "file\n")
    if Path("/proc").is_dir():
        assert main(["view", str(record), "--out", "/proc/x.html"]) == 2
        assert capsys.readouterr().err.startswith("hunger-rl: error: --out /proc/x.html: cannot "
                                                  "write /proc/x.html:")
    assert main(["view", str(record), "--out", str(tmp_path / "none" / "x.html")]) == 2
    assert "there is no folder" in capsys.readouterr().err
    assert main(["view", str(record), "--game-index", "1", "--out", str(tmp_path)]) == 0
    assert capsys.readouterr().out == f"wrote {tmp_path / 'hungry_2p_1.html'}\n"
    assert (tmp_path / "hungry_2p_1.html").read_text().startswith("<!DOCTYPE html>")
