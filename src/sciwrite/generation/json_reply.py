"""Reading a JSON answer out of a model's reply, which may wrap it in a code fence or in prose."""

from __future__ import annotations

import json
import re
from typing import Any


def parse_json_reply(text: str) -> Any:
    """The JSON object (or list) in a model reply, fenced or not; None when there is none."""
    text = (text or "").strip()
    fenced = re.search(r"```(?:json)?\s*(.*?)```", text, re.DOTALL)
    if fenced:
        text = fenced.group(1).strip()
    for opener, closer in (("{", "}"), ("[", "]")):
        start, end = text.find(opener), text.rfind(closer)
        if start != -1 and end > start:
            try:
                return json.loads(text[start:end + 1])
            except json.JSONDecodeError:
                continue
    return None


__all__ = ["parse_json_reply"]
