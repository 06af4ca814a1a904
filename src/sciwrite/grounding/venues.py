"""Venue names as references write them, reduced to one canonical name per venue, so that "NeurIPS", "NIPS",
"Advances in Neural Information Processing Systems" and "Proc. of NeurIPS 2021" compare equal, a preprint server is
told from a publication, and a venue that no known source names can be called out.

The alias table is ours: the acronyms and full names under which the main computer-science venues (machine
learning, language, vision, retrieval, data mining, AI, theory of learning) and their journals appear in DBLP,
Crossref, Semantic Scholar and OpenAlex records. A venue outside it is "unknown" here, not "nonexistent": the
checker calls a venue nonexistent only when neither this table nor the source it checks against names it
(`sciwrite.grounding.checker`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from sciwrite.sources.titles import normalize_title

#: Canonical name -> the names it goes by (besides itself), normalised by `venue_key` when looked up.
VENUE_ALIASES: dict[str, tuple[str, ...]] = {
    "NeurIPS": ("NIPS", "Advances in Neural Information Processing Systems", "Neural Information Processing Systems",
                "Conference on Neural Information Processing Systems", "NeurIPS Datasets and Benchmarks"),
    "ICML": ("International Conference on Machine Learning", "Proceedings of Machine Learning Research ICML"),
    "ICLR": ("International Conference on Learning Representations",),
    "AAAI": ("AAAI Conference on Artificial Intelligence", "Proceedings of the AAAI Conference on Artificial "
             "Intelligence", "National Conference on Artificial Intelligence"),
    "IJCAI": ("International Joint Conference on Artificial Intelligence",),
    "CVPR": ("IEEE/CVF Conference on Computer Vision and Pattern Recognition", "Conference on Computer Vision and "
             "Pattern Recognition", "IEEE Conference on Computer Vision and Pattern Recognition"),
    "ICCV": ("IEEE/CVF International Conference on Computer Vision", "International Conference on Computer Vision"),
    "ECCV": ("European Conference on Computer Vision",),
    "WACV": ("IEEE/CVF Winter Conference on Applications of Computer Vision",),
    "ACL": ("Annual Meeting of the Association for Computational Linguistics", "Association for Computational "
            "Linguistics"),
    "EMNLP": ("Conference on Empirical Methods in Natural Language Processing", "Empirical Methods in Natural "
              "Language Processing"),
    "NAACL": ("NAACL-HLT", "North American Chapter of the Association for Computational Linguistics",
              "Conference of the North American Chapter of the Association for Computational Linguistics"),
    "EACL": ("Conference of the European Chapter of the Association for Computational Linguistics",),
    "COLING": ("International Conference on Computational Linguistics",),
    "Findings of ACL": ("Findings", "Findings of the Association for Computational Linguistics", "ACL Findings",
                        "Findings of EMNLP", "EMNLP Findings", "Findings of NAACL"),
    "TACL": ("Transactions of the Association for Computational Linguistics", "Trans. Assoc. Comput. Linguistics"),
    "CoNLL": ("Conference on Computational Natural Language Learning",),
    "LREC": ("International Conference on Language Resources and Evaluation", "LREC-COLING"),
    "UAI": ("Conference on Uncertainty in Artificial Intelligence", "Uncertainty in Artificial Intelligence"),
    "AISTATS": ("International Conference on Artificial Intelligence and Statistics", "Artificial Intelligence and "
                "Statistics"),
    "COLT": ("Conference on Learning Theory", "Annual Conference on Learning Theory", "Annual Conference "
             "Computational Learning Theory"),
    "ALT": ("International Conference on Algorithmic Learning Theory", "Algorithmic Learning Theory"),
    "KDD": ("SIGKDD", "ACM SIGKDD International Conference on Knowledge Discovery and Data Mining", "Knowledge "
            "Discovery and Data Mining", "ACM SIGKDD Conference on Knowledge Discovery and Data Mining"),
    "WWW": ("The Web Conference", "TheWebConf", "International World Wide Web Conference", "Proceedings of the ACM "
            "Web Conference", "ACM Web Conference"),
    "SIGIR": ("International ACM SIGIR Conference on Research and Development in Information Retrieval",),
    "WSDM": ("ACM International Conference on Web Search and Data Mining",),
    "CIKM": ("ACM International Conference on Information and Knowledge Management",),
    "ICDM": ("IEEE International Conference on Data Mining",),
    "SDM": ("SIAM International Conference on Data Mining",),
    "ICRA": ("IEEE International Conference on Robotics and Automation",),
    "IROS": ("IEEE/RSJ International Conference on Intelligent Robots and Systems",),
    "CoRL": ("Conference on Robot Learning",),
    "MICCAI": ("Medical Image Computing and Computer Assisted Intervention",),
    "INTERSPEECH": ("Interspeech", "Annual Conference of the International Speech Communication Association"),
    "ICASSP": ("IEEE International Conference on Acoustics, Speech and Signal Processing",),
    "ECML PKDD": ("ECML/PKDD", "European Conference on Machine Learning and Principles and Practice of Knowledge "
                  "Discovery in Databases"),
    "JMLR": ("J. Mach. Learn. Res.", "Journal of Machine Learning Research"),
    "TMLR": ("Trans. Mach. Learn. Res.", "Transactions on Machine Learning Research"),
    "Machine Learning": ("Mach. Learn.",),
    "TPAMI": ("IEEE Trans. Pattern Anal. Mach. Intell.", "IEEE Transactions on Pattern Analysis and Machine "
              "Intelligence"),
    "IJCV": ("Int. J. Comput. Vis.", "International Journal of Computer Vision"),
    "Artificial Intelligence": ("Artif. Intell.",),
    "JAIR": ("J. Artif. Intell. Res.", "Journal of Artificial Intelligence Research"),
    "Computational Linguistics": ("Comput. Linguistics",),
    "Nature": (),
    "Science": (),
    "Nature Machine Intelligence": ("Nat. Mac. Intell.", "Nat. Mach. Intell."),
    "PNAS": ("Proceedings of the National Academy of Sciences", "Proc. Natl. Acad. Sci. USA"),
    "Neural Computation": ("Neural Comput.",),
    "IEEE TNNLS": ("IEEE Trans. Neural Networks Learn. Syst.", "IEEE Transactions on Neural Networks and Learning "
                   "Systems"),
    "TKDE": ("IEEE Trans. Knowl. Data Eng.", "IEEE Transactions on Knowledge and Data Engineering"),
    "TOIS": ("ACM Trans. Inf. Syst.", "ACM Transactions on Information Systems"),
    "Communications of the ACM": ("Commun. ACM",),
}
#: Servers that publish preprints: a record there is unpublished, so a reference naming a conference for it cites
#: the preprint as published.
PREPRINT_SERVERS: tuple[str, ...] = ("arXiv", "CoRR", "bioRxiv", "medRxiv", "SSRN", "ChemRxiv", "PsyArXiv",
                                     "OpenReview", "Research Square", "TechRxiv", "Preprints")

_PREPRINT = re.compile(r"\b(?:" + "|".join(re.escape(s.lower()) for s in PREPRINT_SERVERS)
                       + r"|preprint|e-?prints?|working paper|submitted)\b", re.IGNORECASE)
# "Proceedings of the 38th International Conference on ...", "Proc. ICML 2021", "In: NeurIPS (Workshop)": the
# wrapping words around a venue's name.
_WRAPPING = re.compile(
    r"\b(?:in|proceedings|proc|of|the|on|annual|\d+(?:st|nd|rd|th)|first|second|third|fourth|fifth|sixth|seventh|"
    r"eighth|ninth|tenth|volume|vol|part|(?:19|20)\d\d|\d+)\b")


def venue_key(name: str | None) -> str:
    """A venue name as a comparison key: lower case, letters and digits only, the wrapping words ("Proceedings of
    the 38th", a year) removed."""
    text = normalize_title(name or "")
    return " ".join(_WRAPPING.sub(" ", text).split())


def _alias_table() -> dict[str, str]:
    table: dict[str, str] = {}
    for canonical, aliases in VENUE_ALIASES.items():
        for name in (canonical, *aliases):
            table[venue_key(name)] = canonical
    return table


_ALIASES = _alias_table()
# Acronyms inside a longer name: "NeurIPS 2021 Workshop on ...", "ICML (Oral)".
_ACRONYMS = {venue_key(c): c for c in VENUE_ALIASES if " " not in c}


def is_preprint(venue: str | None) -> bool:
    """Whether `venue` names a preprint server or says the work is a preprint ("arXiv preprint arXiv:1606.06565",
    "CoRR")."""
    return bool(venue) and bool(_PREPRINT.search(venue or ""))


def canonical_venue(venue: str | None) -> str | None:
    """The canonical name of a known venue (`VENUE_ALIASES`), "preprint" for a preprint server, or None when the
    name is not in the table."""
    if not venue or not venue.strip():
        return None
    if is_preprint(venue):
        return "preprint"
    key = venue_key(venue)
    if key in _ALIASES:
        return _ALIASES[key]
    words = key.split()
    found = {_ACRONYMS[w] for w in words if w in _ACRONYMS}
    if len(found) == 1:
        return found.pop()
    for canonical_key, canonical in _ALIASES.items():  # a long name inside a longer one ("... Workshop Track")
        if len(canonical_key) > 12 and canonical_key in key:
            return canonical
    return None


def same_venue(cited: str | None, record: str | None) -> bool | None:
    """Whether two venue names name one venue: equal canonical names, else equal keys, else one key inside the
    other (a record's "ICML" in a reference's "ICML Workshop"). None when either is missing."""
    if not cited or not cited.strip() or not record or not record.strip():
        return None
    a, b = canonical_venue(cited), canonical_venue(record)
    if a and b:
        return a == b
    ka, kb = venue_key(cited), venue_key(record)
    return bool(ka and kb) and (ka == kb or ka in kb or kb in ka)


class VenueBook:
    """The venues a checker knows: the alias table plus every venue its records name, so that a venue that none of
    them names can be called out as not existing."""

    def __init__(self, record_venues: Iterable[str | None] = ()) -> None:
        self.keys = set(_ALIASES)
        self.keys.update(venue_key(v) for v in record_venues if v and v.strip())
        self.keys.discard("")

    def knows(self, venue: str | None) -> bool:
        """Whether `venue` is a known venue: in the alias table, a preprint server, or named by a record."""
        if not venue or not venue.strip():
            return True
        return is_preprint(venue) or canonical_venue(venue) is not None or venue_key(venue) in self.keys


__all__ = ["PREPRINT_SERVERS", "VENUE_ALIASES", "VenueBook", "canonical_venue", "is_preprint", "same_venue",
           "venue_key"]
