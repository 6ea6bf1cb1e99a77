"""The one reader of the installed OpenCL headers (opencl-headers' CL/cl_icd.h), for the OpenCL face's generator.

load() returns the ICD dispatch table as the loader sees it: its slots in order, each with the function's return
type and parameters from the `cl_api_<name>` typedef of the OpenCL 3.0 branch. Inconsistent headers stop the build
with a message starting "clheaders:".
"""
import os
import re
from dataclasses import dataclass

DEFAULT_HEADERS = "/usr/include/CL"

TYPEDEF = re.compile(r"typedef\s+([\w\s\*]+?)\s*\(\s*CL_API_CALL\s*\*\s*cl_api_(\w+)\s*\)\s*\((.*?)\)\s*"
                     r"(?:CL_API_SUFFIX\w*|CL_EXT_SUFFIX\w*)?\s*;", re.S)
TABLE = re.compile(r"typedef\s+struct\s+_cl_icd_dispatch\s*\{(.*?)\}\s*cl_icd_dispatch\s*;", re.S)
TYPE_WORDS = {"void", "char", "int", "size_t", "unsigned"}
PLACEHOLDER = re.compile(r"typedef\s+void\s*\*\s*cl_api_(\w+)\s*;")
SLOT = re.compile(r"cl_api_(\w+)\s+(\w+)\s*;")


@dataclass
class Slot:
    name: str
    ret: str  # None: a `typedef void *` placeholder (a Windows-only function)
    params: list  # [(C declaration, parameter name)]

    @property
    def errcode(self):
        """The name of the trailing `cl_int *errcode_ret` parameter, or None."""
        if self.params and re.match(r"cl_int\s*\*", self.params[-1][0]):
            return self.params[-1][1]
        return None


def split_params(text):
    text = re.sub(r"/\*.*?\*/", "", " ".join(text.split()), flags=re.S).strip()
    if text in ("", "void"):
        return []
    out, depth, cur = [], 0, ""
    for ch in text:
        depth += ch == "("
        depth -= ch == ")"
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    out.append(cur.strip())
    params = []
    for i, decl in enumerate(out):
        last = re.search(r"(\w+)\s*$", decl)
        decl = re.sub(r"\(\s*CL_CALLBACK\s*\*\s*\)", f"(CL_CALLBACK *arg{i})", decl)
        if decl.endswith("*") or (last and (last.group(1).startswith("cl_") or last.group(1) in TYPE_WORDS)):
            decl = f"{decl} arg{i}"  # the typedef leaves the parameter unnamed
        m = re.search(r"\(\s*CL_CALLBACK\s*\*\s*(\w+)\s*\)", decl) or re.search(r"(\w+)\s*(\[\s*\w*\s*\])*$", decl)
        if not m:
            raise SystemExit(f"clheaders: cannot read the parameter `{decl}`")
        params.append((decl, m.group(1)))
    return params


def without_windows(text):
    """The header as a Linux compiler sees it: the `#if defined(_WIN32)` branches dropped (their slots are then
    `typedef void *` placeholders, whose `#else` branch is kept)."""
    out, stack = [], []  # stack: per open #if, whether its current branch is skipped (only _WIN32 ones are)
    windows = []  # per open #if, whether it tests _WIN32
    for line in text.splitlines():
        s = line.strip()
        if s.startswith("#if"):
            windows.append("_WIN32" in s and "defined" in s)
            stack.append(windows[-1])
            continue
        if s.startswith("#else") and stack:
            stack[-1] = windows[-1] and not stack[-1]
            continue
        if s.startswith("#endif") and stack:
            stack.pop()
            windows.pop()
            continue
        if not any(stack):
            out.append(line)
    return "\n".join(out)


def load(headers=DEFAULT_HEADERS):
    with open(os.path.join(headers, "cl_icd.h"), encoding="utf-8") as f:
        text = without_windows(f.read())
    typedefs = {}
    for ret, name, params in TYPEDEF.findall(text):
        typedefs.setdefault(name, (" ".join(ret.split()), split_params(params)))
    for name in PLACEHOLDER.findall(text):
        typedefs.setdefault(name, (None, []))
    table = TABLE.search(text)
    if not table:
        raise SystemExit("clheaders: no cl_icd_dispatch structure in cl_icd.h")
    slots = []
    for typ, field in SLOT.findall(table.group(1)):
        if typ != field or typ not in typedefs:
            raise SystemExit(f"clheaders: the slot {field} has no typedef cl_api_{typ}")
        slots.append(Slot(field, *typedefs[typ]))
    return slots
