"""Site documents: the `_cache/<tag>/<package>/specs.md` listings the public build-cache site published.

Walking, and telling whether a file changed (`walk`), reading (`loader`), splitting front matter
(`frontmatter`), parsing it safely and fast (`parse`), interpreting every site generation
(`document`, `specjson`), and parsing in worker processes (`parallel`).
"""
