#!/usr/bin/env python3
"""Generates the fake driver's boilerplate from the installed Level Zero headers.

The headers are the API registry on the user's machine: every function, its parameters, the dispatch tables that
carry it and the rules of its `@returns` block. From them this script writes, into the build tree:

  zf_generated.h      API ids, object types, the API info table and the prototypes of hand-written implementations
  zf_entry_points.c   one entry point per API function (argument checks, handle checks, dispatch) and the getters
  zf_api_table.c      names, versions and implementation status of every function; result-code names
  ze_fake.map         the linker version script: only the getters are exported
  api-support.md      the supported-API table that docs/api-support.md must equal
  zc_argcheck_cases.h the conformance suite's generated argument-check cases

A function is implemented when the hand-written sources define `ze_result_t zfi_<name>(...)`; the generated
prototype makes the compiler check that its signature matches the headers.
"""

import argparse
import os
import re
import sys
from dataclasses import dataclass, field

HEADER_SETS = [("ze", "ze_api.h", "ze_ddi.h"), ("zet", "zet_api.h", "zet_ddi.h"), ("zes", "zes_api.h", "zes_ddi.h")]


@dataclass
class Param:
    ctype: str
    name: str
    notes: str

    @property
    def optional(self):
        return "[optional]" in self.notes


@dataclass
class Rule:
    result: str
    expr: str  # the rule as written in the header
    cexpr: str  # the same rule as a C expression


@dataclass
class Function:
    name: str
    params: list
    rules: list = field(default_factory=list)
    table: str = ""  # dispatch table type, e.g. ze_device_dditable_t
    slot: str = ""  # slot name, e.g. pfnGetProperties
    version: tuple = (1, 0)
    implemented: bool = False


@dataclass
class Table:
    ctype: str
    getter: str
    slots: list  # (slot name, function name)


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def parse_handles(texts):
    """Returns {handle type: canonical handle type} for every handle typedef, aliases resolved."""
    canonical = {}
    for text in texts:
        for m in re.finditer(r"^typedef struct _(\w+_handle_t) \*(\w+);", text, re.M):
            if m.group(1) == m.group(2):
                canonical[m.group(2)] = m.group(2)
    for text in texts:
        for m in re.finditer(r"^typedef (\w+_handle_t) (\w+_handle_t);", text, re.M):
            if m.group(1) in canonical:
                canonical[m.group(2)] = canonical[m.group(1)]
    return canonical


def parse_result_names(text):
    return re.findall(r"^\s+(ZE_RESULT_\w+) = ", text, re.M)


def translate_rule(expr, param_names):
    """Turns a header rule (C++ flavoured, with `::` references) into a C expression, guarding dereferences."""
    c = expr.replace("nullptr", "NULL").replace("_::", "_").replace("::", "")
    derefs = sorted({m.group(1) for m in re.finditer(r"\b(\w+)->", c) if m.group(1) in param_names})
    for name in derefs:
        c = f"(NULL != {name}) && ({c})"
    return c


FUNC_RE = re.compile(r"^ZE_APIEXPORT ze_result_t ZE_APICALL\n(\w+)\(\n(.*?)\n    \);", re.M | re.S)
PARAM_RE = re.compile(r"^\s+(.+?)\s*(\w+)\s*,?\s*(?:///<(.*))?$")


def parse_params(block):
    params = []
    for line in block.split("\n"):
        if line.strip().startswith("///") or not line.strip():
            if params and line.strip().startswith("///"):
                params[-1].notes += " " + line.strip().lstrip("/").strip()
            continue
        m = PARAM_RE.match(line)
        if not m:
            raise SystemExit(f"zfgen: cannot parse parameter line: {line!r}")
        ctype = m.group(1).strip()
        if ctype == "void" and not m.group(2):
            continue
        params.append(Param(ctype, m.group(2), (m.group(3) or "").strip()))
    return params


def parse_returns(comment_lines):
    """Reads the `@returns` block: a list of (result, [rule text]) in the order written."""
    results = []
    in_returns = False
    for line in comment_lines:
        body = line[3:] if line.startswith("///") else line
        if body.strip() == "@returns":
            in_returns = True
            continue
        if not in_returns:
            continue
        m = re.match(r"^\s+- ::(ZE_RESULT_\w+)", body)
        if m:
            results.append((m.group(1), []))
            continue
        m = re.match(r"^\s+\+ `(.*)`\s*$", body)
        if m and results:
            results[-1][1].append(m.group(1))
    return results


def parse_functions(text):
    functions = []
    for m in FUNC_RE.finditer(text):
        start = m.start()
        comment = []
        lines = text[:start].split("\n")
        for line in reversed(lines[:-1]):
            if not line.startswith("///"):
                break
            comment.insert(0, line)
        params = parse_params(m.group(2))
        names = {p.name for p in params}
        fn = Function(m.group(1), params)
        # A `nullptr == p` rule on a parameter annotated [mbz] ("must be nullptr") contradicts the annotation (1.4's
        # zetCommandListAppendMetricQueryEnd): applying it would reject every correct call, so the annotation wins.
        # So does a parameter whose own text gives NULL a meaning ("If nullptr then implementation will choose a
        # start address": 1.4's zeVirtualMemReserve, whose later headers drop the rule).
        mbz = {p.name for p in params if "[mbz]" in p.notes or re.search(r"\b[Ii]f nullptr\b", p.notes)}
        for result, rules in parse_returns(comment):
            for rule in rules:
                m = re.fullmatch(r"nullptr == (\w+)", rule)
                if m and m.group(1) in mbz:
                    continue
                fn.rules.append(Rule(result, rule, translate_rule(rule, names)))
        functions.append(fn)
    return functions


def parse_tables(ddi_text):
    pfn_to_func = dict(
        (m.group(2), m.group(1))
        for m in re.finditer(r"/// @brief Function-pointer for (\w+) ?\ntypedef ze_result_t \(ZE_APICALL \*(\w+)\)",
                             ddi_text))
    tables = []
    for m in re.finditer(r"typedef struct _(\w+_dditable_t)\n\{\n(.*?)\n\} \1;", ddi_text, re.S):
        slots = []
        for line in m.group(2).split("\n"):
            sm = re.match(r"\s+(\w+)\s+(pfn\w+);", line)
            if sm:
                slots.append((sm.group(2), pfn_to_func[sm.group(1)]))
        if not slots:
            continue  # the aggregate of all tables (ze_dditable_t) has no getter of its own
        gm = re.search(r"^(\w+)\(\n\s+ze_api_version_t version,[^\n]*\n\s+" + m.group(1) + r"\* pDdiTable", ddi_text,
                       re.M)
        if not gm:
            raise SystemExit(f"zfgen: no getter found for {m.group(1)}")
        tables.append(Table(m.group(1), gm.group(1), slots))
    return tables


def parse_versions(path):
    versions = {}
    for line in read(path).splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        name, ver = line.split()
        major, minor = ver.split(".")
        versions[name] = (int(major), int(minor))
    return versions


def current_version(ze_api_text):
    m = re.search(r"ZE_API_VERSION_CURRENT = ZE_MAKE_VERSION\( (\d+), (\d+) \)", ze_api_text)
    return (int(m.group(1)), int(m.group(2)))


def find_implemented(sources):
    implemented = set()
    for path in sources:
        for m in re.finditer(r"^ze_result_t\s+zfi_(\w+)\s*\(", read(path), re.M):
            implemented.add(m.group(1))
    return implemented


def obj_enum(handle_type):
    return "ZF_OBJ_" + handle_type[: -len("_handle_t")].upper()


def param_decl(p):
    return f"{p.ctype} {p.name}"


def signature(fn):
    return ", ".join(param_decl(p) for p in fn.params) or "void"


def emit_checks(fn, handles, out):
    """Argument checks in the order of the header's @returns block; handle liveness right after the NULL handles."""
    api = f"ZF_API_{fn.name}"
    null_handle_rules = [r for r in fn.rules if r.result == "ZE_RESULT_ERROR_INVALID_NULL_HANDLE"]
    other_rules = [r for r in fn.rules if r.result != "ZE_RESULT_ERROR_INVALID_NULL_HANDLE"]
    for rule in null_handle_rules:
        emit_rule(api, rule, out)
    if fn.implemented:
        for p in fn.params:
            if p.ctype in handles:
                guard = f"NULL != {p.name} && " if p.optional else ""
                out.append(f"    if ({guard}!zf_handle_is_live({p.name}, {obj_enum(handles[p.ctype])}))\n"
                           f"        return zf_reject_handle({api}, \"{p.name}\", {p.name});\n")
    for rule in other_rules:
        emit_rule(api, rule, out)


def emit_rule(api, rule, out):
    text = rule.expr.replace("\\", "\\\\").replace('"', '\\"')
    out.append(f"    if ({rule.cexpr})\n        return zf_reject_argument({api}, {rule.result}, \"{text}\");\n")


@dataclass
class Callback:
    """The tracing callback of one core function, as declared in ze_api.h (or zel_tracing_register_cb.h)."""
    function: str
    params_type: str  # the params struct, e.g. ze_device_get_properties_params_t
    fields: list  # its members in order: "p" + each parameter's name
    cb_type: str  # e.g. ze_pfnDeviceGetPropertiesCb_t
    member: str = ""  # its slot in ze_callbacks_t, e.g. Device.pfnGetPropertiesCb; "" when the table has none


# Newer headers put blank lines between a declaration's comment and the declaration itself.
CB_PARAMS_RE = re.compile(r"@brief Callback function parameters for (\w+) ?\n(?:///[^\n]*\n|\n)*"
                          r"typedef struct _(\w+)\n\{\n(.*?)\n\} \2;", re.S)
CB_TYPE_RE = re.compile(r"@brief Callback function-pointer for (\w+) ?\n(?:///[^\n]*\n|\n)*"
                        r"typedef void \(ZE_APICALL \*(\w+)\)")
CB_TABLE_RE = re.compile(r"typedef struct _(\w+_callbacks_t)\n\{\n(.*?)\n\} \1;", re.S)


def parse_callback_tables(text):
    """{callback type: "Table.pfnSlot"} for the tables of ze_callbacks_t (the frozen 1.0 set)."""
    tables = {}
    for m in CB_TABLE_RE.finditer(text):
        tables[m.group(1)] = re.findall(r"^\s+(\w+)\s+(\w+);", m.group(2), re.M)
    members = {}
    for sub_type, sub_name in tables.get("ze_callbacks_t", []):
        for cb_type, slot in tables.get(sub_type, []):
            members[cb_type] = f"{sub_name}.{slot}"
    return members


def parse_callbacks(text):
    """{function name: Callback} for every function whose params struct and callback type `text` declares."""
    params = {}
    for m in CB_PARAMS_RE.finditer(text):
        fields = [re.search(r"(\w+);\s*$", line).group(1) for line in m.group(3).split("\n") if line.strip()]
        params[m.group(1)] = (m.group(2), fields)
    members = parse_callback_tables(text)
    callbacks = {}
    for name, cb_type in CB_TYPE_RE.findall(text):
        if name not in params:
            raise SystemExit(f"zfgen: {cb_type} has no params struct for {name}")
        params_type, fields = params[name]
        callbacks[name] = Callback(name, params_type, fields, cb_type, members.get(cb_type, ""))
    return callbacks


def check_callback(fn, cb):
    """The params struct must hold a pointer to each parameter, in order, or the generated initialiser is wrong."""
    wanted = ["p" + p.name for p in fn.params]
    if cb.fields != wanted:
        raise SystemExit(f"zfgen: {cb.params_type} has members {cb.fields}, expected {wanted}")


def attach_trace_info(functions, ze_api_text):
    """Marks the functions a driver-side tracer can follow: those with a slot in ze_callbacks_t, the only callback
    set zetTracerExpSetPrologues/SetEpilogues take."""
    for name, cb in parse_callbacks(ze_api_text).items():
        if cb.member and name in functions:
            check_callback(functions[name], cb)
            functions[name].callback = cb


def emit_trace_thunks(fn, cb, out):
    """The two typed helpers the generic tracing code needs: fetch this function's callback from a ze_callbacks_t
    and call it with its real type (the generic zf_trace_cb is converted back, which C defines)."""
    out.append(f"static zf_trace_cb zf_trace_pick_{fn.name}(const ze_callbacks_t *table)\n{{\n"
               f"    return (zf_trace_cb)table->{cb.member};\n}}\n\n")
    out.append(f"static void zf_trace_run_{fn.name}(zf_trace_cb cb, void *params, ze_result_t result, void *user_data, "
               f"void **instance)\n{{\n"
               f"    (({cb.cb_type})cb)(params, result, user_data, instance);\n}}\n\n")
    out.append(f"static const zf_trace_api zf_trace_api_{fn.name} = {{zf_trace_pick_{fn.name}, "
               f"zf_trace_run_{fn.name}}};\n\n")


def emit_traced_entry(fn, cb, out):
    """The entry point of a traceable function. Prologues run before the argument checks (as around the whole call in
    Intel's driver and in the loader's layer): the checks then judge the arguments a prologue may have changed, and
    the epilogues see every result, rejections included. Without an enabled tracer the cost is one relaxed load."""
    args = ", ".join(p.name for p in fn.params)
    inits = ", ".join(f".p{p.name} = &{p.name}" for p in fn.params)
    emit_trace_thunks(fn, cb, out)
    out.append(f"static ze_result_t ZE_APICALL zf_entry_{fn.name}({signature(fn)})\n{{\n")
    out.append(f"    if (!zf_trace_active())\n        return zf_checked_{fn.name}({args});\n")
    out.append(f"    {cb.params_type} params = {{{inits}}};\n    zf_trace_call call;\n")
    out.append(f"    zf_trace_begin(&call, &zf_trace_api_{fn.name}, &params);\n")
    out.append(f"    const ze_result_t result = zf_checked_{fn.name}({args});\n")
    out.append("    return zf_trace_end(&call, result);\n}\n\n")


def emit_entry(fn, handles, out):
    cb = getattr(fn, "callback", None)
    if cb is not None:
        out.append(f"static ze_result_t zf_checked_{fn.name}({signature(fn)})\n{{\n")
    else:
        out.append(f"static ze_result_t ZE_APICALL zf_entry_{fn.name}({signature(fn)})\n{{\n")
    if fn.name != "zeInit":
        out.append(f"    if (!zf_driver_is_initialized())\n        return zf_reject_uninitialized(ZF_API_{fn.name});\n")
    emit_checks(fn, handles, out)
    if fn.implemented:
        args = ", ".join(p.name for p in fn.params)
        out.append(f"    zf_call_scope scope;\n    zf_call_enter(&scope, ZF_API_{fn.name});\n")
        out.append(f"    const ze_result_t result = zfi_{fn.name}({args});\n")
        out.append("    return zf_call_leave(&scope, result);\n")
    else:
        out.append(f"    return zf_unsupported(ZF_API_{fn.name});\n")
    out.append("}\n\n")
    if cb is not None:
        emit_traced_entry(fn, cb, out)


def emit_getter(table, functions, out):
    out.append(f"ZE_DLLEXPORT ze_result_t ZE_APICALL {table.getter}(ze_api_version_t version, {table.ctype} *pDdiTable)\n")
    out.append("{\n    if (NULL == pDdiTable)\n        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;\n")
    out.append("    if (ZE_MAJOR_VERSION(version) != 1)\n        return ZE_RESULT_ERROR_UNSUPPORTED_VERSION;\n")
    if any(functions[f].version[1] > 0 for _, f in table.slots):
        out.append("    const uint32_t minor = ZE_MINOR_VERSION(version);\n")
    for slot, fname in table.slots:
        fn = functions[fname]
        if fn.version[1] == 0:
            out.append(f"    pDdiTable->{slot} = zf_entry_{fname};\n")
        else:
            out.append(f"    if (minor >= {fn.version[1]}u)\n        pDdiTable->{slot} = zf_entry_{fname};\n")
    out.append("    return ZE_RESULT_SUCCESS;\n}\n\n")


def write_if_changed(path, text):
    if os.path.exists(path) and read(path) == text:
        return
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def gen_header(functions, ordered, handles, results):
    out = ["/* Generated by fake_driver/gen/zfgen.py from the installed Level Zero headers. Do not edit. */\n",
           "#ifndef ZF_GENERATED_H\n#define ZF_GENERATED_H\n\n",
           "#include <level_zero/ze_api.h>\n#include <level_zero/zes_api.h>\n#include <level_zero/zet_api.h>\n",
           "#include <stdbool.h>\n#include <stdint.h>\n\n"]
    out.append("typedef enum zf_api_id {\n")
    out += [f"    ZF_API_{n},\n" for n in ordered]
    out.append("    ZF_API_COUNT\n} zf_api_id;\n\n")
    out.append("typedef enum zf_obj_type {\n    ZF_OBJ_NONE = 0,\n")
    out += [f"    {obj_enum(h)},\n" for h in sorted(set(handles.values()))]
    out.append("    ZF_OBJ_TYPE_COUNT\n} zf_obj_type;\n\n")
    out.append("typedef struct zf_api_info {\n    const char *name;\n    uint32_t version; /* ZE_MAKE_VERSION */\n"
               "    bool implemented;\n} zf_api_info;\n\n")
    out.append("extern const zf_api_info zf_api_table[ZF_API_COUNT];\n")
    out.append(f"#define ZF_API_IMPLEMENTED_COUNT {sum(1 for n in ordered if functions[n].implemented)}u\n\n")
    out.append("/* The name of a result code (\"ZE_RESULT_...\"), or NULL if it has none. */\n")
    out.append("const char *zf_result_name(ze_result_t result);\n")
    out.append("/* The name of an object type, for diagnostics. */\nconst char *zf_obj_type_name(zf_obj_type type);\n\n")
    out.append("/* Hand-written implementations (fake_driver/src), called after the generated checks passed. */\n")
    for n in ordered:
        if functions[n].implemented:
            out.append(f"ze_result_t zfi_{n}({signature(functions[n])});\n")
    out.append("\n#endif\n")
    return "".join(out)


def gen_table(functions, ordered, handles, results):
    out = ["/* Generated by fake_driver/gen/zfgen.py from the installed Level Zero headers. Do not edit. */\n",
           '#include "zf_generated.h"\n\n#include <stddef.h>\n\n',
           "const zf_api_info zf_api_table[ZF_API_COUNT] = {\n"]
    for n in ordered:
        fn = functions[n]
        out.append(f'    [ZF_API_{n}] = {{"{n}", ZE_MAKE_VERSION({fn.version[0]}, {fn.version[1]}), '
                   f'{"true" if fn.implemented else "false"}}},\n')
    out.append("};\n\nconst char *zf_result_name(ze_result_t result)\n{\n    switch ((uint32_t)result) {\n")
    seen = set()
    for r in results:
        if r.endswith("FORCE_UINT32"):
            continue
        out.append(f'    case (uint32_t){r}:\n        return "{r}";\n')
        seen.add(r)
    out.append("    default:\n        return NULL;\n    }\n}\n\n")
    out.append("const char *zf_obj_type_name(zf_obj_type type)\n{\n    switch (type) {\n")
    for h in sorted(set(handles.values())):
        out.append(f'    case {obj_enum(h)}:\n        return "{h[:-len("_handle_t")]}";\n')
    out.append('    default:\n        return "none";\n    }\n}\n')
    return "".join(out)


def gen_entry_points(functions, ordered, tables, handles):
    out = ["/* Generated by fake_driver/gen/zfgen.py from the installed Level Zero headers. Do not edit.\n",
           " * One entry point per API function: the header's argument rules, handle liveness, then the\n",
           " * hand-written implementation or UNSUPPORTED_FEATURE. The getters below are the only exports. */\n",
           '#include "core/zf_core.h"\n#include "core/zf_object.h"\n#include "tools/zf_tracer.h"\n#include "zf_generated.h"\n\n',
           "#include <level_zero/ze_ddi.h>\n#include <level_zero/zes_ddi.h>\n#include <level_zero/zet_ddi.h>\n",
           "#include <stddef.h>\n\n"]
    for n in ordered:
        emit_entry(functions[n], handles, out)
    for t in tables:
        emit_getter(t, functions, out)
    return "".join(out)


def gen_map(tables):
    names = "".join(f"    {t.getter};\n" for t in tables)
    return "{\n  global:\n" + names + "  local:\n    *;\n};\n"


def gen_support_md(functions, ordered):
    """The supported-API table. Every core function is implemented or has a reason in unsupported_reasons.txt (next
    to this script); a core function with neither, or a reason for a function that is implemented or unknown, stops
    the build, so the table can neither drift nor hide an unexplained gap."""
    reasons_path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "unsupported_reasons.txt")
    reasons = {}
    for number, line in enumerate(read(reasons_path).splitlines(), 1):
        line = line.strip()
        if line and not line.startswith("#"):
            name, _, reason = line.partition(" ")
            if not reason.strip():
                raise SystemExit(f"zfgen: {reasons_path}:{number}: {name} has no reason")
            reasons[name] = reason.strip()
    problems = [f"{n} is not an API function of the headers" for n in reasons if n not in functions]
    problems += [f"{n} is implemented: remove its reason" for n in reasons
                 if n in functions and functions[n].implemented]
    problems += [f"{n} is neither implemented nor given a reason" for n in ordered
                 if re.match(r"ze[A-Z]", n) and not functions[n].implemented and n not in reasons]
    if problems:
        raise SystemExit(f"zfgen: {reasons_path}: " + "; ".join(problems))
    impl = sum(1 for n in ordered if functions[n].implemented)
    out = ["# Supported API\n\n",
           "Generated at build time from the installed headers and the driver's sources (`fake_driver/gen/zfgen.py`);",
           " a test fails when this file differs from the build's copy, so it cannot drift. Regenerate with",
           " `cmake --build build --target api-support-doc`.\n\n",
           f"{impl} of {len(ordered)} functions implemented. Every other function answers",
           " `ZE_RESULT_ERROR_UNSUPPORTED_FEATURE` after its argument checks. Every core function that is not",
           " implemented has its reason (`fake_driver/gen/unsupported_reasons.txt`); the build fails without one.\n\n"]
    for prefix, title in (("ze", "Core (ze)"), ("zet", "Tools (zet)"), ("zes", "Sysman (zes)")):
        names = [n for n in ordered if re.match(prefix + r"[A-Z]", n)]
        done = sum(1 for n in names if functions[n].implemented)
        out.append(f"## {title}: {done} of {len(names)}\n\n| function | since | status |\n|---|---|---|\n")
        for n in names:
            fn = functions[n]
            status = "implemented" if fn.implemented else "unsupported"
            if not fn.implemented and n in reasons:
                status += ": " + reasons[n].replace("|", "\\|")
            out.append(f"| `{n}` | {fn.version[0]}.{fn.version[1]} | {status} |\n")
        out.append("\n")
    return "".join(out)


# Handle types the conformance fixture can provide, and the field of its zc_argcheck_args that holds each.
ARGCHECK_HANDLES = {"ze_driver_handle_t": "driver", "ze_device_handle_t": "device", "ze_context_handle_t": "context"}


def argcheck_argument(fn, index, p, handles):
    """The C expression the generated caller passes for parameter `p`, or None when the fixture cannot provide it."""
    if p.ctype in handles:
        canonical = handles[p.ctype]
        if canonical in ARGCHECK_HANDLES:
            return f"({p.ctype})a->{ARGCHECK_HANDLES[canonical]}"
        return "NULL" if p.optional else None
    if "*" in p.ctype:
        return f"({p.ctype})a->scratch[{index}]"
    return f"({p.ctype}){{0}}"


def gen_argcheck_cases(functions, ordered, handles):
    """Cases for the conformance suite: for each rule `nullptr == <param>`, a caller that passes NULL there and
    valid handles and zeroed scratch memory everywhere else, with the result the header says it must give.

    A case is generated only when every other handle argument can come from the fixture (a driver, a device, a
    context), so each case is meaningful on any implementation, not only on the fake."""
    calls, cases = [], []
    for n in ordered:
        fn = functions[n]
        for r in fn.rules:
            m = re.fullmatch(r"nullptr == (\w+)", r.expr)
            if not m:
                continue
            target = [p.name for p in fn.params].index(m.group(1))
            args = []
            for i, p in enumerate(fn.params):
                args.append("NULL" if i == target else argcheck_argument(fn, i, p, handles))
            if None in args:
                continue
            caller = f"zc_call_{n}_{m.group(1)}"
            calls.append(f"static ze_result_t {caller}(const zc_argcheck_args *a)\n{{\n"
                         f"    (void)a;\n    return {n}({', '.join(args)});\n}}\n\n")
            cases.append(f'    {{"{n}", "{m.group(1)}", {r.result}, {caller}}},\n')
    return ("/* Generated by fake_driver/gen/zfgen.py from the installed Level Zero headers. Do not edit.\n"
            " * Include after defining zc_argcheck_args (driver, device, context, scratch[]) and zc_argcheck_case. */\n\n"
            + "".join(calls) + "static const zc_argcheck_case zc_argcheck_cases[] = {\n" + "".join(cases) + "};\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--headers", required=True, help="directory holding ze_api.h and friends")
    ap.add_argument("--versions", required=True, help="api_versions.txt")
    ap.add_argument("--out", required=True, help="output directory")
    ap.add_argument("sources", nargs="*", help="hand-written C sources to scan for zfi_ implementations")
    args = ap.parse_args()

    api_texts = {p: read(os.path.join(args.headers, a)) for p, a, _ in HEADER_SETS}
    ddi_texts = {p: read(os.path.join(args.headers, d)) for p, _, d in HEADER_SETS}
    handles = parse_handles(api_texts.values())
    results = parse_result_names(api_texts["ze"])
    functions = {}
    for p, _, _ in HEADER_SETS:
        for fn in parse_functions(api_texts[p]):
            functions[fn.name] = fn
    tables = []
    for p, _, _ in HEADER_SETS:
        tables += parse_tables(ddi_texts[p])

    attach_trace_info(functions, api_texts["ze"])

    known_versions = parse_versions(args.versions)
    newest = current_version(api_texts["ze"])
    ordered = []
    for t in tables:
        for slot, fname in t.slots:
            if fname not in functions:
                raise SystemExit(f"zfgen: {t.ctype}.{slot} names {fname}, which the API headers do not declare")
            fn = functions[fname]
            fn.table, fn.slot = t.ctype, slot
            if fname in known_versions:
                fn.version = known_versions[fname]
            else:
                fn.version = newest
                print(f"zfgen: {fname} is not in api_versions.txt; assuming it is as new as the headers "
                      f"({newest[0]}.{newest[1]})")
            ordered.append(fname)
    missing = sorted(set(functions) - set(ordered))
    if missing:
        raise SystemExit(f"zfgen: functions without a dispatch slot: {', '.join(missing)}")

    implemented = find_implemented(args.sources)
    unknown = sorted(implemented - set(functions))
    if unknown:
        raise SystemExit(f"zfgen: zfi_ implementations of functions the headers do not declare: {', '.join(unknown)}")
    for n in implemented:
        functions[n].implemented = True

    os.makedirs(args.out, exist_ok=True)
    outputs = {
        "zf_generated.h": gen_header(functions, ordered, handles, results),
        "zf_api_table.c": gen_table(functions, ordered, handles, results),
        "zf_entry_points.c": gen_entry_points(functions, ordered, tables, handles),
        "ze_fake.map": gen_map(tables),
        "api-support.md": gen_support_md(functions, ordered),
        "zc_argcheck_cases.h": gen_argcheck_cases(functions, ordered, handles),
    }
    for name, text in outputs.items():
        write_if_changed(os.path.join(args.out, name), text)
    impl_count = sum(1 for n in ordered if functions[n].implemented)
    print(f"zfgen: {impl_count} of {len(ordered)} API functions implemented; {len(tables)} getters exported")
    return 0


if __name__ == "__main__":
    sys.exit(main())
