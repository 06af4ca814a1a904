"""Write the documentation site's generated pages (``docs/generated/``, not committed): the command-line reference
from the argparse tree (`sciwrite.cli.reference`) and one page per metric from the evaluate modules' cards
(``metrics/<name>/README.md``) and their declared interface (``_info()``: inputs, references, citation), so the
site and the code never disagree. ``make docs`` runs this, then ``mkdocs build --strict``.

    .venv/bin/python scripts/docs/build_pages.py [--docs docs]
"""

from __future__ import annotations

import argparse
import re
import textwrap
from pathlib import Path

import evaluate

from sciwrite.cli import build_parser
from sciwrite.cli.reference import cli_markdown, table_cell

ROOT = Path(__file__).resolve().parents[2]
FRONT_MATTER = re.compile(r"\A---\n(.*?)\n---\n", re.DOTALL)


def card_description(card: str) -> str:
    """The ``description:`` of a card's Hub front matter ('' without one)."""
    match = FRONT_MATTER.match(card)
    found = re.search(r"^description:\s*(.*)$", match.group(1), re.MULTILINE) if match else None
    return found.group(1).strip().strip("'\"") if found else ""


def interface_section(info: evaluate.MetricInfo) -> str:
    """The module's interface as its `_info()` declares it: the inputs `compute` takes, their description, the
    reference links and the citation."""
    features = info.features if isinstance(info.features, list) else [info.features]
    rows = [f"| `{field}` | `{value}` |" for schema in features for field, value in schema.items()]
    parts = ["## Interface (from the module's `_info()`)\n",
             "| input | type |\n|---|---|\n" + "\n".join(rows) + "\n"]
    if len(features) > 1:
        parts.append(f"The module accepts {len(features)} input schemas; the table lists each one's fields.\n")
    if info.inputs_description.strip():
        parts.append("```text\n" + textwrap.dedent(info.inputs_description).strip("\n") + "\n```\n")
    if info.reference_urls:
        parts.append("References: " + ", ".join(f"<{url}>" for url in info.reference_urls) + "\n")
    if info.citation.strip():
        parts.append("```bibtex\n" + textwrap.dedent(info.citation).strip("\n") + "\n```\n")
    return "\n".join(parts)


def card_page(name: str, card: str, info: evaluate.MetricInfo | None = None) -> str:
    """A metric's page: its card without the Hub front matter, headed by the module's name and description, then
    the module's declared interface."""
    description = card_description(card)
    match = FRONT_MATTER.match(card)
    if match:
        card = card[match.end():]
    body = re.sub(r"\A\s*# .*\n", "", card.lstrip())  # the card's own title: the page's is the module's
    lead = f"`evaluate.load(\"metrics/{name}\")` · `sciwrite.load_metric(\"{name}\")`"
    interface = f"\n\n{interface_section(info)}" if info is not None else ""
    return f"# {name}\n\n{description}\n\n{lead}\n\n{body.rstrip()}{interface}\n"


def metric_cards(metrics: Path) -> dict[str, str]:
    """module name -> its card, for every folder of `metrics` with one."""
    return {folder.name: (folder / "README.md").read_text(encoding="utf-8")
            for folder in sorted(metrics.iterdir()) if (folder / "README.md").is_file()}


def build(docs: Path, metrics: Path = ROOT / "metrics") -> list[Path]:
    """Write the generated pages under ``docs/generated``; the paths written."""
    out = docs / "generated"
    (out / "metrics").mkdir(parents=True, exist_ok=True)
    written = [out / "cli.md"]
    written[0].write_text(cli_markdown(build_parser()), encoding="utf-8")
    cards = metric_cards(metrics)
    for name, card in cards.items():
        path = out / "metrics" / f"{name}.md"
        info = evaluate.load(str(metrics / name))._info()  # the module as users load it, offline
        path.write_text(card_page(name, card, info), encoding="utf-8")
        written.append(path)
    index = ["# Metrics\n",
             "One page per `evaluate` module, generated from its card (`metrics/<name>/README.md`) when the site is "
             "built, so a page and its module never disagree. Each page gives the paper's definition, the inputs "
             "the module takes, what it returns, and every choice the paper leaves open. Load a module with "
             "`evaluate.load(\"metrics/<name>\")` in a checkout or `sciwrite.load_metric(\"<name>\")` anywhere; "
             "the `rwgbench`, `sciig` and `surge` modules run a whole benchmark's suite, as `sciwrite evaluate` does "
             "([Score predictions](../../scoring.md)).\n",
             "| module | what it measures |", "|---|---|",
             *(f"| [{name}]({name}.md) | {table_cell(card_description(card))} |" for name, card in cards.items())]
    (out / "metrics" / "index.md").write_text("\n".join(index) + "\n", encoding="utf-8")
    return [*written, out / "metrics" / "index.md"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--docs", default=str(ROOT / "docs"))
    args = parser.parse_args()
    print(f"wrote {len(build(Path(args.docs)))} generated pages under {args.docs}/generated")


if __name__ == "__main__":
    main()
