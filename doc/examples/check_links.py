#!/usr/bin/env python3
# Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
# (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
"""check_links.py FILE.md...: every relative link of each page resolves.

A link [text](path) or [text](path#anchor) must name a file or folder that exists, relative to
the page; an anchor (also [text](#anchor) within the page) must be the slug of a heading of the
target page, as GitHub makes them (lower case, punctuation dropped, spaces to hyphens). Links to
other sites (http:, https:, mailto:) are not followed. Every `#include <boost/allocplus/...>` a
page shows (in its code too) must name a header of include/, which the package installs whole.
Exits 1 and names every broken link and every missing header."""

import os
import re
import sys

LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)|!\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^\s*(```|~~~)")
INCLUDE = re.compile(r"#\s*include\s*<(boost/allocplus/[^>]+)>")
INCLUDE_DIR = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "include"))


def prose_lines(path):
    """The lines of a page outside fenced code blocks, numbered."""
    inside = False
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if FENCE.match(line):
                inside = not inside
                continue
            if not inside:
                yield number, line


def slug(heading):
    text = re.sub(r"`|\*", "", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path, cache={}):
    if path not in cache:
        found = set()
        for _number, line in prose_lines(path):
            m = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
            if m:
                base = slug(m.group(1))
                name, n = base, 1
                while name in found:   # GitHub numbers repeated headings: name, name-1, ...
                    name, n = "%s-%d" % (base, n), n + 1
                found.add(name)
        cache[path] = found
    return cache[path]


def check(page):
    broken = []
    for number, line in prose_lines(page):
        for m in LINK.finditer(re.sub(r"`[^`]*`", "", line)):
            target = m.group(1) or m.group(2)
            if re.match(r"^[a-z][a-z0-9+.-]*:", target):
                continue
            path, _, anchor = target.partition("#")
            resolved = os.path.normpath(os.path.join(os.path.dirname(page), path)) if path else page
            if not os.path.exists(resolved):
                broken.append("%s:%d: %s: no such file" % (page, number, target))
            elif anchor and resolved.endswith(".md") and anchor not in anchors(resolved):
                broken.append("%s:%d: %s: no heading with that anchor" % (page, number, target))
    return broken


def missing_headers(page):
    """Headers of ours a page includes that include/ does not have."""
    missing = []
    with open(page, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            for header in INCLUDE.findall(line):
                if not os.path.isfile(os.path.join(INCLUDE_DIR, header)):
                    missing.append("%s:%d: <%s>: no such header in include/" % (page, number, header))
    return missing


def main(pages):
    broken = [b for page in pages for b in check(page) + missing_headers(page)]
    for b in broken:
        print(b)
    print("%d pages, %d broken links" % (len(pages), len(broken)))
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
