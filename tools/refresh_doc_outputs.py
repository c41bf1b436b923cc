#!/usr/bin/env python3
"""Re-runs the commands shown in README.md and docs/tour/*.md and pastes their real output.

A shown command is refreshed when the fenced block holding it is preceded by a line

    <!-- refresh -->            the whole output
    <!-- refresh: head -40 -->  the output through a shell filter (head, grep, sed, ...)

and the block starts with `$ meshplan ...` (continuation lines ending in `\\` belong to the
command; `&&` or `;` may chain further meshplan commands). The command runs in the repository
root with `meshplan` replaced by the built binary. Outputs cut by `head` end with a `...` line.

Usage: tools/refresh_doc_outputs.py [--binary build/meshplan] [FILE...]
"""
import argparse
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
DIRECTIVE = re.compile(r"^<!-- refresh(?::\s*(?P<filter>.*?))?\s*-->$")


def command_lines(block):
    """The `$ ...` command (with continuation lines) at the start of a block, and the rest."""
    if not block or not block[0].startswith("$ "):
        return None, block
    lines = [block[0]]
    i = 1
    while lines[-1].endswith("\\") and i < len(block):
        lines.append(block[i])
        i += 1
    return lines, block[i:]


def run(command, binary, output_filter):
    """The command's stdout and stderr, through the filter; a `...` line marks a cut by head."""
    shell = re.sub(r"(^|&&\s*|;\s*|\|\s*)meshplan\b", lambda m: m.group(1) + str(binary), command)
    text = subprocess.run(["bash", "-c", f"( {shell} ) 2>&1"], cwd=ROOT, capture_output=True, text=True).stdout
    if output_filter:
        filtered = subprocess.run(["bash", "-c", output_filter], input=text, capture_output=True, text=True).stdout
        if output_filter.startswith("head") and len(filtered.splitlines()) < len(text.splitlines()):
            filtered += "...\n"
        text = filtered
    return text.rstrip("\n").split("\n")


def refresh(path, binary):
    lines = path.read_text().split("\n")
    out = []
    i = 0
    changed = 0
    while i < len(lines):
        match = DIRECTIVE.match(lines[i])
        out.append(lines[i])
        i += 1
        if not match or i >= len(lines) or not lines[i].startswith("```"):
            continue
        fence = lines[i]
        end = i + 1
        while end < len(lines) and lines[end] != "```":
            end += 1
        command, _ = command_lines(lines[i + 1:end])
        if command is None:
            continue
        shown = " ".join(part.rstrip("\\").strip() for part in command)[2:]
        output = run(shown, binary, match.group("filter"))
        out.append(fence)
        out.extend(command)
        out.extend(output)
        out.append("```")
        i = end + 1
        changed += 1
    path.write_text("\n".join(out))
    return changed


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=str(ROOT / "build" / "meshplan"))
    parser.add_argument("files", nargs="*")
    args = parser.parse_args()
    files = [pathlib.Path(f).resolve() for f in args.files] or [ROOT / "README.md", *sorted((ROOT / "docs" / "tour").glob("*.md"))]
    for path in files:
        count = refresh(path, pathlib.Path(args.binary).resolve())
        if count:
            print(f"{path.relative_to(ROOT)}: {count} block(s) refreshed", file=sys.stderr)


if __name__ == "__main__":
    main()
