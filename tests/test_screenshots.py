"""The docs' pictures helper (`tests/screenshots.py`): an identical or antialiasing-noisy picture leaves the committed
file untouched, a changed one (or a missing one) is written, and a read-only or missing docs folder writes nothing
and fails nothing."""

from __future__ import annotations

import io
import random

import pytest

from tests import screenshots
from tests.screenshots import SKIPPED, UNCHANGED, WRITTEN, pictures_differ, save_doc_png

Image = pytest.importorskip("PIL.Image")
ImageDraw = pytest.importorskip("PIL.ImageDraw")
SIZE = (320, 200)


def picture(noise: int = 0, words: str = "RWGBench 0.412 [0.380, 0.440]", size=SIZE) -> bytes:
    """A UI-like PNG: a header bar, a text line; `noise` pixels nudged by a few levels (as antialiasing does)."""
    image = Image.new("RGB", size, "white")
    draw = ImageDraw.Draw(image)
    draw.rectangle([0, 0, size[0], 30], fill=(30, 60, 120))
    draw.text((10, 60), words, fill="black")
    pixels, rng = image.load(), random.Random(noise)
    for _ in range(noise):
        x, y = rng.randrange(size[0]), rng.randrange(size[1])
        pixels[x, y] = tuple(max(0, min(255, c + rng.choice((-6, 6)))) for c in pixels[x, y])
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


@pytest.fixture
def images(tmp_path, monkeypatch):
    monkeypatch.delenv("SCIWRITE_DOC_PICTURES", raising=False)
    (tmp_path / "docs").mkdir()
    return tmp_path / "docs" / "images"


def test_identical_and_noisy_pictures_keep_the_file_a_changed_one_replaces_it(images):
    first = picture()
    assert save_doc_png(first, "board", images=images) == WRITTEN  # no picture yet: written (folder made)
    target = images / "board.png"
    assert target.read_bytes() == first
    stamp = target.stat().st_mtime_ns
    assert save_doc_png(first, "board", images=images) == UNCHANGED
    noisy = picture(noise=500)
    assert noisy != first and not pictures_differ(first, noisy)
    assert save_doc_png(noisy, "board", images=images) == UNCHANGED
    assert target.read_bytes() == first and target.stat().st_mtime_ns == stamp  # untouched, byte for byte
    changed = picture(words="RWGBench 0.512 [0.480, 0.540]")
    assert pictures_differ(first, changed)
    assert save_doc_png(changed, "board", images=images) == WRITTEN
    assert target.read_bytes() == changed
    assert save_doc_png(picture(size=(320, 201)), "board", images=images) == WRITTEN  # another size
    assert [p.name for p in images.iterdir()] == ["board.png"]  # no temporary file left


def test_a_damaged_file_is_replaced(images):
    images.mkdir()
    (images / "board.png").write_bytes(b"not a png")
    assert save_doc_png(picture(), "board", images=images) == WRITTEN


def test_a_read_only_folder_writes_nothing_and_does_not_fail(images, monkeypatch):
    images.mkdir()
    (images / "board.png").write_bytes(picture())

    def read_only(*args, **kwargs):
        raise PermissionError(13, "Read-only file system")

    monkeypatch.setattr(screenshots.tempfile, "mkstemp", read_only)  # as a read-only mount answers (root included)
    assert save_doc_png(picture(words="changed"), "board", images=images) == SKIPPED
    assert save_doc_png(picture(), "new", images=images) == SKIPPED
    assert (images / "board.png").read_bytes() == picture() and not (images / "new.png").exists()


def test_no_docs_folder_or_writing_turned_off_writes_nothing(tmp_path, monkeypatch):
    monkeypatch.delenv("SCIWRITE_DOC_PICTURES", raising=False)
    assert save_doc_png(picture(), "board", images=tmp_path / "installed" / "docs" / "images") == SKIPPED
    assert not (tmp_path / "installed").exists()
    (tmp_path / "docs").mkdir()
    monkeypatch.setenv("SCIWRITE_DOC_PICTURES", "0")
    assert save_doc_png(picture(), "board", images=tmp_path / "docs" / "images") == SKIPPED
    assert not (tmp_path / "docs" / "images").exists()


def test_the_pictures_go_to_this_checkouts_docs_images():
    assert screenshots.IMAGES.name == "images" and screenshots.IMAGES.parent.name == "docs"
