"""The client over TLS against a real host started with a certificate: a
throwaway CA and the server's and admin's certificates are made here with the
``openssl`` command, never kept."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Iterator, Tuple

import grpc
import pytest

import tabletop
from conftest import ADMIN_TOKEN, Host


def openssl(*args: str) -> None:
    subprocess.run(["openssl", *args], check=True, capture_output=True)


def issue(dir: Path, name: str, subject: str, usage: str, san: str = "") -> tuple[Path, Path]:
    """A key and a certificate signed by ``dir/ca.pem`` for ``usage``."""
    key, csr, cert, ext = (dir / f"{name}.{kind}" for kind in ("key", "csr", "pem", "ext"))
    openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
            "-keyout", str(key), "-out", str(csr), "-subj", subject)
    ext.write_text(f"extendedKeyUsage={usage}\n" + (f"subjectAltName={san}\n" if san else ""))
    openssl("x509", "-req", "-in", str(csr), "-CA", str(dir / "ca.pem"), "-CAkey", str(dir / "ca.key"),
            "-CAcreateserial", "-days", "1", "-out", str(cert), "-extfile", str(ext))
    return cert, key


TlsHost = Tuple[Host, Path, Path, Path]
"""The host, the CA file, and the admin's client certificate and key."""


@pytest.fixture(scope="module")
def tls_host(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TlsHost]:
    dir = tmp_path_factory.mktemp("tls")
    openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
            "-keyout", str(dir / "ca.key"), "-out", str(dir / "ca.pem"), "-days", "1",
            "-subj", "/CN=tabletop test CA",
            "-addext", "basicConstraints=critical,CA:TRUE",
            "-addext", "keyUsage=critical,keyCertSign,cRLSign")
    server_cert, server_key = issue(dir, "server", "/CN=localhost", "serverAuth", "DNS:localhost,IP:127.0.0.1")
    client_cert, client_key = issue(dir, "admin", "/CN=tabletop admin", "clientAuth")
    host = Host(dir, ["--tls-cert", str(server_cert), "--tls-key", str(server_key),
                      "--tls-client-ca", str(dir / "ca.pem")])
    try:
        yield host, dir / "ca.pem", client_cert, client_key
    finally:
        host.stop()


def test_a_match_is_played_over_tls_with_the_ca_file(tls_host: TlsHost) -> None:
    host, ca, _, _ = tls_host
    with tabletop.connect(host.address, ca_file=str(ca)) as client:
        assert "focus" in [g.name for g in client.games()]
        match = client.create_match("focus", 2)
        seat = match.seat(match.view().to_move[0])
        legal = seat.legal_actions()
        answer = seat.act(legal[0].id)
        assert answer.view.version == 1


def test_a_plaintext_client_cannot_talk_to_a_tls_host(tls_host: TlsHost) -> None:
    host, _, _, _ = tls_host
    with pytest.raises(grpc.FutureTimeoutError):
        tabletop.connect(host.address, timeout=2)


def test_admin_calls_need_the_client_certificate(tls_host: TlsHost) -> None:
    host, ca, cert, key = tls_host
    with tabletop.connect(host.address, ca_file=str(ca), credential=ADMIN_TOKEN) as client:
        with pytest.raises(tabletop.TabletopError) as refused:
            client.list_plugins()
        assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED
        assert refused.value.reason == "CLIENT_CERTIFICATE_REQUIRED"
    with tabletop.connect(host.address, ca_file=str(ca), credential=ADMIN_TOKEN,
                          client_cert_file=str(cert), client_key_file=str(key)) as admin:
        assert any(p.game == "focus" for p in admin.list_plugins())
