"""The documentation's pictures, taken by the browser tests: `save_doc_picture(page, name)` screenshots a Playwright
page (or takes PNG bytes, `save_doc_png`) and keeps it as ``docs/images/<name>.png`` in this checkout, so the pictures
in the docs show the UI as the last test run saw it and are never stale.

The rule, so that a test run leaves git clean unless the UI changed:

* the picture is compared with the file already there, pixel by pixel (decoded with Pillow, which matplotlib, a
  dependency of sciwrite, requires); a pixel counts as changed when one of its channels (R, G, B, A) differs by more than
  `CHANNEL_TOLERANCE` (antialiasing and font-hinting noise stay under it), and the picture counts as changed when its
  size differs or more than `CHANGED_FRACTION` of its pixels changed (0.01 %: about 100 pixels at 1280x800, less than
  one changed word);
* only a changed (or missing) picture is written, atomically (a temporary file, then a rename), as the browser's own
  PNG bytes; an unchanged one leaves the committed file untouched, byte for byte;
* where docs/ is missing (the tests run from an sdist or an installed package) or docs/images cannot be written (a
  read-only checkout, a shared CI cache), nothing is written and nothing fails: the picture is a by-product of the
  test, never its verdict. ``SCIWRITE_DOC_PICTURES=0`` turns writing off too (e.g. on a machine whose fonts differ
  from the one the committed pictures come from: every picture would differ there).

Pictures depend on the machine's fonts: take
them with the Chromium of ``scripts/install_chromium.sh`` and a fixed viewport, from seeded content.
"""

from __future__ import annotations

import io
import os
import tempfile
from pathlib import Path
from typing import Any

from PIL import Image, ImageChops

#: docs/images of this checkout (tests/ sits at the repository root).
IMAGES = Path(__file__).resolve().parents[1] / "docs" / "images"
#: A channel difference (0-255) up to which a pixel is the same pixel.
CHANNEL_TOLERANCE = 16
#: The fraction of pixels that may change (beyond CHANNEL_TOLERANCE) before a picture counts as changed.
CHANGED_FRACTION = 1e-4

WRITTEN, UNCHANGED, SKIPPED = "written", "unchanged", "skipped"


def save_doc_picture(page: Any, name: str, *, images: Path | None = None, **screenshot_kwargs: Any) -> str:
    """Screenshot `page` (a Playwright page or locator; `screenshot_kwargs` go to its ``screenshot``) and keep it as
    ``<images>/<name>.png`` when it changed (the module docstring has the rule). Animations are stopped and the
    text caret hidden unless `screenshot_kwargs` say otherwise, so that reruns give the same pixels. Returns
    `WRITTEN`, `UNCHANGED` or `SKIPPED` (writing off, or no writable docs/images)."""
    screenshot_kwargs.setdefault("animations", "disabled")
    screenshot_kwargs.setdefault("caret", "hide")
    return save_doc_png(page.screenshot(**screenshot_kwargs), name, images=images)


def save_doc_png(png: bytes, name: str, *, images: Path | None = None) -> str:
    """Keep the PNG bytes `png` as ``<images>/<name>.png`` (default: this checkout's docs/images) when they show a
    different picture from the file there; see `save_doc_picture`."""
    if os.environ.get("SCIWRITE_DOC_PICTURES", "1").strip().lower() in {"0", "false", "no", "off"}:
        return SKIPPED
    folder = IMAGES if images is None else Path(images)
    target = folder / f"{name}.png"
    try:
        old = target.read_bytes()
    except OSError:
        old = None
    if old is not None and not pictures_differ(old, png):
        return UNCHANGED
    if not folder.parent.is_dir():  # no docs/ here (an installed package, an sdist)
        return SKIPPED
    try:
        folder.mkdir(exist_ok=True)
        handle, temporary = tempfile.mkstemp(prefix=f".{name}.", suffix=".png", dir=folder)
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(png)
            os.chmod(temporary, 0o644)
            os.replace(temporary, target)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
    except OSError:  # read-only checkout or folder: the test's verdict does not depend on its picture
        return SKIPPED
    return WRITTEN


def pictures_differ(old: bytes, new: bytes, *, channel_tolerance: int = CHANNEL_TOLERANCE,
                    changed_fraction: float = CHANGED_FRACTION) -> bool:
    """Whether two PNGs show different pictures: a different size, or more than `changed_fraction` of the pixels
    with a channel differing by more than `channel_tolerance`. An unreadable old file differs."""
    if old == new:
        return False
    try:
        with Image.open(io.BytesIO(old)) as a, Image.open(io.BytesIO(new)) as b:
            if a.size != b.size:
                return True
            a, b = a.convert("RGBA"), b.convert("RGBA")
    except Exception:  # noqa: BLE001 - a damaged or non-PNG file there: replace it
        return True
    # per pixel, the largest channel difference; then the pixels above the tolerance
    bands = ImageChops.difference(a, b).split()
    largest = bands[0]
    for band in bands[1:]:
        largest = ImageChops.lighter(largest, band)
    histogram = largest.histogram()
    changed = sum(histogram[channel_tolerance + 1:])
    return changed > changed_fraction * a.size[0] * a.size[1]


__all__ = ["CHANGED_FRACTION", "CHANNEL_TOLERANCE", "IMAGES", "SKIPPED", "UNCHANGED", "WRITTEN", "pictures_differ",
           "save_doc_picture", "save_doc_png"]
