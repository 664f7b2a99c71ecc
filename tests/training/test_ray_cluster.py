"""A configured Ray address that cannot be reached fails within RAY_CONNECT_TIMEOUT_S, naming
it, before a trainer writes anything (issue 50: `127.0.0.1:1` hung `hunger-rl train` for
minutes). Every address here is on 127.0.0.1."""

from __future__ import annotations

import socket
import time
from pathlib import Path

import pytest

from hunger_rl.cli import main
from hunger_rl.training import ray_cluster
from hunger_rl.training.ray_cluster import check_ray_address

TINY = Path(__file__).with_name("tiny_expert_iteration.yaml")


def closed_port() -> int:
    """A port of 127.0.0.1 that nothing listens on (bound, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_an_unreachable_expert_iteration_address_fails_before_training(tmp_path, capsys):
    address = f"127.0.0.1:{closed_port()}"
    config = tmp_path / "config.yaml"
    lines = TINY.read_text().splitlines()
    config.write_text("\n".join(
        f"out: {tmp_path / 'run'}" if line.startswith("out:") else
        line + f'\n  ray_address: "{address}"' if line == "expert_iteration:" else line
        for line in lines))
    started = time.monotonic()
    assert main(["train", str(config), "--no-progress"]) == 2
    assert time.monotonic() - started < ray_cluster.RAY_CONNECT_TIMEOUT_S
    assert capsys.readouterr().err == (
        f"hunger-rl: error: expert_iteration.ray_address '{address}': no Ray cluster can be "
        "reached there within 10 s (Connection refused)\n")
    assert not (tmp_path / "run").exists()


def test_an_address_that_does_not_answer_times_out(monkeypatch):
    """A listening socket whose backlog is full drops further connections unanswered."""
    monkeypatch.setattr(ray_cluster, "RAY_CONNECT_TIMEOUT_S", 0.5)
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(0)
        port = server.getsockname()[1]
        waiting = []
        try:
            for _ in range(3):  # fill the backlog; none is accepted
                client = socket.socket()
                client.settimeout(0.2)
                waiting.append(client)
                try:
                    client.connect(("127.0.0.1", port))
                except TimeoutError:
                    break
            else:
                pytest.skip("this system answered every connection to a full backlog")
            started = time.monotonic()
            with pytest.raises(ValueError, match=rf"rllib.address 'ray://127.0.0.1:{port}': no "
                                                 r"Ray cluster can be reached there within 0.5 s"):
                check_ray_address(f"ray://127.0.0.1:{port}", "rllib.address")
            assert time.monotonic() - started < 5
        finally:
            for client in waiting:
                client.close()


def test_addresses_ray_resolves_or_that_answer_pass_and_malformed_ones_do_not():
    for address in (None, "local", "auto"):
        check_ray_address(address, "rllib.address")
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        check_ray_address(f"127.0.0.1:{server.getsockname()[1]}", "rllib.address")
    for address in ("127.0.0.1", ":6379", "127.0.0.1:70000", "127.0.0.1:\u00b2", "cluster"):
        with pytest.raises(ValueError, match=rf"rllib.address '{address}' is not a Ray address"):
            check_ray_address(address, "rllib.address")
