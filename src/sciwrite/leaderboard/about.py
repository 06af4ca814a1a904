"""The leaderboard's About text, built from the metric cards (``metrics/<name>/README.md``) so the page never
drifts from them: per benchmark, one section per metric module with its title and first descriptive paragraph,
then how scores, intervals and comparisons are computed."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import yaml

from sciwrite.benchmarks import BENCHMARKS
from sciwrite.core.metric_modules import available_metrics, metric_path
from sciwrite.leaderboard.tables import LOWER_IS_BETTER, MISSING
from sciwrite.stats import INTERVAL_METHOD

#: Card tag -> the benchmark section it goes under (checked in order).
BENCHMARK_TAGS = (("related-work-generation", "RWGBench: related-work generation"),
                  ("introduction-generation", "SciIG: introduction generation"))
OTHER = "Other metrics"
#: Folder names of the suite modules (listed first in their benchmark's section).
SUITES = tuple(BENCHMARKS)

METHODS_MARKDOWN = f"""## Reading a benchmark's table

Each system's scores come first, in the paper's table order, then the columns beside the paper's table (the
**Grounding**: which generated references name a real paper, and what is wrong with the others), which never change
it. After the scores: the scoring condition, the system's model, method, retriever and weights, the Profile (which
models scored it: `paper` on a GPU, `lite` otherwise), the Judge (which LLM judged it) and the papers scored. Scores
under different profiles or judges are not comparable, so rows are grouped by **Scored under** (profile and judge
model; the `paper` profile first, then the larger groups) and ranked only within their group. A rank comes with
its 95% interval, "2 (1\u20133)", from a paired bootstrap over the papers the group's rows all scored (ties share the
better rank), and "\u2191 sig." or "\u2191 n.s." says whether the row's difference from the row above excludes 0 at
95% (the interval `sciwrite compare` gives). Beside the rank, **$/paper** is what the run cost per paper,
generator and judge together, read from its usage ledgers (`unknown` without one, never 0). Choose a metric to sort,
pick groups with *Scored under* (and a model, method or retriever, or the cost frontier, under *More filters*), and
click a row to see its trust card (its judges, their snapshots and check, the panel's agreement, the judge's
agreement with people when a study was recorded) and its provenance. After the scores come the detailed cost
columns (generator and judge apart, tokens per paper), and under the table the headline score against dollars per
paper with the Pareto frontier.

## How scores are computed

Each submission is scored paper by paper; a leaderboard cell is the metric's mean over the papers it could score
(SciIG BLEU is corpus BLEU over all papers, as the paper reports it). {MISSING} marks a metric that was not computed
under the evaluation profile (its model was unavailable; the note under the table says why) or does not apply
(CSC and TRT of a prediction without candidates). Higher is better for every metric except
{", ".join(sorted(LOWER_IS_BETTER))}.

The bracket after a score is its 95% confidence interval: a {INTERVAL_METHOD} (papers resampled with replacement,
1,000 resamples by default, the 2.5th and 97.5th percentiles of the resampled means). Corpus BLEU is not a mean over
papers, so it has no interval.

Comparing two submissions pairs them paper by paper on the papers both scored: for each metric, the mean
difference B − A with a 95% paired bootstrap interval, a two-sided paired permutation test (each paper's two
scores swapped at random; exact for small sets) and Holm's step-down correction across the metrics compared, so
the family of tests holds its 5% error rate. An interval that excludes 0 and a small Holm p-value both say the
difference is unlikely to be chance on these papers; neither says it matters in practice.

Scores are ranked only among rows scored under the same conditions ("Scored under" in the table): the same model
profile (`paper`: the papers' models; `lite`: smaller offline models, some metrics not computed) and the same LLM
judge model. A row whose judge did not run, and a row whose summary predates the provenance record (its judge
unknown), each form their own group. A newer snapshot of the same judge model stays in its group and is shown in
the Judge column and in the row's provenance (click a row).
"""


@dataclass(frozen=True)
class MetricCard:
    """What the About page takes from one metric card."""

    name: str  # the module folder
    title: str
    tags: tuple[str, ...]
    paragraph: str


def _split_front_matter(text: str) -> tuple[dict, str]:
    """(YAML front matter, the rest) of a card; an empty mapping when it has none."""
    if text.startswith("---"):
        end = text.find("\n---", 3)
        if end != -1:
            meta = yaml.safe_load(text[3:end]) or {}
            return (meta if isinstance(meta, dict) else {}), text[end + 4:].lstrip("\n")
    return {}, text


def first_paragraph(body: str) -> str:
    """The first block of prose after the headings (joined into one paragraph; a list that it introduces with a
    colon is kept, as lines)."""
    blocks = [b.strip("\n") for b in body.split("\n\n")]
    prose = [b for b in blocks if b.strip() and not b.lstrip().startswith(("#", "|", "```"))]
    if not prose:
        return ""
    first = prose[0]
    if first.rstrip().endswith(":"):
        following = prose[1] if len(prose) > 1 else ""
        if following.lstrip().startswith(("- ", "* ", "1.")):
            return f"{first}\n\n{following}"
        first = first.rstrip()[:-1] + "."
    return first


def read_card(name: str) -> MetricCard:
    """The metric card of module `name`."""
    path = Path(metric_path(name)) / "README.md"
    text = path.read_text(encoding="utf-8") if path.is_file() else ""
    meta, body = _split_front_matter(text)
    tags = tuple(str(t) for t in meta.get("tags") or ())
    # A heading line may sit directly above the paragraph with no blank line between.
    lines = [line for line in body.splitlines() if not line.lstrip().startswith("#")]
    paragraph = first_paragraph("\n".join(lines)) or str(meta.get("description") or "")
    return MetricCard(name=name, title=str(meta.get("title") or name), tags=tags, paragraph=paragraph)


def benchmark_of(card: MetricCard) -> str:
    """The About section a card belongs in, from its tags."""
    for tag, section in BENCHMARK_TAGS:
        if any(tag in t for t in card.tags):
            return section
    return OTHER


def about_markdown() -> str:
    """The About page: per benchmark, each metric module's title, folder and first descriptive paragraph (suite
    modules first), then `METHODS_MARKDOWN`."""
    sections: dict[str, list[MetricCard]] = {section: [] for _, section in BENCHMARK_TAGS}
    for name in available_metrics():
        card = read_card(name)
        sections.setdefault(benchmark_of(card), []).append(card)
    parts = ["# About the metrics",
             "Every metric has a module of its own under `metrics/` with a metric card; below is the first "
             "paragraph of each card."]
    for section, cards in sections.items():
        if not cards:
            continue
        parts.append(f"## {section}")
        for card in sorted(cards, key=lambda c: (c.name not in SUITES, c.name)):
            parts.append(f"### {card.title} (`{card.name}`)\n\n{card.paragraph}")
    parts.append(METHODS_MARKDOWN.strip())
    return "\n\n".join(parts) + "\n"


__all__ = ["METHODS_MARKDOWN", "MetricCard", "about_markdown", "benchmark_of", "first_paragraph", "read_card"]
