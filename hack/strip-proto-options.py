#!/usr/bin/env python3
"""Strips the code-generation options from etcd's .proto files.

etcd's protos carry options of gogoproto (Go code generation), google.api.http
and openapiv2 (the JSON gateway) and versionpb (etcd's WAL versioning). None
changes a message's wire format, and protoc cannot compile them without their
own .proto files, so this drops them and their imports:

  * `import "<one of those>";` lines;
  * `option (<one of those>...) = ...;` statements, also multi-line `{...}` ones;
  * `[(<one of those>...) = ...]` field options (the other options in the same
    brackets are kept).

Everything else (comments included) is copied unchanged.

  strip-proto-options.py IN OUT
"""
import re
import sys

DROPPED = ("gogoproto", "google.api", "grpc.gateway", "versionpb")
DROPPED_IMPORTS = ("gogoproto/", "google/api/", "protoc-gen-openapiv2/", "etcd/api/versionpb/")


def dropped(option):
    name = option.strip()
    return name.startswith("(") and name[1:].startswith(DROPPED)


def split_top_level(text):
    """Splits `a, b` at commas that are outside quotes."""
    parts, current, quoted = [], "", False
    for ch in text:
        if ch == '"':
            quoted = not quoted
        if ch == "," and not quoted:
            parts.append(current)
            current = ""
        else:
            current += ch
    parts.append(current)
    return parts


def strip_field_options(line):
    def repl(match):
        kept = [o.strip() for o in split_top_level(match.group(1)) if not dropped(o)]
        return " [" + ", ".join(kept) + "]" if kept else ""

    return re.sub(r"\s*\[([^\]]*)\]", repl, line)


def strip(text):
    out = []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        imp = re.match(r'import\s+"([^"]+)";', stripped)
        if imp and imp.group(1).startswith(DROPPED_IMPORTS):
            i += 1
            continue
        opt = re.match(r"option\s+(\([^)]*\))", stripped)
        if opt and dropped(opt.group(1)):
            # Skip the statement: up to the `;` that ends it outside braces.
            depth = 0
            while True:
                for ch in lines[i]:
                    depth += ch == "{"
                    depth -= ch == "}"
                if depth == 0 and lines[i].rstrip().endswith(";"):
                    break
                i += 1
            i += 1
            continue
        out.append(strip_field_options(line))
        i += 1
    return "\n".join(out)


def main():
    src, dst = sys.argv[1], sys.argv[2]
    with open(src, encoding="utf-8") as f:
        text = f.read()
    with open(dst, "w", encoding="utf-8") as f:
        f.write(strip(text))


if __name__ == "__main__":
    main()
