"""The one reader of the installed Level Zero headers, shared by the three generators (docs/generated-code.md).

The headers are the API registry on the user's machine. load() reads ze_api.h, zet_api.h, zes_api.h, their *_ddi.h
and layers/zel_tracing_register_cb.h, and returns an Api:

  functions   {name: Function}: parameters, the rules of the `@returns` block as C, dispatch table and slot, the
              version from api_versions.txt, the tracing callback and its registration function
  ordered     the function names in the order of the dispatch tables' slots
  tables      the dispatch (DDI) tables: C type, getter, slots
  handles     {handle type: canonical handle type}, aliases resolved
  results     the ZE_RESULT_* names (without the FORCE_UINT32 sizing value)
  types       the enum, flag and struct type names

Every generator emits from this model only; none reads a header itself. Inconsistent headers stop the build with a
message starting "zeheaders:".
"""

# Placed beside api_versions.txt, which all three generators read; layers/*/gen import it through PYTHONPATH (CMake).
import argparse
import os
import re
from dataclasses import dataclass, field

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_HEADERS = "/usr/include/level_zero"
DEFAULT_VERSIONS = os.path.join(HERE, "api_versions.txt")
PREFIXES = ("ze", "zet", "zes")  # the header sets <prefix>_api.h / <prefix>_ddi.h, in the order of `ordered`
REGISTER_HEADER = os.path.join("layers", "zel_tracing_register_cb.h")


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

    @property
    def null_param(self):
        """The parameter a `nullptr == <param>` rule is about, else None."""
        m = re.fullmatch(r"nullptr == (\w+)", self.expr)
        return m.group(1) if m else None


@dataclass
class Table:
    ctype: str  # e.g. ze_device_dditable_t
    getter: str  # e.g. zeGetDeviceProcAddrTable
    slots: list  # (slot name, function name)
    prefix: str = ""  # the header set: ze, zet or zes


@dataclass
class Callback:
    """The tracing callback of one core function, as declared in ze_api.h (or zel_tracing_register_cb.h)."""
    function: str
    params_type: str  # the params struct, e.g. ze_device_get_properties_params_t
    fields: list  # its members in order: "p" + each parameter's name
    cb_type: str  # e.g. ze_pfnDeviceGetPropertiesCb_t
    member: str = ""  # its slot in ze_callbacks_t, e.g. Device.pfnGetPropertiesCb; "" when the table has none


@dataclass
class Function:
    name: str
    params: list
    rules: list = field(default_factory=list)
    table: Table = None  # the dispatch table holding it
    slot: str = ""  # its slot name, e.g. pfnGetProperties
    version: tuple = (1, 0)
    callback: Callback = None  # None when the headers declare no tracing callback for it
    registration: tuple = None  # (zelTracer<Name>RegisterCallback, its callback parameter's name) with a callback
    exclusive: str = ""  # the command list parameter simultaneous threads must not share (the header's @details)
    implemented: bool = False  # set by zfgen.py from the driver's sources
    source: str = ""  # the file defining the implementation, relative to the repository (zfgen.py)

    @property
    def signature(self):
        """The C parameter list."""
        return ", ".join(f"{p.ctype} {p.name}" for p in self.params) or "void"

    @property
    def arguments(self):
        """The C argument list passing every parameter on."""
        return ", ".join(p.name for p in self.params)

    @property
    def params_init(self):
        """The initialiser of the callback's params struct: a pointer to each parameter."""
        return ", ".join(f".p{p.name} = &{p.name}" for p in self.params)

    @property
    def in_core_callbacks(self):
        """Whether ze_callbacks_t (the frozen 1.0 set zetTracerExpSetPrologues takes) has a slot for it."""
        return self.callback is not None and self.callback.member != ""


@dataclass
class TypeNames:
    enums: set
    flags: set
    structs: set


@dataclass
class Api:
    functions: dict
    ordered: list
    tables: list
    handles: dict
    results: list
    types: TypeNames
    unlisted: list  # functions api_versions.txt lacks; they get the headers' own version
    version: tuple  # the headers' ZE_API_VERSION_CURRENT, e.g. (1, 4)
    newer: dict  # {name: version} of the functions api_versions.txt lists as newer than the headers
    version_order: list  # the functions in the order api_versions.txt lists them

    def tables_of(self, prefix):
        return [t for t in self.tables if t.prefix == prefix]

    def traced(self):
        """The functions with a tracing callback, in slot order."""
        return [self.functions[n] for n in self.ordered if self.functions[n].callback is not None]


def read(path):
    """The text of an input file; a missing or unreadable one stops the generator with its name (no traceback)."""
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except OSError as e:
        raise SystemExit(f"zeheaders: cannot read {path}: {e.strerror}") from None


# ---- handles, results, types ----

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
    return [r for r in re.findall(r"^\s+(ZE_RESULT_\w+) = ", text, re.M) if not r.endswith("FORCE_UINT32")]


def parse_types(texts):
    """The enum, flag and struct type names the headers declare."""
    types = TypeNames(set(), set(), set())
    for text in texts:
        types.enums.update(re.findall(r"^typedef enum _(\w+)\n", text, re.M))
        types.flags.update(re.findall(r"^typedef uint32_t (\w+_flags?_t);", text, re.M))
        types.structs.update(re.findall(r"^typedef struct _(\w+)\n\{", text, re.M))
    return types


# ---- functions, parameters, @returns rules ----

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
            raise SystemExit(f"zeheaders: cannot parse parameter line: {line!r}")
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


def doc_comment_before(text, start):
    """The `///` lines right above offset `start`."""
    comment = []
    for line in reversed(text[:start].split("\n")[:-1]):
        if not line.startswith("///"):
            break
        comment.insert(0, line)
    return comment


def parse_functions(text):
    functions = []
    for m in FUNC_RE.finditer(text):
        params = parse_params(m.group(2))
        names = {p.name for p in params}
        fn = Function(m.group(1), params)
        # A `nullptr == p` rule on a parameter annotated [mbz] ("must be nullptr") contradicts the annotation (1.4's
        # zetCommandListAppendMetricQueryEnd): applying it would reject every correct call, so the annotation wins.
        # So does a parameter whose own text gives NULL a meaning ("If nullptr then implementation will choose a
        # start address": 1.4's zeVirtualMemReserve, whose later headers drop the rule).
        mbz = {p.name for p in params if "[mbz]" in p.notes or re.search(r"\b[Ii]f nullptr\b", p.notes)}
        for result, rules in parse_returns(doc_comment_before(text, m.start())):
            for expr in rules:
                rule = Rule(result, expr, translate_rule(expr, names))
                if rule.null_param not in mbz:
                    fn.rules.append(rule)
        fn.exclusive = exclusive_param(doc_comment_before(text, m.start()), params)
        functions.append(fn)
    return functions


EXCLUSIVE_RULE = "must **not** call this function from simultaneous threads with the same command list handle"


def exclusive_param(comment_lines, params):
    """The command list a call must not share with another thread, when the @details say so; the entry point detects
    a second thread with it (docs/command-lists.md, "Threads")."""
    details = re.sub(r"\s+", " ", " ".join(line[3:] for line in comment_lines))
    if EXCLUSIVE_RULE not in details:
        return ""
    return next((p.name for p in params if p.ctype.endswith("_command_list_handle_t")), "")


# ---- dispatch tables ----

def parse_tables(ddi_text, prefix):
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
            raise SystemExit(f"zeheaders: no getter found for {m.group(1)}")
        tables.append(Table(m.group(1), gm.group(1), slots, prefix))
    return tables


# ---- versions ----

def parse_versions(path):
    """{name: (major, minor)}, in the file's order."""
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


# ---- tracing callbacks and their registration functions ----

# Newer headers put blank lines between a declaration's comment and the declaration itself.
CB_PARAMS_RE = re.compile(r"@brief Callback function parameters for (\w+) ?\n(?:///[^\n]*\n|\n)*"
                          r"typedef struct _(\w+)\n\{\n(.*?)\n\} \2;", re.S)
CB_TYPE_RE = re.compile(r"@brief Callback function-pointer for (\w+) ?\n(?:///[^\n]*\n|\n)*"
                        r"typedef void \(ZE_APICALL \*(\w+)\)")
CB_TABLE_RE = re.compile(r"typedef struct _(\w+_callbacks_t)\n\{\n(.*?)\n\} \1;", re.S)
REGISTER_RE = re.compile(r"^(zelTracer\w+RegisterCallback)\(\n\s+zel_tracer_handle_t hTracer,\n"
                         r"\s+zel_tracer_reg_t callback_type,\n\s+(\w+) (\w+)\n\s+\);", re.M)


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
            raise SystemExit(f"zeheaders: {cb_type} has no params struct for {name}")
        params_type, fields = params[name]
        callbacks[name] = Callback(name, params_type, fields, cb_type, members.get(cb_type, ""))
    return callbacks


def parse_registrations(text):
    """{callback type: (registration function, callback parameter name)}."""
    return {m.group(2): (m.group(1), m.group(3)) for m in REGISTER_RE.finditer(text)}


def attach_callback(fn, cb, registrations):
    """The params struct must hold a pointer to each parameter, in order, or the generated initialisers are wrong;
    and each callback type needs the registration function the tracing layer exports for it."""
    wanted = ["p" + p.name for p in fn.params]
    if cb.fields != wanted:
        raise SystemExit(f"zeheaders: {cb.params_type} has members {cb.fields}, expected {wanted}")
    if cb.cb_type not in registrations:
        raise SystemExit(f"zeheaders: no registration function takes {cb.cb_type}")
    fn.callback = cb
    fn.registration = registrations[cb.cb_type]


# ---- the whole API ----

def place_in_tables(functions, tables, versions, newest):
    """Gives each function its table, slot and version; returns the slot order and the functions without a listed
    version."""
    ordered, unlisted = [], []
    for t in tables:
        for slot, name in t.slots:
            if name not in functions:
                raise SystemExit(f"zeheaders: {t.ctype}.{slot} names {name}, which the API headers do not declare")
            fn = functions[name]
            fn.table, fn.slot = t, slot
            if name not in versions:
                unlisted.append(name)
            fn.version = versions.get(name, newest)
            ordered.append(name)
    missing = sorted(set(functions) - set(ordered))
    if missing:
        raise SystemExit(f"zeheaders: functions without a dispatch slot: {', '.join(missing)}")
    return ordered, unlisted


def load(headers=DEFAULT_HEADERS, versions_path=DEFAULT_VERSIONS):
    api_texts = [read(os.path.join(headers, f"{p}_api.h")) for p in PREFIXES]
    register_text = read(os.path.join(headers, REGISTER_HEADER))
    functions, tables = {}, []
    for prefix, text in zip(PREFIXES, api_texts):
        functions.update((fn.name, fn) for fn in parse_functions(text))
        tables += parse_tables(read(os.path.join(headers, f"{prefix}_ddi.h")), prefix)
    newest = current_version(api_texts[0])
    versions = parse_versions(versions_path)
    ordered, unlisted = place_in_tables(functions, tables, versions, newest)
    newer = {n: v for n, v in versions.items() if n not in functions and v > newest}
    callbacks = parse_callbacks(api_texts[0])
    callbacks.update(parse_callbacks(register_text))
    registrations = parse_registrations(register_text)
    for name, cb in callbacks.items():
        if name in functions:
            attach_callback(functions[name], cb, registrations)
    return Api(functions, ordered, tables, parse_handles(api_texts), parse_result_names(api_texts[0]),
               parse_types(api_texts), unlisted, newest, newer, list(versions))


# ---- what the generators share besides the model ----

def defined_functions(sources, return_type, prefix):
    """The names after `prefix` of the functions the hand-written C `sources` define with `return_type`, e.g.
    ("ze_result_t", "zfi_") finds zfi_zeMemAllocDevice as zeMemAllocDevice."""
    pattern = re.compile(rf"^{re.escape(return_type)}\s+{re.escape(prefix)}(\w+)\s*\(", re.M)
    return {(path, name) for path in sources for name in pattern.findall(read(path))}


def run(description, tool, add_arguments, generate, stdout_option=None):
    """The command line of every generator: --headers and --versions (with defaults, so that a reader can run it by
    hand), --out and the generator's own arguments; loads the API, calls generate(args, api) and writes the
    ({file name: text}, summary) it returns into --out. With the generator's `stdout_option` given (zfgen.py's
    --show), generate answers on stdout instead, returns None, and --out is not needed."""
    ap = argparse.ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--headers", default=DEFAULT_HEADERS,
                    help=f"directory holding ze_api.h and layers/ (default {DEFAULT_HEADERS})")
    ap.add_argument("--versions", default=DEFAULT_VERSIONS, help="api_versions.txt (default: the one beside this parser)")
    ap.add_argument("--out", help="output directory, into which the generated files are written")
    add_arguments(ap)
    args = ap.parse_args()
    answers_on_stdout = stdout_option is not None and getattr(args, stdout_option) is not None
    if args.out is None and not answers_on_stdout:
        ap.error("--out is required" + (f" unless --{stdout_option} is given" if stdout_option else ""))
    generated = generate(args, load(args.headers, args.versions))
    if generated is None:
        return 0
    outputs, summary = generated
    write_outputs(args.out, outputs)
    print(f"{tool}: {summary}")
    return 0


def write_outputs(out_dir, outputs):
    """Writes {file name: text} into out_dir, leaving unchanged files untouched so that nothing rebuilds."""
    os.makedirs(out_dir, exist_ok=True)
    for name, text in outputs.items():
        path = os.path.join(out_dir, name)
        if os.path.exists(path) and read(path) == text:
            continue
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
