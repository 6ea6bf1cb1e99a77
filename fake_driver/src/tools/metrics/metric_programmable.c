/* Programmable metrics (headers 1.9): the counters of the model's OA unit offered as programmables, from which the
 * application creates metrics for its own groups (docs/metrics.md, "Programmable metrics").
 *
 * Two kinds, both in the domain of the device's OA groups and collected by streamers and queries alike:
 * - one programmable per signal of the counter model (docs/metrics.md, "Signals"), read from the fixed A counter
 *   that carries it; parameters choose the normalization: the count, its rate per ns, or (for signals with a
 *   capacity) the percentage of that capacity;
 * - one programmable per flexible counter B0..B7, C0..C7, programmed like a scenario's `counters` entry: a signal
 *   (the raw event source) scaled by multiply / divide (the filter), optionally as a rate. A flexible counter holds
 *   one programming at a time: two metrics of one flexible counter overlap and cannot share a group. */
#include "core/zf_chain.h"
#include "core/zf_core.h"
#include "tools/metrics/zf_metric.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool zf_metric_oa_domain(const zf_metric_device *mdev, uint32_t *domain) {
    for (uint32_t i = 0; i < mdev->num_groups; i++) {
        if (mdev->groups[i].desc != NULL && mdev->groups[i].format == ZF_METRIC_FORMAT_OA) {
            *domain = mdev->groups[i].domain;
            return true;
        }
    }
    return false;
}

#if !ZF_L0_AT_LEAST(9)

bool zf_programmables_build(zf_metric_device *mdev) {
    (void)mdev;
    return true;
}

#else

#define ZF_PROGRAMMABLE_SOURCE_OA 1u /* sourceId: the OA unit (Intel's numbering of its metric sources) */
#define ZF_PROGRAMMABLE_TIER      2u
#define ZF_FLEX_VALUE_MAX         65535u /* the scenario's bound of multiply and divide (docs/scenarios.md) */

typedef enum zf_param_kind {
    ZF_PARAM_RATE,
    ZF_PARAM_UTILIZATION,
    ZF_PARAM_SIGNAL,
    ZF_PARAM_MULTIPLY,
    ZF_PARAM_DIVIDE,
} zf_param_kind;

typedef struct zf_metric_programmable {
    zf_object header;
    zf_metric_device *mdev;
    uint32_t domain;
    zf_metric_signal signal; /* fixed counters */
    int32_t flex_slot;       /* -1 for a fixed counter */
    uint32_t num_params;
    zf_param_kind params[4];
} zf_metric_programmable;

/* What the fixed counter of each signal counts, and the capacity a utilization divides by (NULL: none). */
typedef struct zf_signal_info {
    const char *description;
    const char *units;
    const char *capacity;
} zf_signal_info;

static const zf_signal_info zf_signal_infos[ZF_SIG_COUNT] = {
    [ZF_SIG_GPU_CLOCKS] = {"GPU core clocks", "cycles", NULL},
    [ZF_SIG_XVE_ACTIVE] = {"XVE cycles with a pipe active, summed over the XVEs", "cycles", "xve_count * gpu_clocks"},
    [ZF_SIG_XVE_STALL] = {"XVE cycles stalled with threads loaded, summed over the XVEs", "cycles",
                          "xve_count * gpu_clocks"},
    [ZF_SIG_THREAD_CYCLES] = {"Thread slot cycles occupied, summed over the XVEs", "cycles",
                              "xve_count * threads_per_xve * gpu_clocks"},
    [ZF_SIG_THREADS] = {"Hardware threads dispatched", "threads", NULL},
    [ZF_SIG_ALU0_INST] = {"ALU0 instructions executed", "instructions", "xve_count * gpu_clocks"},
    [ZF_SIG_ALU1_INST] = {"ALU1 (math) instructions executed", "instructions", "xve_count * gpu_clocks"},
    [ZF_SIG_XMX_INST] = {"XMX instructions executed", "instructions", "xve_count * gpu_clocks"},
    [ZF_SIG_SEND_INST] = {"SEND (memory) instructions executed", "instructions", "xve_count * gpu_clocks"},
    [ZF_SIG_CONTROL_INST] = {"Control flow instructions executed", "instructions", "xve_count * gpu_clocks"},
    [ZF_SIG_ALU0_ALU1_CYCLES] = {"Cycles with ALU0 and ALU1 active together", "cycles", "xve_count * gpu_clocks"},
    [ZF_SIG_ALU0_XMX_CYCLES] = {"Cycles with ALU0 and XMX active together", "cycles", "xve_count * gpu_clocks"},
    [ZF_SIG_ATOMICS] = {"Atomic accesses of the XVEs", "messages", NULL},
    [ZF_SIG_BARRIERS] = {"Barrier messages of the XVEs", "messages", NULL},
    [ZF_SIG_L3_READ_BYTES] = {"Bytes read through the L3 cache", "bytes", NULL},
    [ZF_SIG_L3_WRITE_BYTES] = {"Bytes written through the L3 cache", "bytes", NULL},
    [ZF_SIG_MEM_READ_BYTES] = {"Bytes read from GPU memory", "bytes", NULL},
    [ZF_SIG_MEM_WRITE_BYTES] = {"Bytes written to GPU memory", "bytes", NULL},
    [ZF_SIG_COMPUTE_ENGINE_CYCLES] = {"Cycles the compute engines were busy, summed over them", "cycles",
                                      "compute_engines * gpu_clocks"},
    [ZF_SIG_COPY_ENGINE_CYCLES] = {"Cycles the copy engines were busy, summed over them", "cycles",
                                   "copy_engines * gpu_clocks"},
};

static zf_metric_programmable *zf_programmable_from(zet_metric_programmable_exp_handle_t handle) {
    return (zf_metric_programmable *)handle;
}

/* ---- Building ------------------------------------------------------------------------------------------------- */

#define ZF_NUM_PROGRAMMABLES (ZF_SIG_COUNT + ZF_OA_FLEX_COUNTERS)

static void zf_programmable_init(zf_metric_programmable *p, zf_metric_device *mdev, uint32_t domain, uint32_t i) {
    p->mdev = mdev;
    p->domain = domain;
    if (i < ZF_SIG_COUNT) {
        p->signal = (zf_metric_signal)i;
        p->flex_slot = -1;
        p->params[p->num_params++] = ZF_PARAM_RATE;
        if (zf_signal_infos[i].capacity != NULL)
            p->params[p->num_params++] = ZF_PARAM_UTILIZATION;
        return;
    }
    p->flex_slot = (int32_t)(i - ZF_SIG_COUNT);
    p->params[p->num_params++] = ZF_PARAM_SIGNAL;
    p->params[p->num_params++] = ZF_PARAM_MULTIPLY;
    p->params[p->num_params++] = ZF_PARAM_DIVIDE;
    p->params[p->num_params++] = ZF_PARAM_RATE;
}

bool zf_programmables_build(zf_metric_device *mdev) {
    uint32_t domain = 0;
    if (!zf_metric_oa_domain(mdev, &domain))
        return true; /* no OA unit, no programmables */
    mdev->programmables = calloc(ZF_NUM_PROGRAMMABLES, sizeof *mdev->programmables);
    if (mdev->programmables == NULL)
        return false;
    for (uint32_t i = 0; i < ZF_NUM_PROGRAMMABLES; i++) {
        zf_metric_programmable *p = &mdev->programmables[i];
        zf_programmable_init(p, mdev, domain, i);
        if (!zf_object_register(&p->header, ZF_OBJ_ZET_METRIC_PROGRAMMABLE_EXP, &mdev->device->header))
            return false;
        mdev->num_programmables++;
    }
    return true;
}

/* ---- Properties ----------------------------------------------------------------------------------------------- */

static void zf_flex_name(char *out, size_t size, int32_t slot) {
    snprintf(out, size, "%c%d", slot < (int32_t)ZF_OA_B_COUNTERS ? 'B' : 'C', slot % (int32_t)ZF_OA_B_COUNTERS);
}

ze_result_t zfi_zetMetricProgrammableGetExp(zet_device_handle_t hDevice, uint32_t *pCount,
                                            zet_metric_programmable_exp_handle_t *phMetricProgrammables) {
    ze_result_t result = zf_metrics_init();
    if (result != ZE_RESULT_SUCCESS)
        return result;
    zf_metric_device *mdev = zf_metric_device_of(zf_device_from(hDevice));
    uint32_t n = zf_count_query(pCount, mdev->num_programmables, phMetricProgrammables);
    for (uint32_t i = 0; i < n; i++)
        phMetricProgrammables[i] = (zet_metric_programmable_exp_handle_t)&mdev->programmables[i];
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zetMetricProgrammableGetPropertiesExp(zet_metric_programmable_exp_handle_t hMetricProgrammable,
                                                      zet_metric_programmable_exp_properties_t *pProperties) {
    const zf_metric_programmable *p = zf_programmable_from(hMetricProgrammable);
    zf_out_check(pProperties, "pProperties", ZET_STRUCTURE_TYPE_METRIC_PROGRAMMABLE_EXP_PROPERTIES);
    memset(pProperties->name, 0, sizeof pProperties->name);
    memset(pProperties->description, 0, sizeof pProperties->description);
    if (p->flex_slot < 0) {
        zf_copy_text(pProperties->name, sizeof pProperties->name, zf_signal_name(p->signal));
        snprintf(pProperties->description, sizeof pProperties->description, "%s (fixed counter A%u)",
                 zf_signal_infos[p->signal].description, zf_signal_a_slot(p->signal));
    } else {
        zf_flex_name(pProperties->name, sizeof pProperties->name, p->flex_slot);
        snprintf(pProperties->description, sizeof pProperties->description,
                 "Flexible counter %.8s: a signal scaled by multiply / divide", pProperties->name);
    }
    zf_copy_text(pProperties->component, sizeof pProperties->component, "GPU");
    pProperties->tierNumber = ZF_PROGRAMMABLE_TIER;
    pProperties->domain = p->domain;
    pProperties->parameterCount = p->num_params;
    pProperties->samplingType =
        ZET_METRIC_GROUP_SAMPLING_TYPE_FLAG_EVENT_BASED | ZET_METRIC_GROUP_SAMPLING_TYPE_FLAG_TIME_BASED;
    pProperties->sourceId = ZF_PROGRAMMABLE_SOURCE_OA;
    return ZE_RESULT_SUCCESS;
}

/* ---- Parameters ----------------------------------------------------------------------------------------------- */

typedef struct zf_param_def {
    const char *name;
    zet_metric_programmable_param_type_exp_t type;
    zet_value_info_type_exp_t info_type;
    uint64_t default_value;
} zf_param_def;

static const zf_param_def zf_param_defs[] = {
    [ZF_PARAM_RATE] = {"rate", ZET_METRIC_PROGRAMMABLE_PARAM_TYPE_EXP_NORMALIZATION_RATE,
                       ZET_VALUE_INFO_TYPE_EXP_UINT32, 0},
    [ZF_PARAM_UTILIZATION] = {"utilization", ZET_METRIC_PROGRAMMABLE_PARAM_TYPE_EXP_NORMALIZATION_UTILIZATION,
                              ZET_VALUE_INFO_TYPE_EXP_UINT32, 0},
    [ZF_PARAM_SIGNAL] = {"signal", ZET_METRIC_PROGRAMMABLE_PARAM_TYPE_EXP_GENERIC, ZET_VALUE_INFO_TYPE_EXP_UINT32,
                         ZF_SIG_GPU_CLOCKS},
    [ZF_PARAM_MULTIPLY] = {"multiply", ZET_METRIC_PROGRAMMABLE_PARAM_TYPE_EXP_GENERIC,
                           ZET_VALUE_INFO_TYPE_EXP_UINT64_RANGE, 1},
    [ZF_PARAM_DIVIDE] = {"divide", ZET_METRIC_PROGRAMMABLE_PARAM_TYPE_EXP_GENERIC, ZET_VALUE_INFO_TYPE_EXP_UINT64_RANGE,
                         1},
};

/* The value infos of a parameter: two switches, the signals, or a range. */
static uint32_t zf_param_value_count(zf_param_kind kind) {
    switch (kind) {
    case ZF_PARAM_RATE:
    case ZF_PARAM_UTILIZATION:
        return 2;
    case ZF_PARAM_SIGNAL:
        return ZF_SIG_COUNT;
    default:
        return 1;
    }
}

static void zf_param_value(zf_param_kind kind, uint32_t i, zet_metric_programmable_param_value_info_exp_t *out) {
    memset(&out->valueInfo, 0, sizeof out->valueInfo);
    memset(out->description, 0, sizeof out->description);
    switch (kind) {
    case ZF_PARAM_RATE:
        out->valueInfo.ui32 = i;
        zf_copy_text(out->description, sizeof out->description,
                     i == 0 ? "off: the count over the measurement" : "on: the count per ns of the measurement");
        break;
    case ZF_PARAM_UTILIZATION:
        out->valueInfo.ui32 = i;
        zf_copy_text(out->description, sizeof out->description,
                     i == 0 ? "off: the count over the measurement" : "on: the percentage of the tile's capacity");
        break;
    case ZF_PARAM_SIGNAL:
        out->valueInfo.ui32 = i;
        zf_copy_text(out->description, sizeof out->description, zf_signal_name((zf_metric_signal)i));
        break;
    case ZF_PARAM_MULTIPLY:
    case ZF_PARAM_DIVIDE:
        out->valueInfo.ui64Range.ui64Min = kind == ZF_PARAM_MULTIPLY ? 0 : 1;
        out->valueInfo.ui64Range.ui64Max = ZF_FLEX_VALUE_MAX;
        zf_copy_text(out->description, sizeof out->description,
                     kind == ZF_PARAM_MULTIPLY ? "the factor the signal is multiplied by"
                                               : "the divisor of the multiplied signal (rounding down)");
        break;
    }
}

ze_result_t zfi_zetMetricProgrammableGetParamInfoExp(zet_metric_programmable_exp_handle_t hMetricProgrammable,
                                                     uint32_t *pParameterCount,
                                                     zet_metric_programmable_param_info_exp_t *pParameterInfo) {
    const zf_metric_programmable *p = zf_programmable_from(hMetricProgrammable);
    if (*pParameterCount == 0)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                       "*pParameterCount is 0: ask for at least one (zetMetricProgrammableGetPropertiesExp gives %u)",
                       p->num_params);
    if (*pParameterCount > p->num_params)
        *pParameterCount = p->num_params;
    for (uint32_t i = 0; i < *pParameterCount; i++) {
        zet_metric_programmable_param_info_exp_t *info = &pParameterInfo[i];
        const zf_param_def *def = &zf_param_defs[p->params[i]];
        zf_out_check(info, "pParameterInfo", ZET_STRUCTURE_TYPE_METRIC_PROGRAMMABLE_PARAM_INFO_EXP);
        info->type = def->type;
        memset(info->name, 0, sizeof info->name);
        zf_copy_text(info->name, sizeof info->name, def->name);
        info->valueInfoType = def->info_type;
        memset(&info->defaultValue, 0, sizeof info->defaultValue);
        if (def->info_type == ZET_VALUE_INFO_TYPE_EXP_UINT32)
            info->defaultValue.ui32 = (uint32_t)def->default_value;
        else
            info->defaultValue.ui64 = def->default_value;
        info->valueInfoCount = zf_param_value_count(p->params[i]);
    }
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zetMetricProgrammableGetParamValueInfoExp(zet_metric_programmable_exp_handle_t hMetricProgrammable,
                                                          uint32_t parameterOrdinal, uint32_t *pValueInfoCount,
                                                          zet_metric_programmable_param_value_info_exp_t *pValueInfo) {
    const zf_metric_programmable *p = zf_programmable_from(hMetricProgrammable);
    if (parameterOrdinal >= p->num_params)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "parameterOrdinal %u: the programmable has %u parameters",
                       parameterOrdinal, p->num_params);
    uint32_t available = zf_param_value_count(p->params[parameterOrdinal]);
    if (*pValueInfoCount == 0)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                       "*pValueInfoCount is 0: ask for at least one (zetMetricProgrammableGetParamInfoExp gives %u)",
                       available);
    if (*pValueInfoCount > available)
        *pValueInfoCount = available;
    for (uint32_t i = 0; i < *pValueInfoCount; i++) {
        zf_out_check(&pValueInfo[i], "pValueInfo", ZET_STRUCTURE_TYPE_METRIC_PROGRAMMABLE_PARAM_VALUE_INFO_EXP);
        zf_param_value(p->params[parameterOrdinal], i, &pValueInfo[i]);
    }
    return ZE_RESULT_SUCCESS;
}

/* ---- Creating metrics ----------------------------------------------------------------------------------------- */

/* The chosen values: the defaults, then the application's first parameterCount ones, each checked. */
typedef struct zf_param_values {
    uint32_t rate;
    uint32_t utilization;
    zf_scenario_counter counter;
} zf_param_values;

static ze_result_t zf_param_take(zf_param_kind kind, uint32_t i, zet_value_t value, zf_param_values *v) {
    const char *name = zf_param_defs[kind].name;
    switch (kind) {
    case ZF_PARAM_RATE:
    case ZF_PARAM_UTILIZATION:
        if (value.ui32 > 1)
            return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "pParameterValues[%u] (%s) is %u: it takes 0 or 1", i,
                           name, value.ui32);
        *(kind == ZF_PARAM_RATE ? &v->rate : &v->utilization) = value.ui32;
        return ZE_RESULT_SUCCESS;
    case ZF_PARAM_SIGNAL:
        if (value.ui32 >= ZF_SIG_COUNT)
            return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "pParameterValues[%u] (signal) is %u: signals are 0..%u",
                           i, value.ui32, ZF_SIG_COUNT - 1);
        v->counter.signal = (zf_metric_signal)value.ui32;
        return ZE_RESULT_SUCCESS;
    default:
        if (value.ui64 > ZF_FLEX_VALUE_MAX || (kind == ZF_PARAM_DIVIDE && value.ui64 == 0))
            return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "pParameterValues[%u] (%s) is %llu: outside %u..%u", i,
                           name, (unsigned long long)value.ui64, kind == ZF_PARAM_DIVIDE ? 1u : 0u, ZF_FLEX_VALUE_MAX);
        *(kind == ZF_PARAM_MULTIPLY ? &v->counter.multiply : &v->counter.divide) = (uint32_t)value.ui64;
        return ZE_RESULT_SUCCESS;
    }
}

static ze_result_t zf_params_read(const zf_metric_programmable *p, const zet_metric_programmable_param_value_exp_t *in,
                                  uint32_t count, zf_param_values *v) {
    *v = (zf_param_values){.counter = {.signal = ZF_SIG_GPU_CLOCKS, .multiply = 1, .divide = 1}};
    if (count > p->num_params)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "parameterCount %u: the programmable has %u parameters", count,
                       p->num_params);
    for (uint32_t i = 0; i < count; i++) {
        ze_result_t result = zf_param_take(p->params[i], i, in[i].value, v);
        if (result != ZE_RESULT_SUCCESS)
            return result;
    }
    if (v->rate && v->utilization)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                       "the rate and utilization parameters are both on: a metric has one normalization");
    return ZE_RESULT_SUCCESS;
}

/* The counter the metric reads: a field of the formulas (docs/metrics.md, "Formulas"). */
static void zf_counter_field(const zf_metric_programmable *p, char *out, size_t size) {
    if (p->flex_slot >= 0)
        zf_flex_name(out, size, p->flex_slot);
    else
        zf_copy_text(out, size, zf_signal_name(p->signal));
}

/* Type, value type, units and formula of the metric for the chosen normalization. */
static void zf_metric_shape(zf_metric *m, const zf_metric_programmable *p, const zf_param_values *v) {
    char field[32];
    zf_counter_field(p, field, sizeof field);
    const char *units = p->flex_slot >= 0 ? "events" : zf_signal_infos[p->signal].units;
    if (v->utilization) {
        m->type = ZET_METRIC_TYPE_DURATION;
        m->value_type = ZET_VALUE_TYPE_FLOAT32;
        zf_copy_text(m->units, sizeof m->units, "percent");
        snprintf(m->own_formula, sizeof m->own_formula, "min(100, 100 * %s / (%s))", field,
                 zf_signal_infos[p->signal].capacity);
    } else if (v->rate) {
        m->type = ZET_METRIC_TYPE_THROUGHPUT;
        m->value_type = ZET_VALUE_TYPE_FLOAT32;
        snprintf(m->units, sizeof m->units, "%s/ns", units);
        snprintf(m->own_formula, sizeof m->own_formula, "%s / gpu_time", field);
    } else {
        m->type = ZET_METRIC_TYPE_EVENT;
        m->value_type = ZET_VALUE_TYPE_UINT64;
        zf_copy_text(m->units, sizeof m->units, units);
        zf_copy_text(m->own_formula, sizeof m->own_formula, field);
    }
    m->floating = m->value_type == ZET_VALUE_TYPE_FLOAT32;
}

static ze_result_t zf_check_text(const char *text, size_t max, const char *argument) {
    if (strnlen(text, max) == max)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "%s has no NUL within %zu characters", argument, max);
    return ZE_RESULT_SUCCESS;
}

static ze_result_t zf_metric_create(const zf_metric_programmable *p, const zf_param_values *v, const char *name,
                                    const char *description, zet_metric_handle_t *out) {
    zf_metric *m = calloc(1, sizeof *m);
    if (m == NULL)
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory for a metric");
    m->mdev = p->mdev;
    m->origin = ZF_METRIC_PROGRAMMED;
    zf_copy_text(m->name, sizeof m->name, name);
    zf_copy_text(m->description, sizeof m->description, description);
    zf_copy_text(m->component, sizeof m->component, "GPU");
    m->tier = ZF_PROGRAMMABLE_TIER;
    m->sampling = ZET_METRIC_GROUP_SAMPLING_TYPE_FLAG_EVENT_BASED | ZET_METRIC_GROUP_SAMPLING_TYPE_FLAG_TIME_BASED;
    m->program = (zf_metric_program){.flex_slot = p->flex_slot, .counter = v->counter};
    zf_metric_shape(m, p, v);
    char why[256];
    if (!zf_metric_compile(m, ZF_METRIC_FORMAT_OA, m->own_formula, why, sizeof why)) {
        ze_result_t result =
            zf_fail(ZE_RESULT_ERROR_UNKNOWN, "the formula \"%s\" of the metric does not compile: %s (a driver bug)",
                    m->own_formula, why);
        free(m);
        return result;
    }
    if (!zf_object_register(&m->header, ZF_OBJ_ZET_METRIC, &p->mdev->device->header)) {
        free(m);
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory to register a metric");
    }
    *out = (zet_metric_handle_t)m;
    return ZE_RESULT_SUCCESS;
}

/* Both forms of the call: one metric per programmable and choice of parameters (as Intel's OA programmables). */
static ze_result_t zf_create_from_programmable(zet_metric_programmable_exp_handle_t hMetricProgrammable,
                                               const zet_metric_programmable_param_value_exp_t *values, uint32_t count,
                                               const char *name, const char *description, uint32_t *pMetricHandleCount,
                                               zet_metric_handle_t *phMetricHandles) {
    const zf_metric_programmable *p = zf_programmable_from(hMetricProgrammable);
    zf_param_values v;
    ze_result_t result = zf_params_read(p, values, count, &v);
    if (result == ZE_RESULT_SUCCESS)
        result = zf_check_text(name, ZET_MAX_METRIC_NAME, "pName");
    if (result == ZE_RESULT_SUCCESS)
        result = zf_check_text(description, ZET_MAX_METRIC_DESCRIPTION, "pDescription");
    if (result != ZE_RESULT_SUCCESS)
        return result;
    if (*pMetricHandleCount == 0 || phMetricHandles == NULL) {
        *pMetricHandleCount = 1;
        return ZE_RESULT_SUCCESS;
    }
    result = zf_metric_create(p, &v, name, description, &phMetricHandles[0]);
    if (result == ZE_RESULT_SUCCESS)
        *pMetricHandleCount = 1;
    return result;
}

ze_result_t zfi_zetMetricCreateFromProgrammableExp(zet_metric_programmable_exp_handle_t hMetricProgrammable,
                                                   zet_metric_programmable_param_value_exp_t *pParameterValues,
                                                   uint32_t parameterCount, const char *pName, const char *pDescription,
                                                   uint32_t *pMetricHandleCount, zet_metric_handle_t *phMetricHandles) {
    return zf_create_from_programmable(hMetricProgrammable, pParameterValues, parameterCount, pName, pDescription,
                                       pMetricHandleCount, phMetricHandles);
}

#if ZF_L0_AT_LEAST(11)
ze_result_t zfi_zetMetricCreateFromProgrammableExp2(zet_metric_programmable_exp_handle_t hMetricProgrammable,
                                                    uint32_t parameterCount,
                                                    zet_metric_programmable_param_value_exp_t *pParameterValues,
                                                    const char *pName, const char *pDescription,
                                                    uint32_t *pMetricHandleCount,
                                                    zet_metric_handle_t *phMetricHandles) {
    return zf_create_from_programmable(hMetricProgrammable, pParameterValues, parameterCount, pName, pDescription,
                                       pMetricHandleCount, phMetricHandles);
}
#endif

ze_result_t zfi_zetMetricDestroyExp(zet_metric_handle_t hMetric) {
    zf_metric *m = zf_metric_from(hMetric);
    if (m->origin != ZF_METRIC_PROGRAMMED)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                       "hMetric (%s) was not created from a programmable: it belongs to its group", m->name);
    zf_metric_lock();
    uint32_t refs = m->refs;
    if (refs == 0)
        zf_object_unregister(&m->header);
    zf_metric_unlock();
    if (refs > 0)
        return zf_fail(ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE,
                       "hMetric (%s) is in %u metric groups: remove it (zetMetricGroupRemoveMetricExp) first", m->name,
                       refs);
    zf_object_retire(&m->header);
    return ZE_RESULT_SUCCESS;
}

#endif
