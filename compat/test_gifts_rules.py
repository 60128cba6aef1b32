"""Gifts (Examples/Gifts): its database rules, checked case by case with ``hearth rules test``."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from hearth_process import hearth_binary

EXAMPLE = Path(__file__).resolve().parent.parent / "Examples" / "Gifts"


def test_the_rules_cases_pass_with_hearth_rules_test():
    out = subprocess.run(
        [hearth_binary(), "rules", "test", str(EXAMPLE / "rules.json"), str(EXAMPLE / "rules-cases.json")],
        capture_output=True, text=True, timeout=60,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    cases = json.loads((EXAMPLE / "rules-cases.json").read_text())["cases"]
    assert f"{len(cases)} of {len(cases)} cases as expected" in out.stdout
