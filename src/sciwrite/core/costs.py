"""What a board run cost: the generator's and the judge's dollars and tokens, per paper and in all, read from the
usage ledgers that came with it (`sciwrite.llm.ledger`), and the price table the dollars came from.

A run's ledgers are `LedgerFile`s: the generator's (``usage.jsonl`` beside the predictions, its ``generate`` lines
tagged with each paper) and the judge's (``usage.jsonl`` under the evaluation's folder: the judge, SciIG judge and
citation-extractor lines). An Inspect log keeps no ledger but each model call's token usage: `priced_ledgers`
writes those calls as ledger lines, priced with the board's price table where the log says no cost, and the row
says so. `check_ledger` refuses, in one line naming the file and line, a ledger that disagrees with its
predictions (a line of a paper with no prediction) or holds a cost or token count that is negative, NaN or text.

`run_cost` sums them into a `RunCost`: per side (`SideCost`) the requests, input / output / reasoning tokens and
USD over the whole run, and per paper as the mean over the run's papers (a paper whose replies were all cached costs
nothing and has no line). A cost is never guessed: no ledger, or a request the ledger could not price, makes that
side's cost unknown with the reason, and the total unknown with it (never 0). A judge that did not run costs 0.
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import yaml

from sciwrite.core.errors import InputError, Where
from sciwrite.core.jsonl import parse_json_lines
from sciwrite.core.summary import LLMUsage, Summary
from sciwrite.llm import ledger as llm_ledger
from sciwrite.llm.ledger import LEDGER_NAME, PriceTable

GENERATOR, JUDGE = "generator", "judge"
ROLES = (GENERATOR, JUDGE)
#: The ledger ``purpose`` of a generator's request; every other purpose is the evaluation's (its judge's).
GENERATE = "generate"
#: What a cost cell shows when the cost is not known (never 0).
UNKNOWN = "unknown"
#: The ``cost_source`` of a line the board priced from an Inspect log's token usage.
BOARD_PRICED = "board price table"
#: The ``cost_source`` of a line whose cost an Inspect log reported (``ModelUsage.total_cost``).
LOG_REPORTED = "inspect log"
#: A ledger line's token fields: input, output, reasoning (part of the output), cached (part of the input).
TOKEN_FIELDS = ("prompt_tokens", "completion_tokens", "reasoning_tokens", "cached_tokens")
#: The leaderboard row's cost fields and their column labels, in the table's order (all lower is better).
COST_COLUMNS = (("cost_gen_per_paper", "$/paper (gen)"), ("cost_judge_per_paper", "$/paper (judge)"),
                ("cost_total", "$ total"), ("tokens_in_per_paper", "Tokens/paper in (gen)"),
                ("tokens_out_per_paper", "Tokens/paper out (gen)"),
                ("tokens_reasoning_per_paper", "Tokens/paper reasoning (gen)"))
#: The row's compact cost field and its column label: generator plus judge dollars per paper (`RunCost.total_usd`
#: over its papers), which the board shows beside the rank and the headline score, before the scores.
COST_PER_PAPER = ("cost_per_paper", "$/paper")
COST_KEYS = frozenset(key for key, _ in (COST_PER_PAPER, *COST_COLUMNS))
_DOLLAR_KEYS = (COST_PER_PAPER[0], "cost_gen_per_paper", "cost_judge_per_paper", "cost_total")
_HINT = "give the usage ledger `sciwrite` wrote for this run (usage.jsonl), unedited"


@dataclass(frozen=True)
class LedgerFile:
    """One usage ledger as the board keeps it: whose it is (`GENERATOR` or `JUDGE`), its file name, its text."""

    role: str
    name: str
    text: str


@dataclass(frozen=True)
class SideCost:
    """The generator's or the judge's usage over a run: requests, input / output / reasoning tokens and USD.
    `cost_usd` None: unknown, and `why` says why; token counts None: no ledger at all. `pricing` says where the
    dollars came from (the endpoint, a price table, ...)."""

    requests: int | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    reasoning_tokens: int | None = None
    cost_usd: float | None = None
    why: str = ""
    pricing: tuple[str, ...] = ()

    @classmethod
    def unknown(cls, why: str) -> SideCost:
        return cls(why=why)

    @property
    def known(self) -> bool:
        return self.cost_usd is not None


@dataclass(frozen=True)
class RunCost:
    """A run's cost: `generator` and `judge` (`SideCost`), the papers the per-paper figures are means over, and
    the price table that priced it (`price_table`, "" when no line was priced by one)."""

    n_papers: int
    generator: SideCost
    judge: SideCost
    price_table: str = ""

    @property
    def total_usd(self) -> float | None:
        """Generator plus judge, in USD; None when either is unknown."""
        if self.generator.cost_usd is None or self.judge.cost_usd is None:
            return None
        return self.generator.cost_usd + self.judge.cost_usd

    def per_paper(self, value: float | int | None) -> float | None:
        """`value` over the run's papers (None when it, or the paper count, is unknown)."""
        return None if value is None or self.n_papers <= 0 else value / self.n_papers

    @property
    def why_unknown(self) -> str:
        """Why the total is unknown ("" when it is known)."""
        parts = [f"{role}: {side.why}" for role, side in ((GENERATOR, self.generator), (JUDGE, self.judge))
                 if not side.known]
        return "; ".join(parts)

    def fields(self) -> dict[str, Any]:
        """The leaderboard row's cost fields (`COST_PER_PAPER` and `COST_COLUMNS`: floats, None when unknown),
        ``price_table`` and ``cost_unknown`` (why the total is unknown)."""
        gen = self.generator
        return {COST_PER_PAPER[0]: self.per_paper(self.total_usd), "cost_gen_per_paper": self.per_paper(gen.cost_usd),
                "cost_judge_per_paper": self.per_paper(self.judge.cost_usd), "cost_total": self.total_usd,
                "tokens_in_per_paper": self.per_paper(gen.input_tokens),
                "tokens_out_per_paper": self.per_paper(gen.output_tokens),
                "tokens_reasoning_per_paper": self.per_paper(gen.reasoning_tokens),
                "price_table": self.price_table or UNKNOWN, "cost_unknown": self.why_unknown}

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> RunCost:
        def side(value: Any) -> SideCost:
            value = dict(value) if isinstance(value, Mapping) else {"why": "not recorded"}
            return SideCost(**{**value, "pricing": tuple(value.get("pricing") or ())})

        return cls(n_papers=int(data.get("n_papers") or 0), generator=side(data.get(GENERATOR)),
                   judge=side(data.get(JUDGE)), price_table=str(data.get("price_table") or ""))


def unknown_cost(n_papers: int, why: str) -> RunCost:
    """A `RunCost` whose every cost is unknown, for `why`."""
    return RunCost(n_papers, SideCost.unknown(why), SideCost.unknown(why))


def paper_ids_of(predictions_jsonl: str) -> set[str]:
    """The paper_ids of a predictions file's JSON Lines text (lines that are not JSON objects left out)."""
    return {str(entry["paper_id"]) for _, _, entry, problem in parse_json_lines(predictions_jsonl.splitlines())
            if problem is None and isinstance(entry, dict) and entry.get("paper_id") is not None}


def unknown_fields(why: str = "no usage ledger came with this run") -> dict[str, Any]:
    """The row's cost fields of a run with no `RunCost` (every cost unknown)."""
    return {**dict.fromkeys(COST_KEYS), "price_table": UNKNOWN, "cost_unknown": why}


def cost_text(key: str, value: float | None) -> str:
    """A cost cell: ``$0.0123`` (4 significant digits) for dollars, ``1,234`` for tokens, `UNKNOWN` for None."""
    if value is None:
        return UNKNOWN
    return f"${value:.4g}" if key in _DOLLAR_KEYS else f"{value:,.0f}"


# -- reading and checking ledgers ---------------------------------------------------------------------------------

def _bad_number(value: Any, integer: bool) -> bool:
    """Whether a ledger value is not null and not a finite number >= 0 (an integer where `integer`)."""
    if value is None:
        return False
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
        return True
    return integer and value != int(value)


def check_ledger(ledger: LedgerFile, paper_ids: Collection[str]) -> list[dict[str, Any]]:
    """The lines of `ledger` as JSON objects, checked against the predictions' `paper_ids`; the first problem
    raises `InputError` naming the file, the line, the paper and the field: a line that is not a JSON object, a
    ``paper_id`` with no prediction, a ``cost_usd`` or token count that is negative, NaN, infinite or text, or a
    generator ledger holding the lines of more than one run."""
    lines: list[dict[str, Any]] = []
    runs: dict[str, int] = {}
    for number, _, entry, problem in parse_json_lines(ledger.text.splitlines()):
        if problem is not None or not isinstance(entry, dict):
            raise InputError(problem or "not a JSON object", Where(path=ledger.name, line=number), _HINT)
        paper = entry.get("paper_id")
        where = functools.partial(Where, path=ledger.name, line=number, record=None if paper is None else str(paper))
        if paper is not None and str(paper) not in paper_ids:
            raise InputError("no prediction of this paper in the predictions file", where(field="paper_id"),
                             "give the ledger of these predictions (a line per request of a predicted paper)")
        if _bad_number(entry.get("cost_usd"), integer=False):
            raise InputError(f"must be null or a finite number of USD >= 0, got {entry.get('cost_usd')!r}",
                             where(field="cost_usd"), _HINT)
        for name in TOKEN_FIELDS:
            if _bad_number(entry.get(name), integer=True):
                raise InputError(f"must be null or a whole number >= 0, got {entry.get(name)!r}", where(field=name),
                                 _HINT)
        if ledger.role == GENERATOR and entry.get("purpose", GENERATE) == GENERATE and entry.get("run") is not None:
            runs.setdefault(str(entry["run"]), number)
            if len(runs) > 1:
                raise InputError(f"a line of run {entry['run']!r} after those of run {next(iter(runs))!r} "
                                 f"(line {runs[next(iter(runs))]})", where(field="run"),
                                 "give only the lines of the run that wrote these predictions")
        lines.append(entry)
    return lines


def ledger_from_bytes(content: bytes, role: str, name: str = LEDGER_NAME) -> LedgerFile:
    """A `LedgerFile` from uploaded bytes; bytes that are not UTF-8 raise `InputError` naming the file and line."""
    try:
        return LedgerFile(role, name, content.decode("utf-8-sig"))
    except UnicodeDecodeError as err:
        line = content.count(b"\n", 0, err.start) + 1
        raise InputError(f"not UTF-8 text (byte 0x{content[err.start]:02x} at offset {err.start})",
                         Where(path=name, line=line), "save the ledger as UTF-8") from None


def run_lines(text: str, run: str) -> str:
    """The lines of a generation folder's ledger `text` that belong to the run writing predictions ``<run>.jsonl``:
    its ``generate`` lines tagged with `run` (or untagged); a folder's ledger is shared by every run written there.
    A line that is not JSON is kept, for `check_ledger` to name."""
    kept = []
    for _, line, entry, problem in parse_json_lines(text.splitlines()):
        if problem is not None or not isinstance(entry, dict) or (
                entry.get("purpose", GENERATE) == GENERATE and entry.get("run") in (None, run)):
            kept.append(line)
    return "".join(line + "\n" for line in kept)


def read_ledger(path: Path, role: str, run: str) -> LedgerFile:
    """`role`'s lines of the ledger file at `path`, named by its path: the generator's are those of the run writing
    ``<run>.jsonl`` (`run_lines`), the judge's the evaluation's (`evaluation_lines`); a file that is not UTF-8
    raises `InputError` naming it and the line (`ledger_from_bytes`)."""
    read = ledger_from_bytes(path.read_bytes(), role, str(path))
    return LedgerFile(role, str(path), run_lines(read.text, run) if role == GENERATOR else evaluation_lines(read.text))


def evaluation_lines(text: str) -> str:
    """The lines of an evaluation folder's ledger `text` that are the evaluation's (every purpose but ``generate``:
    a generation may have written to the same folder). A line that is not JSON is kept, for `check_ledger`."""
    kept = [line for _, line, entry, problem in parse_json_lines(text.splitlines())
            if problem is not None or not isinstance(entry, dict) or entry.get("purpose") != GENERATE]
    return "".join(line + "\n" for line in kept)


# -- pricing --------------------------------------------------------------------------------------------------------

@functools.lru_cache(maxsize=1)
def _packaged_as_of() -> str:
    """The ``as_of`` of the packaged price table ("" when it has none)."""
    packaged = Path(llm_ledger.__file__).with_name("prices.yaml")  # the table `PriceTable.load` starts from
    data = yaml.safe_load(packaged.read_text(encoding="utf-8"))
    return str(data.get("as_of") or "") if isinstance(data, dict) else ""


def price_table_name(prices: PriceTable) -> str:
    """The price table's name and version: its files and the packaged table's ``as_of``."""
    as_of = _packaged_as_of()
    return " + ".join(prices.sources) + (f" (as of {as_of})" if as_of else "")


def _table_agrees(entry: Mapping[str, Any], prices: PriceTable) -> bool:
    """Whether the board's `prices` give `entry`'s cost for its tokens (to the ledger's 8 decimals)."""
    found = prices.lookup(str(entry.get("model") or ""), str(entry.get("model") or "").partition(":")[2] or None,
                          entry.get("snapshot"))
    if found is None:
        return False
    cost = found[1].cost(int(entry.get("prompt_tokens") or 0), int(entry.get("completion_tokens") or 0),
                         int(entry.get("cached_tokens") or 0))
    return abs(round(cost, 8) - float(entry["cost_usd"])) <= 1e-8


def _pricing(entries: Sequence[Mapping[str, Any]], prices: PriceTable) -> tuple[str, ...]:
    """Where the priced lines' costs came from, each said once in order: "endpoint (usage.cost)", the board's
    price table (its name) or "another price table (--prices)", "worst case (usage malformed)"."""
    said: dict[str, None] = {}
    for entry in entries:
        source = entry.get("cost_source")
        if entry.get("cost_usd") is None or source is None:
            continue
        if source == "endpoint":
            said["endpoint (usage.cost)"] = None
        elif source == "price table":
            said[price_table_name(prices) if _table_agrees(entry, prices)
                 else "another price table (--prices: its costs differ from the board's)"] = None
        elif source == BOARD_PRICED:
            said[f"{price_table_name(prices)}, priced by the board from the Inspect log's token usage"] = None
        elif source == "worst case":
            said["worst case (the reply's usage was malformed or missing)"] = None
        else:
            said[str(source)] = None
    return tuple(said)


@dataclass(frozen=True)
class ModelCall:
    """One model call of an Inspect log's sample: its paper, whose call it was (`GENERATOR` or `JUDGE`), the model
    and its token usage, and the cost the log reported (None: not reported)."""

    paper_id: str
    role: str
    model: str
    input_tokens: int | None
    output_tokens: int | None
    reasoning_tokens: int | None = None
    cached_tokens: int | None = None
    cost_usd: float | None = None


def priced_ledgers(calls: Iterable[ModelCall], prices: PriceTable | None = None) -> tuple[LedgerFile, ...]:
    """An Inspect log's model `calls` as a generator and a judge ledger: each call a line, its cost the log's when
    it reported one, else its tokens at the board's `prices` (``cost_source`` `BOARD_PRICED`), else null (no price:
    the cost is unknown). Sides with no call get no ledger."""
    prices = prices or PriceTable.load()
    texts: dict[str, list[str]] = {}
    for call in calls:
        cost, source = call.cost_usd, LOG_REPORTED if call.cost_usd is not None else None
        found = prices.lookup(call.model, call.model.partition("/")[2] or None)
        if cost is None and found is not None and (call.input_tokens is not None or call.output_tokens is not None):
            cost = round(found[1].cost(call.input_tokens or 0, call.output_tokens or 0, call.cached_tokens or 0), 8)
            source = BOARD_PRICED
        line = {"purpose": GENERATE if call.role == GENERATOR else JUDGE, "model": call.model,
                "prompt_tokens": call.input_tokens, "completion_tokens": call.output_tokens,
                "reasoning_tokens": call.reasoning_tokens, "cached_tokens": call.cached_tokens, "cost_usd": cost,
                "cost_source": source, "paper_id": call.paper_id}
        texts.setdefault(call.role, []).append(json.dumps(line, ensure_ascii=False))
    return tuple(LedgerFile(role, f"{role}.usage.jsonl", "".join(t + "\n" for t in texts[role]))
                 for role in ROLES if role in texts)


# -- summing ----------------------------------------------------------------------------------------------------------

def _side(entries: Sequence[Mapping[str, Any]], prices: PriceTable, what: str) -> SideCost:
    """The sums of `entries`; the cost unknown when a line has none (no price for it)."""
    def tokens(name: str) -> int:
        return sum(int(e.get(name) or 0) for e in entries)

    unpriced = sum(1 for e in entries if e.get("cost_usd") is None)
    cost = None if unpriced else float(sum(float(e["cost_usd"]) for e in entries))
    why = f"{unpriced} of the {what}'s {len(entries)} requests have no cost in its ledger (no price)" if unpriced else ""
    return SideCost(len(entries), tokens("prompt_tokens"), tokens("completion_tokens"), tokens("reasoning_tokens"),
                    cost, why, _pricing(entries, prices))


def _from_usage(usage: LLMUsage) -> SideCost:
    """The judge's side from a summary's ``llm_usage`` (the sums `sciwrite evaluate` read from its ledger)."""
    unpriced = usage.unpriced_requests or 0
    known = usage.cost_usd is not None and not unpriced
    why = "" if known else (f"{unpriced} of the judge's requests have no cost (no price)" if unpriced
                            else "the summary's llm_usage has no cost")
    return SideCost(usage.requests, usage.prompt_tokens, usage.completion_tokens, usage.reasoning_tokens,
                    usage.cost_usd if known else None, why, ("the summary's llm_usage (from its ledger)",))


def _judge_run(entries: list[dict[str, Any]], usage: LLMUsage | None) -> list[dict[str, Any]] | None:
    """The judge lines of this evaluation: all of them when they are of one ``run`` (or untagged), else those of
    the run whose request count and cost are the summary's ``llm_usage``; None when none is."""
    runs: dict[Any, list[dict[str, Any]]] = {}
    for entry in entries:
        runs.setdefault(entry.get("run"), []).append(entry)
    if len(runs) <= 1:
        return entries
    for lines in runs.values():
        cost = sum(float(e.get("cost_usd") or 0) for e in lines)
        if usage is not None and usage.requests == len(lines) and round(cost, 6) == round(usage.cost_usd or 0, 6):
            return lines
    return None


def _no_judge(summary: Summary) -> bool:
    """Whether the summary says no LLM judge ran (its provenance records none, and it counted no LLM usage)."""
    provenance = summary.provenance
    return provenance is not None and (provenance.judge is None or not provenance.judge.model) and not (
        summary.usage is not None and summary.usage.requests)


def run_cost(ledgers: Sequence[LedgerFile], summary: Summary, paper_ids: Collection[str],
             prices: PriceTable | None = None) -> RunCost:
    """The `RunCost` of a scored run: its generator's ``generate`` lines and its judge's lines (`ledgers`, each
    checked by `check_ledger` against the predictions' `paper_ids`), per paper over the summary's papers (else the
    predictions'). Without a judge ledger the judge's cost is the summary's ``llm_usage``, 0 when no judge ran, else
    unknown."""
    prices = prices or PriceTable.load()
    n_papers = summary.n_papers or len(paper_ids)
    checked = {role: [e for ledger in ledgers if ledger.role == role for e in check_ledger(ledger, paper_ids)]
               for role in ROLES}
    has = {role: any(ledger.role == role for ledger in ledgers) for role in ROLES}
    generator = (_side([e for e in checked[GENERATOR] if e.get("purpose", GENERATE) == GENERATE], prices, GENERATOR)
                 if has[GENERATOR] else
                 SideCost.unknown("no generator ledger came with the run (usage.jsonl beside the predictions)"))
    judge_lines = _judge_run([e for e in checked[JUDGE] if e.get("purpose") != GENERATE], summary.usage)
    if has[JUDGE] and judge_lines is not None:
        judge = _side(judge_lines, prices, JUDGE)
    elif has[JUDGE]:
        judge = SideCost.unknown("the judge ledger holds several evaluations and none matches the summary's "
                                 "llm_usage")
    elif summary.usage is not None:
        judge = _from_usage(summary.usage)
    elif _no_judge(summary):
        judge = SideCost(0, 0, 0, 0, 0.0, "", ("no LLM judge ran",))
    else:
        judge = SideCost.unknown("no judge ledger, and the summary records no LLM usage")
    tables = tuple(dict.fromkeys(p for side in (generator, judge) for p in side.pricing if p != "no LLM judge ran"))
    return RunCost(n_papers, generator, judge, "; ".join(tables))


def evaluation_ledgers(predictions: Path, summary: Summary, folder: Path, paper_ids: Collection[str],
                generator: str | Path | None = None, judge: str | Path | None = None) -> tuple[LedgerFile, ...]:
    """The run's generator ledger (this run's lines of `generator`, default ``usage.jsonl`` beside the
    `predictions`) and judge ledger (the evaluation lines of `judge`, default the ledger the summary's
    ``llm_usage`` names, else ``usage.jsonl`` in `folder` or above it), each checked against `paper_ids`
    (`check_ledger`: `InputError` naming the file and line); a ledger not found is left out (its cost unknown).
    The board keeps each under its file name only."""
    usage = summary.usage.ledger if summary.usage is not None else None
    found = {GENERATOR: [Path(generator)] if generator else [predictions.parent / LEDGER_NAME],
             JUDGE: [Path(judge)] if judge else [*([Path(usage)] if usage else []), folder / LEDGER_NAME,
                                                  folder.parent / LEDGER_NAME]}
    ledgers = []
    for role, candidates in found.items():
        path = next((p for p in candidates if p.is_file()), None)
        if path is None:
            continue
        ledger = read_ledger(path, role, predictions.stem)
        check_ledger(ledger, paper_ids)
        ledgers.append(LedgerFile(role, path.name, ledger.text))
    return tuple(ledgers)


__all__ = ["BOARD_PRICED", "COST_COLUMNS", "COST_KEYS", "COST_PER_PAPER", "GENERATE", "GENERATOR", "JUDGE",
           "LOG_REPORTED", "ROLES", "TOKEN_FIELDS", "UNKNOWN", "LedgerFile", "ModelCall", "RunCost", "SideCost",
           "check_ledger", "cost_text", "evaluation_ledgers", "evaluation_lines", "ledger_from_bytes", "paper_ids_of",
           "price_table_name", "priced_ledgers", "read_ledger", "run_cost", "run_lines", "unknown_cost", "unknown_fields"]
