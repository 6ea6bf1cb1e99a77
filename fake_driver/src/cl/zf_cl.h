/* The OpenCL face (docs/opencl.md): OpenCL objects over the same core as the Level Zero face. Every object starts
 * with the ICD dispatch pointer (cl_khr_icd: the loader jumps through it), then a kind and a reference count; a
 * registry of live objects lets each entry point answer CL_INVALID_<OBJECT> for a released or bogus handle instead
 * of touching it. The work itself is done by the Level Zero implementations (zfi_*), so both faces share devices,
 * memory accounting, the clock and the engines. */
#ifndef ZF_CL_H
#define ZF_CL_H

#define CL_TARGET_OPENCL_VERSION 300
#define CL_USE_DEPRECATED_OPENCL_1_0_APIS
#define CL_USE_DEPRECATED_OPENCL_1_1_APIS
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#define CL_USE_DEPRECATED_OPENCL_2_0_APIS
#include <CL/cl.h>
#include <CL/cl_ext.h>
#include <CL/cl_icd.h>

#include "core/zf_core.h"
#include "core/zf_object.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

typedef enum zfcl_kind {
    ZFCL_PLATFORM = 1,
    ZFCL_DEVICE,
    ZFCL_CONTEXT,
    ZFCL_QUEUE,
    ZFCL_MEM,
    ZFCL_PROGRAM,
    ZFCL_KERNEL,
    ZFCL_EVENT,
    ZFCL_SAMPLER,
    ZFCL_KIND_END
} zfcl_kind;
_Static_assert(ZFCL_KIND_END <= ZF_OBJ_FACE_TYPES, "the OpenCL kinds fit the core registry's face types");

/* Every object starts with the core's object header (core/zf_object.h), whose first word is the ICD dispatch table
 * (cl_khr_icd): objects live on the core's registry as type ZF_OBJ_TYPE_COUNT + kind, and a released object's memory
 * goes through the core's quarantine, so that its handle stays refused and its address is not reused soon. */
typedef struct zfcl_obj {
    zf_object header; /* header.dispatch: the ICD dispatch table */
    zfcl_kind kind;
    atomic_uint refs;
} zfcl_obj;

/* The one dispatch table, generated from CL/cl_icd.h (fake_driver/gen/clgen.py). */
extern const cl_icd_dispatch zfcl_dispatch;

struct _cl_platform_id {
    zfcl_obj obj;
};

struct _cl_device_id {
    zfcl_obj obj;
    ze_device_handle_t ze;
    cl_device_id parent; /* a Level Zero sub-device: its root device */
    ze_device_properties_t props;
    ze_device_compute_properties_t compute;
    ze_device_module_properties_t module;
    uint64_t global_mem;
    uint32_t compute_ordinal; /* the queue group with compute */
    cl_uint num_subs;
    cl_device_id subs;
};

typedef struct zfcl_callback {
    void(CL_CALLBACK *fn)(void); /* cast to the registered type when called */
    void *user_data;
    struct zfcl_callback *next;
} zfcl_callback;

struct _cl_context {
    zfcl_obj obj;
    ze_context_handle_t ze;
    cl_uint num_devices;
    cl_device_id *devices;
    cl_context_properties *props; /* copy, 0-terminated; NULL when none were given */
    size_t num_props;
    void(CL_CALLBACK *notify)(const char *, const void *, size_t, void *);
    void *notify_data;
    pthread_mutex_t lock;
    zfcl_callback *destructors;        /* newest first: called in reverse order of registration */
    struct _cl_command_queue *queues;  /* the live queues, linked by next_queue */
    struct zfcl_spare *spare_events;   /* Level Zero events ready for reuse */
    struct zfcl_spare *retired_events; /* events released by the application, maybe still waited for */
    struct zfcl_deferred *deferred;    /* destructions waiting for commands (zfcl_context_defer), newest first */
    atomic_uint num_deferred;
    atomic_uint holds; /* 1 while the application holds references, plus one per live object of the context: the
                        * context is destroyed when it reaches 0 */
};

#define ZFCL_MAX_LISTS 4

struct _cl_command_queue {
    zfcl_obj obj;
    cl_context context;
    cl_device_id device;
    cl_command_queue_properties props;
    cl_queue_properties given[8]; /* CL_QUEUE_PROPERTIES_ARRAY, 0-terminated */
    size_t num_given;
    ze_command_list_handle_t list; /* immediate, asynchronous (lists[0]) */
    /* Out of order: one immediate list per engine of the compute group (up to ZFCL_MAX_LISTS), used in turn, so that
     * commands without dependencies run concurrently; the newest barrier, which every later command waits for; and
     * the commands clFinish waits for (the last barrier that waited for everything and every command after it). */
    ze_command_list_handle_t lists[ZFCL_MAX_LISTS];
    uint32_t num_lists, next_list;
    cl_event barrier;
    cl_event *pending;
    uint32_t num_pending, max_pending;
    pthread_mutex_t lock;
    cl_event last; /* the newest command: commands execute in submission order */
    /* per engine: executes held commands once released (cl_hold.c), made on first use */
    ze_command_queue_handle_t held_queues[ZFCL_MAX_LISTS];
    struct zfcl_done_list *done_lists; /* executed held commands' lists, destroyed once the queue is idle */
    atomic_uint holds; /* 1 while the application holds references, plus one per live event of the queue */
    struct _cl_command_queue *next_queue; /* in the context's list */
};

struct _cl_mem {
    zfcl_obj obj;
    cl_context context;
    cl_mem_flags flags;
    size_t size;
    void *ptr;      /* the allocation (a sub-buffer: into its parent's) */
    void *host_ptr; /* CL_MEM_USE_HOST_PTR: the application's memory, kept in step at map and unmap */
    cl_mem parent;
    size_t origin;
    atomic_uint maps;
    cl_mem_properties props[4];
    size_t num_props;
    pthread_mutex_t lock;
    zfcl_callback *destructors;
    struct zfcl_mapping *mappings; /* live clEnqueueMap* regions */
    bool svm;                      /* CL_MEM_USE_HOST_PTR over SVM or USM memory: used in place, not freed */
    cl_mem_object_type type;       /* CL_MEM_OBJECT_BUFFER or an image type (cl_image.c) */
    cl_image_format format;
    cl_image_desc desc; /* sizes with the defaults applied: height, depth and array size at least 1 */
    size_t pixel;       /* bytes per pixel */
    ze_image_handle_t image;
};

struct _cl_sampler {
    zfcl_obj obj;
    cl_context context;
    cl_bool normalized;
    cl_addressing_mode addressing;
    cl_filter_mode filter;
    cl_sampler_properties given[8]; /* CL_SAMPLER_PROPERTIES, 0-terminated */
    size_t num_given;
    ze_sampler_handle_t ze;
};

/* clGetKernelArgInfo's answers for one kernel argument, from the OpenCL C source (-cl-kernel-arg-info). */
typedef struct zfcl_arg_info {
    cl_kernel_arg_address_qualifier address;
    cl_kernel_arg_access_qualifier access;
    cl_kernel_arg_type_qualifier type_qualifier;
    char *type_name;
    char *name;
} zfcl_arg_info;
typedef struct zfcl_kernel_args {
    char *kernel;
    bool unsigned_hint; /* vec_type_hint of an unsigned integer type (SPIR-V's VecTypeHint has no signedness) */
    bool has_args;      /* built with -cl-kernel-arg-info: args holds num_args entries */
    cl_uint num_args;
    zfcl_arg_info *args;
} zfcl_kernel_args;
/* What the OpenCL C source tells of a program's kernels beyond their SPIR-V; count 0 for programs from SPIR-V. */
typedef struct zfcl_arg_infos {
    size_t count;
    zfcl_kernel_args *kernels;
} zfcl_arg_infos;
void zfcl_arg_infos_free(zfcl_arg_infos *infos);
/* Appends copies of `from`'s kernels to `to` (a link of compiled objects); false when out of host memory. */
bool zfcl_arg_infos_append(zfcl_arg_infos *to, const zfcl_arg_infos *from);
/* The argument information of kernel `name`, NULL when there is none. */
const zfcl_kernel_args *zfcl_arg_infos_find(const zfcl_arg_infos *infos, const char *name);

struct _cl_program {
    zfcl_obj obj;
    cl_context context;
    char *source;    /* OpenCL C, when created from source */
    uint32_t num_il; /* SPIR-V modules: given, compiled from the source, or the inputs of a link */
    void **il;
    size_t *il_size;
    ze_module_handle_t *modules; /* per device of the context: the executable, NULL when not built for it */
    cl_build_status status;
    cl_program_binary_type binary_type;
    char *options;
    char *log;
    atomic_uint kernels; /* live kernels: no rebuild while there are some */
    char *names;         /* ';'-separated kernel names of the executable */
    size_t num_kernels;
    zfcl_arg_infos arg_info; /* from source built or compiled with -cl-kernel-arg-info */
    uint32_t num_spec;       /* clSetProgramSpecializationConstant values, applied at the build */
    uint32_t *spec_ids;
    const void **spec_values;
    pthread_mutex_t lock;
};

struct _cl_kernel {
    zfcl_obj obj;
    cl_program program;
    char *name;
    ze_kernel_handle_t *ze; /* per device of the context, NULL where the program is not built */
    const void *desc;       /* the kernel's description (zf_spirv_kernel of spirv.h) */
    cl_uint num_args;
    struct zfcl_arg *args; /* what each argument was last set to (clCloneKernel copies them) */
};

struct _cl_event {
    zfcl_obj obj;
    cl_context context;
    cl_command_queue queue; /* NULL for user events */
    cl_command_type type;
    ze_event_pool_handle_t pool;
    ze_event_handle_t ze;
    atomic_int status;       /* user events and failed commands; otherwise read from ze */
    cl_ulong queued, submit; /* device ns */
    pthread_mutex_t lock;
    zfcl_callback *callbacks[4];   /* per execution status CL_COMPLETE..CL_QUEUED */
    ze_command_list_handle_t list; /* where the command is appended: the queue's, or its own while held */
    /* Held commands (cl_hold.c), guarded by the hold lock: */
    bool held;            /* waits for an unset user event (maybe through other held commands) */
    bool settled;         /* held: executed or terminated */
    bool building;        /* held: still being appended by its enqueue */
    bool joins;           /* a marker or barrier without wait list: it waits for every earlier command */
    uint32_t engine;      /* the index of the queue's list (engine) it runs on */
    cl_uint blockers;     /* events it waits for that are not settled yet */
    cl_event *dependents; /* held commands waiting for this event (each holds a reference) */
    cl_uint num_dependents, max_dependents;
};

/* Registry of live objects. */
bool zfcl_register(zfcl_obj *obj, zfcl_kind kind);
void zfcl_unregister(zfcl_obj *obj);
/* Frees a heap object (unregistered first if it still is) through the core's quarantine. */
void zfcl_object_free(zfcl_obj *obj);
bool zfcl_live(const void *handle, zfcl_kind kind);
void zfcl_retain(zfcl_obj *obj);
bool zfcl_release(zfcl_obj *obj); /* true when the count reached 0 (the caller destroys) */

/* Diagnostics: logs "<function>: <code>: <reason>" at debug level and returns the code. */
cl_int zfcl_fail_at(const char *function, cl_int code, const char *format, ...) __attribute__((format(printf, 3, 4)));
#define zfcl_fail(code, ...) zfcl_fail_at(__func__, code, __VA_ARGS__)
/* Stores `code` in *errcode_ret when given and returns NULL: the object-returning functions' error path. */
void *zfcl_null(cl_int *errcode_ret, cl_int code);
/* The answer of an info query: copies `size` bytes unless param_value is NULL, or fails with CL_INVALID_VALUE when
 * param_value_size is too small. */
cl_int zfcl_info(size_t param_value_size, void *param_value, size_t *param_value_size_ret, const void *value,
                 size_t size);
cl_int zfcl_info_str(size_t param_value_size, void *param_value, size_t *param_value_size_ret, const char *value);
/* Whether [a, a + size) and [b, b + size) share a byte. */
bool zfcl_overlap(const void *a, const void *b, size_t size);
/* A Level Zero result in OpenCL terms. */
cl_int zfcl_from_ze(ze_result_t result);

/* cl_platform.c: the core initialised from the OpenCL side (zeInit on first use), the devices. */
cl_int zfcl_init(void);
extern struct _cl_platform_id zfcl_platform;
cl_uint zfcl_num_devices(void);
cl_device_id zfcl_device(cl_uint index);
bool zfcl_device_valid(cl_device_id device);
/* Device time in nanoseconds (the Level Zero device clock, timer ticks scaled by its resolution). */
cl_ulong zfcl_device_ns(cl_device_id device, uint64_t ticks);
cl_ulong zfcl_device_now(cl_device_id device);
cl_device_type zfcl_device_type(cl_device_id device);
/* The device's smallest sub-group size (cl_device_info.c): the preferred work-group size multiple. */
cl_uint zfcl_device_subgroup_min(cl_device_id device);

/* cl_context.c: objects created in a context hold it until they are destroyed. */
bool zfcl_context_has(cl_context context, cl_device_id device);
cl_uint zfcl_context_index(cl_context context, cl_device_id device);
void zfcl_context_hold(cl_context context);
void zfcl_context_unhold(cl_context context);
void zfcl_context_notify(cl_context context, const char *message);
/* Calls destroy(object) once every command enqueued so far to a queue of the context has finished: at once when
 * none is pending, else from a later enqueue, clFinish or clWaitForEvents of the context (zfcl_context_reap). The
 * object holds the context until then. */
void zfcl_context_defer(cl_context context, void (*destroy)(void *), void *object);
void zfcl_context_reap(cl_context context);
ze_driver_handle_t zfcl_ze_driver(void);
/* Calls the callbacks of a list, newest first, with `object` and frees the list. */
void zfcl_call_destructors(zfcl_callback *list, void *object);

/* cl_event.c */
/* A Level Zero event (and its pool) kept for reuse by the context. */
typedef struct zfcl_spare {
    ze_event_pool_handle_t pool;
    ze_event_handle_t ze;
    struct zfcl_spare *next;
} zfcl_spare;
/* Destroys the spare and retired events of a context being destroyed. */
void zfcl_spares_release(cl_context context);
/* The wait-list rules: num and list agree, every event is live and (given a queue) of the queue's context. */
cl_int zfcl_wait_list(cl_command_queue queue, cl_uint num, const cl_event *list);
/* A new command event of the queue (not yet returned to the application), with the previous command and the wait
 * list as its dependencies; fills the Level Zero wait list (caller frees *waits). */
cl_int zfcl_command_begin(cl_command_queue queue, cl_command_type type, cl_uint num, const cl_event *list,
                          cl_event *out, ze_event_handle_t **waits, uint32_t *num_waits);
/* Makes the command the queue's newest, hands it to the application or drops it, and waits when blocking. */
cl_int zfcl_command_end(cl_command_queue queue, cl_event event, cl_event *event_ret, bool blocking);
/* Drops a command that could not be appended (unlocks the queue). */
void zfcl_command_abort(cl_command_queue queue, cl_event event);
void zfcl_queue_hold(cl_command_queue queue);
/* CL_SUCCESS for a live queue, else CL_INVALID_COMMAND_QUEUE with its diagnostic. */
cl_int zfcl_queue_check(cl_command_queue queue);
void zfcl_queue_unhold(cl_command_queue queue);
void zfcl_event_release(cl_event event);
/* Whether the command is complete, failed or terminated (a user event: its status is set). */
bool zfcl_event_done(cl_event event);
cl_int zfcl_event_wait(cl_event event);
cl_int zfcl_queue_finish(cl_command_queue queue);
/* With the queue locked: the commands that complete last (the newest, or out of order every pending one), each
 * retained, in a new array (NULL when there are none or no memory: *num is then 0). */
cl_event *zfcl_queue_tails(cl_command_queue queue, size_t *num);
/* Drops the queue's references to its commands (its release). */
void zfcl_queue_forget(cl_command_queue queue);
/* Runs the callbacks registered for `status` (and for the states before it, which the event has passed). */
void zfcl_run_callbacks(cl_event event, cl_int status);

/* cl_hold.c: commands waiting for a user event are held in a list of their own and executed once every event they
 * wait for is settled, or terminated (never executed) when one of them fails. */
typedef struct zfcl_done_list {
    ze_command_list_handle_t list;
    struct zfcl_done_list *next;
} zfcl_done_list;
/* With the queue locked: chooses the list of the new command `e` (e->list) from its wait list and the commands of
 * the queue it waits for (`implicit`), registering it with the events it must wait for. */
cl_int zfcl_hold_begin(cl_command_queue queue, cl_event e, cl_uint num, const cl_event *list, cl_uint num_implicit,
                       const cl_event *implicit);
/* With the queue locked, once the command is appended: executes it, or leaves it held or terminates it. */
void zfcl_hold_end(cl_event e);
/* The command could not be appended: it is dropped from the events it waits for. */
void zfcl_hold_abort(cl_event e);
/* A user event got its status (CL_COMPLETE or negative): releases or terminates the commands waiting for it. */
void zfcl_hold_user_set(cl_event user, cl_int status);
/* Detaches the lists of executed held commands (queue locked); destroys such lists once their commands are done. */
zfcl_done_list *zfcl_hold_take_done(cl_command_queue queue);
/* `idle`: the queue finished every command enqueued before the lists were taken; else they are given back. */
void zfcl_hold_free_done(cl_command_queue queue, zfcl_done_list *list, bool idle);

/* cl_memory.c */
bool zfcl_mem_valid(cl_mem mem);
bool zfcl_buffer_valid(cl_mem mem);
/* The flag rules every memory object shares (access, host access, host pointer flags). */
cl_int zfcl_mem_flags_check(cl_mem_flags flags);
/* A memory object being made, then registered (it holds its context from then on). */
cl_mem zfcl_mem_new(cl_context context, cl_mem_flags flags, size_t size, cl_int *err);
cl_mem zfcl_mem_publish(cl_mem mem, cl_int *err);
/* CL_INVALID_OPERATION when the host access flags forbid a read (or a write) by the host. */
cl_int zfcl_host_may(cl_mem mem, bool read);
/* A live queue, a live buffer of its context and a range inside the buffer. */
cl_int zfcl_check_buffer(cl_command_queue queue, cl_mem mem, size_t offset, size_t size);
/* A live mapping of a memory object (clEnqueueMap*): images keep their region, pitches and staging memory. */
typedef struct zfcl_mapping {
    void *ptr; /* what the map returned */
    size_t offset, size;
    cl_map_flags flags;
    size_t origin[3], region[3], row, slice; /* images */
    bool staging;                            /* ptr is memory of the driver, freed at unmap */
    struct zfcl_mapping *next;
} zfcl_mapping;
zfcl_mapping *zfcl_take_mapping(cl_mem mem, void *ptr);
/* One Level Zero copy (or, with size 0, a barrier: an ordering point) as a command of the queue. */
typedef struct zfcl_copy {
    void *dst;
    const void *src;
    size_t size;
} zfcl_copy;
cl_int zfcl_enqueue_copy(cl_command_queue queue, cl_command_type type, zfcl_copy copy, bool blocking, cl_uint num,
                         const cl_event *list, cl_event *event);
/* One Level Zero fill (size 0: a barrier) as a command of the queue. */
cl_int zfcl_enqueue_fill(cl_command_queue queue, cl_command_type type, void *ptr, const void *pattern,
                         size_t pattern_size, size_t size, cl_uint num, const cl_event *list, cl_event *event);

/* cl_svm.c: SVM and cl_intel_unified_shared_memory over Level Zero USM allocations of the context. */
/* The bytes from `ptr` to the end of its allocation when it lies in one of the context's, else 0. */
size_t zfcl_usm_size(cl_context context, const void *ptr);
/* The extension functions of the platform (clGetExtensionFunctionAddressForPlatform), NULL for other names. */
void *zfcl_usm_function(const char *name);

/* cl_image.c: images and samplers over Level Zero images and samplers. */
bool zfcl_image_valid(cl_mem mem);
/* CL_DEVICE_IMAGE_MAX_BUFFER_SIZE: the pixels of the largest format that fit the device's maxImageBufferSize. */
size_t zfcl_image_max_buffer(cl_device_id device);
cl_int zfcl_image_unmap(cl_command_queue queue, cl_mem image, void *ptr, cl_uint num, const cl_event *list,
                        cl_event *event);

/* cl_kernel.c */
cl_int zfcl_set_kernel_pointer(cl_kernel kernel, cl_uint index, const void *ptr);

/* cl_bitcode.c: clang's bitcode at `path` rewritten in place without what llvm-spirv-14 cannot translate (freeze);
 * `infos` gets each kernel's record from the metadata clang attaches to it, with its argument information when
 * `with_args`. */
cl_int zfcl_prepare_bitcode(const char *path, zfcl_arg_infos *infos, bool with_args);

/* cl_compiler.c: OpenCL C to SPIR-V with Debian's clang-14 and llvm-spirv-14 as child processes, in a temporary
 * directory holding the source and the embedded headers. Returns CL_SUCCESS with the SPIR-V, CL_INVALID_BUILD_OPTIONS
 * when clang rejects an option, or CL_BUILD_PROGRAM_FAILURE (CL_COMPILE_PROGRAM_FAILURE when `compile_only`); *log
 * gets the compilers' diagnostics either way (caller frees). */
typedef struct zfcl_header {
    const char *name;   /* the include name */
    const char *source; /* its text */
} zfcl_header;
cl_int zfcl_compile_source(const char *source, const char *options, const zfcl_header *headers, cl_uint num_headers,
                           bool compile_only, void **spirv, size_t *size, char **log, zfcl_arg_infos *infos);

#endif
