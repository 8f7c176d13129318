#!/usr/bin/env python3
"""Generates steptime's single headers from the multi-file headers in include/.

    single_include/steptime/steptime.hpp  <-  include/steptime/steptime.hpp  (the core)
    single_include/steptime/io.hpp        <-  include/steptime/io.hpp        (file formats)

Every quoted include of one of the project's own headers ("steptime/...") is replaced by the
header's text, recursively, once per output file; the inlined headers' `#pragma once` lines are
dropped. Angle-bracket includes (standard library, Boost, nlohmann_json) are kept; repeats of one
already included unconditionally are dropped. The generated io.hpp does not repeat the core: it
includes its sibling "steptime.hpp" and inlines only the headers the core does not reach.

Usage:
    python3 tools/amalgamate.py            write the single headers
    python3 tools/amalgamate.py --check    exit 1 naming each single header that is stale or missing

Paths are relative to the repository root (this script's parent's parent), so any cwd works.
The output depends only on the input headers (no dates, no absolute paths).
"""

from __future__ import annotations

import argparse
import difflib
import re
import sys
from pathlib import Path, PurePosixPath

SCRIPT = "tools/amalgamate.py"
INCLUDE_DIR = "include"
SINGLE_DIR = "single_include"
CORE = "steptime/steptime.hpp"
IO = "steptime/io.hpp"
VERSION = "steptime/version.hpp"

INCLUDE_RE = re.compile(r'^\s*#\s*include\s*(?P<open>["<])(?P<path>[^">]+)[">]')
PRAGMA_ONCE_RE = re.compile(r"^\s*#\s*pragma\s+once\b")
IF_RE = re.compile(r"^\s*#\s*if(n?def)?\b")
ENDIF_RE = re.compile(r"^\s*#\s*endif\b")
VERSION_RE = re.compile(r'^\s*#\s*define\s+STEPTIME_VERSION_STRING\s+"([^"]+)"', re.MULTILINE)


class AmalgamationError(Exception):
    pass


class Amalgamator:
    """Inlines the project's headers reachable from one root header into one text."""

    def __init__(self, include_dir: Path, skip: frozenset[str] = frozenset()):
        self.include_dir = include_dir
        self.skip = skip           # project headers provided by another single header
        self.inlined: set[str] = set()
        self.system_seen: set[str] = set()
        self.depth = 0             # preprocessor conditional nesting, across inlined files
        self.out: list[str] = []

    def resolve(self, spelled: str, including: str | None) -> str | None:
        """The project header (relative to include/, POSIX form) a quoted include names, if any."""
        candidates = [PurePosixPath(spelled)]
        if including is not None:  # a quoted include may also be relative to the including header
            candidates.append(PurePosixPath(including).parent / spelled)
        for c in candidates:
            parts = []
            for p in c.parts:  # normalise "a/../b" without touching the file system
                if p == "..":
                    if not parts:
                        break
                    parts.pop()
                elif p != ".":
                    parts.append(p)
            else:
                rel = "/".join(parts)
                if rel.startswith("steptime/") and (self.include_dir / rel).is_file():
                    return rel
        if spelled.startswith("steptime/"):
            where = f"included from include/{including}" if including else "the root header"
            raise AmalgamationError(f"include/{spelled} does not exist ({where})")
        return None

    def read(self, rel: str) -> list[str]:
        try:
            text = (self.include_dir / rel).read_text(encoding="utf-8")
        except OSError as e:
            raise AmalgamationError(f"cannot read include/{rel}: {e.strerror}") from e
        return text.replace("\r\n", "\n").split("\n")

    def emit_file(self, rel: str) -> None:
        self.inlined.add(rel)
        lines = self.read(rel)
        while lines and not lines[-1].strip():
            lines.pop()
        start_depth = self.depth
        for number, line in enumerate(lines, 1):
            if PRAGMA_ONCE_RE.match(line):
                continue
            if IF_RE.match(line):
                self.depth += 1
            elif ENDIF_RE.match(line):
                self.depth -= 1
            m = INCLUDE_RE.match(line)
            if m and m.group("open") == '"':
                target = self.resolve(m.group("path"), rel)
                if target is not None:
                    if self.depth > 0:
                        raise AmalgamationError(
                            f"include/{rel}:{number}: includes {m.group('path')} inside a preprocessor "
                            "conditional; the amalgamation inlines each header once and cannot keep that")
                    if target in self.skip or target in self.inlined:
                        continue
                    self.out.append(f"// ---- begin {target} ----")
                    self.emit_file(target)
                    self.out.append(f"// ---- end {target} ----")
                    continue
                print(f"amalgamate: warning: include/{rel}:{number}: keeping {line.strip()}, "
                      "which is not one of the project's headers", file=sys.stderr)
            elif m:  # <system> include: keep; drop repeats of one already included unconditionally
                key = m.group("path").strip()
                if key in self.system_seen:
                    continue
                if self.depth == 0:
                    self.system_seen.add(key)
            self.out.append(line.rstrip())
        if self.depth != start_depth:
            raise AmalgamationError(f"include/{rel}: unbalanced #if/#endif")


def reachable(include_dir: Path, root: str) -> frozenset[str]:
    a = Amalgamator(include_dir)
    a.emit_file(root)
    return frozenset(a.inlined)


def version_of(include_dir: Path) -> str:
    try:
        m = VERSION_RE.search((include_dir / VERSION).read_text(encoding="utf-8"))
    except OSError as e:
        raise AmalgamationError(f"cannot read include/{VERSION}: {e.strerror}") from e
    if not m:
        raise AmalgamationError(f"include/{VERSION} defines no STEPTIME_VERSION_STRING")
    return m.group(1)


def header(source: str, version: str, extra: str) -> list[str]:
    return [
        f"// steptime {version}: single-header version of include/{source}{extra}.",
        f"// generated by {SCRIPT} from include/{source}; do not edit.",
        f"// Regenerate with: python3 {SCRIPT}   (check with: python3 {SCRIPT} --check)",
        "#pragma once",
        "",
    ]


def generate(root: Path) -> dict[str, str]:
    """Output path (relative to the repository root) -> its text."""
    include_dir = root / INCLUDE_DIR
    version = version_of(include_dir)

    core = Amalgamator(include_dir)
    core.emit_file(CORE)
    core_text = header(CORE, version, "") + core.out

    # io.hpp: the core comes from the sibling single header; everything the core reaches is skipped.
    io = Amalgamator(include_dir, skip=frozenset(core.inlined))
    io.system_seen = set(core.system_seen)  # already included by the sibling, unconditionally
    io.emit_file(IO)
    io_text = header(IO, version, " (file formats; includes the core, steptime.hpp, beside it)") + [
        '#include "steptime.hpp"',
        "",
    ] + io.out

    return {
        f"{SINGLE_DIR}/{CORE}": "\n".join(core_text) + "\n",
        f"{SINGLE_DIR}/{IO}": "\n".join(io_text) + "\n",
    }


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true",
                        help="do not write; exit 1 if a generated file is missing or differs")
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parent.parent,
                        help="repository root (default: this script's parent's parent)")
    args = parser.parse_args(argv)
    root: Path = args.root.resolve()

    try:
        outputs = generate(root)
    except AmalgamationError as e:
        print(f"amalgamate: error: {e}", file=sys.stderr)
        return 2

    stale = []
    for rel, text in outputs.items():
        path = root / rel
        try:
            current = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            current = None
        if current == text:
            continue
        if args.check:
            stale.append(rel)
            if current is None:
                print(f"amalgamate: {rel} is missing", file=sys.stderr)
            else:
                print(f"amalgamate: {rel} is stale: it differs from what {SCRIPT} generates", file=sys.stderr)
                diff = list(difflib.unified_diff(current.split("\n"), text.split("\n"),
                                                 f"{rel} (on disk)", f"{rel} (generated)", n=1, lineterm=""))
                for line in diff[:40]:
                    print("    " + line, file=sys.stderr)
                if len(diff) > 40:
                    print(f"    ... ({len(diff) - 40} more diff lines)", file=sys.stderr)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            with open(path, "w", encoding="utf-8", newline="\n") as f:
                f.write(text)
            print(f"amalgamate: wrote {rel}")

    if stale:
        print(f"amalgamate: {len(stale)} stale single header(s): {', '.join(stale)}; "
              f"regenerate with: python3 {SCRIPT}", file=sys.stderr)
        return 1
    if args.check:
        print("amalgamate: single headers are up to date")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
