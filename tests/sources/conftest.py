"""Fixtures of the bibliographic services' tests."""

from __future__ import annotations

import pytest

from sciwrite.sources import api_client


@pytest.fixture
def waits(monkeypatch):
    """The back-off the API client sleeps, recorded rather than slept."""
    slept: list[float] = []
    monkeypatch.setattr(api_client.time, "sleep", slept.append)
    return slept
