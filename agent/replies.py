"""Read what a model replied: fenced code blocks and JSON objects. A reply we cannot use raises
`FormatError` with a problem statement written for the model (it is shown to it on the retry)."""
from __future__ import annotations

import json
import re

from pydantic import BaseModel, ValidationError

_FENCE = re.compile(r"^```[ \t]*([\w+.-]*)[ \t]*\n(.*?)^```[ \t]*$", re.S | re.M)


class FormatError(ValueError):
    """The reply has not the shape the node asked for."""


def code_blocks(text: str) -> list[tuple[str, str]]:
    """(language, body) of every fenced block."""
    return [(m.group(1).lower(), m.group(2)) for m in _FENCE.finditer(text)]


def one_code_block(text: str, languages: tuple[str, ...], what: str) -> str:
    """The single fenced block of one of `languages` (an untagged block counts). Several blocks: the
    last one (models tend to correct themselves as they go)."""
    blocks = [body for lang, body in code_blocks(text) if lang in languages or lang == ""]
    if not blocks:
        others = sorted({lang or "untagged" for lang, _ in code_blocks(text)})
        found = f"found only {', '.join(others)} blocks" if others else "found no fenced code block"
        raise FormatError(f"expected {what} in one ```{languages[0]} fenced block; {found}")
    body = blocks[-1].strip("\n")
    if not body.strip():
        raise FormatError(f"the ```{languages[0]} block is empty; expected {what}")
    return body + "\n"


def _json_candidates(text: str) -> list[object | json.JSONDecodeError]:
    """Parsed JSON values: the whole reply, ```json blocks, and the first value starting at each `{`
    (a decision followed by a code block parses: raw_decode stops where the object ends)."""
    out: list[object | json.JSONDecodeError] = []
    for c in [text.strip()] + [body for lang, body in code_blocks(text) if lang in ("json", "")]:
        try:
            out.append(json.loads(c))
        except json.JSONDecodeError as e:
            out.append(e)
    decoder = json.JSONDecoder()
    for m in list(re.finditer(r"\{", text))[:20]:
        try:
            out.append(decoder.raw_decode(text, m.start())[0])
        except json.JSONDecodeError as e:
            out.append(e)
    return out


def json_object(text: str, schema: type[BaseModel]) -> BaseModel:
    """A JSON object of `schema`: the reply itself, a ```json block, or the first object in the text."""
    problem = "found no JSON object"
    for data in _json_candidates(text):
        if isinstance(data, json.JSONDecodeError):
            if problem == "found no JSON object" and "{" in text:
                problem = f"the JSON does not parse ({data.msg} at line {data.lineno} column {data.colno})"
            continue
        if not isinstance(data, dict):
            problem = f"the JSON is a {type(data).__name__}, not an object"
            continue
        try:
            return schema.model_validate(data)
        except ValidationError as e:
            fields = "; ".join(f"{'.'.join(str(x) for x in err['loc']) or '(object)'}: {err['msg']}" for err in e.errors()[:6])
            problem = f"the JSON object does not fit the schema ({fields})"
    raise FormatError(f"expected one JSON object with the fields {', '.join(schema.model_fields)}; {problem}")
