#!/usr/bin/env python3
"""Checks that the driver's folders form layers that only call downward (the README's tree table).

Every folder of src/ is a leaf or an area (the API faces ze/ and cl/ are the top two areas: the OpenCL face maps onto
the Level Zero face's composition root); one that is neither is an error. Two graphs are checked, each
against the order given on the command line (bottom first):
- includes: every `#include "..."` of a file under src/ is resolved (beside the file, from src/, from the top of any
  folder, or as a generated header of the folder --generated gives it) and must name its own folder, a lower area or
  a leaf; headers found nowhere under src/ (system, public, other trees) are not the check's business;
- symbols: every symbol an object of the core archive or of the faces uses and another of them defines lives in the
  same folder, a lower area or a leaf (read with `nm` from what the build made).
Leaves (the scenario, SPIR-V and tracer-core libraries) may use nothing of any area. Exits 1, listing every arrow
that runs up."""
import argparse
import os
import re
import subprocess
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


class Layers:
    def __init__(self, leaves, areas):
        self.leaves, self.areas = leaves, areas
        self.names = set(leaves) | set(areas)

    def rank(self, folder):
        return -1 if folder in self.leaves else self.areas.index(folder)

    def arrow_up(self, src, dst):
        if src == dst or dst is None:
            return False
        if src in self.leaves:
            return True
        return self.rank(dst) > self.rank(src)

    def order(self):
        return " < ".join(self.leaves + self.areas)


def area_of(path, names):
    top = path.split("/", 1)[0]
    return top if top in names else None


def unlayered_folders(src_dir, layers):
    return [f"folder: src/{d} is in no layer (neither a leaf nor an area)" for d in sorted(os.listdir(src_dir))
            if os.path.isdir(os.path.join(src_dir, d)) and d not in layers.names]


def include_folder(src_dir, path, target, layers, generated):
    """The folder an include in `path` names, or None for a header found nowhere under src/."""
    if os.path.basename(target) in generated:
        return generated[os.path.basename(target)]
    candidates = [os.path.join(os.path.dirname(path), target), target]
    candidates += [os.path.join(d, target) for d in sorted(layers.names)]
    for candidate in candidates:
        resolved = os.path.normpath(candidate)
        if os.path.isfile(os.path.join(src_dir, resolved)):
            return area_of(resolved, layers.names)
    return None


def include_arrows(src_dir, layers, generated):
    bad = []
    for root, _, files in os.walk(src_dir):
        for name in sorted(files):
            if not name.endswith((".c", ".h", ".def")):
                continue
            path = os.path.relpath(os.path.join(root, name), src_dir)
            src = area_of(path, layers.names)
            if src is None:
                continue
            with open(os.path.join(src_dir, path), encoding="utf-8") as f:
                for target in INCLUDE.findall(f.read()):
                    dst = include_folder(src_dir, path, target, layers, generated)
                    if layers.arrow_up(src, dst):
                        bad.append(f"include: {path} ({src}) includes {target} ({dst})")
    return bad


def object_symbols(files):
    """Per object of the archive and the face objects: the symbols it defines and the ones it uses."""
    out = subprocess.run(["nm", "-A", "--defined-only", "-g", *files], capture_output=True, text=True, check=True)
    defined = {}
    for line in out.stdout.splitlines():
        where, _, rest = line.rpartition(":")
        parts = rest.split()
        if len(parts) == 3:
            defined[parts[2]] = os.path.basename(where.split(":")[-1])
    out = subprocess.run(["nm", "-A", "--undefined-only", *files], capture_output=True, text=True, check=True)
    used = []
    for line in out.stdout.splitlines():
        where, _, rest = line.rpartition(":")
        parts = rest.split()
        if parts:
            used.append((os.path.basename(where.split(":")[-1]), parts[-1]))
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


def symbol_arrows(src_dir, files, layers):
    where = object_areas(src_dir, layers.names)
    defined, used = object_symbols(files)
    bad = []
    for obj, symbol in used:
        if symbol not in defined:
            continue
        src, dst = where.get(obj), where.get(defined[symbol])
        if src is not None and layers.arrow_up(src, dst):
            bad.append(f"symbol: {obj} ({src}) uses {symbol} of {defined[symbol]} ({dst})")
    return sorted(set(bad))


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--src", required=True, help="fake_driver/src")
    ap.add_argument("--leaves", nargs="+", required=True)
    ap.add_argument("--areas", nargs="+", required=True, help="bottom first")
    ap.add_argument("--generated", nargs="*", default=[], metavar="HEADER=FOLDER",
                    help="generated headers (they live in the build tree) and the folder each belongs to")
    ap.add_argument("--archive", help="the core static library")
    ap.add_argument("--objects", nargs="*", default=[], help="the faces' object files")
    args = ap.parse_args()
    layers = Layers(args.leaves, args.areas)
    generated = dict(g.split("=", 1) for g in args.generated)
    bad = unlayered_folders(args.src, layers) + include_arrows(args.src, layers, generated)
    if args.archive:
        bad += symbol_arrows(args.src, [args.archive, *args.objects], layers)
    for line in bad:
        print(line)
    print(f"check_layers: {len(bad)} arrows up; order {layers.order()}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
