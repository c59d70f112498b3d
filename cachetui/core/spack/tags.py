"""Cache tags: their order (`develop`, releases newest first, dated snapshots newest first), which
stack labels name the whole tag rather than a stack, and where the public cache serves them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from cachetui.core.spack.versions import version_key

_RELEASE = re.compile(r"^(?:releases?[/-])?v?(?P<version>\d+(?:\.\d+)+(?:[.-]?[A-Za-z]+\d*)?)$")
_DATED = re.compile(r"\d{4}-\d{2}-\d{2}")
# The public cache lists every binary of a tag under `root` (`build_cache` in older files) beside the
# stacks that built it: that label is the whole tag, never a stack to narrow to.
WHOLE_TAG_LABELS = frozenset({"root", "build_cache"})
# Spack's public build cache: each tag is a mirror at `PUBLIC_MIRROR/<tag>` (`s3://spack-binaries/<tag>`).
PUBLIC_HOST = "binaries.spack.io"
PUBLIC_MIRROR = f"https://{PUBLIC_HOST}"


def is_whole_tag(label: str) -> bool:
    """Whether a stack label names the whole tag (every binary of it) rather than a stack."""
    return label in WHOLE_TAG_LABELS


def named_stacks(labels: Iterable[str]) -> list[str]:
    """The stacks among a binary's labels, as every output shows them: the whole tag's label is no stack."""
    return [label for label in labels if not is_whole_tag(label)]


def sort_tags(tags: Iterable[str]) -> list[str]:
    """Display order: develop, releases (newest first), dated snapshots (newest first), the rest A-Z."""
    develop, releases, dated, other = [], [], [], []
    for tag in set(tags):
        if tag == "develop":
            develop.append(tag)
        elif match := _RELEASE.match(tag):
            releases.append((version_key(match.group("version")), tag))
        elif match := _DATED.search(tag):
            dated.append((match.group(0), tag))
        else:
            other.append(tag)
    releases.sort(reverse=True)
    dated.sort(reverse=True)
    return develop + [t for _, t in releases] + [t for _, t in dated] + sorted(other, key=str.lower)
