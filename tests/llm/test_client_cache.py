"""The chat client's JSON Lines reply cache shared by several processes at once (Ray scorer actors given one
``--judge-cache``): every reply each process wrote is read back whole."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from sciwrite.llm.client import ChatClient

WRITER = textwrap.dedent("""
    import sys
    from sciwrite.llm.client import ChatClient

    name, path, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    client = ChatClient("judge", base_url="http://127.0.0.1:9/v1", api_key="k", cache_path=path)
    for i in range(n):  # replies of ~20 KB: larger than one write buffer, so a torn write would show
        key = f"{name}-{i}"
        client._remember(key, {"key": key, "content": f"{name} {i} " + "verdict " * 2500, "finish_reason": "stop"})
""")


def test_processes_appending_to_one_cache_lose_no_reply(tmp_path):
    path = tmp_path / "judge.jsonl"
    n = 150
    writers = [subprocess.Popen([sys.executable, "-c", WRITER, name, str(path), str(n)]) for name in ("a", "b", "c")]
    assert [w.wait(timeout=120) for w in writers] == [0, 0, 0]
    # A process that opens the cache while another's write is under way sees an unterminated last line and puts a
    # newline before its first record (the repair for a line cut off by a crash): a blank line, which readers skip.
    lines = [line for line in path.read_text(encoding="utf-8").splitlines() if line]
    assert len(lines) == 3 * n
    cache = ChatClient("judge", base_url="http://127.0.0.1:9/v1", api_key="k", cache_path=path)._cache
    assert sorted(cache) == sorted(f"{name}-{i}" for name in "abc" for i in range(n))
    assert all(record["content"].startswith(record["key"].replace("-", " ") + " ") for record in cache.values())
