"""What the detail pane shows for one spec, gathered from the corpus (dependency tree, users)."""

from __future__ import annotations

from cachetui.app.widgets.detail_pane import SpecDetail, UsedBy
from cachetui.core.model.corpus import Corpus
from cachetui.core.model.dependencies import RUNTIME, WITH_BUILD, dependency_tree, used_by
from cachetui.core.model.installable import NO
from cachetui.core.spack.hashes import hash_reference
from cachetui.present.details.pushed import pushed_said

MAX_USED_BY = 200  # a common library is used by thousands; the first ones show, the count says the rest


def spec_detail(corpus: Corpus, index: int, with_build: bool) -> SpecDetail:
    spec = corpus.spec(index)
    document = corpus.documents[corpus.document_of[index]]
    pushed = pushed_said(corpus, index)
    if not document.from_mirror:
        return SpecDetail(spec, tuple(corpus.tags_of_hash(spec.hash)), pushed=pushed)
    deptypes = WITH_BUILD if with_build else RUNTIME
    users = used_by(corpus, spec.hash, deptypes)
    shown = tuple(UsedBy(user, _label(corpus, user), types) for user, types in users[:MAX_USED_BY])
    tree = tuple(dependency_tree(corpus, index, deptypes))
    runtime = tree if not with_build else dependency_tree(corpus, index, RUNTIME)
    missing = tuple(line for line in runtime if line.spec is None and not line.external and not line.repeated)
    return SpecDetail(spec, tuple(corpus.tags_of_hash(spec.hash)), True, with_build, tree, shown,
                      max(0, len(users) - MAX_USED_BY), missing if spec.installable == NO else (), pushed=pushed)


def _label(corpus: Corpus, index: int) -> str:
    spec = corpus.spec(index)
    return f"{spec.package}@{spec.version} {hash_reference(spec.hash)}  {spec.tag}"
