"""Options every ``sciwrite generate`` command shares, and turning them into a backend, settings and a run."""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from sciwrite.generation.runner import Method, RunReport, dry_run, run_generation
from sciwrite.llm.backends import make_backend
from sciwrite.llm.types import Backend, GenerationSettings

#: The model id of the offline extractive floor (no language model).
EXTRACTIVE = "extractive"


def add_run_arguments(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """--model, --base-url, sampling and request settings, --out, --limit, --dry-run, --retry-failed."""
    defaults = GenerationSettings()
    parser.add_argument("--model", required=True,
                        help="openrouter:<id> (OPENROUTER_API_KEY), openai:<id> (OPENAI_API_KEY), hf:<id or path> "
                             "(local transformers), <id> with --base-url (SCIWRITE_LLM_API_KEY), or 'extractive' "
                             "(the offline non-LLM floor)")
    parser.add_argument("--base-url", help="OpenAI-compatible endpoint for a bare model id (vLLM, TGI, llama.cpp)")
    parser.add_argument("--temperature", type=float, default=defaults.temperature)
    parser.add_argument("--max-tokens", type=int, default=defaults.max_tokens)
    parser.add_argument("--seed", type=int, default=defaults.seed,
                        help="sampling seed, and the seed of shuffles and exemplar draws")
    parser.add_argument("--concurrency", type=int, default=defaults.concurrency, help="requests in flight at once")
    parser.add_argument("--timeout", type=float, default=defaults.timeout, help="seconds per request")
    parser.add_argument("--max-retries", type=int, default=defaults.max_retries,
                        help="retries of a request after 429, 5xx, timeouts or dropped connections")
    parser.add_argument("--batch-size", type=int, default=8, help="generate() batch size of an hf: model")
    parser.add_argument("--out", help="output folder")
    parser.add_argument("--limit", type=int, help="only the first N papers")
    parser.add_argument("--dry-run", action="store_true", help="print the exact prompt of the first paper(s); no model")
    parser.add_argument("--retry-failed", action="store_true", help="rerun only the papers in the failures file")
    return parser


def script_main(add_arguments: Callable[[argparse.ArgumentParser], argparse.ArgumentParser],
                run: Callable[[argparse.Namespace], Any], description: str, argv: Sequence[str] | None = None,
                default_source: str | None = None) -> int:
    """A standalone ``generate`` entry point (the scripts under ``baselines/``): parse, log at INFO, run; a
    `ValueError` (bad input) becomes a usage error that names the problem."""
    import logging

    parser = add_arguments(argparse.ArgumentParser(description=description))
    if default_source:
        parser.set_defaults(source=default_source)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    try:
        run(args)
    except ValueError as err:
        parser.error(str(err))
    return 0


def settings_from_args(args: argparse.Namespace) -> GenerationSettings:
    return GenerationSettings(temperature=args.temperature, max_tokens=args.max_tokens, seed=args.seed,
                              concurrency=args.concurrency, timeout=args.timeout, max_retries=args.max_retries)


def backend_from_args(args: argparse.Namespace) -> Backend | None:
    """The backend `--model` names (None for the extractive floor)."""
    if args.model == EXTRACTIVE:
        return None
    return make_backend(args.model, base_url=args.base_url,
                        **({"batch_size": args.batch_size} if args.model.startswith("hf:") else {}))


def file_label(text: str) -> str:
    """`text` made safe as part of a file name: 'openrouter:deepseek/deepseek-chat' -> 'openrouter-deepseek_deepseek-chat'."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text.replace(":", "-")).strip("_") or "model"


def execute(args: argparse.Namespace, records: Sequence[Mapping[str, Any]], method: Method, out_path: Path,
            meta: Mapping[str, Any]) -> RunReport | None:
    """Dry run (print prompts) or the run itself; prints a one-line report and returns it."""
    if args.dry_run:
        for paper_id, text in dry_run(records, method, args.limit or 1):
            print(f"=== paper {paper_id} · method {method.name} · exact prompt ===\n{text}\n")
        return None
    backend = backend_from_args(args)
    report = run_generation(records, method, backend, out_path, settings=settings_from_args(args), meta=meta,
                            limit=args.limit, retry_failed=args.retry_failed)
    print(f"{report.n_written} papers written to {out_path} ({report.n_already_done} already there, "
          f"{report.n_failed} failed in this run{'' if not report.n_failed else f' -> {report.failures_path}; rerun with --retry-failed'}); "
          f"{report.prompt_tokens} prompt + {report.completion_tokens} completion tokens in {report.wall_seconds:.1f} s")
    return report
