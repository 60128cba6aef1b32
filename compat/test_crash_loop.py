"""Ten rounds of scripts/crash-loop (kill -9 under write load, restart, every acknowledged write present, every
SQLite file intact), and proof that its two checks see a lost write and a damaged file."""

from __future__ import annotations

import importlib.machinery
import importlib.util
import shutil
from pathlib import Path

from hearth_process import hearth_binary

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "crash-loop"


def load_script():
    loader = importlib.machinery.SourceFileLoader("crash_loop", str(SCRIPT))
    spec = importlib.util.spec_from_loader("crash_loop", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def test_ten_kills_under_write_load_lose_no_acknowledged_write(tmp_path):
    crash_loop = load_script()
    lines: list[str] = []
    problems = crash_loop.run(rounds=10, writers=3, seed=37, binary=hearth_binary(), data=tmp_path / "data", log=lines.append)
    assert problems == [], "\n".join(lines + problems)
    assert len(lines) == 10
    # Writes were really made and checked in every round.
    counts = [int(line.split(": ")[1].split(" ")[0]) for line in lines]
    assert counts[0] > 0 and all(b > a for a, b in zip(counts, counts[1:])), lines


def test_the_checks_see_a_lost_write_and_a_damaged_file(tmp_path):
    crash_loop = load_script()
    data = tmp_path / "data"
    server = crash_loop.Server(hearth_binary(), data, crash_loop.free_port(), tmp_path / "server.log")
    server.start()
    try:
        assert crash_loop.request("PUT", f"{server.url}/crash/w0/k.json", {"n": 1})[0] == 200
        # Enough rows for several pages.
        filler = {f"f{i}": {"text": "x" * 200, "i": i} for i in range(300)}
        assert crash_loop.request("PUT", f"{server.url}/filler.json", filler)[0] == 200
        acked = {"w0/k": {"n": 1}, "w0/gone": 2}
        assert crash_loop.missing_writes(server, acked) == ["/crash/w0/gone: acknowledged 2, found None"]
    finally:
        server.stop()
    assert crash_loop.integrity_problems(data) == []
    damaged = tmp_path / "damaged"
    damaged.mkdir()
    copy = damaged / "demo.sqlite"
    shutil.copy(data / "demo.sqlite", copy)
    raw = bytearray(copy.read_bytes())
    # Scribble over the header of every page after the first: b-tree pages of the tree table among them.
    page = int.from_bytes(raw[16:18], "big") or 65536
    assert len(raw) >= 4 * page, len(raw)
    for start in range(page, len(raw), page):
        raw[start:start + 12] = b"\x0d\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff"
    copy.write_bytes(bytes(raw))
    problems = crash_loop.integrity_problems(damaged)
    assert problems and problems[0].startswith("demo.sqlite:"), problems
