"""`sciwrite build surge --from-arxiv DIR --corpus-source SOURCE`: a fresh SurGE split, the ``arxiv`` config, from the
surveys among the papers `sciwrite fetch arxiv` saved, so a model is scored on surveys posted after its cutoff.

SurGE's 205 surveys were chosen and parsed by its authors from LaTeX sources; these rules are sciwrite's, named in the
card and the build report:

- **Surveys** (`SURVEY_RULE`): a fetched paper is kept when its arXiv title says it is a survey (the words survey or
  overview; review as a noun: "a ... review", "review of/on", "literature/systematic/scoping/... review"), or its
  arXiv abstract describes itself as one ("this survey", "this paper reviews", "we survey", "we present a
  comprehensive review"...). Every other paper is counted as ``not-a-survey``.
- **Licence**: only papers whose arXiv licence lets their text be redistributed (`sciwrite.sources.licences`), unless
  ``--allow-non-commercial`` or ``--keep-all-licences``; the others are counted.
- **Tree** (`sciwrite.sources.latexml_tree`): a root (id "0", title "root", the text before the first section) and
  one section per LaTeXML chapter, section, subsection and subsubsection (ids "s1", "s2", ... in document order),
  each with its own text, every ``<cite>`` taken out (SurGE's release strips its markers). Appendices are left out.
  A page that cannot be read, has no section or no bibliography is counted under that reason.
- **Citations**: each bibliography entry is resolved to the corpus by title as RWGBench's builder resolves cited
  works (`sciwrite.sources.bib_links.link_entry`: the exact normalised title, else the longest corpus title
  found in the entry's text); ``all_cites`` lists the resolved entries' doc_ids, distinct, in bibliography order.
  Entries not in the corpus are left out (the corpus is not extended: the folder holds no corpus).
- **Kept** when at least `MIN_CITES` (20) works resolve and at least `MIN_RESOLVED_SHARE` (50 %) of the bibliography's
  entries do: below that the gold list is a minority of what the expert cites, and Coverage would score a system
  against it. The share of every survey is in the report, kept or not.
- **Queries**: one per section (root included) whose own ``<cite>`` links resolve to the corpus: ``prefix_titles`` its
  heading path (survey title, section, subsection...), ``cites`` its resolved doc_ids in order of first citation.
  SurGE's queries are questions an LLM wrote; these are templated (`sciwrite.surge.data.sample.QUERY_TEMPLATE`).
- ``text``: the survey as Markdown (`sciwrite.surge.data.expert.with_expert_texts`), as for the other configs.

Each record carries ``paper_id`` (the arXiv id), the arXiv metadata (``date`` and ``published``: version 1's day;
``category``: the primary category) and its provenance (`sciwrite.core.schema.ARXIV_PROVENANCE`). The folder holds
the ``arxiv`` config only: the corpus stays where ``--corpus-source`` names it, recorded in ``build_report.json``,
and `sciwrite evaluate surge --split arxiv --source OUT` reads it from there
(`sciwrite.surge.data.configs.corpus_location`).
"""

from __future__ import annotations

import logging
import re
from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from statistics import mean
from typing import Any

from datasets import Dataset, Features
from tqdm.auto import tqdm

from sciwrite.core.commands import BuildResult, Option
from sciwrite.core.datasets import is_local_source, write_json
from sciwrite.core.errors import InputError
from sciwrite.core.schema import ARXIV_PROVENANCE
from sciwrite.core.skips import describe_skips
from sciwrite.sources.arxiv import ArxivPaper
from sciwrite.sources.arxiv_fetch import MANIFEST_FILE, fetched_papers, read_manifest
from sciwrite.sources.bib_links import LINK_METHODS, link_entry
from sciwrite.sources.corpus import CorpusTitleIndex
from sciwrite.sources.latexml import LatexmlParseError
from sciwrite.sources.latexml_tree import ROOT, NoBibliographyError, NoSectionsError, PaperTree, parse_paper_tree
from sciwrite.sources.licences import LicenceRule
from sciwrite.surge.data.configs import BUILD_REPORT, card_configs_yaml, config_info, write_dataset_folder
from sciwrite.surge.data.expert import with_expert_texts
from sciwrite.surge.data.loading import load_surge
from sciwrite.surge.data.sample import QUERY_TEMPLATE, ROOT_ID, ROOT_PATH, ROOT_TITLE
from sciwrite.surge.data.schema import SURVEY_FEATURES

logger = logging.getLogger(__name__)

ARXIV_CONFIG = "arxiv"
FRESH_SURVEY_FEATURES = Features({**SURVEY_FEATURES, **ARXIV_PROVENANCE})
MIN_CITES = 20
MIN_RESOLVED_SHARE = 0.5

_NOUN_REVIEW = r"(?:literature|systematic|scoping|critical|comprehensive|narrative|structured)\s+review"
#: A title that says survey: the words survey(s) or overview, or review as a noun.
SURVEY_TITLE = re.compile(rf"\b(?:surveys?|overview)\b|\b(?:a|an)\s+(?:[\w-]+\s+){{0,3}}review\b|\breview\s+(?:of|on)\b"
                          rf"|\b{_NOUN_REVIEW}\b", re.IGNORECASE)
#: An abstract that describes itself as a survey.
SURVEY_ABSTRACT = re.compile(
    r"\b(?:this|our|the present)\s+(?:[\w-]+\s+){0,2}(?:survey|review|overview)\b"
    r"|\b(?:this|the present)\s+(?:paper|article|work|chapter)\s+(?:surveys|reviews)\b"
    r"|\bwe\s+(?:\w+ly\s+)?(?:survey|review)\b"
    r"|\b(?:present|presents|provide|provides|offer|offers|conduct|conducts)\s+(?:a|an)\s+(?:[\w-]+\s+){0,3}"
    r"(?:survey|review|overview)\b", re.IGNORECASE)
SURVEY_RULE = ("a survey is a paper whose arXiv title says so (the words survey or overview, or review as a noun: "
               "'a ... review', 'review of/on', 'literature/systematic/scoping/critical/comprehensive/narrative/"
               "structured review') or whose arXiv abstract describes itself as one ('this/our ... survey/review/"
               "overview', 'this paper surveys/reviews', 'we survey/review', 'presents/provides/offers/conducts a ... "
               "survey/review/overview')")
QUERY_RULE = f"templated, not written by an LLM as SurGE's are: {QUERY_TEMPLATE!r}"


def survey_match(title: str, abstract: str) -> str | None:
    """Where the survey rule finds a paper to be a survey: ``"title"``, ``"abstract"``, or None (not a survey)."""
    if SURVEY_TITLE.search(title or ""):
        return "title"
    if SURVEY_ABSTRACT.search(abstract or ""):
        return "abstract"
    return None


@dataclass(frozen=True)
class SurveyFigures:
    """One parsed survey's figures (kept or not): its tree, its bibliography and how much of it the corpus holds."""

    paper_id: str
    matched_by: str  # "title" or "abstract"
    sections: int  # root not counted
    depth: int
    bibliography_entries: int
    resolved_entries: int
    cites: int  # distinct corpus documents: len(all_cites)
    citations_in_text: int  # <cite> links of the tree's text (a <cite> without a link counts one)
    citations_to_corpus: int
    queries: int
    link_methods: dict[str, int]
    kept: bool

    @property
    def resolved_share(self) -> float:
        """Resolved / all bibliography entries."""
        return self.resolved_entries / self.bibliography_entries if self.bibliography_entries else 0.0


@dataclass
class FreshSurgeReport:
    """What the build did with each fetched paper: skipped by reason (and why, for a page it could not read), or
    parsed with its figures."""

    n_fetched: int = 0
    skipped: dict[str, list[str]] = field(default_factory=dict)
    why: dict[str, str] = field(default_factory=dict)
    per_survey: list[SurveyFigures] = field(default_factory=list)

    def skip(self, reason: str, paper_id: str, why: str | None = None) -> None:
        self.skipped.setdefault(reason, []).append(paper_id)
        if why:
            self.why[paper_id] = why

    def count(self, reason: str) -> int:
        return len(self.skipped.get(reason, []))


def _distinct(ids: list[str | None]) -> list[str]:
    return list(dict.fromkeys(i for i in ids if i is not None))


def survey_record(paper: ArxivPaper, tree: PaperTree, index: CorpusTitleIndex,
                  matched_by: str) -> tuple[dict[str, Any], SurveyFigures]:
    """A parsed survey as a SurGE record (without ``text``) and its figures (`kept` False until the rules say)."""
    links = {key: link_entry(entry, index) for key, entry in tree.bibliography.items()}
    doc_of = {key: doc_id for key, (doc_id, _) in links.items()}
    methods = dict.fromkeys(LINK_METHODS, 0)
    for _, method in links.values():
        methods[method] += 1
    title = paper.title

    def sid(number: int) -> str:
        return ROOT_ID if number == ROOT else f"s{number}"

    structure = [{"id": ROOT_ID, "parent_id": "", "title": ROOT_TITLE, "content": tree.root.text}]
    structure += [{"id": sid(s.number), "parent_id": sid(s.parent), "title": s.heading, "content": s.text}
                  for s in tree.sections]
    queries, n_citations, n_to_corpus = [], 0, 0
    for section in (tree.root, *tree.sections):
        resolved = [doc_of.get(key) if key is not None else None for key in section.cites]
        n_citations += len(resolved)
        n_to_corpus += sum(d is not None for d in resolved)
        cites = _distinct(resolved)
        if cites:
            path = tree.heading_path(section.number)
            where = " > ".join(f"'{t}'" for t in path) or ROOT_PATH
            queries.append({"query_id": f"{paper.arxiv_id}-{sid(section.number)}", "section_id": sid(section.number),
                            "prefix_titles": [title, *path], "query": QUERY_TEMPLATE.format(title=title, path=where),
                            "cites": cites})
    all_cites = _distinct(list(doc_of.values()))
    record = {"paper_id": paper.arxiv_id, "title": title, "authors": list(paper.authors),
              "year": int(paper.published[:4]), "date": paper.published,
              "category": paper.primary_category or (paper.categories[0] if paper.categories else ""),
              "abstract": paper.abstract, "structure": structure, "all_cites": all_cites, "queries": queries,
              **paper.provenance()}
    figures = SurveyFigures(paper.arxiv_id, matched_by, len(tree.sections), tree.depth, len(tree.bibliography),
                            sum(d is not None for d in doc_of.values()), len(all_cites), n_citations, n_to_corpus,
                            len(queries), methods, kept=False)
    return record, figures


def _read_tree(paper: ArxivPaper, path: Path, index: CorpusTitleIndex, report: FreshSurgeReport) -> PaperTree | None:
    """The page's tree, or None with the paper counted under its reason."""
    try:
        html = path.read_text(encoding="utf-8", errors="replace")
        return parse_paper_tree(html, paper.arxiv_id, index.title_in_text)
    except NoSectionsError:
        report.skip("no-sections", paper.arxiv_id)
    except NoBibliographyError:
        report.skip("no-bibliography", paper.arxiv_id)
    except (LatexmlParseError, OSError) as err:
        logger.warning("skipping %s: %s", path, err)
        report.skip("unreadable", paper.arxiv_id, f"{path}: {getattr(err, 'detail', None) or err}")
    return None


def _corpus_titles(corpus: Any, cited: set[str]) -> Iterator[dict[str, str]]:
    """The corpus's (doc_id, title) of the cited documents, read in batches (a corpus of a million stays in Arrow)."""
    for batch in corpus.select_columns(["doc_id", "title"]).iter(batch_size=10_000):
        for doc_id, title in zip(batch["doc_id"], batch["title"]):
            if doc_id in cited:
                yield {"doc_id": doc_id, "title": title}


def recorded_source(source: str | Path) -> str:
    """The corpus source as the report records it: a local folder as an absolute path, a Hub repo id as given."""
    return str(Path(source).expanduser().resolve()) if is_local_source(source) else str(source)


def build_surge_from_arxiv(arxiv_dir: str | Path, corpus_source: str | Path, out: str | Path, *,
                           corpus_config: str = "corpus", licences: LicenceRule = LicenceRule(),
                           min_cites: int = MIN_CITES, min_resolved_share: float = MIN_RESOLVED_SHARE,
                           show_progress: bool = True) -> dict[str, Any]:
    """Build the ``arxiv`` config into `out` from the fetched papers in `arxiv_dir`, their citations resolved to the
    corpus config `corpus_config` of `corpus_source` (see the module docstring); writes the card and
    ``build_report.json`` and returns the card's statistics.

    Raises:
        ValueError: `corpus_config` is not a corpus config, `arxiv_dir` holds no fetched page, or the thresholds
            are out of range.
        InputError: No survey was kept; the message counts the skips by reason.
    """
    if config_info(corpus_config).kind != "corpus":
        raise ValueError(f"--corpus-config {corpus_config!r} is a survey config; name a corpus config (corpus)")
    if min_cites < 1 or not 0.0 <= min_resolved_share <= 1.0:
        raise ValueError(f"min_cites must be >= 1 and min_resolved_share in [0, 1], got {min_cites}, "
                         f"{min_resolved_share}")
    arxiv_dir, out = Path(arxiv_dir), Path(out)
    fetched = fetched_papers(arxiv_dir)
    if not fetched:
        raise ValueError(f"{arxiv_dir} holds no fetched page (see its {MANIFEST_FILE})")
    corpus = load_surge(corpus_config, source=corpus_source)
    index = CorpusTitleIndex(corpus)
    report = FreshSurgeReport(n_fetched=len(fetched))
    records = []
    for paper, path in tqdm(fetched, desc="surveys from arXiv pages", disable=not show_progress):
        matched_by = survey_match(paper.title, paper.abstract)
        if matched_by is None:
            report.skip("not-a-survey", paper.arxiv_id)
            continue
        if not licences.allows(paper.licence_name):
            report.skip("licence-not-redistributable", paper.arxiv_id)
            continue
        tree = _read_tree(paper, path, index, report)
        if tree is None:
            continue
        record, figures = survey_record(paper, tree, index, matched_by)
        kept = figures.cites >= min_cites and figures.resolved_share >= min_resolved_share
        report.per_survey.append(figures if not kept else _kept(figures))
        if figures.cites < min_cites:
            report.skip("too-few-cites-in-corpus", paper.arxiv_id)
        elif not kept:
            report.skip("resolved-share-too-low", paper.arxiv_id)
        else:
            records.append(record)
    rules = {"survey": SURVEY_RULE, "min_cites": min_cites, "min_resolved_share": min_resolved_share,
             "licences": licence_rule(licences), "queries": QUERY_RULE}
    if not records:
        raise InputError(f"no survey kept of {len(fetched)} fetched papers in {arxiv_dir} "
                         f"({describe_skips(report.skipped, report.why)})",
                         hint=f"a survey is kept when at least {min_cites} of its cited works and "
                              f"{min_resolved_share:.0%} of its bibliography resolve to the corpus "
                              "(--min-cites, --min-resolved-share); the survey rule: " + SURVEY_RULE)
    with_expert_texts(records, _corpus_titles(corpus, {c for r in records for c in r["all_cites"]}))
    manifest = read_manifest(arxiv_dir)
    location = {"source": recorded_source(corpus_source), "config": corpus_config}
    stats = statistics(report, records)
    funnel = filter_funnel(report, len(records))
    tables = {ARXIV_CONFIG: Dataset.from_list(records, features=FRESH_SURVEY_FEATURES)}
    write_dataset_folder(out, tables, fresh_card(stats, funnel, rules, manifest, location, records, licences))
    write_json(out / BUILD_REPORT, {
        "corpus": location, "rules": rules, "statistics": stats, "filters": funnel, "skipped": report.skipped,
        "why": report.why, "window": {"since": manifest.get("since"), "until": manifest.get("until"),
                                      "categories": manifest.get("categories")},
        "per_survey": [asdict(f) | {"resolved_share": round(f.resolved_share, 4)} for f in report.per_survey]})
    logger.info("wrote the fresh SurGE split to %s", out)
    return stats


def licence_rule(licences: LicenceRule) -> str:
    """The licences a split keeps, in words."""
    if licences.keep_all:
        return "every licence (--keep-all-licences): not for redistribution"
    return "CC0, CC BY, CC BY-SA" + (", CC BY-NC, CC BY-NC-SA (non-commercial)" if licences.allow_non_commercial
                                     else "")


#: The options `sciwrite build surge` takes for a fresh split (``--from-arxiv``).
ARXIV_OPTIONS: tuple[Option, ...] = (
    Option("from_arxiv", "folder written by `sciwrite fetch arxiv`: build the fresh `arxiv` config from its surveys",
           metavar="DIR"),
    Option("corpus_source", "with --from-arxiv: dataset folder or Hub repo id of the corpus the cites resolve to "
                            "(recorded in the folder: evaluation reads the corpus from there)"),
    Option("corpus_config", "with --from-arxiv: the corpus config of --corpus-source", default="corpus"),
    Option("min_cites", f"with --from-arxiv: keep a survey when at least this many cited works resolve to the "
                        f"corpus (default {MIN_CITES})", type=int, default=MIN_CITES),
    Option("min_resolved_share", f"with --from-arxiv: ... and at least this share of its bibliography (default "
                                 f"{MIN_RESOLVED_SHARE})", type=float, default=MIN_RESOLVED_SHARE),
    Option("allow_non_commercial", "with --from-arxiv: keep CC BY-NC(-SA) surveys too (a non-commercial split)",
           switch=True),
    Option("keep_all_licences", "with --from-arxiv: keep every survey whatever its licence (for your own use; the "
                                "card says so)", switch=True),
)


def build_from_arxiv(options: Mapping[str, Any]) -> BuildResult:
    """``sciwrite build surge --from-arxiv DIR --corpus-source SOURCE --out OUT``."""
    if not options.get("corpus_source"):
        raise ValueError("--from-arxiv needs --corpus-source: the dataset folder or Hub repo whose corpus the surveys' "
                         "cites resolve to (the folder built holds no corpus)")
    stats = build_surge_from_arxiv(
        options["from_arxiv"], options["corpus_source"], options["out"],
        corpus_config=options.get("corpus_config") or "corpus",
        licences=LicenceRule(bool(options.get("allow_non_commercial")), bool(options.get("keep_all_licences"))),
        min_cites=MIN_CITES if options.get("min_cites") is None else options["min_cites"],
        min_resolved_share=MIN_RESOLVED_SHARE if options.get("min_resolved_share") is None
        else options["min_resolved_share"])
    return BuildResult(f"fresh SurGE split (config {ARXIV_CONFIG!r}) written to {options['out']}; its corpus is read "
                       f"from {options['corpus_source']}: sciwrite evaluate surge --split {ARXIV_CONFIG} --source "
                       f"{options['out']} ...", stats)


def _kept(figures: SurveyFigures) -> SurveyFigures:
    return SurveyFigures(**{**asdict(figures), "kept": True})


def statistics(report: FreshSurgeReport, records: list[dict[str, Any]]) -> dict[str, Any]:
    """The figures the card quotes, over the kept surveys (and what was dropped, by reason)."""
    kept = [f for f in report.per_survey if f.kept]
    return {
        "fetched_papers": report.n_fetched,
        "surveys": len(records),
        "kept_share_of_fetched": round(len(records) / report.n_fetched, 4) if report.n_fetched else 0.0,
        "skipped": {reason: len(ids) for reason, ids in report.skipped.items()},
        "matched_by_title": sum(f.matched_by == "title" for f in kept),
        "matched_by_abstract": sum(f.matched_by == "abstract" for f in kept),
        "mean_sections": round(mean(f.sections for f in kept), 2) if kept else 0.0,
        "mean_depth": round(mean(f.depth for f in kept), 2) if kept else 0.0,
        "mean_bibliography_entries": round(mean(f.bibliography_entries for f in kept), 2) if kept else 0.0,
        "mean_cites": round(mean(f.cites for f in kept), 2) if kept else 0.0,
        "mean_resolved_share": round(mean(f.resolved_share for f in kept), 4) if kept else 0.0,
        "min_resolved_share": round(min(f.resolved_share for f in kept), 4) if kept else 0.0,
        "queries": sum(f.queries for f in kept),
        "licences": dict(Counter(r["licence"] for r in records)),
    }


def filter_funnel(report: FreshSurgeReport, n_kept: int) -> list[dict[str, Any]]:
    """Papers left after each rule, in order, with the share of the fetched papers each step keeps."""
    left = report.n_fetched
    rows = [("fetched papers", left)]
    for step, reasons in (("surveys (title or abstract)", ("not-a-survey",)),
                          ("redistributable licence", ("licence-not-redistributable",)),
                          ("readable, with sections and a bibliography", ("unreadable", "no-sections",
                                                                          "no-bibliography")),
                          ("enough cites in the corpus", ("too-few-cites-in-corpus",)),
                          ("enough of the bibliography in the corpus", ("resolved-share-too-low",))):
        left -= sum(report.count(r) for r in reasons)
        rows.append((step, left))
    if left != n_kept:  # every paper not kept is counted under one reason above
        raise RuntimeError(f"the filter counts leave {left} papers, but {n_kept} were kept")
    return [{"step": step, "papers": n, "share_of_fetched": round(n / report.n_fetched, 4)} for step, n in rows]


def fresh_card(stats: dict[str, Any], funnel: list[dict[str, Any]], rules: dict[str, Any],
               manifest: dict[str, Any], corpus: dict[str, str], records: list[dict[str, Any]],
               licences: LicenceRule) -> str:
    """The card of a fresh split: the date window, where its corpus is, the rules, licences, filters, statistics."""
    names = Counter(r["licence"] for r in records)
    until = manifest.get("until") or manifest.get("last_run", {}).get("finished_at", "")[:10]
    window = f"{manifest.get('since')} to {until}"
    steps = "\n".join(f"| {r['step']} | {r['papers']} | {r['share_of_fetched']:.1%} |" for r in funnel)
    rows = "\n".join(f"| {k.replace('_', ' ')} | {v} |" for k, v in stats.items())
    licence_rows = "\n".join(f"| {name} | {n} |" for name, n in sorted(names.items()))
    use = ("**Not for redistribution**: built with `--keep-all-licences`, it holds surveys whose licence does not "
           "allow their text to be shared. Use it for your own evaluation only." if licences.keep_all else
           "Every survey in it carries a licence that allows its text to be redistributed (its `licence` column); "
           "the split's licence is the most restrictive of them.")
    return f"""---
license: {licences.split_licence(set(names))}
language:
- en
pretty_name: SurGE (fresh arXiv surveys, {window})
{card_configs_yaml([ARXIV_CONFIG])}---

# SurGE: fresh arXiv surveys, first submitted {window}

Built by `sciwrite build surge --from-arxiv` from the arXiv categories {', '.join(manifest.get('categories', []))}.
A model whose training data ends before {manifest.get('since')} cannot have read these surveys. The config `arxiv`
(split `test`) has SurGE's schema plus `arxiv_id`, `arxiv_version`, `published` and `licence`.

## Corpus

This folder holds no corpus: the surveys' cites are doc_ids of the corpus config `{corpus['config']}` of
`{corpus['source']}` (`--corpus-source`, recorded in `build_report.json`), where evaluation reads it:

```bash
sciwrite evaluate surge --split arxiv --source <this folder> --predictions run.jsonl --cutoff <the model's cutoff>
sciwrite generate surge --split arxiv --source <this folder> --corpus-source {corpus['source']} ...
```

## Rules (sciwrite's, not SurGE's)

- Surveys: {rules['survey']}.
- Kept when at least {rules['min_cites']} cited works and {rules['min_resolved_share']:.0%} of the bibliography's
  entries resolve to the corpus by title (RWGBench's resolution); `all_cites` holds only those.
- Tree: a root and the LaTeXML chapters, sections, subsections and subsubsections, citations removed from `content`;
  appendices left out.
- Queries: one per section whose citations resolve; their text is {rules['queries']}.

## Licences

{use}

| licence | surveys |
|---|---|
{licence_rows}

## Filters (the share of the fetched papers each keeps)

| step | papers | share of fetched |
|---|---|---|
{steps}

## Statistics

| statistic | value |
|---|---|
{rows}
"""


__all__ = ["ARXIV_CONFIG", "ARXIV_OPTIONS", "FRESH_SURVEY_FEATURES", "MIN_CITES", "MIN_RESOLVED_SHARE", "QUERY_RULE",
           "SURVEY_ABSTRACT", "SURVEY_RULE", "SURVEY_TITLE", "FreshSurgeReport", "SurveyFigures", "build_from_arxiv",
           "build_surge_from_arxiv", "filter_funnel", "fresh_card", "licence_rule", "statistics", "survey_match",
           "survey_record"]
