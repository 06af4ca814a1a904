"""The local transformers backend (``hf:<path>``) on a tiny random GPT-2 the test builds (tokenizer trained offline
with `tokenizers`): concurrent requests become one batched ``generate``, greedy batched output equals unbatched
output, token counts, and clear errors."""

from __future__ import annotations

import asyncio
import re

import pytest
import torch

from sciwrite.generation.runner import Generated, PaperLLM, prompt_text, run_generation
from sciwrite.llm.backends import make_backend
from sciwrite.llm.types import Completion, GenerationError, GenerationSettings
from sciwrite.models.registry import ModelUnavailableError

WORDS = [
    "the", "a", "we", "our", "model", "paper", "method", "data", "results", "related", "work", "prior", "approach",
    "uses", "improves", "on", "of", "in", "for", "and", "with", "to", "is", "are", "this", "that", "these", "citation",
    "section", "write", "summarise", "compare", "transformer", "retrieval", "language", "generation", "benchmark",
    "dataset", "evaluation",
]
GREEDY = GenerationSettings(temperature=0.0, max_tokens=6, seed=42)


@pytest.fixture(scope="module")
def tiny_lm(tmp_path_factory) -> str:
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

    specials = ["<pad>", "<unk>", "</s>"]
    vocab = {token: i for i, token in enumerate([*specials, *WORDS, ".", ","])}
    tok = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.Sequence([pre_tokenizers.Whitespace()])
    from tokenizers import decoders

    tok.decoder = decoders.WordPiece(prefix="##")  # joins tokens with spaces
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=tok, pad_token="<pad>", unk_token="<unk>", eos_token="</s>")
    config = GPT2Config(vocab_size=len(vocab), n_positions=128, n_embd=32, n_layer=2, n_head=2,
                        eos_token_id=vocab["</s>"], bos_token_id=vocab["</s>"], pad_token_id=vocab["<pad>"])
    torch.manual_seed(0)
    folder = tmp_path_factory.mktemp("tiny-gpt2-gen")
    GPT2LMHeadModel(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return str(folder)


PROMPTS = ["we compare our model with prior work .", "the paper uses retrieval .",
           "summarise the related work section of this paper on language generation and the benchmark .",
           "citation"]


def conversation(text: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": text}]


def counting(backend) -> list[int]:
    """Wrap the backend model's generate: the list gets each call's batch size."""
    calls: list[int] = []
    original = backend.lm.generate

    def generate(*args, **kwargs):
        calls.append(int(kwargs["input_ids"].shape[0]))
        return original(*args, **kwargs)

    backend.lm.generate = generate
    backend.original_generate = original
    return calls


def test_concurrent_requests_share_one_generate_and_match_unbatched(tiny_lm):
    backend = make_backend(f"hf:{tiny_lm}", batch_size=8, device="cpu")
    assert backend.model == f"hf:{tiny_lm}"
    calls = counting(backend)

    async def together() -> list[Completion]:
        return list(await asyncio.gather(*(backend.complete(conversation(p), GREEDY) for p in PROMPTS)))

    async def one_by_one() -> list[Completion]:
        return [await backend.complete(conversation(p), GREEDY) for p in PROMPTS]

    batched = asyncio.run(together())
    assert calls == [len(PROMPTS)]  # one generate for all four
    single = asyncio.run(one_by_one())  # a second event loop: the backend follows it
    assert calls == [len(PROMPTS), 1, 1, 1, 1]
    assert [c.text for c in batched] == [c.text for c in single]
    for prompt, result in zip(PROMPTS, batched):
        assert result.model == f"hf:{tiny_lm}" and result.text
        assert result.prompt_tokens == len(backend.tokenizer(prompt, add_special_tokens=False).input_ids)
        assert 1 <= result.completion_tokens <= GREEDY.max_tokens
        assert result.finish_reason in {"stop", "length"}
    # the same continuation, token for token, as a plain greedy generate on the prompt alone
    ids = backend.tokenizer(PROMPTS[0], return_tensors="pt", add_special_tokens=False).input_ids
    with torch.inference_mode():
        out = backend.original_generate(ids, max_new_tokens=6, do_sample=False, pad_token_id=backend.tokenizer.pad_token_id)
    direct = out[0, ids.shape[1]:].tolist()
    stop = next((i for i, t in enumerate(direct) if t in backend.stop_ids), len(direct))
    assert batched[0].text == backend.tokenizer.decode(direct[:stop], skip_special_tokens=True).strip()


def test_batch_size_and_runner_concurrency(tiny_lm, tmp_path):
    backend = make_backend(f"hf:{tiny_lm}", batch_size=2, device="cpu")
    calls = counting(backend)

    class OneShot:
        name = "one-shot"

        def prompt(self, record):
            return conversation(record["text"])

        async def run(self, record, llm):
            messages = self.prompt(record)
            return Generated(await llm(messages), prompt_text(messages))

    records = [{"paper_id": f"p{i}", "text": p} for i, p in enumerate(PROMPTS)]
    settings = GenerationSettings(temperature=0.0, max_tokens=5, concurrency=4)
    report = run_generation(records, OneShot(), backend, tmp_path / "out.jsonl", settings=settings,
                            show_progress=False)
    assert report.n_written == 4 and report.n_failed == 0
    assert calls == [2, 2]  # four requests in flight at once, in batches of two
    assert report.completion_tokens > 0 and report.prompt_tokens == sum(
        len(backend.tokenizer(p, add_special_tokens=False).input_ids) for p in PROMPTS)


def test_sampling_is_seeded(tiny_lm):
    backend = make_backend(f"hf:{tiny_lm}", device="cpu")
    sample = GenerationSettings(temperature=1.0, max_tokens=8, seed=7)

    async def one() -> str:
        return (await backend.complete(conversation(PROMPTS[1]), sample)).text

    assert asyncio.run(one()) == asyncio.run(one())


def test_empty_answer_is_an_error(tiny_lm):
    backend = make_backend(f"hf:{tiny_lm}", device="cpu")
    ids = backend.tokenizer(PROMPTS[0], return_tensors="pt", add_special_tokens=False).input_ids
    with torch.inference_mode():
        first_id = int(backend.lm.generate(ids, max_new_tokens=1, do_sample=False,
                                           pad_token_id=backend.tokenizer.pad_token_id)[0, -1])
    # make the model's first greedy token an end of sequence: it now answers with nothing
    backend.stop_ids = frozenset({first_id})
    with pytest.raises(GenerationError, match="answered with nothing"):
        asyncio.run(backend.complete(conversation(PROMPTS[0]), GREEDY))


def test_tools_are_refused_naming_the_model(tiny_lm):
    backend = make_backend(f"hf:{tiny_lm}", device="cpu")
    llm = PaperLLM(backend, GREEDY, asyncio.Semaphore(1))
    tools = [{"type": "function", "function": {"name": "search", "parameters": {"type": "object"}}}]
    with pytest.raises(GenerationError, match=re.escape(f"hf:{tiny_lm}: tool calling is not supported for local")):
        asyncio.run(llm.complete(conversation(PROMPTS[0]), tools=tools))
    assert llm.tools_refused is False and llm.requests == 0


def test_unloadable_model_names_the_path(tmp_path):
    missing = tmp_path / "no-such-model"
    with pytest.raises(ModelUnavailableError, match="no-such-model"):
        make_backend(f"hf:{missing}")
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "config.json").write_text("{not json")
    with pytest.raises(ModelUnavailableError, match="broken"):
        make_backend(f"hf:{broken}")
