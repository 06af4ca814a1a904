"""The test network guard (tests/netguard/, installed by conftest.py): connections to other machines raise
before anything is sent, name the host and are recorded (so a test that swallows the error still fails);
loopback, localhost and AF_UNIX work; Python processes a test starts are guarded too."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading

import pytest

from tests.netguard.sciwrite_netguard import NetworkBlockedError, is_local, take_attempts

TEST_NET = "203.0.113.1"  # TEST-NET-3 (RFC 5737): documentation only, never routed


def test_connections_to_another_machine_raise_name_the_host_and_send_nothing():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        with pytest.raises(NetworkBlockedError, match=TEST_NET):
            s.connect((TEST_NET, 80))
        with pytest.raises(NetworkBlockedError, match=TEST_NET):
            s.connect_ex((TEST_NET, 443))
        with pytest.raises(OSError):
            s.getpeername()  # never connected
    with pytest.raises(NetworkBlockedError, match=TEST_NET):
        socket.create_connection((TEST_NET, 80), timeout=1)
    with pytest.raises(NetworkBlockedError, match="example.org"):
        socket.getaddrinfo("example.org", 443)
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as udp, pytest.raises(NetworkBlockedError, match=TEST_NET):
        udp.sendto(b"x", (TEST_NET, 53))
    attempts = take_attempts()
    assert len(attempts) == 5 and all(TEST_NET in a or "example.org" in a for a in attempts)


def test_a_swallowed_error_is_still_recorded():
    """What conftest.py's check after each test reads: code that catches every error does not hide the attempt."""
    try:
        socket.create_connection((TEST_NET, 80), timeout=1)
    except Exception:  # noqa: BLE001 - the code under test might do this
        pass
    assert take_attempts() == [f"connect to '{TEST_NET}':80"]


@pytest.mark.parametrize("host", ["127.0.0.1", "127.3.2.1", "::1", "::ffff:127.0.0.1", "localhost",
                                  "LOCALHOST", "app.localhost", "0.0.0.0", None, ""])
def test_this_machine_is_local(host):
    assert is_local(host)


@pytest.mark.parametrize("host", [TEST_NET, "8.8.8.8", "2001:db8::1", "::ffff:203.0.113.1", "example.org",
                                  "localhost.example.org", "10.0.0.1"])
def test_other_machines_are_not(host):
    assert not is_local(host)


def _serve_once(server: socket.socket) -> threading.Thread:
    def answer():
        conn, _ = server.accept()
        with conn:
            conn.sendall(conn.recv(16).upper())

    thread = threading.Thread(target=answer, daemon=True)
    thread.start()
    return thread


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost"])
def test_loopback_connections_work(host):
    with socket.create_server(("127.0.0.1", 0)) as server:
        thread = _serve_once(server)
        with socket.create_connection((host, server.getsockname()[1]), timeout=5) as client:
            client.sendall(b"ping")
            assert client.recv(16) == b"PING"
        thread.join(5)
    assert take_attempts() == []


@pytest.mark.skipif(not socket.has_ipv6, reason="no IPv6 here")
def test_ipv6_loopback_works():
    try:
        server = socket.create_server(("::1", 0), family=socket.AF_INET6)
    except OSError:
        pytest.skip("no IPv6 loopback here")
    with server:
        thread = _serve_once(server)
        with socket.socket(socket.AF_INET6) as client:
            client.settimeout(5)
            client.connect(("::1", server.getsockname()[1]))
            client.sendall(b"six")
            assert client.recv(16) == b"SIX"
        thread.join(5)


def test_unix_sockets_work(tmp_path):
    path = str(tmp_path / "s")
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(path)
        server.listen()
        thread = _serve_once(server)
        with socket.socket(socket.AF_UNIX) as client:
            client.connect(path)
            client.sendall(b"unix")
            assert client.recv(16) == b"UNIX"
        thread.join(5)


def test_a_python_child_process_is_guarded_and_reported():
    code = f"import socket; socket.create_connection(({TEST_NET!r}, 80), timeout=1)"
    child = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                           env=dict(os.environ))
    assert child.returncode != 0 and "NetworkBlockedError" in child.stderr and TEST_NET in child.stderr
    [attempt] = take_attempts()
    assert TEST_NET in attempt and "child process" in attempt
