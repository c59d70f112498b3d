"""Spack's rules on strings: versions, variants, compilers, targets, hashes, deptypes, tags, spec syntax;
and the words every message uses for counts and for what was typed (`words`).

Nothing here knows about the column store or where specs come from; everything above reads Spack through it.
"""
