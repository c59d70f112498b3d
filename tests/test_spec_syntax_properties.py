"""Properties of the spec-query parser: it never crashes, and what it prints reads back the same."""

from __future__ import annotations

from hypothesis import example, given
from hypothesis import strategies as st

from cachetui.core.spack.specquery import (
    ArchTerm,
    CompilerTerm,
    DependencyQuery,
    NodeQuery,
    SpecQuery,
    SpecSyntaxError,
    VariantTerm,
    parse_spec_query,
)
from cachetui.core.spack.versions import parse_version_constraint

SPEC_CHARACTERS = "abcxyz019_-.@%+~=:,/^[] \t'\"*!$"


@given(st.text(alphabet=SPEC_CHARACTERS, max_size=40) | st.text(max_size=40))
@example("hdf5@1.14: +mpi ~cuda %c,cxx=gcc@13 target=x86_64_v3: ^[deptypes=link] zlib@1.3 /abc")
@example("^" * 500)
@example("0.")
@example("0===")
@example("@" + "1." * 2000)
def test_the_parser_never_crashes(text: str) -> None:
    try:
        query = parse_spec_query(text)
    except SpecSyntaxError as exc:
        assert 0 <= exc.position <= len(text)
    else:
        assert parse_spec_query(str(query)) == query


names = st.from_regex(r"[a-z][a-z0-9_]{0,6}(-[a-z0-9]{1,4})?", fullmatch=True)
versions = st.from_regex(r"[0-9]{1,3}(\.[0-9]{1,3}){0,2}", fullmatch=True)
constraints = st.one_of(
    versions,
    versions.map(lambda v: "=" + v),
    st.tuples(versions, versions).map(lambda pair: ":".join(sorted(pair, key=lambda v: [int(p) for p in v.split(".")]))),
    versions.map(lambda v: v + ":"),
    versions.map(lambda v: ":" + v),
    st.lists(versions, min_size=2, max_size=3).map(",".join),
).map(parse_version_constraint)
values = st.from_regex(r"[a-zA-Z0-9_][a-zA-Z0-9_.]{0,5}", fullmatch=True).filter(lambda v: v not in ("true", "false"))
variants = st.one_of(
    st.builds(lambda n, on: VariantTerm(n, ("true" if on else "false",), boolean=True), names, st.booleans()),
    st.builds(lambda n, vs, exact: VariantTerm(n, tuple(vs), exact=exact), names,
              st.lists(values, min_size=1, max_size=3), st.booleans()),
).filter(lambda v: v.name not in ("arch", "architecture", "platform", "os", "target")
         and v.name not in ("cflags", "cppflags", "cxxflags", "fflags", "ldflags", "ldlibs"))
arch_terms = st.builds(lambda key, vs: ArchTerm(key, tuple(vs)), st.sampled_from(("platform", "os", "target")),
                       st.lists(names, min_size=1, max_size=2))
compilers = st.builds(CompilerTerm, names, st.none() | constraints,
                      st.sampled_from(((), ("c",), ("c", "cxx"))))
hashes = st.none() | st.from_regex(r"[a-z2-7]{1,8}", fullmatch=True)


@st.composite
def nodes(draw: st.DrawFn, named: bool = False) -> NodeQuery:
    return NodeQuery(
        draw(names if named else st.none() | names),
        draw(st.none() | constraints),
        tuple(draw(st.lists(compilers, max_size=2))),
        tuple(draw(st.lists(variants, max_size=3))),
        tuple(draw(st.lists(arch_terms, max_size=2))),
        draw(hashes),
    )


queries = st.builds(
    SpecQuery,
    nodes(),
    st.lists(st.builds(DependencyQuery, nodes(named=True),
                       st.sampled_from(((), ("link",), ("build", "run"))), st.sampled_from(((), ("mpi",)))),
             max_size=2).map(tuple),
)


@given(queries)
def test_printing_a_query_and_reading_it_back_gives_the_same_query(query: SpecQuery) -> None:
    assert parse_spec_query(str(query)) == query
