"""A guard that fails any test reaching beyond this machine: tests must run offline, against the fakes in
tests/fakes/ on 127.0.0.1.

`install` wraps `socket.socket.connect`, `connect_ex` and `sendto`, `socket.create_connection` and
`socket.getaddrinfo`: a connection to (or a name lookup of) a host that is not loopback raises
`NetworkBlockedError` naming the host, before anything is sent, and is recorded, so that a test whose code
swallows the error still fails (conftest.py checks `take_attempts` after each test). Allowed: 127.0.0.0/8, ::1,
``localhost`` (and ``*.localhost``), 0.0.0.0 and :: (which Linux connects to this machine), IP literals in a
look-up (no DNS is involved; their connection is checked), the machine's own host name in a look-up, and every
non-IP family (AF_UNIX, netlink).

Subprocesses: conftest.py puts this folder first on PYTHONPATH and names a log file in ``SCIWRITE_TEST_NETWORK_LOG``;
the `sitecustomize` here installs the guard in every Python child that inherits both, and the child appends
each blocked attempt to the log, which `take_attempts` reads. Not covered: a child given its own PYTHONPATH or
environment, non-Python programs, and native code that opens sockets without Python's socket module.

One attempt is blocked but not counted: Ray's dashboard process asks the cloud metadata service (`CLOUD_METADATA`)
which cloud it runs on every time Ray starts, and no ``ray.init`` option turns that off (the usage-statistics
switch does not). It is blocked like any other, so nothing leaves the machine; counting it would fail every Ray
test for a probe no test makes."""

from __future__ import annotations

import ipaddress
import os
import socket
import sys
from pathlib import Path

#: The environment variable naming the file where child processes report their blocked attempts.
LOG_ENV = "SCIWRITE_TEST_NETWORK_LOG"

_INET = (socket.AF_INET, socket.AF_INET6)
_original: dict[str, object] = {}
_attempts: list[str] = []
_state: dict[str, object] = {"child_log": None, "watched_log": None, "offset": 0}


#: Cloud metadata hosts, and the process that may probe them without failing the test (see the module docstring).
CLOUD_METADATA = frozenset({"169.254.169.254", "metadata.google.internal"})
_RAY_DASHBOARD = "ray/dashboard/dashboard.py"


class NetworkBlockedError(RuntimeError):
    """A test, or a process it started, tried to reach a host that is not this machine."""


def is_local(host: object) -> bool:
    """Whether `host` (an address or a name) is this machine: loopback, localhost or unspecified."""
    if host is None or host in ("", b""):
        return True
    name = (host.decode("ascii", "replace") if isinstance(host, bytes) else str(host)).strip("[]").lower()
    if name == "localhost" or name.rstrip(".").endswith(".localhost"):
        return True
    address = _ip(name)
    if address is None:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return address.is_loopback or address.is_unspecified


def _ip(name: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(name.split("%", 1)[0])
    except ValueError:
        return None


def _block(what: str, host: object, port: object) -> None:
    """Record the attempt (in this process, or in the test's log when this is a child) and raise."""
    target = f"{what} {host!r}:{port}"
    child_log = _state["child_log"]
    ray_probe = str(host) in CLOUD_METADATA and any(_RAY_DASHBOARD in arg for arg in sys.argv)
    if ray_probe:
        pass
    elif child_log:
        with open(child_log, "a", encoding="utf-8") as log:
            log.write(f"{target} (child process {os.getpid()}: {' '.join(sys.argv)[:200]})\n")
    else:
        _attempts.append(target)
    raise NetworkBlockedError(f"a test tried to reach the network: {target} is not this machine (tests may only "
                              "use loopback, localhost and AF_UNIX: serve a fake from tests/fakes/ on 127.0.0.1)")


def _check_address(sock: socket.socket, address: object, what: str) -> None:
    if sock.family in _INET and isinstance(address, tuple) and address and not is_local(address[0]):
        _block(what, address[0], address[1] if len(address) > 1 else None)


def _connect(self, address):
    _check_address(self, address, "connect to")
    return _original["connect"](self, address)


def _connect_ex(self, address):
    _check_address(self, address, "connect to")
    return _original["connect_ex"](self, address)


def _sendto(self, data, *args):
    _check_address(self, args[-1] if args else None, "send to")
    return _original["sendto"](self, data, *args)


def _create_connection(address, *args, **kwargs):
    if not is_local(address[0]):
        _block("connect to", address[0], address[1])
    return _original["create_connection"](address, *args, **kwargs)


def _getaddrinfo(host, port, *args, **kwargs):
    literal = host is not None and _ip(host.decode("ascii", "replace") if isinstance(host, bytes) else str(host))
    if not (literal or is_local(host) or host == socket.gethostname()):
        _block("look up", host, port)
    return _original["getaddrinfo"](host, port, *args, **kwargs)


def install(child_log: str | None = None) -> None:
    """Guard this process (again: idempotent). `child_log`: this is a child process; report attempts there."""
    _state["child_log"] = child_log
    if _original:
        return
    for name, guard in (("connect", _connect), ("connect_ex", _connect_ex), ("sendto", _sendto)):
        _original[name] = getattr(socket.socket, name)
        setattr(socket.socket, name, guard)
    for name, guard in (("create_connection", _create_connection), ("getaddrinfo", _getaddrinfo)):
        _original[name] = getattr(socket, name)
        setattr(socket, name, guard)


def watch_log(path: Path) -> None:
    """Read child processes' attempts from `path` (created empty) in `take_attempts`."""
    path.write_text("", encoding="utf-8")
    _state["watched_log"], _state["offset"] = path, 0


def take_attempts() -> list[str]:
    """The blocked attempts since the last call, this process's and its children's; forgets them."""
    taken, _attempts[:] = list(_attempts), []
    log = _state["watched_log"]
    if isinstance(log, Path) and log.exists():
        with log.open("rb") as f:
            f.seek(int(_state["offset"]))
            data = f.read()
        _state["offset"] = int(_state["offset"]) + len(data)
        taken += data.decode("utf-8", "replace").splitlines()
    return taken
