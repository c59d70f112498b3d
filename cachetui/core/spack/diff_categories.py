"""What `spack diff` calls each way two specs differ (`cmd/diff.py`): the words coverage says differences in."""

from __future__ import annotations

CATEGORIES = ("version", "variant_value", "node_platform", "node_os", "node_target", "node_flag",
              "node_compiler_version", "depends_on", "external", "package_hash", "namespace")
# The last two are build provenance: they alone never block reuse.
PROVENANCE_CATEGORIES = frozenset({"package_hash", "namespace"})
# Spack's category of a node's own value, keyed by the spec field it compares, in the order coverage says them.
NODE_CATEGORIES = {"version": "version", "platform": "node_platform", "os": "node_os", "target": "node_target",
                   "compiler": "node_compiler_version"}
