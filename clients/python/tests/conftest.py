"""Fixtures: the real engine-host binary with the real plugins, on a free port.

The binary and the plugins come from the workspace's cargo target directory
(``$CARGO_TARGET_DIR`` or ``<repo>/target``, profile ``debug``), where
``cargo build --workspace`` puts them; a missing binary fails the tests.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Iterator, Sequence

import pytest

import tabletop

REPO = Path(__file__).resolve().parents[3]
PYTHON_CLIENT = REPO / "clients" / "python"
RANDOM_BOT = PYTHON_CLIENT / "examples" / "random_bot.py"
TOURNAMENT_EXAMPLE = PYTHON_CLIENT / "examples" / "tournament.py"
ADMIN_TOKEN = "x"


def engine_host_binary() -> Path:
    target = Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))
    if not target.is_absolute():
        target = REPO / target
    binary = target / "debug" / "engine-host"
    if not binary.is_file():
        pytest.fail(
            f"{binary} is missing: build it first with `cargo build --workspace` "
            "(it also builds the game plugins the tests play)",
            pytrace=False,
        )
    return binary


class Host:
    """A running engine-host process."""

    def __init__(self, tmp: Path, extra_args: Sequence[str] = (), listen: str = "127.0.0.1:0") -> None:
        binary = engine_host_binary()
        self.process = subprocess.Popen(
            [
                str(binary),
                "--listen", listen,
                "--plugin-dir", str(binary.parent),
                "--data-dir", str(tmp / "data"),
                *extra_args,
            ],
            # In the environment: a process's arguments are readable by every user.
            # One cache of passing plugin checks for every host of the run
            # (the Rust tests' too): each built plugin is checked once.
            env={
                "TABLETOP_PLUGIN_CHECK_CACHE": str(binary.parent.parent / "plugin-check-cache"),
                **os.environ,
                "TABLETOP_ADMIN_TOKEN": ADMIN_TOKEN,
            },
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert self.process.stdout is not None
        first = self.process.stdout.readline().strip()
        if not first.startswith("listening on "):
            self.process.kill()
            _, err = self.process.communicate(timeout=30)
            pytest.fail(f"engine-host did not start: first line {first!r}; stderr:\n{err}", pytrace=False)
        self.address = first.removeprefix("listening on ")
        # Drain both pipes so the host never blocks on a full pipe buffer.
        self.stderr_lines: list[str] = []
        self.stdout_lines: list[str] = []
        threading.Thread(target=self._drain, args=(self.process.stdout, self.stdout_lines), daemon=True).start()
        threading.Thread(target=self._drain, args=(self.process.stderr, self.stderr_lines), daemon=True).start()

    @staticmethod
    def _drain(pipe: object, sink: "list[str] | None") -> None:
        for line in pipe:  # type: ignore[attr-defined]
            if sink is not None:
                sink.append(line)

    def metrics(self) -> dict[str, float]:
        """The host's metrics (started with ``--metrics-listen``), by sample name."""
        import urllib.request

        deadline = time.monotonic() + 10
        while not any(line.startswith("metrics on ") for line in self.stdout_lines):
            assert time.monotonic() < deadline, "no `metrics on` line"
            time.sleep(0.01)
        address = next(line for line in self.stdout_lines if line.startswith("metrics on "))
        address = address.removeprefix("metrics on ").strip()
        with urllib.request.urlopen(f"http://{address}/metrics", timeout=10) as answer:
            text = answer.read().decode()
        samples = (line.rsplit(" ", 1) for line in text.splitlines() if line and not line.startswith("#"))
        return {name: float(value) for name, value in samples}

    def kill(self) -> None:
        """Kills the host at once, as a crash would."""
        self.process.kill()
        self.process.wait(timeout=30)

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=30)


@pytest.fixture(scope="session")
def host(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Host]:
    h = Host(tmp_path_factory.mktemp("engine-host"))
    try:
        yield h
    finally:
        h.stop()


@pytest.fixture()
def client(host: Host) -> Iterator[tabletop.Client]:
    with tabletop.connect(host.address) as c:
        yield c


@pytest.fixture()
def director(host: Host) -> Iterator[tabletop.Client]:
    """A client that holds the admin token, as a tournament platform's does."""
    with tabletop.connect(host.address, admin_token=ADMIN_TOKEN) as c:
        yield c


@pytest.fixture(scope="session")
def organizer_secret(host: Host) -> str:
    """An organizer credential the admin issued, as a tournament platform
    would hold it: it may choose seeds and direct matches, not administer."""
    with tabletop.connect(host.address, credential=ADMIN_TOKEN) as admin:
        return admin.issue_credential("test organizer").secret


@pytest.fixture()
def organizer(host: Host, organizer_secret: str) -> Iterator[tabletop.Client]:
    with tabletop.connect(host.address, credential=organizer_secret) as c:
        yield c


def run_bot(address: str, *args: str) -> "subprocess.Popen[str]":
    """Starts the example bot as its own process, as a user would."""
    return subprocess.Popen(
        [sys.executable, str(RANDOM_BOT), "--server", address, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
