"""What the user typed, recognised as sources: the rules the CLI checks before anything opens, and the load applies.

Apart from the pipeline (which imports the readers, the model and numpy): the browser's command line checks its
sources before the window opens, and its first frame waits for that check, not for the loader.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING

from cachetui.core.load.sources import distinct_tags, identity, ignored_name, recognise
from cachetui.core.model.problems import PathNotFound, Problem, Severity, UnusableInput

if TYPE_CHECKING:
    from cachetui.core.load.sources import Source


def require_inputs(inputs: Sequence[str | os.PathLike[str]]) -> tuple[list[Source], list[Problem]]:
    """Recognise every input: a missing or unusable one is a problem and the others still load.

    Raises PathNotFound (or UnusableInput) for the first input only when none can be used: there
    is then nothing to show, and saying so is a usage error. The same source named twice is one;
    two mirrors whose locations end alike get distinct tags.
    """
    sources: list[Source] = []
    problems: list[Problem] = []
    first: Exception | None = None
    seen: set[str] = set()
    for text in map(str, inputs):
        try:
            source = recognise(text)
        except PathNotFound as exc:
            problems.append(Problem.missing(str(exc)))
            first = first or exc
        except UnusableInput as exc:
            problems.append(Problem(text, str(exc)))
            first = first or exc
        else:
            if identity(source) in seen:
                problems.append(Problem(text, "named twice: loaded once, under its first name", Severity.WARNING))
            else:
                seen.add(identity(source))
                sources.append(source)
                problems.extend(filter(None, [ignored_name(text, source)]))
    if not sources and first is not None:
        raise first
    sources, retagged = distinct_tags(sources)
    return sources, problems + retagged


def recognisable(typed: str) -> bool:
    """Whether `typed` names a source (an existing path, a URL, NAME=SOURCE) rather than, say, a tag."""
    try:
        recognise(typed)
    except (PathNotFound, UnusableInput):
        return False
    return True
