"""Write the documentation site's generated pages (``docs/generated/``, not committed): the command-line reference
from the argparse tree (`sciwrite.cli.reference`) and one page per metric from the evaluate modules' cards
(``metrics/<name>/README.md``), so the site and the code never disagree. ``make docs`` runs this, then
``mkdocs build --strict``.

    .venv/bin/python scripts/docs/build_pages.py [--docs docs]
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from sciwrite.cli import build_parser
from sciwrite.cli.reference import cli_markdown

ROOT = Path(__file__).resolve().parents[2]
FRONT_MATTER = re.compile(r"\A---\n(.*?)\n---\n", re.DOTALL)


def card_page(name: str, card: str) -> str:
    """A metric's page: its card without the Hub front matter, headed by the module's name and description."""
    match = FRONT_MATTER.match(card)
    description = ""
    if match:
        found = re.search(r"^description:\s*(.*)$", match.group(1), re.MULTILINE)
        description = found.group(1).strip().strip("'\"") if found else ""
        card = card[match.end():]
    body = re.sub(r"\A\s*# .*\n", "", card.lstrip())  # the card's own title: the page's is the module's
    lead = f"`evaluate.load(\"metrics/{name}\")` · `sciwrite.load_metric(\"{name}\")`"
    return f"# {name}\n\n{description}\n\n{lead}\n\n{body}"


def metric_pages(metrics: Path) -> dict[str, str]:
    """module name -> its page, for every folder of `metrics` with a card."""
    return {folder.name: card_page(folder.name, (folder / "README.md").read_text(encoding="utf-8"))
            for folder in sorted(metrics.iterdir()) if (folder / "README.md").is_file()}


def build(docs: Path, metrics: Path = ROOT / "metrics") -> list[Path]:
    """Write the generated pages under ``docs/generated``; the paths written."""
    out = docs / "generated"
    (out / "metrics").mkdir(parents=True, exist_ok=True)
    written = [out / "cli.md"]
    written[0].write_text(cli_markdown(build_parser()), encoding="utf-8")
    pages = metric_pages(metrics)
    for name, page in pages.items():
        path = out / "metrics" / f"{name}.md"
        path.write_text(page, encoding="utf-8")
        written.append(path)
    index = ["# Metrics\n", "One page per `evaluate` module, generated from its card (`metrics/<name>/README.md`).\n",
             *(f"- [{name}]({name}.md)" for name in pages)]
    (out / "metrics" / "index.md").write_text("\n".join(index) + "\n", encoding="utf-8")
    return [*written, out / "metrics" / "index.md"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--docs", default=str(ROOT / "docs"))
    args = parser.parse_args()
    print(f"wrote {len(build(Path(args.docs)))} generated pages under {args.docs}/generated")


if __name__ == "__main__":
    main()
