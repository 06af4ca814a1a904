"""SciIG QA-based (Q²-style) faithfulness and consistency of introductions: question generation + extractive QA."""

import datasets
import evaluate

from sciwrite.models.qa import qa_models_for_profile
from sciwrite.sciig.metrics.bibtex import SCIIG_CITATION
from sciwrite.sciig.metrics.model_roles import QA_ROLES
from sciwrite.sciig.metrics.qa import score_qa

_DESCRIPTION = """
QA-based faithfulness and consistency as the SciIG paper defines them (Appendix A, Q²-style): questions
Q = QG(G) are generated from the generated introduction G (answer-aware, one per candidate span); each is answered
by an extractive SQuAD 2.0 model over the context C (title + abstract + cited works for `qa_faithfulness`, the
reference introduction for `qa_consistency`); sim_k = BERTScore F1(a_k, G) with the `bertscore` role's token encoder;
the score is the mean of sim_k over the K questions (`None` when there is none). `qa_faithfulness_f1` /
`qa_consistency_f1` are a separate variant (answer-vs-span SQuAD token F1), not the paper's score. The paper profile
uses `mrm8488/t5-base-finetuned-question-generation-ap`, `deepset/roberta-base-squad2` and
`roberta-large` (BERTScore); the offline `lite` profile has no QG/QA model, so the metric is reported as not
computed, naming the models it needs.
"""

_CITATION = SCIIG_CITATION + """
@inproceedings{honovich2021q2,
  title     = {$Q^2$: Evaluating Factual Consistency in Knowledge-Grounded Dialogues via Question Generation and
               Question Answering},
  author    = {Honovich, Or and Choshen, Leshem and Aharoni, Roee and Neeman, Ella and Szpektor, Idan and
               Abend, Omri},
  booktitle = {Proceedings of the 2021 Conference on Empirical Methods in Natural Language Processing},
  pages     = {7856--7870},
  year      = {2021}
}
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions (`list` of `str`): generated introductions.
    references (`list` of `str`): the reference introductions, one per prediction.
    abstracts (`list` of `str`, keyword): each paper's abstract (with its title, the faithfulness source).
    titles (`list` of `str`, keyword, optional): each paper's title.
    cited (`list` of `list` of `str`, keyword, optional): per paper, the cited works' texts (part of C for
        faithfulness).
    qg_model (`str`, keyword, optional): question generation model id or path; default: the profile's
        `question_generation` model.
    qa_model (`str`, keyword, optional): extractive QA model id or path; default: the profile's
        `question_answering` model.
    bertscore_model (`str`, keyword, optional): the BERTScore encoder of sim_k = BERTScore(a_k, G); default: the
        profile's `bertscore` model (roberta-large, layer 17, in `paper`; the packaged MiniLM in `lite`).
    profile (`str`, keyword, optional): `paper` or `lite`.
    validate_questions (`bool`, keyword, optional): Q²'s filter (keep a question only when the QA model finds its
        span in the generation); default False (Appendix A keeps all K questions).
    return_rows (`bool`, keyword, optional): also return `rows`, the per-paper scores with every question, span,
        answer and per-question score.
Returns:
    qa_faithfulness, qa_consistency (`float` or `None`): means over the papers that had a kept question, in
        [0, 1]; `None` when no model is available or no paper had a question.
    unscored (`int`): papers without a kept question (their reason is on their row).
    not_computed (`str`, only when no model is available): which models the metric needs.
    models (`dict` or `None`): role -> model used.
Examples:
    >>> import evaluate
    >>> metric = evaluate.load("metrics/sciig_qa")
    >>> results = metric.compute(predictions=["We study graphs."], references=["Graphs matter."],
    ...                          abstracts=["A graph paper."], profile="lite")
    >>> results["qa_faithfulness"] is None, "deepset/roberta-base-squad2" in results["not_computed"]
    (True, True)
"""

SCORES = ("qa_faithfulness", "qa_consistency", "qa_faithfulness_f1", "qa_consistency_f1")


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class SciigQa(evaluate.Metric):
    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features({"predictions": datasets.Value("string"), "references": datasets.Value("string")}),
            reference_urls=["https://arxiv.org/abs/2508.14273", "https://arxiv.org/abs/2104.08202"],
        )

    def _compute(self, predictions, references, abstracts=None, titles=None, cited=None, qg_model=None, qa_model=None,
                 profile=None, validate_questions=False, return_rows=False, bertscore_model=None):
        if abstracts is None:
            raise ValueError("`abstracts` is required: each paper's abstract, the faithfulness source")
        models, why = qa_models_for_profile(QA_ROLES, qg_model, qa_model, profile, bertscore_model)
        if models is None:
            return {**{name: None for name in SCORES}, "unscored": len(predictions), "not_computed": why,
                    "models": None}
        rows = score_qa(predictions, references, titles, abstracts, models, cited=cited,
                        validate_questions=validate_questions)
        result = {}
        for name in SCORES:
            values = [r[name] for r in rows if r[name] is not None]
            result[name] = sum(values) / len(values) if values else None
        result.update(unscored=sum(r["qa_faithfulness"] is None for r in rows), models=dict(models.model_ids))
        return {**result, "rows": rows} if return_rows else result
