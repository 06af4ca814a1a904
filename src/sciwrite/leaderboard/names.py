"""When two names on the board are the same name: `name_key`, the form a system name is compared in.

A system name belongs to its first submitter (`sciwrite.leaderboard.store.ResultsStore.add_submission`). A copy that
differs only in what a reader cannot see must count as the same name, or the board lists two "alice-rag" rows:
so names are compared after NFKC normalisation (full-width letters, ligatures and compatibility forms become the
plain ones), case folding, the removal of invisible characters (format characters such as zero-width spaces and
joiners, direction controls and the byte order mark, Unicode category ``Cf``; the other default-ignorable code
points, such as variation selectors and the Hangul fillers; control characters) and with every run of white space
made one space. Look-alikes from other scripts (a Cyrillic "а" for a Latin "a") are different letters and stay
different names.
"""

from __future__ import annotations

import unicodedata

#: Default-ignorable code points (Unicode's DerivedCoreProperties) outside category Cf, which the check covers.
_IGNORABLE = ((0x034F, 0x034F), (0x115F, 0x1160), (0x17B4, 0x17B5), (0x180B, 0x180F), (0x2065, 0x2065),
              (0x3164, 0x3164), (0xFE00, 0xFE0F), (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3),
              (0x1D173, 0x1D17A), (0xE0000, 0xE0FFF))


def invisible(char: str) -> bool:
    """Whether `char` shows nothing: a format character (``Cf``), another default-ignorable code point, or a
    control character that is not white space."""
    category = unicodedata.category(char)
    if category == "Cf" or (category == "Cc" and not char.isspace()):
        return True
    return any(low <= ord(char) <= high for low, high in _IGNORABLE)


def _visible(text: str) -> str:
    return "".join(char for char in text if not invisible(char))


def name_key(name: str) -> str:
    """`name` as names are compared: NFKC, case-folded, without invisible characters, white space collapsed to
    single spaces and stripped; ``""`` for a name with nothing visible in it."""
    folded = unicodedata.normalize("NFKC", _visible(unicodedata.normalize("NFKC", name)).casefold())
    return " ".join(_visible(folded).split())


__all__ = ["invisible", "name_key"]
