"""How a scoring run's LLM clients are made: the judge, each judge of a panel, SciIG's citation extractor.

A typed value in `ScoringRequest.judge` (never a bag of keyword options): the endpoint, the reply cache, the request
parameters and retries, a front end's own client factory (Inspect's grader) and the panel. It is frozen and compared
by value, so `ModelCache` keys on it (two runs asking for the same judge share its clients). The usage ledger is
not part of it: it is a run's own account, passed on its own (`ScoringRequest.ledger`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from sciwrite.llm.ledger import UsageLedger
    from sciwrite.metrics.judge_panel import PanelSpec


class ChatClientFactory(Protocol):
    """Makes a judge's chat client for a model id and the role it serves (`JudgeConfig.client_factory`): a front
    end's own client in `ChatClient`'s place, with the interface the judges use (`complete`, `model`,
    `provenance`). It is part of the `ModelCache` key, so it compares equal to any factory that makes the same
    clients (a frozen dataclass, say), never by identity."""

    def __call__(self, model_id: str, purpose: str) -> Any:
        """The client of `model_id` for the role `purpose`."""
        ...


@dataclass(frozen=True)
class JudgeConfig:
    """How the run's LLM clients are made; every field None (or empty) leaves `ChatClient`'s default.

    Attributes:
        base_url: The OpenAI-compatible endpoint (``--judge-base-url``); None: the model id's provider.
        api_key: The endpoint's key; None: the provider's environment variable.
        cache_path: A JSON Lines cache of the replies (``--judge-cache``), so a rerun resumes.
        options: Request parameters sent with every call (``--judge-option KEY=VALUE``), in order.
        timeout: Seconds before a request is given up.
        max_retries: Retries of a failed request.
        client_factory: Makes the clients instead of `ChatClient` (the other fields then do not apply).
        panel: Several judges, or one judge asked several times (`sciwrite.metrics.judge_panel.PanelSpec`).
    """

    base_url: str | None = None
    api_key: str | None = None
    cache_path: str | None = None
    options: tuple[tuple[str, Any], ...] = ()
    timeout: float | None = None
    max_retries: int | None = None
    client_factory: ChatClientFactory | None = None
    panel: PanelSpec | None = None

    @classmethod
    def from_options(cls, options: Mapping[str, Any] | None) -> JudgeConfig:
        """A config from keyword options (an evaluate module's ``judge_options``: ``base_url``, ``api_key``,
        ``cache_path``, ``options``, ``timeout``, ``max_retries``); an unknown keyword is an error naming it."""
        given = dict(options or {})
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(given) - known)
        if unknown:
            raise ValueError(f"unknown judge option(s) {unknown}; the judge takes {sorted(known)}")
        if "cache_path" in given and given["cache_path"] is not None:
            given["cache_path"] = str(given["cache_path"])
        if isinstance(given.get("options"), Mapping):
            given["options"] = tuple(given["options"].items())
        return cls(**given)

    def client_kwargs(self, ledger: UsageLedger | None = None) -> dict[str, Any]:
        """`ChatClient`'s keyword arguments for this config (those set) and `ledger`."""
        kwargs: dict[str, Any] = {name: value for name, value in (
            ("base_url", self.base_url), ("api_key", self.api_key), ("cache_path", self.cache_path),
            ("timeout", self.timeout), ("max_retries", self.max_retries)) if value is not None}
        if self.options:
            kwargs["options"] = dict(self.options)
        if ledger is not None:
            kwargs["ledger"] = ledger
        return kwargs

    def cache_key(self) -> tuple[Any, ...]:
        """The config as part of a `ModelCache` key: every field by value (request parameters as JSON, since a value
        may be a list or an object)."""
        return (self.base_url, self.api_key, self.cache_path, json.dumps(self.options, sort_keys=True, default=str),
                self.timeout, self.max_retries, self.client_factory, self.panel)


#: No judge options: the clients' defaults.
DEFAULT_JUDGE = JudgeConfig()

__all__ = ["DEFAULT_JUDGE", "ChatClientFactory", "JudgeConfig"]
