"""Gifts (Examples/Gifts): its database rules, checked case by case with ``hearth rules test``."""

from __future__ import annotations

from pathlib import Path

from hearth_process import assert_rules_cases_pass

EXAMPLE = Path(__file__).resolve().parent.parent / "Examples" / "Gifts"


def test_the_rules_cases_pass_with_hearth_rules_test():
    assert_rules_cases_pass(EXAMPLE)
