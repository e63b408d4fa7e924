"""Typed records of the knowledge base: chunks (what is indexed), passages (what a search
returns) and API cards (what the catalog and the linter are built from)."""
from __future__ import annotations

import hashlib
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

Kind = Literal["api", "concept", "example", "fix", "hardware", "user"]
KINDS: tuple[str, ...] = ("api", "concept", "example", "fix", "hardware", "user")
Match = Literal["exact", "nearest", "search"]  # search = fused embedding + BM25 ranking


class Located(BaseModel):
    """A piece of text and where it came from (file or data source, heading, line range)."""

    doc_id: str
    kind: Kind
    title: str
    heading: str = ""
    text: str
    source: str
    line_start: int = 0
    line_end: int = 0


class Chunk(Located):
    """One indexed piece of a document."""

    socs: list[str] | None = None  # SoC names this applies to; None = every SoC

    @property
    def id(self) -> str:
        """Stable while the content stays the same (a chunk that only moved keeps its embedding)."""
        digest = hashlib.sha1(f"{self.kind}\n{self.heading}\n{self.text}\n{self.socs}".encode()).hexdigest()[:16]
        return f"{self.doc_id}#{digest}"


class Passage(Located):
    """A search result: a chunk (or a whole API card) with its score and how it was found."""

    score: float
    match: Match

    @classmethod
    def of_chunk(cls, chunk: Chunk, score: float, match: Match) -> Passage:
        return cls(**chunk.model_dump(exclude={"socs"}), score=round(score, 4), match=match)

    def cite(self) -> str:
        lines = f":{self.line_start}-{self.line_end}" if self.line_end else ""
        heading = f" ({self.heading})" if self.heading else ""
        return f"{self.source}{lines}{heading}"


CannVersion = Literal["8.x", "9.x"]
CANN_VERSIONS: tuple[str, ...] = ("8.x", "9.x")
# Cards in these namespaces document host code (op_host tiling, registration): the oracle compiles
# them against the host headers, not the kernel ones.
HOST_NAMESPACES = frozenset({"gert", "ge", "optiling", "platform_ascendc", "ops", "matmul_tiling"})


def bare_name(name: str) -> str:
    """`ge::GRAPH_SUCCESS` -> `GRAPH_SUCCESS`: aliases and covers may be spelt qualified when they live
    outside the card's namespace (the oracle probes that spelling; lookup and lint use the bare one)."""
    return name.rsplit("::", 1)[-1]


class Availability(BaseModel):
    """Whether an API exists in one CANN version, as checked against that version's headers."""

    model_config = ConfigDict(extra="forbid")

    status: Literal["current", "deprecated", "absent"] = "current"
    use_instead: list[str] = Field(default_factory=list)
    note: str = ""
    arity: list[int] | None = None  # this version's argument counts, when they differ from the card's `arity`
    methods: dict[str, list[int]] = Field(default_factory=dict)  # members whose counts differ in this version


class ApiCard(BaseModel):
    """An API card: its front matter (the catalog's facts) plus its Markdown body."""

    model_config = ConfigDict(extra="forbid")

    name: str
    namespace: str = "AscendC"
    kind: Literal["api", "invented"]
    category: str
    summary: str
    # Per CANN version: current, deprecated (still compiles; the headers name a replacement) or absent.
    # A version left out is `current` for a real API and `absent` for an invented one.
    cann: dict[CannVersion, Availability] = Field(default_factory=dict)
    side: Literal["kernel", "host"] = "kernel"  # host: op_host code (tiling, registration)
    in_headers: bool = True  # False: the build generates it (GET_TILING_DATA), no header to check it against
    arity: list[int] = Field(default_factory=list)  # accepted argument counts; empty = not a call
    template_params: list[str] = Field(default_factory=list)
    explicit_template: bool = False  # a call must spell its template argument: PipeBarrier<PIPE_V>()
    template_arg_pattern: str = ""  # regex the first template argument must match
    dtypes: dict[str, list[str]] = Field(default_factory=dict)  # npu_arch -> element types
    archs: list[str] = Field(default_factory=list)  # npu_archs it exists on; empty = all
    aliases: list[str] = Field(default_factory=list)  # other names of the same API (`::pipe_barrier`)
    covers: list[str] = Field(default_factory=list)  # related real names described on this card
    methods: dict[str, list[int]] = Field(default_factory=dict)  # member name -> accepted arg counts
    method_templates: list[str] = Field(default_factory=list)  # members that need an explicit <T>
    use_instead: list[str] = Field(default_factory=list)
    see_also: list[str] = Field(default_factory=list)
    probe_as: list[str] = Field(default_factory=list)  # concrete class types the oracle probes (a template's)
    # Filled by the loader, not written in the front matter.
    id: str = ""
    path: str = ""
    body: str = ""
    body_line: int = 1  # line of the body's first line in the file

    @field_validator("cann", mode="before")
    @classmethod
    def _status_shorthand(cls, value: object) -> object:
        """`9.x: deprecated` is short for `9.x: {status: deprecated}`."""
        if isinstance(value, dict):
            return {k: {"status": v} if isinstance(v, str) else v for k, v in value.items()}
        return value

    @model_validator(mode="after")
    def _defaults(self) -> ApiCard:
        default = "absent" if self.kind == "invented" else "current"
        for version in CANN_VERSIONS:
            self.cann.setdefault(version, Availability(status=default))
        if self.namespace in HOST_NAMESPACES:
            self.side = "host"
        return self

    def status(self, version: str) -> str:
        return self.cann[version].status

    def holds_for(self, version: str) -> bool:
        return self.status(version) != "absent"

    def arity_for(self, version: str) -> list[int]:
        override = self.cann[version].arity
        return self.arity if override is None else override

    def methods_for(self, version: str) -> dict[str, list[int]]:
        return {**self.methods, **self.cann[version].methods}

    @property
    def names(self) -> list[str]:
        """The card's name and aliases as code spells them unqualified (`ge::X` is listed as `X`)."""
        return [self.name, *map(bare_name, self.aliases)]

    @property
    def covered_names(self) -> list[str]:
        return list(map(bare_name, self.covers))
