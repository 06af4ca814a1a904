"""Citation frame alignment (RWGBench CFA): do the generated citations play the roles the published ones play?"""

import datasets
import evaluate

from sciwrite.metrics.summary import summarize
from sciwrite.models.citation_frames import FRAMES, citation_frame_classifier_for_profile
from sciwrite.rwgbench.metrics.formulas import RWGBENCH_CITATION
from sciwrite.rwgbench.metrics.frames import score_citation_frame_alignment
from sciwrite.rwgbench.metrics.model_roles import CITATION_FRAME

_DESCRIPTION = """
Citation frame alignment (CFA) compares how a generated related-work section uses its citations with how the
published section does. Every citation-bearing sentence (markers removed) is labelled with the MultiCite
frames it carries (motivation, background, uses, extends, similarities, differences, future_work; several
may apply) by a multi-label classifier; each side's frames are counted, and for every frame present on
either side F_k = 2 min(g_k, r_k) / (g_k + r_k); CFA is the mean of F_k over those frames, then over papers.
An output with a candidate list whose markers resolve to no candidate scores 0. Without a candidate list (the
paper's Direct setting: an empty candidate list) every sentence with a well-formed marker is a citation
context, as for the published section (the paper reports CFA for its Direct rows). The paper names only "a
MultiCite-trained citation-function classifier"; the paper profile uses
`BFTree/rwgbench-citation-frame-classifier` (DeBERTa-v3-large); the offline `lite` profile uses the packaged
`packaged:rwgbench-citation-frame-minilm` (all-MiniLM-L6-v2 + a logistic head trained on MultiCite,
CC BY-NC 2.0), and a score says which model produced it.
"""

_CITATION = RWGBENCH_CITATION

_KWARGS_DESCRIPTION = """
Args:
    predictions (`list` of `str`): generated related-work sections with numeric markers `[i]`.
    references (`list` of `str`): the published related-work section of each paper, with its markers.
    candidates (`list` of `list` of `str`, keyword): for each prediction, the ordered doc_ids its markers
        index into (1-based); only sentences with a marker that resolves are citation contexts.
    reference_citations (`list` of `list` of `str`, keyword, optional): the same for the references; when
        omitted, every well-formed marker of a reference counts.
    model (`str`, keyword, optional): classifier id or path (a transformers multi-label checkpoint or a
        frame-head folder); default: the profile's `citation_frame` model.
    profile (`str`, keyword, optional): `paper` or `lite`; default `$SCIWRITE_PROFILE` or `paper`.
Returns:
    citation_frame_alignment (`float` or `None`): mean over papers; `None` when the profile has no model.
    not_computed (`str`, only then): which model the metric needs.
    empty_citation_rate (`float`), unresolved_markers (`int`): as the other citation metrics report them.
    generated_frames, reference_frames (`dict` frame -> `int`): contexts per frame, summed over papers.
    model (`str` or `None`): the classifier used.
Examples:
    >>> import evaluate
    >>> metric = evaluate.load("metrics/citation_frame_alignment")
    >>> published = "We use the parser of [1] to tag the corpus. Unlike [2], our model needs no labels."
    >>> results = metric.compute(predictions=[published, "Nothing is cited here."], references=[published] * 2,
    ...                          candidates=[["p1", "p2"]] * 2, profile="lite")
    >>> results["citation_frame_alignment"]  # paper 1 is the published section itself: 1; paper 2 cites nothing: 0
    0.5
    >>> results["empty_citation_rate"], results["model"]
    (0.5, 'packaged:rwgbench-citation-frame-minilm')
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class CitationFrameAlignment(evaluate.Metric):
    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features({"predictions": datasets.Value("string"),
                                        "references": datasets.Value("string")}),
            reference_urls=["https://arxiv.org/abs/2606.24894", "https://github.com/allenai/multicite"],
        )

    def _compute(self, predictions, references, candidates=None, reference_citations=None, model=None, profile=None):
        classifier, why = citation_frame_classifier_for_profile(CITATION_FRAME, model, profile)
        if classifier is None:
            return {"citation_frame_alignment": None, "not_computed": why, "model": None}
        rows = score_citation_frame_alignment(predictions, references, candidates, classifier, reference_citations)
        totals = {side: {f: sum(r[side][f] for r in rows) for f in FRAMES}
                  for side in ("generated_frames", "reference_frames")}
        return {**summarize(rows, "citation_frame_alignment"), **totals, "model": classifier.model_id}
