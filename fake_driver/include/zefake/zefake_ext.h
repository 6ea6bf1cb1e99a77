/* zefake's driver extension: what tools and tests may ask the fake driver beyond the Level Zero specification.
 *
 * The driver advertises ZEFAKE_EXTENSION_NAME in zeDriverGetExtensionProperties; the functions below are reached
 * through zeDriverGetExtensionFunctionAddress(hDriver, "<name>", &pfn). They take no driver handles, so they work the
 * same whether or not the loader wraps handles (ZE_ENABLE_LOADER_INTERCEPT=1). See docs/extensions.md. */
#ifndef ZEFAKE_EXT_H
#define ZEFAKE_EXT_H

#include <level_zero/ze_api.h>
#include <stdint.h>

#if defined(__cplusplus)
extern "C" {
#endif

#define ZEFAKE_EXTENSION_NAME    "ZE_experimental_zefake"
#define ZEFAKE_EXTENSION_VERSION ZE_MAKE_VERSION(1, 0)

#define ZEFAKE_NAME_MAX 64
#define ZEFAKE_TEXT_MAX 256

/* What the driver is running. Callers set `size` to sizeof(zefake_info_t); later versions only append fields. */
typedef struct zefake_info_t {
    uint32_t size;                         /* [in] sizeof(zefake_info_t) of the caller */
    uint32_t extension_version;            /* [out] ZEFAKE_EXTENSION_VERSION of the driver */
    char scenario_name[ZEFAKE_NAME_MAX];   /* [out] the scenario's `name` */
    char scenario_source[ZEFAKE_TEXT_MAX]; /* [out] its file, or "<embedded default>" */
    uint32_t api_functions;                /* [out] API functions in the headers the driver was built with */
    uint32_t api_implemented;              /* [out] of which implemented (the others answer UNSUPPORTED_FEATURE) */
} zefake_info_t;

/* "zefakeGetInfo": fills *info. ZE_RESULT_ERROR_INVALID_NULL_POINTER for NULL, ZE_RESULT_ERROR_INVALID_SIZE when
 * info->size is smaller than the first version of the struct. */
typedef ze_result_t(ZE_APICALL *zefake_pfnGetInfo_t)(zefake_info_t *info);
#define ZEFAKE_FN_GET_INFO "zefakeGetInfo"

/* "zefakeIsApiImplemented": whether `name` (e.g. "zeDeviceGet") has an implementation in the driver.
 * ZE_RESULT_ERROR_INVALID_NULL_POINTER for NULL arguments, ZE_RESULT_ERROR_INVALID_FUNCTION_NAME for a name that is not
 * an API function of the driver's headers. */
typedef ze_result_t(ZE_APICALL *zefake_pfnIsApiImplemented_t)(const char *name, ze_bool_t *implemented);
#define ZEFAKE_FN_IS_API_IMPLEMENTED "zefakeIsApiImplemented"

/* "zefakeGetToleranceCount": *count becomes the number of violations of the specification the default profile
 * tolerated as Intel's driver does (docs/tolerances.md) since zeInit, or since the last reset; `reset` true sets the
 * count back to 0 after reading it. A test suite fails on them on purpose. ZE_RESULT_ERROR_INVALID_NULL_POINTER for
 * NULL. The strict profile counts only the tolerances it shares with the default one (output structures of another
 * stype, docs/chains.md). */
typedef ze_result_t(ZE_APICALL *zefake_pfnGetToleranceCount_t)(uint64_t *count, ze_bool_t reset);
#define ZEFAKE_FN_GET_TOLERANCE_COUNT "zefakeGetToleranceCount"

/* ------------------------------------------------------------------------------------------------------------------
 * Fault injection (docs/extensions.md, "Fault injection"; the same rules as a scenario's `faults`, docs/scenarios.md):
 * API calls that answer an error without running, and devices that are lost after a number of commands, so that
 * applications and tools can test their error paths. */

/* `count` of zefakeInjectCallFault: every call from `after` on fails. */
#define ZEFAKE_FAULT_COUNT_ALL UINT32_MAX

/* "zefakeInjectCallFault": arms a rule on the API function named `function` (e.g. "zeMemAllocDevice"): its next
 * `after` calls that pass the argument checks run normally, then `count` calls (ZEFAKE_FAULT_COUNT_ALL: every later
 * one) answer `result` without running, and log a warning "injected fault". Calls are counted from the moment the rule
 * is armed, process-wide. ZE_RESULT_ERROR_INVALID_NULL_POINTER for a NULL `function`,
 * ZE_RESULT_ERROR_INVALID_FUNCTION_NAME for a name that is not an API function of the driver's headers,
 * ZE_RESULT_ERROR_INVALID_ENUMERATION for a `result` the headers do not define, ZE_RESULT_ERROR_INVALID_ARGUMENT for
 * ZE_RESULT_SUCCESS or a `count` of 0, ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY when the rule cannot be stored. */
typedef ze_result_t(ZE_APICALL *zefake_pfnInjectCallFault_t)(const char *function, ze_result_t result, uint32_t after,
                                                             uint32_t count);
#define ZEFAKE_FN_INJECT_CALL_FAULT "zefakeInjectCallFault"

/* "zefakeInjectDeviceLost": the device whose UUID is *uuid (a root device, a tile or a sub-device; a UUID rather than
 * a handle, see above) runs `after_commands` more commands (its sub-devices' included), then the next command faults
 * without running: zeDeviceGetStatus answers ZE_RESULT_ERROR_DEVICE_LOST and later commands of the device do not run,
 * until zesDeviceReset or zefakeClearFaults. Arming a device again replaces its count.
 * ZE_RESULT_ERROR_INVALID_NULL_POINTER for NULL, ZE_RESULT_ERROR_INVALID_ARGUMENT for a UUID of no device,
 * ZE_RESULT_ERROR_UNINITIALIZED before zeInit. */
typedef ze_result_t(ZE_APICALL *zefake_pfnInjectDeviceLost_t)(const ze_device_uuid_t *uuid, uint32_t after_commands);
#define ZEFAKE_FN_INJECT_DEVICE_LOST "zefakeInjectDeviceLost"

/* "zefakeClearFaults": disarms every rule, the scenario's included, and lets lost devices run commands again (the
 * faults they recorded stay until zesDeviceReset). Always ZE_RESULT_SUCCESS. */
typedef ze_result_t(ZE_APICALL *zefake_pfnClearFaults_t)(void);
#define ZEFAKE_FN_CLEAR_FAULTS "zefakeClearFaults"

/* "zefakeGetInjectedFaultCount": *count becomes the number of injected faults (calls answered by a rule, devices
 * lost) since zeInit or the last reset; `reset` true sets it back to 0 after reading it.
 * ZE_RESULT_ERROR_INVALID_NULL_POINTER for NULL. */
typedef ze_result_t(ZE_APICALL *zefake_pfnGetInjectedFaultCount_t)(uint64_t *count, ze_bool_t reset);
#define ZEFAKE_FN_GET_INJECTED_FAULT_COUNT "zefakeGetInjectedFaultCount"

/* ------------------------------------------------------------------------------------------------------------------
 * ITT device annotations (docs/spirv-execution.md, "Annotations"). Kernels instrumented for ITT call the
 * __itt_offload_* wrappers (docs/spirv-execution.md, "Annotations"); when specialization constant 0xFF747469 is
 * non-zero (set by the application, or 1 by default when INTEL_ENABLE_OFFLOAD_ANNOTATIONS is in the environment), each
 * call a work-item makes is delivered to the callback below, with the arguments the __itt_offload_* stubs take. */

typedef enum zefake_annotation_kind_t {
    ZEFAKE_ANNOTATION_WI_START = 0,        /* __itt_offload_wi_start_wrapper: a work-item starts */
    ZEFAKE_ANNOTATION_WI_FINISH = 1,       /* __itt_offload_wi_finish_wrapper: a work-item ends */
    ZEFAKE_ANNOTATION_WG_BARRIER = 2,      /* __itt_offload_wg_barrier_wrapper: it waits at a work-group barrier */
    ZEFAKE_ANNOTATION_WI_RESUME = 3,       /* __itt_offload_wi_resume_wrapper: it resumes after the barrier */
    ZEFAKE_ANNOTATION_ATOMIC_OP_START = 4, /* __itt_offload_atomic_op_start: an atomic operation starts */
    ZEFAKE_ANNOTATION_ATOMIC_OP_FINISH = 5 /* __itt_offload_atomic_op_finish: it has finished */
} zefake_annotation_kind_t;

/* One annotation taken by one work-item. Valid during the callback only. */
typedef struct zefake_annotation_t {
    uint32_t size; /* sizeof(zefake_annotation_t) of the driver; later versions only append */
    zefake_annotation_kind_t kind;
    const char *kernel_name;   /* the kernel's entry-point name */
    ze_device_handle_t device; /* the device the kernel was built for */
    uint64_t group_id[3];      /* get_group_id(0..2): GroupID of the stubs */
    uint64_t local_id[3];      /* get_local_id(0..2) */
    uint64_t work_item_id;     /* get_global_linear_id(): WIId of the stubs */
    uint32_t group_size;       /* work-items in the work-group: WGSize of the stubs */
    uint32_t atomic_op;        /* atomic kinds: the __itt_atomic_mem_op_t the kernel passed, else 0 */
    uint64_t atomic_object;    /* atomic kinds: the address the kernel passed, else 0 */
    uint32_t atomic_order;     /* atomic kinds: the __itt_atomic_mem_order_t the kernel passed, else 0 */
} zefake_annotation_t;

/* Called once per annotation per work-item, on the driver's worker threads, possibly from several threads at once:
 * it must be thread-safe and return quickly; it must not call Level Zero functions that wait for the device. */
typedef void(ZE_APICALL *zefake_pfnAnnotationCallback_t)(const zefake_annotation_t *annotation, void *user_data);

/* "zefakeSetAnnotationCallback": sets the one annotation callback (NULL removes it; a new one replaces the previous).
 * Once it returns, the previous callback is neither running nor called again. Always ZE_RESULT_SUCCESS (before
 * zeInit too). */
typedef ze_result_t(ZE_APICALL *zefake_pfnSetAnnotationCallback_t)(zefake_pfnAnnotationCallback_t callback,
                                                                   void *user_data);
#define ZEFAKE_FN_SET_ANNOTATION_CALLBACK "zefakeSetAnnotationCallback"

/* ------------------------------------------------------------------------------------------------------------------
 * The state a card shares with every process of the same user and scenario instance (docs/environment.md,
 * "Processes"). */
#define ZEFAKE_MAX_PROCESSES 64

typedef struct zefake_device_process_t {
    uint32_t pid;
    uint64_t memory_bytes; /* device memory the process holds on the card */
} zefake_device_process_t;

typedef struct zefake_shared_device_t {
    uint32_t size;                 /* [in] sizeof(zefake_shared_device_t) of the caller */
    ze_bool_t shared;              /* false: the card's state is not shared (shared memory unavailable) */
    char segment[ZEFAKE_TEXT_MAX]; /* the POSIX shared-memory object's name */
    uint64_t clock_origin_ns;      /* host CLOCK_MONOTONIC_RAW time of device time 0 of a host clock */
    uint64_t busy_ns;              /* summed durations of the commands of every process (host clocks) */
    uint32_t num_processes;        /* the live processes using the card, this one included */
    zefake_device_process_t processes[ZEFAKE_MAX_PROCESSES];
} zefake_shared_device_t;

/* "zefakeGetSharedDevice": the shared state of the card of the device whose UUID is *uuid (a root device, a tile or
 * a sub-device; a UUID rather than a handle, see above). ZE_RESULT_ERROR_INVALID_NULL_POINTER for NULL arguments,
 * ZE_RESULT_ERROR_INVALID_SIZE for a small `size`, ZE_RESULT_ERROR_INVALID_ARGUMENT for a UUID of no device,
 * ZE_RESULT_ERROR_UNINITIALIZED before zeInit. */
typedef ze_result_t(ZE_APICALL *zefake_pfnGetSharedDevice_t)(const ze_device_uuid_t *uuid,
                                                             zefake_shared_device_t *state);
#define ZEFAKE_FN_GET_SHARED_DEVICE "zefakeGetSharedDevice"

/* ------------------------------------------------------------------------------------------------------------------
 * Program instrumentation: chained to zet_profile_properties_t.pNext, zetKernelGetProfileInfo fills it for a kernel
 * of a module built with -zet-profile-flags (docs/spirv-execution.md, "Program instrumentation"). The counts describe
 * the decoded form the engine runs: the kernel's entry function and every function it may call. */
#define ZEFAKE_STRUCTURE_TYPE_KERNEL_PROFILE_EXP 0x7a660001u

typedef struct zefake_kernel_profile_exp_t {
    uint32_t stype; /* [in] ZEFAKE_STRUCTURE_TYPE_KERNEL_PROFILE_EXP */
    void *pNext;    /* [in,out][optional] */
    uint32_t functions;
    uint32_t blocks;
    uint32_t instructions;  /* decoded instructions */
    uint32_t registers;     /* instructions that produce a value (register writes) */
    uint32_t frame_bytes;   /* register slots per work-item, summed over the functions */
    uint32_t private_bytes; /* private memory per work-item, summed over the functions */
    uint32_t const_bytes;   /* the module's constants, per work-item */
    uint32_t wave_bytes;    /* built-in values and local-memory pointers, per work-item */
} zefake_kernel_profile_exp_t;

/* ------------------------------------------------------------------------------------------------------------------
 * The 64 bytes of ze_ipc_mem_handle_t as zefake fills them (docs/memory.md, "IPC memory handles"), little-endian. The
 * descriptor comes first and its field is 8 bytes wide, as in Intel's handle; a receiving process overwrites the first
 * 4 bytes with the descriptor it received. Tools that forward handles read it; the driver writes exactly this. */
#define ZEFAKE_IPC_MAGIC      "zefkIPC3" /* magic: in every memory handle zefake issues */
#define ZEFAKE_IPC_TOKEN_SIZE 16
typedef struct zefake_ipc_mem_handle_layout {
    int32_t fd;            /* the exporter's descriptor of the allocation's memfd; the receiver's once it wrote it */
    uint32_t fd_high;      /* 0 */
    char magic[8];         /* ZEFAKE_IPC_MAGIC, without its terminating NUL */
    uint32_t pid;          /* the exporting process */
    uint32_t offset_pages; /* where the allocation starts in the memfd, in 4 KiB pages (0 for a memfd of its own) */
    uint64_t nonce;        /* the exporter's IPC server, part of its socket name */
    uint64_t id;           /* the allocation id in the exporting process */
    uint64_t size;         /* the allocation's size */
    uint8_t token[ZEFAKE_IPC_TOKEN_SIZE];
} zefake_ipc_mem_handle_layout_t;

#if defined(__cplusplus)
}
#endif

#endif
