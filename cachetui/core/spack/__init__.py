"""Spack's rules on strings: versions, variants, compilers, targets, hashes, deptypes, tags, spec syntax.

Nothing here knows about the column store or where specs come from; everything above reads Spack through it.
"""
