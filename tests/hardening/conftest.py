"""Hardening suite plumbing: collect the fault matrix's outcomes and print them as one table.

A test marked `fault_matrix(provider, role, fault)` fills one cell. The table is printed in the
terminal summary, after every test has run, so it shows the outcome of the run just made
(a cell not run under `-k` shows as `·`).
"""

from __future__ import annotations

from collections.abc import Generator

import pytest

# (provider, role, fault) -> passed; filled in run order, so the table keeps the parametrize order
MATRIX: dict[tuple[str, str, str], bool] = {}
# Footnotes for cells whose scenario differs from the column's plain reading.
MATRIX_NOTES: dict[tuple[str, str, str], str] = {}


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "fault_matrix(provider, role, fault, note=None): one cell of the printed fault matrix"
    )


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, object, object]:
    report = yield
    marker = item.get_closest_marker("fault_matrix")
    if marker is None or not isinstance(report, pytest.TestReport):
        return report
    cell = tuple(marker.args)
    assert len(cell) == 3
    if report.when == "call" or report.failed:  # a failed set-up or tear-down fails the cell too
        MATRIX[cell] = MATRIX.get(cell, True) and report.passed  # type: ignore[index]
    if marker.kwargs.get("note"):
        MATRIX_NOTES[cell] = marker.kwargs["note"]  # type: ignore[index]
    return report


def matrix_table(results: dict[tuple[str, str, str], bool], notes: dict[tuple[str, str, str], str]) -> list[str]:
    """Rows provider x role, columns faults, ✓ / ✗ (· not run), then a passed / total line."""
    rows = list(dict.fromkeys((provider, role) for provider, role, _ in results))
    faults = list(dict.fromkeys(fault for _, _, fault in results))
    first = max(len(f"{provider} {role}") for provider, role in rows)
    widths = [max(3, len(fault)) for fault in faults]
    lines = [" ".join([" " * first, *(fault.center(width) for fault, width in zip(faults, widths, strict=True))])]
    for provider, role in rows:
        cells = []
        for fault, width in zip(faults, widths, strict=True):
            outcome = results.get((provider, role, fault))
            mark = "·" if outcome is None else "✓" if outcome else "✗"
            if (provider, role, fault) in notes:
                mark += "*"
            cells.append(mark.center(width))
        lines.append(" ".join([f"{provider} {role}".ljust(first), *cells]))
    passed = sum(results.values())
    lines.append(f"fault matrix: {passed} / {len(results)} passed")
    for note in dict.fromkeys(notes.values()):
        lines.append(f"* {note}")
    return lines


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if not MATRIX:
        return
    terminalreporter.section("fault matrix (provider x role x fault)")
    for line in matrix_table(MATRIX, MATRIX_NOTES):
        terminalreporter.write_line(line)
