"""Spack's version order and `@` constraints, table-tested against Spack's own documented cases.

Cases are taken from spack/spack `lib/spack/spack/test/versions.py` (and the rules in
`lib/spack/spack/version/version_types.py`), not from this project's output.
"""

from __future__ import annotations

import pytest

from cachetui.core.spack.versions import VersionSyntaxError, parse_version_constraint, version_key

# (lower, higher): Spack's assert_ver_lt cases.
ORDERED = [
    ("xsdk-0.2.0", "xsdk-0.3"),
    ("1.0", "2.0"),
    ("1.0", "develop"),
    ("1.1", "1.develop"),
    ("0.5", "0.5.develop"),
    ("1.develop", "2.1"),
    ("1.develop.1", "1.develop.2"),
    ("develop.1", "develop.2"),
    ("9.0", "master"),
    ("9.0", "head"),
    ("9.0", "trunk"),
    ("master", "develop"),
    ("head", "master"),
    ("trunk", "head"),
    ("system", "9.0"),
    ("mydevelopmentnightmare", "1.1"),
    ("1.mydevelopmentnightmare", "1.1"),
    ("2.0", "2.0.1"),
    ("2.0.1", "2.0.1a"),  # a trailing letter is a plain string, above the release
    ("5.5p1", "5.5p2"),
    ("5.5p1", "5.5p10"),
    ("10xyz", "10.1xyz"),
    ("xyz10", "xyz10.1"),
    ("xyz.4", "8"),
    ("xyz.4", "2"),
    ("5.5p2", "5.6p1"),
    ("5.6p1", "6.5p1"),
    ("6.0alpha", "6.0alpha0"),
    ("6.0alpha0", "6.0alpha1"),
    ("6.0alpha2", "6.0beta"),
    ("6.0beta", "6.0beta0"),
    ("6.0beta2", "6.0rc"),
    ("6.0rc", "6.0rc0"),
    ("6.0rc0", "6.0rc1"),
    ("6.0rc2", "6.0"),
    ("10a2", "10b2"),  # a/b are not alpha/beta
    ("1.0a", "1.0aa"),
    ("10.0001", "10.0039"),
    ("4.999.9", "5.0"),
    ("20101121", "20101122"),
    ("1b.fc17", "1.fc17"),
    ("1.fc17", "1g.fc17"),
    ("0.9", "0.10"),
    ("1.2", "1.2.0"),
    # From the rules in version_types.py (SEGMENT_REGEX, STRING_TO_PRERELEASE, infinity_versions):
    ("1.0", "1.0-src"),  # `src` is a plain string, not a pre-release
    ("1.2", "1.2RC1"),  # only lowercase rc is a pre-release; RC1 is a string then a number
    ("Develop", "0.1"),  # case-sensitive: `Develop` is a plain string, below every number
    ("stable", "nightly"),
    ("main", "develop"),
]

EQUAL = [
    ("2_0", "2.0"),
    ("2-0", "2_0"),
    ("10.0001", "10.1"),
    ("develop.local", "develop.local"),
]


@pytest.mark.parametrize(("lower", "higher"), ORDERED)
def test_spack_orders_versions(lower: str, higher: str) -> None:
    assert version_key(lower) < version_key(higher)


@pytest.mark.parametrize(("a", "b"), EQUAL)
def test_spack_equal_versions(a: str, b: str) -> None:
    assert version_key(a) == version_key(b)


def test_rc_without_a_number_is_not_rc0() -> None:
    assert version_key("1.2rc") != version_key("1.2rc0")


# (version, constraint, satisfies): assert_satisfies / assert_in / assert_does_not_satisfy cases.
CONSTRAINTS = [
    ("1.3", "1.2:1.4", True),
    ("1.2.5", "1.2:1.4", True),
    ("1.3.5", "1.2:1.4", True),
    ("1.3.5-7", "1.2:1.4", True),
    ("1.1", "1.2:1.4", False),
    ("1.5", "1.2:1.4", False),
    ("1.5", "1.5.1:1.6", False),
    ("1.5", "1.5.1:", False),
    ("1.4.2", "1.2:1.4", True),
    ("1.4.2", "1.2:1.4.0", False),
    ("1.2.8", "1.2.7:1.4", True),
    ("1.2.5", "1.2.7:1.4", False),
    ("1.4.1", "1.2.7:1.4", True),
    ("1.4.1", "1.2.7:1.4.0", False),
    ("1.6.5", "1.6", True),
    ("1.6.5", ":1.6", True),
    ("4.7.3", "4.7.3", True),
    ("4.7.3", "4.7", True),
    ("4.7.3v2", "4.7", True),
    ("4.7v6", "4.7", True),
    ("4.7.3", "4", True),
    ("4.8.0", "4.9", False),
    ("4.8", "4.9", False),
    ("4", "4.9", False),
    ("4.7b6", "4.3:4.7", True),
    ("4.3.0", "4.3:4.7", True),
    ("4.8.0", "4.3:4.7", False),
    ("4.3", "4.4:4.7", False),
    ("4.7", "4.3, 4.6, 4.7", True),
    ("4.6.5.2", "4.3, 4.6, 4.7", True),
    ("4", "4.3, 4.6, 4.7", False),
    ("4.8.0", "4.2, 4.3:4.7", False),
    ("4.8.2", "4.2, 4.3:4.8", True),
    ("1.2.1alpha1", "1.2.1:", False),
    ("1.2.1rc3", "1.2.1:", False),
    ("1.2.1rc3", "1.2.0:", True),
    ("1.2.0beta2", "1.2:", True),
    ("1.2.0rc3", ":1.1", False),
    ("1.2.0rc3", ":1.2", True),
    ("1.2.0", "1.2.0alpha1:", True),
    ("1.2.0", ":1.2.0rc345", False),
    # The issue's own examples: @1.2 is 1.2 to 1.2.x, not 1.20; @=1.2 is exactly 1.2.
    ("1.2.3", "1.2", True),
    ("1.20", "1.2", False),
    ("1.2", "=1.2", True),
    ("1.2.3", "=1.2", False),
    ("1.8.23", "1.2,1.8.23", True),
    ("13.2.0", "13", True),
    ("14.1.0", "13", False),
]


@pytest.mark.parametrize(("version", "constraint", "expected"), CONSTRAINTS)
def test_spack_version_constraints(version: str, constraint: str, expected: bool) -> None:
    assert parse_version_constraint(constraint).contains(version) is expected


@pytest.mark.parametrize("bad", ["", "1.2::", "1.4:1.2", "a b:c:d", "1.2,,", "@1"])
def test_malformed_constraints_are_errors(bad: str) -> None:
    with pytest.raises(VersionSyntaxError):
        parse_version_constraint(bad)
