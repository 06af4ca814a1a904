"""WordNet for METEOR's synonym matching, found or prepared offline, never silently absent.

nltk downloads WordNet from the internet. Offline, Debian's ``wordnet-base`` package installs WordNet 3.0
(the version nltk ships) under /usr/share/wordnet; nltk's reader needs those files copied into an
``nltk_data/corpora/wordnet`` folder plus a ``lexnames`` file, which Debian ships only as the lexnames(5WN)
manual page. `load_wordnet` uses nltk's own data when present, else prepares that copy once under
``$SCIWRITE_CACHE_DIR/nltk_data`` (default ``~/.cache/sciwrite/nltk_data``); with neither it raises
`WordNetUnavailableError`, and METEOR is reported as not computed.
"""

from __future__ import annotations

import shutil
import warnings
from functools import lru_cache
from pathlib import Path
from typing import Any

from sciwrite.core.paths import cache_root

#: Where Debian's wordnet-base puts the WordNet 3.0 database.
SYSTEM_WORDNET = Path("/usr/share/wordnet")
#: The database files nltk's WordNetCorpusReader opens.
DATABASE_FILES = tuple(f"{kind}.{pos}" for kind in ("index", "data") for pos in ("noun", "verb", "adj", "adv")) + \
    tuple(f"{pos}.exc" for pos in ("noun", "verb", "adj", "adv"))
#: The lexicographer files of WordNet 3.0 in file-number order, with their syntactic category
#: (1 noun, 2 verb, 3 adjective, 4 adverb), as the lexnames(5WN) manual page lists them.
LEXNAMES = (
    ("adj.all", 3), ("adj.pert", 3), ("adv.all", 4), ("noun.Tops", 1), ("noun.act", 1), ("noun.animal", 1),
    ("noun.artifact", 1), ("noun.attribute", 1), ("noun.body", 1), ("noun.cognition", 1),
    ("noun.communication", 1), ("noun.event", 1), ("noun.feeling", 1), ("noun.food", 1), ("noun.group", 1),
    ("noun.location", 1), ("noun.motive", 1), ("noun.object", 1), ("noun.person", 1), ("noun.phenomenon", 1),
    ("noun.plant", 1), ("noun.possession", 1), ("noun.process", 1), ("noun.quantity", 1), ("noun.relation", 1),
    ("noun.shape", 1), ("noun.state", 1), ("noun.substance", 1), ("noun.time", 1), ("verb.body", 2),
    ("verb.change", 2), ("verb.cognition", 2), ("verb.communication", 2), ("verb.competition", 2),
    ("verb.consumption", 2), ("verb.contact", 2), ("verb.creation", 2), ("verb.emotion", 2), ("verb.motion", 2),
    ("verb.perception", 2), ("verb.possession", 2), ("verb.social", 2), ("verb.stative", 2), ("verb.weather", 2),
    ("adj.ppl", 3),
)
INSTALL_HINT = ("install WordNet: `apt-get install wordnet-base` (Debian/Ubuntu, offline-friendly) or "
                "`python -m nltk.downloader wordnet`")


class WordNetUnavailableError(RuntimeError):
    """No WordNet database could be found or prepared; the message says what to install."""


def lexnames_text() -> str:
    """The ``lexnames`` file: number, name and category, tab-separated, one lexicographer file a line."""
    return "".join(f"{number:02d}\t{name}\t{category}\n" for number, (name, category) in enumerate(LEXNAMES))


def prepare_wordnet(source: Path = SYSTEM_WORDNET, target: Path | None = None) -> Path:
    """Copy the system WordNet into ``<target>/corpora/wordnet`` with a ``lexnames`` file (once); returns that folder.

    Files are copied, not linked: nltk's reader needs them side by side in one real folder.
    """
    missing = [name for name in DATABASE_FILES if not (source / name).is_file()]
    if missing:
        raise WordNetUnavailableError(f"no WordNet database at {source} (missing {missing[:3]}); {INSTALL_HINT}")
    folder = (target or cache_root() / "nltk_data") / "corpora" / "wordnet"
    if not (folder / "lexnames").is_file():
        partial = folder.with_name("wordnet.partial")
        shutil.rmtree(partial, ignore_errors=True)
        partial.mkdir(parents=True)
        for name in DATABASE_FILES:
            shutil.copyfile(source / name, partial / name)
        (partial / "lexnames").write_text(lexnames_text())
        shutil.rmtree(folder, ignore_errors=True)
        partial.rename(folder)  # complete or absent, never half-copied
    return folder


def nltk_wordnet_present() -> bool:
    """Whether nltk's own data path holds WordNet (downloaded with nltk.downloader)."""
    import nltk

    for resource in ("corpora/wordnet", "corpora/wordnet.zip"):
        try:
            nltk.data.find(resource)
            return True
        except LookupError:
            continue
    return False


@lru_cache(maxsize=1)
def load_wordnet() -> Any:
    """A loaded nltk WordNet reader: nltk's own data if present, else the prepared Debian copy."""
    if nltk_wordnet_present():
        from nltk.corpus import wordnet

        wordnet.ensure_loaded()
        return wordnet
    import nltk

    folder = prepare_wordnet()
    data_root = str(folder.parent.parent)
    if data_root not in nltk.data.path:  # nltk (>= 3.9.3) reads corpora only under its data path
        nltk.data.path.append(data_root)
    with warnings.catch_warnings():  # "multilingual functions are not available": METEOR uses none
        warnings.simplefilter("ignore", UserWarning)
        reader = _wordnet30_reader_class()(str(folder), None)
    if reader.get_version() != "3.0":
        raise WordNetUnavailableError(f"{folder} holds WordNet {reader.get_version()}, not 3.0; {INSTALL_HINT}")
    return reader


def _wordnet30_reader_class() -> type:
    """nltk's reader, minus its mapping of other WordNet versions onto 3.0 (it needs ``index.sense``, which
    Debian does not ship, and only the multilingual OMW functions use it): this database is 3.0 itself."""
    from nltk.corpus.reader.wordnet import WordNetCorpusReader

    class WordNet30Reader(WordNetCorpusReader):
        def map_wn(self, version: str = "wordnet") -> None:
            return None

    return WordNet30Reader


def wordnet_or_reason() -> tuple[Any | None, str | None]:
    """(reader, None), or (None, why and what to install) when no WordNet is available."""
    try:
        return load_wordnet(), None
    except WordNetUnavailableError as err:
        return None, f"METEOR needs WordNet synonyms: {err}"
