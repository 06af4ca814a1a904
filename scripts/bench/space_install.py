#!/usr/bin/env python
"""Issue 27's figure: the time from `pip install -r spaces/leaderboard/requirements.txt` in a fresh venv to the first
page the Space serves, on this machine.

The requirements file installs sciwrite from its git URL; offline, that line is pointed at this checkout (a regular,
non-editable install, as the Space gets), every other line is installed as written. The app then starts with an
empty store, the default splits and the Hub unreachable (HF_HUB_OFFLINE=1), and the clock stops at its first HTTP 200.

    python scripts/bench/space_install.py [--keep DIR]
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SPACE = REPO / "spaces" / "leaderboard"


def requirements_for_checkout(path: Path) -> Path:
    """The Space's requirements with the sciwrite line pointed at this checkout (torch pinned to the CPU wheel first,
    as `make install` does, so that pip does not pull a CUDA build)."""
    lines = []
    for line in (SPACE / "requirements.txt").read_text().splitlines():
        lines.append(str(REPO) if line.strip().startswith("sciwrite @") else line)
    path.write_text("\n".join(lines) + "\n")
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--keep", help="build the venv here and keep it (default: a temporary folder)")
    args = parser.parse_args()
    work = Path(args.keep or tempfile.mkdtemp(prefix="space_install_"))
    started = time.monotonic()
    subprocess.run([sys.executable, "-m", "venv", str(work / "venv")], check=True)
    python = work / "venv" / "bin" / "python"
    subprocess.run([str(python), "-m", "pip", "install", "-q", "torch==2.13.0"], check=True)
    subprocess.run([str(python), "-m", "pip", "install", "-q", "-r", str(requirements_for_checkout(work / "req.txt"))],
                   check=True)
    installed = time.monotonic() - started
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {**os.environ, "PORT": str(port), "HF_HUB_OFFLINE": "1", "GRADIO_ANALYTICS_ENABLED": "False",
           "SCIWRITE_LEADERBOARD_STORE": str(work / "store.sqlite")}
    app = subprocess.Popen([str(python), str(SPACE / "app.py")], cwd=work, env=env, stdout=subprocess.DEVNULL,
                           stderr=subprocess.STDOUT)
    try:
        while app.poll() is None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as r:
                    if r.status == 200:
                        break
            except OSError:
                time.sleep(0.5)
        served = time.monotonic() - started
    finally:
        app.terminate()
        app.wait(timeout=30)
    print(f"pip install -r spaces/leaderboard/requirements.txt (fresh venv, torch CPU wheel first): {installed:.0f} s")
    print(f"first page served: {served:.0f} s after the start ({served - installed:.0f} s of app start-up)")


if __name__ == "__main__":
    main()
