/* Metric formulas: how a metric's value is computed from the fields of a raw record (docs/metrics.md, "Formulas").
 *
 * A formula is infix text over field names, integer (and, in floating-point formulas, decimal) literals, + - * /,
 * parentheses, min(a, b) and max(a, b). It is compiled once, when the scenario is read, into a short program for a
 * stack machine, and evaluated by the driver for every calculated report. Integer formulas are evaluated exactly in
 * 128-bit unsigned arithmetic (division rounds down, subtraction stops at 0, x / 0 = 0, results saturate);
 * floating-point formulas in double precision (x / 0 = 0, results stay finite). Both evaluators accept any field
 * values, so raw data from anywhere can be calculated without undefined behaviour. */
#ifndef ZF_SCENARIO_FORMULA_H
#define ZF_SCENARIO_FORMULA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The raw record families a metric group can use (docs/metrics-raw-formats.md). */
typedef enum zf_metric_format {
    ZF_METRIC_FORMAT_OA = 0,       /* OA snapshots (streamer) and OA deltas (query) */
    ZF_METRIC_FORMAT_EU_STALL = 1, /* instruction-pointer samples with stall reasons */
} zf_metric_format;

#define ZF_OA_A_COUNTERS    32u /* 40-bit counters A0..A31 */
#define ZF_OA_B_COUNTERS    8u  /* 32-bit counters B0..B7 */
#define ZF_OA_C_COUNTERS    8u  /* 32-bit counters C0..C7 */
#define ZF_OA_FLEX_COUNTERS (ZF_OA_B_COUNTERS + ZF_OA_C_COUNTERS)

/* What the device's counter model accumulates per tile (docs/metrics.md, "Signals"). A0..A18 carry signals 1..19 and
 * A19 carries gpu_clocks; B0..C7 carry what a group's `counters` program into them. The one list of them, in that
 * order, each with the name scenarios and formulas use (X(NAME, name): ZF_SIG_NAME, zf_signal_name). */
#define ZF_METRIC_SIGNALS(X)                                                                                           \
    X(GPU_CLOCKS, "gpu_clocks")                                                                                        \
    X(XVE_ACTIVE, "xve_active")                                                                                        \
    X(XVE_STALL, "xve_stall")                                                                                          \
    X(THREAD_CYCLES, "thread_cycles")                                                                                  \
    X(THREADS, "threads")                                                                                              \
    X(ALU0_INST, "alu0_inst")                                                                                          \
    X(ALU1_INST, "alu1_inst")                                                                                          \
    X(XMX_INST, "xmx_inst")                                                                                            \
    X(SEND_INST, "send_inst")                                                                                          \
    X(CONTROL_INST, "control_inst")                                                                                    \
    X(ALU0_ALU1_CYCLES, "alu0_alu1_cycles")                                                                            \
    X(ALU0_XMX_CYCLES, "alu0_xmx_cycles")                                                                              \
    X(ATOMICS, "atomics")                                                                                              \
    X(BARRIERS, "barriers")                                                                                            \
    X(L3_READ_BYTES, "l3_read_bytes")                                                                                  \
    X(L3_WRITE_BYTES, "l3_write_bytes")                                                                                \
    X(MEM_READ_BYTES, "mem_read_bytes")                                                                                \
    X(MEM_WRITE_BYTES, "mem_write_bytes")                                                                              \
    X(COMPUTE_ENGINE_CYCLES, "compute_engine_cycles")                                                                  \
    X(COPY_ENGINE_CYCLES, "copy_engine_cycles")

/* clang-format off */
typedef enum zf_metric_signal {
#define ZF_SIGNAL_ENUM(NAME, name) ZF_SIG_##NAME,
    ZF_METRIC_SIGNALS(ZF_SIGNAL_ENUM)
#undef ZF_SIGNAL_ENUM
    ZF_SIG_COUNT
} zf_metric_signal;
/* clang-format on */

/* The A counter that carries a signal. */
static inline uint32_t zf_signal_a_slot(zf_metric_signal signal) {
    return signal == ZF_SIG_GPU_CLOCKS ? 19u : (uint32_t)signal - 1u;
}

/* Names formulas can use. Deltas, information and constants are filled by the calculator for each result. */
typedef enum zf_metric_field {
    /* OA: deltas between two snapshots, or the deltas of a query record */
    ZF_MF_TICKS = 0, /* timestamp ticks */
    ZF_MF_GPU_TICKS, /* GPU core clocks */
    ZF_MF_GPU_TIME,  /* the interval in ns */
    ZF_MF_A0,
    ZF_MF_B0 = ZF_MF_A0 + ZF_OA_A_COUNTERS,
    ZF_MF_C0 = ZF_MF_B0 + ZF_OA_B_COUNTERS,
    /* OA: information about the (later) record */
    ZF_MF_REPORT_REASON = ZF_MF_C0 + ZF_OA_C_COUNTERS,
    ZF_MF_CONTEXT_ID,
    ZF_MF_CONTEXT_VALID,
    ZF_MF_MARKER,
    ZF_MF_BEGIN_TIME,
    ZF_MF_REPORT_ERROR,
    ZF_MF_REPORT_LOST,
    ZF_MF_QUERY_SPLIT,
    ZF_MF_FREQ_CHANGED,
    /* EU stall samples */
    ZF_MF_IP,
    ZF_MF_ACTIVE,
    ZF_MF_CONTROL_STALL,
    ZF_MF_PIPE_STALL,
    ZF_MF_SEND_STALL,
    ZF_MF_DIST_STALL,
    ZF_MF_SBID_STALL,
    ZF_MF_SYNC_STALL,
    ZF_MF_INSTFETCH_STALL,
    ZF_MF_OTHER_STALL,
    /* constants of the tile the data comes from */
    ZF_MF_XVE_COUNT,
    ZF_MF_THREADS_PER_XVE,
    ZF_MF_SIMD_WIDTH,
    ZF_MF_CORE_MHZ,
    ZF_MF_TIMER_HZ,
    ZF_MF_COMPUTE_ENGINES,
    ZF_MF_COPY_ENGINES,
    ZF_MF_COUNT
} zf_metric_field;

#define ZF_EU_STALL_REASONS 9u /* active + 8 stall reasons, in field order from ZF_MF_ACTIVE */

typedef enum zf_formula_code {
    ZF_OP_INT = 0, /* push imm.u */
    ZF_OP_FLOAT,   /* push imm.f (floating-point formulas only) */
    ZF_OP_FIELD,   /* push fields[field] */
    ZF_OP_ADD,
    ZF_OP_SUB,
    ZF_OP_MUL,
    ZF_OP_DIV,
    ZF_OP_MIN,
    ZF_OP_MAX,
} zf_formula_code;

typedef struct zf_formula_op {
    uint8_t code;  /* zf_formula_code */
    uint8_t field; /* ZF_OP_FIELD */
    union {
        uint64_t u;
        double f;
    } imm;
} zf_formula_op;

#define ZF_FORMULA_MAX_OPS   32u /* per formula */
#define ZF_FORMULA_MAX_STACK 16u
#define ZF_FORMULA_MAX_TEXT  255u

/* The name of a signal (NULL when out of range) and the signal of a name. */
const char *zf_signal_name(zf_metric_signal signal);
bool zf_signal_lookup(const char *name, size_t length, zf_metric_signal *out);

/* The name of a field as formulas write it (NULL when out of range). */
const char *zf_field_name(zf_metric_field field);

/* Compiles `text` for records of `format`. On failure returns false and writes a reason into `why`. */
bool zf_formula_compile(const char *text, size_t length, zf_metric_format format, bool floating, zf_formula_op *ops,
                        size_t max_ops, size_t *num_ops, char *why, size_t why_size);

/* Evaluates a compiled program; `fields` holds ZF_MF_COUNT values. */
uint64_t zf_formula_eval_int(const zf_formula_op *ops, size_t num_ops, const uint64_t *fields);
double zf_formula_eval_float(const zf_formula_op *ops, size_t num_ops, const uint64_t *fields);

#endif
