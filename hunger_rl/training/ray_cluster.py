"""Joining a Ray cluster at a configured address: one that cannot be reached fails within
``RAY_CONNECT_TIMEOUT_S``, naming the address, where ``ray.init`` would retry for minutes
without a word."""

from __future__ import annotations

import socket

from hunger_rl.engines.validation import typed_count

RAY_CONNECT_TIMEOUT_S = 10.0
# The addresses Ray resolves itself: a fresh instance on this machine, or the cluster that
# `ray start` (or RAY_ADDRESS) names.
RAY_OWN_ADDRESSES = ("local", "auto")
RAY_CLIENT_PREFIX = "ray://"


def check_ray_address(address: str | None, setting: str) -> None:
    """Refuse ``address`` (the config's ``setting``) unless it is None, one that Ray resolves
    itself, or a ``HOST:PORT`` (``ray://HOST:PORT``) that accepts a connection within
    ``RAY_CONNECT_TIMEOUT_S`` seconds."""
    if address is None or address in RAY_OWN_ADDRESSES:
        return
    host, colon, port = address.removeprefix(RAY_CLIENT_PREFIX).rpartition(":")
    number = typed_count(port)
    if not colon or not host or number is None or not 0 < number <= 65535:
        raise ValueError(f"{setting} {address!r} is not a Ray address: one of "
                         f"{list(RAY_OWN_ADDRESSES)}, HOST:PORT or {RAY_CLIENT_PREFIX}HOST:PORT")
    try:
        with socket.create_connection((host.strip("[]"), number),
                                      timeout=RAY_CONNECT_TIMEOUT_S):
            pass
    except OSError as error:  # refused, unreachable, unknown host, or no answer in time
        reason = error.strerror or str(error) or type(error).__name__
        raise ValueError(f"{setting} {address!r}: no Ray cluster can be reached there within "
                         f"{RAY_CONNECT_TIMEOUT_S:g} s ({reason})") from None
