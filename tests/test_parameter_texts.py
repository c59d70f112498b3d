"""A node's `parameters` render the same whichever way they are read.

An index's nodes are read fast (`spack_node.parameters_of`: the shapes Spack writes decoded in C, each distinct
parameter rendered once per reading); anything else in them is read the general way (`parameters_texts` over
Python's `json`). The two must agree on every text, or a spec's variants would depend on its neighbours.
"""

from __future__ import annotations

import json

import msgspec
from hypothesis import example, given
from hypothesis import strategies as st

from cachetui.core.load.sources.spack_node import ParameterTexts, parameters_of
from cachetui.core.spack.variants import COMPILER_FLAGS, parameters_texts

NAMES = st.sampled_from(["mpi", "cuda", "cuda_arch", "build_type", "patches", "a b", "x=y", "+z", "libs",
                         *sorted(COMPILER_FLAGS)]) | st.text(max_size=6)
WORDS = st.text(max_size=8) | st.sampled_from(["80", "90", "Release", "-O2 -g", 'say "hi"', ""])
SPACK_VALUES = st.booleans() | WORDS | st.lists(WORDS, max_size=4)
OTHER_VALUES = st.none() | st.integers() | st.floats(allow_nan=False) | st.lists(st.integers() | WORDS, max_size=3) \
    | st.dictionaries(st.text(max_size=3), st.integers(), max_size=2)
PARAMETERS = st.dictionaries(NAMES, SPACK_VALUES | OTHER_VALUES, max_size=8)


@given(st.lists(PARAMETERS, min_size=1, max_size=6))
@example([{"cuda_arch": ["90", "80"], "cflags": ["-O2", "-g"], "cxxflags": [], "mpi": True, "shared": False}])
@example([{"languages": ["c", "c++"], "ldlibs": "not a list", "cuda_arch": 80}])
def test_the_fast_reading_renders_what_the_general_one_does(nodes: list[dict[str, object]]) -> None:
    memory = ParameterTexts()  # one reading's: a parameter rendered for one node is reused for the next
    for parameters in nodes:
        text = msgspec.json.encode(parameters)
        assert parameters_of(msgspec.Raw(text), memory) == parameters_texts(json.loads(text))


def test_a_text_that_is_not_an_object_renders_nothing() -> None:
    for text in (b"[1, 2]", b'"mpi"', b"null", b""):
        assert parameters_of(msgspec.Raw(text), ParameterTexts()) == ((), ())
