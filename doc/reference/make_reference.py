#!/usr/bin/env python3
# Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
# (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
"""make_reference.py: writes doc/reference/<header>.md for every public header.

Run it from anywhere: `python3 doc/reference/make_reference.py` (`--check`: write nothing, and
fail when a page is not what the headers make now). Each page lists the
public classes and functions a header declares, with the header's own comments (`//!` blocks
in C++ headers, `/* */` blocks in the C core's) and their Effects / Returns / Throws /
Complexity clauses, so the reference says what the headers say and nothing else. What a class
inherits from an implementation base in detail/ (the allocators' common interface) is listed on
the page of the class that inherits it. Regenerate after changing a header's comments;
doc/examples/check_reference.cmake (test docs_reference_pages) fails when a public header has no
page; `--check` (test docs_reference_current) when a page is stale."""

import os
import re
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
INCLUDE = os.path.join(ROOT, "include", "boost", "allocplus")
OUT = os.path.join(ROOT, "doc", "reference")

# header -> (the user page that explains it, bases in detail/ whose public members it inherits)
PAGES = {
    "allocation_command.hpp": ("allocator.md", []),
    "allocator.hpp": ("allocator.md", ["detail/core_allocator_base.hpp"]),
    "allocator_traits.hpp": ("allocator.md", []),
    "arena.hpp": ("arena.md", []),
    "arena_allocator.hpp": ("arena.md", []),
    "arena_resource.hpp": ("memory_resource.md", []),
    "default_heap_resource.hpp": ("memory_resource.md", []),
    "heap.hpp": ("allocator.md", ["detail/core_allocator_base.hpp"]),
    "heap_resource.hpp": ("memory_resource.md", []),
    "is_trivially_relocatable.hpp": ("vector.md", []),
    "list.hpp": ("list.md", []),
    "memory_resource.hpp": ("memory_resource.md", []),
    "multiallocation_chain.hpp": ("allocator.md", []),
    "node_allocator.hpp": ("node_allocator.md", ["detail/pooled_allocator_base.hpp"]),
    "private_node_allocator.hpp": ("node_allocator.md", ["detail/private_pool_handle.hpp",
                                                         "detail/pooled_allocator_base.hpp"]),
    "adaptive_pool.hpp": ("adaptive_pool.md", ["detail/pooled_allocator_base.hpp"]),
    "private_adaptive_pool.hpp": ("adaptive_pool.md", ["detail/private_pool_handle.hpp",
                                                       "detail/pooled_allocator_base.hpp"]),
    "synchronized_pool_resource.hpp": ("memory_resource.md", ["detail/synchronized_pool_resource_base.hpp"]),
    "unsynchronized_pool_resource.hpp": ("memory_resource.md", ["detail/unsynchronized_pool_resource_base.hpp"]),
    "adaptive_pool_resource.hpp": ("memory_resource.md", ["detail/synchronized_pool_resource_base.hpp",
                                                          "detail/unsynchronized_pool_resource_base.hpp"]),
    "vector.hpp": ("vector.md", []),
}

# Public types a header's classes return that are declared in a file of detail/ (outside its
# namespace detail), listed on the header's page.
TYPES_FROM = {
    "node_allocator.hpp": ["detail/node_pool.hpp"],
    "private_node_allocator.hpp": ["detail/node_pool.hpp"],
    "synchronized_pool_resource.hpp": ["detail/node_pool.hpp"],
    "unsynchronized_pool_resource.hpp": ["detail/node_pool.hpp"],
    "adaptive_pool.hpp": ["detail/node_pool.hpp", "detail/adaptive_node_pool.hpp"],
    "private_adaptive_pool.hpp": ["detail/node_pool.hpp", "detail/adaptive_node_pool.hpp"],
    "adaptive_pool_resource.hpp": ["detail/node_pool.hpp", "detail/adaptive_node_pool.hpp"],
}

CLAUSE = re.compile(r"\b(Effects|Returns|Throws|Complexity|Requires|Precondition|Postcondition|Remarks|Note):")


def emphasize(text):
    return CLAUSE.sub(r"**\1:**", text)


def text_of(comment_lines):
    """Comment lines to Markdown: a clause at the start of a line begins a paragraph."""
    paragraphs, current = [], []
    for line in comment_lines:
        stripped = line.strip()
        if not stripped:
            if current:
                paragraphs.append(" ".join(current))
                current = []
            continue
        if CLAUSE.match(stripped) and current:
            paragraphs.append(" ".join(current))
            current = []
        current.append(stripped)
    if current:
        paragraphs.append(" ".join(current))
    return "\n\n".join(emphasize(p) for p in paragraphs)


def declaration_after(lines, i):
    """The declaration that starts at line i: up to its body's `{`, its `;`, or 8 lines."""
    out = []
    depth = 0
    while i < len(lines) and len(out) < 8:
        line = lines[i].rstrip()
        if not line.strip():
            break
        if line.strip().startswith("//"):
            i += 1
            continue
        cut = line
        # An operator's name is not a bracket: count on a copy where it is letters.
        scan = re.sub(r"operator\s*(<=>|<=|>=|<<|>>|->|<|>|\(\)|\[\])",
                      lambda m: "operator" + "x" * len(m.group(1)), line)
        for k, ch in enumerate(scan):
            if ch in "([<":
                depth += 1
            elif ch in ")]>":
                depth -= 1
            elif ch == "{" and depth <= 0:
                cut = line[:k].rstrip()
                out.append(cut)
                return [l for l in out if l.strip()], i
        out.append(cut)
        if cut.rstrip().endswith(";") and depth <= 0:
            break
        i += 1
    return out, i


INITIALIZERS = re.compile(r"(\)\s*(?:const\s*)?(?:noexcept(?:\((?:[^()]|\([^()]*\))*\))?)?)\s*(?<!:):(?!:).*$")


def without_initializers(decl):
    """A constructor's declaration without its member initializers (`: m_(a)`)."""
    text = "\n".join(decl)
    cut = INITIALIZERS.sub(r"\1", text)
    return cut.split("\n")


def plain_struct_body(lines, j):
    """The data members of a struct, from its `{` at line j to `};` (a member function ends the
    list: `...` stands for the rest)."""
    if j >= len(lines) or "{" not in lines[j]:
        return None
    body = []
    for line in lines[j + 1:]:
        if line.startswith("};"):
            body.append("};")
            return body
        doc_line = line.strip().startswith("//!") and not line.strip().startswith("//!<")
        if "(" in line.split("//")[0] or doc_line or line.strip().startswith("template"):
            while body and not body[-1].strip():
                body.pop()
            return body + ["   ...", "};"] if body else None
        body.append(line.rstrip())
        if len(body) > 40:
            return None
    return None


def name_of(decl):
    text = " ".join(l.strip() for l in decl)
    text = re.sub(r"^template\s*<.*?>\s*(?=(class|struct|using|[\w\[]))", "", text) if text.startswith("template") else text
    m = re.match(r"^(?:template\s*<.*>\s*)?(class|struct)\s+(\w+)", text)
    if m:
        return "%s %s" % (m.group(1), m.group(2))
    m = re.match(r"^using\s+(\w+)", text)
    if m:
        return m.group(1)
    m = re.search(r"(operator\s*[^\s(]+|~?\w+)\s*\(", text)
    if m:
        return m.group(1)
    m = re.search(r"(\w+)\s*(=|;|$)", text)
    return m.group(1) if m else text[:40]


def cpp_items(path, text=None):
    """(level, name, declaration lines, comment lines) of each public documented declaration."""
    if text is None:
        text = open(path, encoding="utf-8").read()
    lines = text.split("\n")
    items = []
    in_detail = 0
    access = "public"
    comment = []
    i = 0
    while i < len(lines):
        line = lines[i]
        s = line.strip()
        if re.match(r"^namespace detail\s*\{", s) and not line.startswith(" "):
            in_detail += 1
        elif in_detail and re.match(r"^\}\s*//\s*namespace detail", line):
            in_detail -= 1
            i += 1
            continue
        if in_detail:
            i += 1
            comment = []
            continue
        if re.match(r"^(public|private|protected):", line):
            access = "public" if line.startswith("public") else "private"
        elif re.match(r"^(class|struct)\s+\w+", line):
            access = "private" if line.startswith("class") else "public"
        if s.startswith("//!"):
            comment.append(re.sub(r"^//!\s?", "", s))
            i += 1
            continue
        if comment:
            indent = len(line) - len(line.lstrip())
            decl, j = declaration_after(lines, i)
            decl = without_initializers(decl) if decl else decl
            while decl and not decl[-1].strip():
                decl.pop()
            # A comment over a run of one-line declarations (constants, aliases) covers the run.
            if len(decl) == 1 and decl[0].rstrip().endswith(";"):
                k = j + 1
                while (k < len(lines) and lines[k].strip() and not lines[k].strip().startswith("//")
                       and lines[k].rstrip().endswith(";") and len(decl) < 8
                       and len(lines[k]) - len(lines[k].lstrip()) == indent):
                    decl.append(lines[k])
                    k += 1
                j = max(j, k - 1)
            body = plain_struct_body(lines, j) if decl and re.match(r"^struct\s+\w+(\s*:\s*[\w:<>, ]+)?\s*$", decl[-1].strip()) else None
            if body:
                decl = decl[:-1] + [decl[-1].rstrip() + " {"] + body
            if decl and (indent == 0 or access == "public"):
                # A class's template line sits at indent 0 too.
                items.append((0 if indent == 0 else 1, name_of(decl), decl, comment))
            comment = []
            if decl and re.match(r"^(template\s*<.*>\s*)?(class|struct)\s", " ".join(decl)) and indent == 0:
                access = "private" if re.search(r"\bclass\s+\w+", " ".join(decl).split("{")[0]) \
                    and not re.search(r"\bstruct\s+\w+", " ".join(decl)) else "public"
            i = max(i + 1, j)
            continue
        i += 1
    return items


def c_items(path):
    """The C core: each `/* */` block and the declarations after it, up to a blank line."""
    text = open(path, encoding="utf-8").read()
    lines = text.split("\n")
    items = []
    i = 0
    # Start after the file's opening comment and the macros: from the first type or function.
    while i < len(lines) and not lines[i].startswith("BOOST_ALLOCPLUS_CORE_BEGIN_DECLS"):
        i += 1
    comment = []
    while i < len(lines):
        line = lines[i]
        if line.startswith("#if defined(BOOST_ALLOCPLUS_CORE_HEADER_ONLY)") and "using" in "".join(lines[i:i + 3]):
            break
        if line.startswith("/*"):
            block = []
            while True:
                block.append(re.sub(r"^\s*(/\*|\*/|\*)\s?", "", lines[i]).replace("*/", "").rstrip())
                if "*/" in lines[i]:
                    break
                i += 1
            comment = [b for b in block if not re.match(r"^-+$", b.strip())]
            i += 1
            continue
        if re.match(r"^(BOOST_ALLOCPLUS_CORE_(API|HELPER)|typedef)", line):
            decls = []
            while i < len(lines) and lines[i].strip():
                l = lines[i]
                if l.startswith("/*"):
                    break
                if l.startswith("BOOST_ALLOCPLUS_CORE_") and "DECLS" in l or "FUNCS" in l:
                    i += 1
                    continue
                decls.append(l)
                i += 1
                # A helper's body: keep its signature only; each helper is an entry of its own.
                if "{" in l and not l.startswith("typedef"):
                    head = l.split("{")[0].rstrip()
                    if head.strip():
                        decls[-1] = head + ";"
                    else:
                        decls.pop()
                        decls[-1] = decls[-1].rstrip() + ";"
                    depth = l.count("{") - l.count("}")
                    while depth > 0 and i < len(lines):
                        depth += lines[i].count("{") - lines[i].count("}")
                        i += 1
                    break
                elif l.startswith("typedef struct") and "{" in l:
                    while i < len(lines) and not lines[i].startswith("}"):
                        decls.append(lines[i])
                        i += 1
                    decls.append(lines[i])
                    i += 1
                    break
            decls = [re.sub(r"BOOST_ALLOCPLUS_CORE_(API|HELPER)\s*", "", d) for d in decls]
            names = re.findall(r"\b(ba_\w+)\s*\(", "\n".join(decls))
            title = ", ".join(dict.fromkeys(names)) if names else name_of_typedef(decls)
            items.append((1, title, decls, comment))
            comment = []
            continue
        if line.strip() == "" and comment and not lines[i - 1].startswith("/*"):
            pass
        i += 1
    return items


def name_of_typedef(decls):
    text = "\n".join(decls)
    m = re.search(r"\}\s*(\w+)\s*;", text) or re.search(r"(\w+)\s*;\s*$", text) \
        or re.search(r"\(\*(\w+)\)", text)
    return m.group(1) if m else decls[0][:40]


# Where a header's opening comment is a table in plain text, the page says it in Markdown.
SUMMARIES = {
    "memory_resource.hpp": [
        "Every `std::pmr::memory_resource` class of the library, one header each, all included by",
        "this one:",
        "",
        "| resource | header | what it is |",
        "|---|---|---|",
        "| `default_heap_resource()` | [default_heap_resource.hpp](default_heap_resource.md) | the core's default heap (stateless, thread-safe) |",
        "| `heap_resource` | [heap_resource.hpp](heap_resource.md) | an independent heap, from the system or in a caller's buffer |",
        "| `synchronized_pool_resource` | [synchronized_pool_resource.hpp](synchronized_pool_resource.md) | size-class pools shared by threads, per-thread bins |",
        "| `unsynchronized_pool_resource` | [unsynchronized_pool_resource.hpp](unsynchronized_pool_resource.md) | size-class pools of its own, for one thread at a time |",
        "| `arena_resource` | [arena_resource.hpp](arena_resource.md) | a `ba::arena` (a buffer of yours), with an upstream when it is full |",
    ],
}

# What the C core says once for a group of functions it declares without a comment of their own.
C_GROUPS = {
    "ba_heap_malloc": "The default heap's functions of the same name (`ba_malloc`, `ba_free`, ...), on heap "
                      "`h`: the same effects, returns and complexity. Every block must be freed to the heap "
                      "that allocated it.",
    "ba_stats": "`ba_heap_stats_get` and `ba_heap_check` of the default heap.",
    "ba_chain_init": "**Effects:** makes `*c` an empty chain.",
    "ba_chain_empty": "**Returns:** whether `*c` has no node.",
    "ba_chain_push_back": "**Effects:** appends `node` to `*c` (its first word becomes the link, null after the last).",
    "ba_chain_push_front": "**Effects:** puts `node` first in `*c`.",
}


def header_summary(path):
    """The header's own opening comment (after the license), if it has one."""
    if os.path.basename(path) in SUMMARIES:
        return SUMMARIES[os.path.basename(path)]
    lines = open(path, encoding="utf-8").read().split("\n")
    out = []
    for line in lines[2:]:
        if line.startswith("#ifndef") or line.startswith("#define"):
            continue
        if line.startswith("// "):
            out.append(line[3:])
        elif line.strip() == "//":
            out.append("")
        elif out or line.startswith("#include"):
            break
    return out


def page(header, items, user_page, summary, inherited):
    name = header.rsplit(".", 1)[0]
    include = "boost/allocplus/" + header
    out = ["# `<%s>`" % include, ""]
    if user_page:
        out.append("Reference ([all headers](index.md)). What it is for, with examples and measurements: "
                   "[%s](../%s)." % (user_page.rsplit(".", 1)[0].replace("_", " "), user_page))
    else:
        out.append("Reference ([all headers](index.md)). Its guide, with examples and measurements, is "
                   "not written yet ([the documentation's front page](../index.md)).")
    out.append("")
    out.append("```cpp\n#include <%s>\n```" % include)
    out.append("")
    if summary:
        out.append("\n".join(summary).strip())
        out.append("")
    if not items:
        out.append("This header declares nothing of its own.")
        out.append("")

    def emit(level, title, decl, comment):
        hashes = "##" if level == 0 else "###"
        out.append("%s `%s`" % (hashes, title))
        out.append("")
        out.append("```cpp")
        out.extend(d.rstrip() for d in dedent(decl))
        out.append("```")
        out.append("")
        body = text_of(comment)
        if body:
            out.append(body)
            out.append("")

    for level, title, decl, comment in items:
        emit(level, title, decl, comment)
    if inherited:
        out.append("## Inherited members")
        out.append("")
        out.append("From the allocators' common implementation in `detail/`; the members of the class "
                   "above replace any of the same name.")
        out.append("")
    for base, base_items in inherited:
        if len(inherited) > 1:
            out.append("From `%s`:" % base)
            out.append("")
        for level, title, decl, comment in base_items:
            if level == 0:
                continue
            emit(1, title, decl, comment)
    return "\n".join(out).rstrip() + "\n"


def dedent(decl):
    indents = [len(l) - len(l.lstrip()) for l in decl if l.strip()]
    cut = min(indents) if indents else 0
    return [l[cut:] if len(l) >= cut else l for l in decl]


def pages():
    """{file name: text} of every reference page, from the headers as they are."""
    texts = {}
    headers = sorted(f for f in os.listdir(INCLUDE) if f.endswith(".hpp"))
    for header in headers:
        # A header not listed yet still gets its page, pointing to the front page.
        user_page, bases = PAGES.get(header, (None, []))
        path = os.path.join(INCLUDE, header)
        items = cpp_items(path)
        inherited = []
        for base in bases:
            base_items = [it for it in cpp_items_all(os.path.join(INCLUDE, base))
                          if it[0] == 1 and not internal(it)]
            inherited.append((base, base_items))
        for extra in TYPES_FROM.get(header, []):
            items = items + [it for it in cpp_items(os.path.join(INCLUDE, extra)) if it[0] == 0]
        texts[header.rsplit(".", 1)[0] + ".md"] = page(header, items, user_page, header_summary(path), inherited)
    texts["dlmalloc.md"] = core_page()
    return texts


# The C names of the commands mean what allocation_command.hpp's do (the same values).
C_MACROS = {
    "BA_ALLOCATE_NEW": "a command of `ba_allocation_command` (commands combine by bitwise or): allocate a new block, after the expansions asked for failed",
    "BA_EXPAND_FWD": "expand `reuse_ptr` forward: its start stays where it is",
    "BA_EXPAND_BWD": "expand `reuse_ptr` backward: its start moves down by whole objects",
    "BA_SHRINK_IN_PLACE": "shrink `reuse_ptr` in place (limit is then the most objects accepted, preferred the fewest)",
    "BA_NOTHROW_ALLOCATION": "accepted for Boost.Container's sake: the core never throws",
    "BA_ZERO_MEMORY": "zero the bytes the block gains",
    "BA_TRY_SHRINK_IN_PLACE": "report what `BA_SHRINK_IN_PLACE` would receive, without shrinking",
    "BA_MALLOC_ALIGNMENT": "the alignment of every block (16 on 64-bit systems)",
}


def core_macros(path):
    """The header's public macros (BA_*): name, value, and what its comment says."""
    lines = open(path, encoding="utf-8").read().split("\n")
    rows, block = [], ""
    i = 0
    while i < len(lines) and not lines[i].startswith("BOOST_ALLOCPLUS_CORE_BEGIN_DECLS"):
        line = lines[i]
        if line.startswith("/*"):
            text = []
            while True:
                text.append(re.sub(r"^\s*(/\*|\*/|\*)\s?", "", lines[i]).replace("*/", "").strip())
                if "*/" in lines[i]:
                    break
                i += 1
            block = " ".join(t for t in text if t)
        m = re.match(r"^#define\s+(BA_\w+)\s+(.*?)\s*(?:/\*\s*(.*?))?\s*$", line)
        if m:
            name, value, note = m.group(1), m.group(2), m.group(3) or ""
            while note and "*/" not in note and i + 1 < len(lines) and lines[i + 1].lstrip().startswith("*"):
                i += 1
                note += " " + lines[i].strip().lstrip("*").strip()
            note = note.replace("*/", "").strip()
            rows.append((name, value, C_MACROS.get(name) or note or block))
        i += 1
    return rows


def core_page():
    core = os.path.join(INCLUDE, "core", "dlmalloc.h")
    items = c_items(core)
    macros = core_macros(core)
    out = ["# `<boost/allocplus/core/dlmalloc.h>`", "",
           "Reference ([all headers](index.md)). What it is for, with examples and measurements: "
           "[core](../core.md) and [one heap](../one_heap.md).", "",
           "```c\n#include <boost/allocplus/core/dlmalloc.h>\n```", "",
           "The C core, usable from C11 and C++. From C++ the header is the whole implementation; "
           "from C, one translation unit defines `BOOST_ALLOCPLUS_CORE_IMPLEMENTATION` before "
           "including it. Every block is aligned to `BA_MALLOC_ALIGNMENT`. Functions that fail "
           "return null (or 0): nothing here throws; a misuse a heap finds (a free of a pointer it "
           "did not hand out, a corrupted chunk) goes to the diagnostic handler. Every heap has its "
           "own lock unless it was created without one.", "",
           "The checking level, `BOOST_ALLOCPLUS_CHECKED` (0 with `NDEBUG`, 1 without, 2 when asked "
           "for; `BOOST_ALLOCPLUS_CHECKED_EXPENSIVE` is 1 at level 2), is read here for every header: "
           "[checked builds](../checked_builds.md) says what each level catches.", "",
           "## Macros", "",
           "| macro | value | meaning |",
           "|---|---|---|"]
    for name, value, note in macros:
        out.append("| `%s` | `%s` | %s |" % (name, value.replace("|", "\\|"), note.replace("|", "\\|")))
    out.append("")
    for level, title, decl, comment in items:
        out.append("## `%s`" % title)
        out.append("")
        out.append("```c")
        out.extend(d.rstrip() for d in decl)
        out.append("```")
        out.append("")
        body = "\n\n".join(t for t in (text_of(comment), C_GROUPS.get(title.split(",")[0], "")) if t)
        if body:
            out.append(body)
            out.append("")
    return "\n".join(out).rstrip() + "\n"


def main(argv):
    """Writes the pages; with --check, writes nothing and fails when a page is not what the
    headers make now (a header's comment changed and the page was not made again)."""
    check = "--check" in argv
    texts = pages()
    stale = []
    for name, text in sorted(texts.items()):
        target = os.path.join(OUT, name)
        if check:
            try:
                current = open(target, encoding="utf-8").read()
            except OSError:
                current = None
            if current != text:
                stale.append(name)
        else:
            os.makedirs(OUT, exist_ok=True)
            with open(target, "w", encoding="utf-8") as f:
                f.write(text)
            print(os.path.relpath(target, ROOT))
    if check:
        for name in stale:
            print("doc/reference/%s is not what the headers make: run python3 doc/reference/make_reference.py" % name)
        print("%d pages, %d not current" % (len(texts), len(stale)))
        return 1 if stale else 0
    return 0


def cpp_items_all(path):
    """A detail/ base: its documented public members (the file is all namespace detail)."""
    lines = open(path, encoding="utf-8").read().split("\n")
    # Treat the file as if it were outside namespace detail.
    text = "\n".join(re.sub(r"namespace detail \{", "namespace impl {", l) for l in lines)
    return cpp_items(path, text)


def internal(item):
    """Members that are the implementation's, not the user's (documented for maintainers)."""
    _level, title, decl, comment = item
    first = " ".join(comment)
    return (title.startswith("command_with_paths") or "(For ba::allocator_traits" in first
            or title in ("allocate_new_block", "allocate_new_block_slow", "allocate_bytes",
                         "allocate_growable_bytes", "objects_in", "check_not_a_node"))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
