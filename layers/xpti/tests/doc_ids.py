#!/usr/bin/env python3
"""Keeps the function-id table of docs/xpti.md equal to the build's (zxgen.py writes xpti-function-ids.md).

  doc_ids.py check  <generated table> <docs/xpti.md>   fails when the section between the markers differs
  doc_ids.py update <generated table> <docs/xpti.md>   replaces that section
"""
import sys

BEGIN = "<!-- function-ids:begin"
END = "<!-- function-ids:end -->\n"


def split(doc):
    start = doc.find(BEGIN)
    end = doc.find(END, start)
    if start < 0 or end < 0:
        raise SystemExit("doc_ids: docs/xpti.md lacks the function-ids markers")
    return doc[:start], doc[start:end + len(END)], doc[end + len(END):]


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in ("check", "update"):
        raise SystemExit(__doc__)
    with open(sys.argv[2], encoding="utf-8") as f:
        table = f.read()
    with open(sys.argv[3], encoding="utf-8") as f:
        doc = f.read()
    before, current, after = split(doc)
    if sys.argv[1] == "update":
        with open(sys.argv[3], "w", encoding="utf-8") as f:
            f.write(before + table + after)
        return 0
    if current != table:
        print("doc_ids: the function-id table of docs/xpti.md differs from the build's; run "
              "cmake --build <build> --target xpti-doc", file=sys.stderr)
        return 1
    print(f"doc_ids: docs/xpti.md lists the build's {table.count(chr(10)) - 3} function ids")
    return 0


if __name__ == "__main__":
    sys.exit(main())
