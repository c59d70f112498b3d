"""Versions, variants, compilers, tags and hashes: the small parsers everything else trusts."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cachetui.core.spack.compilers import compiler_name, compiler_text, normalise_compiler
from cachetui.core.spack.hashes import is_valid_hash, short_hash
from cachetui.core.spack.tags import sort_tags
from cachetui.core.spack.variants import VariantKind, parse_variants, variant_atoms
from cachetui.core.spack.versions import sort_versions, version_key


@pytest.mark.parametrize(
    ("lower", "higher"),
    [
        ("0.9", "0.10"),
        ("1.2", "1.2.0"),
        ("1.2.0", "1.2.1"),
        ("1.2alpha1", "1.2beta1"),
        ("1.2beta2", "1.2rc1"),
        ("1.2rc1", "1.2"),
        ("1.2.0-rc1", "1.2.0"),
        ("abc", "0.1"),
        ("999.9", "stable"),
        ("stable", "trunk"),
        ("trunk", "head"),
        ("head", "master"),
        ("master", "main"),
        ("main", "develop"),
        ("2024.05.1", "2024.10"),
    ],
)
def test_spack_version_order(lower: str, higher: str) -> None:
    assert version_key(lower) < version_key(higher)


def test_sort_versions_newest_first() -> None:
    assert sort_versions(["1.2", "develop", "0.10", "1.2.1", "0.9"], newest_first=True) == [
        "develop",
        "1.2.1",
        "1.2",
        "0.10",
        "0.9",
    ]


@pytest.mark.parametrize(
    ("text", "kinds"),
    [
        ("+mpi", [VariantKind.ON]),
        ("~cuda", [VariantKind.OFF]),
        ("+mpi~cuda", [VariantKind.ON, VariantKind.OFF]),
        ("build_type=Release", [VariantKind.VALUE]),
        ("cuda_arch=80,90", [VariantKind.LIST]),
        ("patches=aaaa,bbbb,cccc", [VariantKind.LIST]),
        ("mpi", [VariantKind.BARE]),
        ("++shared", [VariantKind.ON]),
        ("a=1 +b", [VariantKind.VALUE, VariantKind.ON]),
    ],
)
def test_variant_kinds(text: str, kinds: list[VariantKind]) -> None:
    assert [v.kind for v in parse_variants(text)] == kinds


@pytest.mark.parametrize(
    "text", ["+mpi", "~cuda", "++shared", "~~debug", "x=1", "x==1", "cuda_arch=80,90", "patches=ab,cd", "bare"]
)
def test_canonical_variants_round_trip(text: str) -> None:
    (variant,) = parse_variants(text)
    assert str(variant) == text


def test_multi_valued_variants_split_into_facet_atoms() -> None:
    assert variant_atoms(("cuda_arch=80,90", "+mpi")) == ("cuda_arch=80", "cuda_arch=90", "+mpi")


_name = st.from_regex(r"[a-z][a-z0-9_]{0,10}", fullmatch=True)
_value = st.from_regex(r"[A-Za-z0-9_.]{1,8}", fullmatch=True)
_variant = st.one_of(
    st.builds(lambda n: "+" + n, _name),
    st.builds(lambda n: "~" + n, _name),
    st.builds(lambda n, v: f"{n}={v}", _name, _value),
    st.builds(lambda n, vs: f"{n}={','.join(vs)}", _name, st.lists(_value, min_size=2, max_size=4)),
)


@given(st.lists(_variant, min_size=1, max_size=6))
def test_generated_variant_strings_round_trip(variants: list[str]) -> None:
    text = " ".join(variants)
    assert " ".join(str(v) for v in parse_variants(text)) == text


@given(st.text(max_size=60))
def test_variant_parser_accepts_any_text(text: str) -> None:
    for variant in parse_variants(text):
        assert variant.name or variant.values or variant.kind is VariantKind.BARE


@given(st.text(max_size=30), st.text(max_size=30))
def test_version_keys_are_totally_ordered(a: str, b: str) -> None:
    ka, kb = version_key(a), version_key(b)
    assert (ka < kb) + (ka > kb) + (ka == kb) == 1


def test_compilers_normalise() -> None:
    assert normalise_compiler("gcc@=13.2.0") == normalise_compiler("gcc@13.2.0") == "gcc@13.2.0"
    assert compiler_name("apple-clang@16.0.0") == "apple-clang"
    assert compiler_text({"name": "gcc", "version": "9.3.0"}) == "gcc@9.3.0"
    assert compiler_text(42) is None


def test_tags_order_develop_then_releases_then_snapshots() -> None:
    tags = ["develop-2025-04-20", "v0.22.0", "develop", "v0.23.1", "develop-2025-05-04", "v0.9.0", "other"]
    assert sort_tags(tags) == [
        "develop",
        "v0.23.1",
        "v0.22.0",
        "v0.9.0",
        "develop-2025-05-04",
        "develop-2025-04-20",
        "other",
    ]


def test_hashes() -> None:
    assert is_valid_hash("24fngvd4f3yz7zj63yh4i2wjhfyscqp3")
    assert not is_valid_hash("24fngvd4f3yz7zj63yh4i2wjhfyscqp1")  # 1 is not base32
    assert not is_valid_hash("24FNGVD4F3YZ7ZJ63YH4I2WJHFYSCQP3")
    assert short_hash("24fngvd4f3yz7zj63yh4i2wjhfyscqp3") == "24fngvd"
