#!/usr/bin/env python3
"""Checks that the driver's area folders form layers that only call downward (the README's tree table).

Two graphs are checked, each against the order given on the command line (bottom first):
- includes: every `#include "area/..."` of a file under src/<area>/ names its own area, a lower one or a leaf;
- symbols: every symbol an object of the core archive uses and another object of it defines lives in the same area,
  a lower one or a leaf (read with `nm` from the archive the build made).
Leaves (the scenario and SPIR-V libraries) may use nothing of any area. Exits 1, listing every arrow that runs up."""
import argparse
import os
import re
import subprocess
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def area_of(path, names):
    top = path.split("/", 1)[0]
    return top if top in names else None


def rank(area, leaves, areas):
    return -1 if area in leaves else areas.index(area)


def arrow_up(src, dst, leaves, areas):
    if src == dst or dst is None:
        return False
    if src in leaves:
        return True
    return rank(dst, leaves, areas) > rank(src, leaves, areas)


def include_arrows(src_dir, leaves, areas):
    names = set(leaves) | set(areas)
    bad = []
    for root, _, files in os.walk(src_dir):
        for name in sorted(files):
            if not name.endswith((".c", ".h")):
                continue
            path = os.path.relpath(os.path.join(root, name), src_dir)
            src = area_of(path, names)
            if src is None:
                continue
            with open(os.path.join(src_dir, path), encoding="utf-8") as f:
                for target in INCLUDE.findall(f.read()):
                    dst = area_of(target, names)
                    if arrow_up(src, dst, leaves, areas):
                        bad.append(f"include: {path} ({src}) includes {target} ({dst})")
    return bad


def archive_symbols(archive):
    """Per object of the archive: the symbols it defines and the ones it uses."""
    out = subprocess.run(["nm", "-A", "--defined-only", "-g", archive], capture_output=True, text=True, check=True)
    defined = {}
    for line in out.stdout.splitlines():
        where, _, rest = line.rpartition(":")
        parts = rest.split()
        if len(parts) == 3:
            defined[parts[2]] = where.split(":")[-1]
    out = subprocess.run(["nm", "-A", "--undefined-only", archive], capture_output=True, text=True, check=True)
    used = []
    for line in out.stdout.splitlines():
        where, _, rest = line.rpartition(":")
        parts = rest.split()
        if parts:
            used.append((where.split(":")[-1], parts[-1]))
    return defined, used


def object_areas(src_dir, names):
    """Object file name (as CMake names it: <source>.o) to area, from the sources under src/."""
    areas = {}
    for root, _, files in os.walk(src_dir):
        for name in files:
            if name.endswith(".c"):
                path = os.path.relpath(os.path.join(root, name), src_dir)
                area = area_of(path, names)
                if area is not None:
                    if name + ".o" in areas and areas[name + ".o"] != area:
                        sys.exit(f"check_layers: two sources named {name} in different areas")
                    areas[name + ".o"] = area
    return areas


def symbol_arrows(src_dir, archive, leaves, areas):
    names = set(leaves) | set(areas)
    where = object_areas(src_dir, names)
    defined, used = archive_symbols(archive)
    bad = []
    for obj, symbol in used:
        if symbol not in defined:
            continue
        src, dst = where.get(obj), where.get(defined[symbol])
        if src is not None and arrow_up(src, dst, leaves, areas):
            bad.append(f"symbol: {obj} ({src}) uses {symbol} of {defined[symbol]} ({dst})")
    return sorted(set(bad))


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--src", required=True, help="fake_driver/src")
    ap.add_argument("--leaves", nargs="+", required=True)
    ap.add_argument("--areas", nargs="+", required=True, help="bottom first")
    ap.add_argument("--archive", help="the core static library")
    args = ap.parse_args()
    bad = include_arrows(args.src, args.leaves, args.areas)
    if args.archive:
        bad += symbol_arrows(args.src, args.archive, args.leaves, args.areas)
    for line in bad:
        print(line)
    print(f"check_layers: {len(bad)} arrows up; order {' < '.join(args.leaves)} < {' < '.join(args.areas)}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
