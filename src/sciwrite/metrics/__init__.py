"""Metrics: the published formulas as pure functions (`rwg`) and the scorers built on them."""
