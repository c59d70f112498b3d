"""A tree of broken and hostile documents: each case of the broken-input matrix, one file each."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from tests.conftest import listing, spec_entry

# Text a document might carry to drive a terminal.
HOSTILE = {
    "markup": "[bold red]loud[/] [link=https://evil.example]click[/link] [@click=app.quit]quit[/]",
    "csi": "\x1b[2J\x1b[31mred",
    "osc52": "\x1b]52;c;cHduZWQ=\x07",
    "osc0": "\x1b]0;PWNED\x07",
    "bel_bs_cr": "a\x07b\x08c\rd",
    "bidi": "abc\u202etxt.exe\u2066x\u2069",
    "zero_width": "zero\u200bwidth\u2060\ufeff",
    "c1": "\x9b31mC1",
}
HOSTILE_PACKAGE = "evil " + HOSTILE["markup"] + HOSTILE["osc0"]
HOSTILE_TAG = "develop" + HOSTILE["osc0"]
HOSTILE_HASH = "\x1b]52;c;cHduZWQ=\x07" + "a" * 20
GOOD = "a" * 32


@dataclass(frozen=True)
class Case:
    name: str
    content: bytes
    severity: str | None  # expected worst problem: "error", "warning", or None for a clean load
    reason: str  # expected substring of the problem's reason ("" when clean)
    specs: int  # specs this file still contributes


def _doc(specs: list[dict], package: str = "pkg", tag: str = "develop", **extra: object) -> str:
    text = listing(package, tag, specs)
    return text[:-4] + "".join(f"{k}: {json.dumps(v)}\n" for k, v in extra.items()) + "---\n"


def _hostile_document() -> bytes:
    specs = [
        spec_entry(
            HOSTILE_HASH,
            compiler="gcc@" + HOSTILE["csi"],
            os=HOSTILE["osc52"],
            target=HOSTILE["bidi"],
            variants=["+" + HOSTILE["zero_width"], "k=" + HOSTILE["bel_bs_cr"], HOSTILE["markup"]],
            stacks=[HOSTILE["c1"], "root"],
            versions=["1.0" + HOSTILE["osc0"]],
        ),
        spec_entry("b" * 32),
    ]
    text = listing(HOSTILE_PACKAGE, "develop", specs)
    # Escaped in JSON, as a loadable hostile document must be (YAML refuses raw control characters).
    categories = "categories: " + json.dumps(["package", HOSTILE_TAG])
    return text.replace("categories: [package, develop]", categories).encode()


def _wrong_types() -> bytes:
    specs = [
        spec_entry("c" * 32, hash=5),
        spec_entry("d" * 32, versions="1.0"),
        spec_entry("e" * 32, variants=None),
        spec_entry("f" * 32, size=-5),
    ]
    return _doc(specs).encode()


_BOMB = "\n".join(
    ["---", "title: bomb", "a: &a [x, x, x, x, x, x, x, x, x]"]
    + [f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}]"
       for i in range(12)]
    + ["---", ""]
)


def cases(marker: Path) -> list[Case]:
    ok = [spec_entry(GOOD)]
    return [
        Case("empty", b"", "error", "empty file", 0),
        Case("no_front_matter", b"title: x\nspec_details: []\n", "error", "no front matter", 0),
        Case("unterminated", b"---\ntitle: x\n", "error", "never closed", 0),
        Case("invalid_yaml", b"---\ntitle: x\nlayout: [a, b\n---\n", "error", "invalid YAML", 0),
        Case("invalid_json_meta", _doc(ok).replace('{"num_specs": 1}', '{"num_specs": 1,,}').encode(),
             "error", "invalid JSON in 'meta'", 0),
        Case("invalid_json_details", b'---\ntitle: x\nspec_details: [{"hash": }]\n---\n',
             "error", "invalid JSON in 'spec_details'", 0),
        Case("details_not_a_list", b'---\ntitle: x\nspec_details: {"hash": "x"}\n---\n',
             "error", "'spec_details' is a dict", 0),
        Case("wrong_types", _wrong_types(), "error", "no hash", 3),
        Case("unknown_keys", _doc([{**ok[0], "surprise": {"x": 1}}], fancy=[1, 2]).encode(), None, "", 1),
        Case("non_utf8", _doc(ok).encode().replace(b'"pkg"', b'"pk\xff\xfeg"'), "warning", "not valid UTF-8", 1),
        Case("bom", b"\xef\xbb\xbf" + _doc(ok).encode(), None, "", 1),
        Case("crlf", _doc(ok).replace("\n", "\r\n").encode(), None, "", 1),
        Case("huge_line", _doc([spec_entry(GOOD, variants=["x=" + "v" * 10_500_000])]).encode(), None, "", 1),
        Case("alias_bomb", _BOMB.encode(), "error", "aliases are not allowed", 0),
        Case("python_tag", f'---\ntitle: !!python/object/apply:os.system ["touch {marker}"]\n---\n'.encode(),
             "error", "invalid YAML", 0),
        Case("duplicate_hashes", _doc([spec_entry(GOOD), spec_entry(GOOD, target="zen4")]).encode(),
             "warning", "repeats a hash", 1),
        Case("hostile_text", _hostile_document(), "warning", "not 32 characters", 2),
    ]


def write_case(root: Path, case: Case) -> Path:
    path = root / "_cache" / "develop" / case.name / "specs.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(case.content)
    return path


def write_hostile_tree(root: Path) -> list[Case]:
    """Every case, plus an oversized file, a symlink loop and a file whose *name* is hostile."""
    all_cases = cases(root / "python-tag-ran")
    for case in all_cases:
        write_case(root, case)
    (root / "_cache" / "develop" / "loop").mkdir(parents=True)
    (root / "_cache" / "develop" / "loop" / "again").symlink_to(root / "_cache" / "develop")
    named = root / "_cache" / "develop" / ("name" + HOSTILE["osc0"]) / "specs.md"
    named.parent.mkdir(parents=True)
    named.write_text("---\ntitle: x\n")  # unterminated, so its name shows on the problems screen
    return all_cases


# Every kind of unsafe character at once, for the writers: each of HOSTILE, then NUL, DEL and a line break.
# The tag is typed on `diff`'s command line, which cannot hold a NUL.
EVERY_TAG = "new" + "".join(HOSTILE.values()) + "\x7fdel\nline"
EVERY_PACKAGE = "evil" + "".join(HOSTILE.values()) + "\x00nul\x7fdel\nline"
# Values of the JSON part of a document also carry a line separator, characters beyond the BMP (a tag
# character, a private-use one) and a lone surrogate, which only JSON's escapes can keep exact.
EVERY_VALUE = EVERY_PACKAGE + "\u2028\U000e0001\U000f0000\udcff"
EVERY_DIRECTORY = "dir" + HOSTILE["osc0"] + HOSTILE["bidi"] + HOSTILE["c1"] + "\nline"  # a file name holds no NUL


def write_every_unsafe_value(root: Path) -> Path:
    """`develop` and EVERY_TAG: both hold `zlib`, EVERY_TAG also EVERY_PACKAGE, whose every field holds
    EVERY_VALUE and whose hash is not 32 characters (a warning naming the file). Returns that file."""
    plain = root / "_cache" / "develop" / "zlib" / "specs.md"
    newer = root / "_cache" / "new" / "zlib" / "specs.md"
    for path, tag in ((plain, "develop"), (newer, json.dumps(EVERY_TAG))):
        path.parent.mkdir(parents=True)
        path.write_text(listing("zlib", "develop", [spec_entry(GOOD)]).replace("develop]", tag + "]"))
    evil = spec_entry("z" * 31, compiler="gcc@" + EVERY_VALUE, os=EVERY_VALUE, target=EVERY_VALUE,
                      variants=["k=" + EVERY_VALUE], stacks=[EVERY_VALUE], versions=["1.0" + EVERY_VALUE])
    text = listing(EVERY_PACKAGE, "develop", [evil]).replace(
        "categories: [package, develop]", "categories: " + json.dumps(["package", EVERY_TAG]))
    path = root / "_cache" / "new" / EVERY_DIRECTORY / "specs.md"
    path.parent.mkdir(parents=True)
    path.write_text(text, errors="surrogateescape")
    return path
