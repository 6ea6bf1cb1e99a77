/* The XPTI framework's C interface as this project uses it: result codes, trace point and event types, the data
 * layouts, and the framework functions (C linkage, `xpti` prefix) that our dispatcher (libxptifw.so) exports and our
 * emitter looks up in whatever framework XPTI_FRAMEWORK_DISPATCHER names. Written from the facts in
 * docs/xpti.md, not from Intel's headers (no distribution ships them).
 *
 * Layouts: those of the framework's current generation (docs/xpti.md, "Layout generation"): the 80-byte payload_t
 * and the 128-byte trace_event_data_t whose flags word xpti::is_valid_event() reads. function_with_args_t and
 * mem_alloc_data_t are the same in every generation. The functions are the current generation's 48
 * (ZX_XPTI_FUNCTIONS and ZX_XPTI_FUNCTIONS_CURRENT, less xptiReset), its tracepoint objects C++ interfaces reached
 * through their vtables, its metadata map libstdc++'s unordered_map. */
#ifndef ZX_XPTI_H
#define ZX_XPTI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ------------------------------------------------------------------------------------------------------------------
 * Result codes (int32_t) */
typedef int32_t zx_xpti_result;
#define ZX_XPTI_SUCCESS    ((zx_xpti_result)0)
#define ZX_XPTI_FALSE      ((zx_xpti_result)1)
#define ZX_XPTI_FAIL       ((zx_xpti_result)0x80004001u)
#define ZX_XPTI_NOTIMPL    ((zx_xpti_result)0x80004002u)
#define ZX_XPTI_DUPLICATE  ((zx_xpti_result)0x80004003u)
#define ZX_XPTI_NOTFOUND   ((zx_xpti_result)0x80004004u)
#define ZX_XPTI_UNDELETE   ((zx_xpti_result)0x80004005u)
#define ZX_XPTI_INVALIDARG ((zx_xpti_result)0x80004006u)

typedef int32_t zx_xpti_string_id;
typedef int32_t zx_xpti_object_id;
#define ZX_XPTI_INVALID_ID (-1)

/* ------------------------------------------------------------------------------------------------------------------
 * Trace point types (uint16_t): begin = v << 1, end = v << 1 | 1 */
enum {
    ZX_TP_GRAPH_CREATE = 2,
    ZX_TP_NODE_CREATE = 4,
    ZX_TP_EDGE_CREATE = 6,
    ZX_TP_REGION_BEGIN = 8,
    ZX_TP_REGION_END = 9,
    ZX_TP_TASK_BEGIN = 10,
    ZX_TP_TASK_END = 11,
    ZX_TP_BARRIER_BEGIN = 12,
    ZX_TP_BARRIER_END = 13,
    ZX_TP_LOCK_BEGIN = 14,
    ZX_TP_LOCK_END = 15,
    ZX_TP_SIGNAL = 16,
    ZX_TP_TRANSFER_BEGIN = 18,
    ZX_TP_TRANSFER_END = 19,
    ZX_TP_THREAD_BEGIN = 20,
    ZX_TP_THREAD_END = 21,
    ZX_TP_WAIT_BEGIN = 22,
    ZX_TP_WAIT_END = 23,
    ZX_TP_FUNCTION_BEGIN = 24,
    ZX_TP_FUNCTION_END = 25,
    ZX_TP_METADATA = 26,
    ZX_TP_FUNCTION_WITH_ARGS_BEGIN = 28,
    ZX_TP_FUNCTION_WITH_ARGS_END = 29,
    ZX_TP_FUNCTION_WITH_ARGS_END_OLD = 31, /* the value in older headers; subscribers built with them register it */
    ZX_TP_MEM_ALLOC_BEGIN = 32,
    ZX_TP_MEM_ALLOC_END = 33,
    ZX_TP_MEM_RELEASE_BEGIN = 34,
    ZX_TP_MEM_RELEASE_END = 35,
    ZX_TP_OFFLOAD_MEMORY_OBJECT_CONSTRUCT = 36,
    ZX_TP_OFFLOAD_MEMORY_OBJECT_DESTRUCT = 37,
    ZX_TP_OFFLOAD_MEMORY_OBJECT_ASSOCIATE = 38,
    ZX_TP_OFFLOAD_MEMORY_OBJECT_RELEASE = 39,
    ZX_TP_OFFLOAD_ALLOC_ACCESSOR = 40,
    ZX_TP_QUEUE_CREATE = 42,
    ZX_TP_QUEUE_DESTROY = 43,
    ZX_TP_DIAGNOSTICS = 126,
    ZX_TP_USER_DEFINED = 0x80,
};

/* Event types (uint16_t) */
enum {
    ZX_ET_UNKNOWN = 0,
    ZX_ET_GRAPH = 1,
    ZX_ET_ALGORITHM = 2,
    ZX_ET_BARRIER = 3,
    ZX_ET_SCHEDULER = 4,
    ZX_ET_ASYNC = 5,
    ZX_ET_LOCK = 6,
    ZX_ET_OFFLOAD_READ = 7,
    ZX_ET_OFFLOAD_WRITE = 8,
    ZX_ET_OFFLOAD_MEMORY_OBJECT = 9,
    ZX_ET_OFFLOAD_ACCESSOR = 10,
    ZX_ET_USER_DEFINED = 0x80,
};

/* Activity types (int32_t) */
enum {
    ZX_ACTIVITY_UNKNOWN = 0,
    ZX_ACTIVITY_ACTIVE = 1,
    ZX_ACTIVITY_OVERHEAD = 2,
    ZX_ACTIVITY_BACKGROUND = 4,
    ZX_ACTIVITY_SLEEP = 8,
};

/* Metadata value types (the `type` of xptiRegisterObject) */
enum {
    ZX_METADATA_BINARY = 0,
    ZX_METADATA_STRING = 1,
    ZX_METADATA_SIGNED = 2,
    ZX_METADATA_UNSIGNED = 3,
    ZX_METADATA_FLOATING = 4,
    ZX_METADATA_BOOLEAN = 5,
};

/* Payload flags (payload_t.flags, the framework's payload_flag_t): which fields of a payload are valid. */
enum {
    ZX_PAYLOAD_NAME = 1u << 0,
    ZX_PAYLOAD_SOURCE_FILE = 1u << 1,
    ZX_PAYLOAD_CODE_POINTER = 1u << 2,
    ZX_PAYLOAD_LINE = 1u << 3,
    ZX_PAYLOAD_COLUMN = 1u << 4,
    ZX_PAYLOAD_STACK_TRACE = 1u << 5,
    ZX_PAYLOAD_REGISTERED = 1u << 15,
    ZX_PAYLOAD_HASH = 2u << 16, /* HashAvailable: `internal` holds the 64-bit universal id */
};

/* Event flags (trace_event_data_t.flags, the framework's trace_event_flag_t): what an event carries. */
enum {
    ZX_EVENT_UID = 1u << 0,
    ZX_EVENT_SOURCE_UID = 1u << 1,
    ZX_EVENT_TARGET_UID = 1u << 2,
    ZX_EVENT_TYPE = 1u << 3,
    ZX_EVENT_ACTIVITY_TYPE = 1u << 4,
    ZX_EVENT_PAYLOAD = 1u << 5,
};

/* Defaults of the framework (docs/xpti.md "Our dispatcher"): the stream it registers when it starts, its version. */
#define ZX_XPTI_FRAMEWORK_STREAM "xpti.framework"
#define ZX_XPTI_INVALID_STREAM   ((uint8_t)255) /* invalid_id (-1) as a u8 */

/* ------------------------------------------------------------------------------------------------------------------
 * Layouts */

/* uid_t of a payload: p1 = source file string id << 32 | line, p2 = function (name) string id, p3 = 0 in a
 * tracepoint's payload (1 in the framework's registered copy). */
typedef struct zx_xpti_uid {
    uint64_t p1;
    uint64_t p2;
    uint64_t p3;
} zx_xpti_uid;

/* uid128_t (universal_id_t): the framework's 128-bit key of a tracepoint, p1 = file id << 32 | function id,
 * p2 = column << 32 | line, the instance, and the 64-bit id it maps to. No function of the C interface takes it
 * (xptiGetUniversalId answers the 64-bit id); it is here for the layout of tracepoint_data_t. */
typedef struct zx_xpti_uid128 {
    uint64_t p1;
    uint64_t p2;
    uint64_t instance;
    uint64_t uid64;
} zx_xpti_uid128;

/* payload_t, 80 bytes. line_no/column_no are 0xffffffff when unknown. */
typedef struct zx_xpti_payload {
    const char *name;        /* @0 */
    const char *stack_trace; /* @8 */
    const char *source_file; /* @16 */
    uint32_t line_no;        /* @24 */
    uint32_t column_no;      /* @28 */
    const void *code_ptr_va; /* @32 */
    uint64_t internal;       /* @40: a tracepoint's 64-bit universal id (ZX_PAYLOAD_HASH) */
    uint64_t flags;          /* @48: ZX_PAYLOAD_* */
    zx_xpti_uid uid;         /* @56 */
} zx_xpti_payload;

/* libstdc++'s std::unordered_map<int32_t, int32_t> (56 bytes), the metadata_t of an event that xptiQueryMetadata
 * answers: a singly linked list of nodes {next, key (string id), value (object id)} starting at before_begin, and
 * buckets pointing at the node before the first of each bucket (bucket = key % bucket_count). */
typedef struct zx_xpti_meta_node {
    struct zx_xpti_meta_node *next;
    int32_t key;
    int32_t value;
} zx_xpti_meta_node;
typedef struct zx_xpti_meta_link { /* the list head: a node's first member only */
    zx_xpti_meta_node *next;
} zx_xpti_meta_link;
typedef struct zx_xpti_metadata {
    zx_xpti_meta_link **buckets; /* a node (as its link) or &before_begin */
    size_t bucket_count;
    zx_xpti_meta_link before_begin;
    size_t element_count;
    float max_load_factor;
    size_t next_resize;
    zx_xpti_meta_link *single_bucket;
} zx_xpti_metadata;

/* trace_event_data_t, 128 bytes. Every generation with 64-bit ids shares the prefix up to the payload pointer
 * (@0-@48) and the metadata map (@56); the current one adds global_user_data and the flags word. */
typedef struct zx_xpti_event {
    uint64_t unique_id;        /* @0: the 64-bit universal id */
    uint64_t data_id;          /* @8: = instance_id */
    uint64_t instance_id;      /* @16: the instance of its payload */
    uint16_t event_type;       /* @24 */
    uint16_t activity_type;    /* @26 */
    uint32_t unused;           /* @28 */
    uint64_t source_id;        /* @32: edges: unique_id of the source node; 0 otherwise */
    uint64_t target_id;        /* @40: edges: unique_id of the target node; 0 otherwise */
    zx_xpti_payload *payload;  /* @48: reserved.payload */
    zx_xpti_metadata metadata; /* @56: reserved.metadata */
    void *global_user_data;    /* @112 */
    uint64_t flags;            /* @120: ZX_EVENT_* */
} zx_xpti_event;

_Static_assert(sizeof(zx_xpti_payload) == 80, "payload_t is 80 bytes");
_Static_assert(offsetof(zx_xpti_payload, flags) == 48 && offsetof(zx_xpti_payload, uid) == 56, "payload_t");
_Static_assert(sizeof(zx_xpti_metadata) == 56, "libstdc++'s unordered_map is 56 bytes");
_Static_assert(offsetof(zx_xpti_event, source_id) == 32 && offsetof(zx_xpti_event, payload) == 48,
               "trace_event_data_t prefix");
_Static_assert(offsetof(zx_xpti_event, flags) == 120 && sizeof(zx_xpti_event) == 128, "trace_event_data_t");

/* xpti::is_valid_event(): an event with a flags word saying it carries a universal id and a payload. */
static inline bool zx_xpti_is_valid_event(const zx_xpti_event *event) {
    return event != NULL && (event->flags & ZX_EVENT_UID) != 0 && (event->flags & ZX_EVENT_PAYLOAD) != 0;
}

typedef struct zx_function_with_args {
    uint32_t function_id;      /* @0: docs/xpti.md's table */
    const char *function_name; /* @8 */
    void *args_data;           /* @16: the call's ze_*_params_t */
    void *ret_data;            /* @24: NULL at begin; at end a ze_result_t * */
    void *user_data;           /* @32 */
} zx_function_with_args;

typedef struct zx_mem_alloc_data {
    uintptr_t mem_object_handle; /* @0 */
    uintptr_t alloc_pointer;     /* @8 */
    size_t alloc_size;           /* @16 */
    size_t guard_zone_size;      /* @24 */
    void *reserved;              /* @32 */
} zx_mem_alloc_data;

typedef struct zx_xpti_object_data {
    size_t size;
    const char *data;
    uint8_t type; /* ZX_METADATA_* */
} zx_xpti_object_data;

typedef void (*zx_xpti_callback)(uint16_t trace_type, zx_xpti_event *parent, zx_xpti_event *event, uint64_t instance,
                                 const void *user_data);

/* Subscriber entry points (each subscriber library defines both). */
typedef void (*zx_xpti_trace_init_fn)(unsigned major, unsigned minor, const char *version_str, const char *stream_name);
typedef void (*zx_xpti_trace_finish_fn)(const char *stream_name);

/* Stream detail levels (stream_detail_level_t, uint8_t), ordered: a stream's effective level is the most detailed
 * one its subscribers ask for. */
enum {
    ZX_DETAIL_NONE = 0,
    ZX_DETAIL_BASIC = 1,
    ZX_DETAIL_NORMAL = 2, /* a subscriber's when it does not say */
    ZX_DETAIL_VERBOSE = 3,
};

/* The optional third subscriber entry point, xptiQuerySubscriberStreamDetailLevel: sets *level for the stream (true)
 * or leaves it (false); asked when a stream is initialised. */
typedef bool (*zx_xpti_query_detail_fn)(const char *stream_name, uint8_t *level);

/* ------------------------------------------------------------------------------------------------------------------
 * The framework functions every generation has: X(return type, name, parameter list). The emitter requires all of
 * them, as the real proxy does; our dispatcher exports all of them. */
#define ZX_XPTI_FUNCTIONS(X)                                                                                           \
    X(void, xptiFrameworkInitialize, (void))                                                                           \
    X(void, xptiFrameworkFinalize, (void))                                                                             \
    X(zx_xpti_result, xptiInitialize, (const char *stream, uint32_t major, uint32_t minor, const char *version))       \
    X(void, xptiFinalize, (const char *stream))                                                                        \
    X(uint64_t, xptiGetUniqueId, (void))                                                                               \
    X(zx_xpti_string_id, xptiRegisterString, (const char *string, char **table_string))                                \
    X(const char *, xptiLookupString, (zx_xpti_string_id id))                                                          \
    X(uint8_t, xptiRegisterStream, (const char *stream_name))                                                          \
    X(zx_xpti_result, xptiUnregisterStream, (const char *stream_name))                                                 \
    X(uint16_t, xptiRegisterUserDefinedTracePoint, (const char *tool_name, uint8_t user_defined_tp))                   \
    X(uint16_t, xptiRegisterUserDefinedEventType, (const char *tool_name, uint8_t user_defined_event))                 \
    X(zx_xpti_event *, xptiMakeEvent,                                                                                  \
      (const char *name, zx_xpti_payload *payload, uint16_t event_type, int32_t activity, uint64_t *instance_no))      \
    X(const zx_xpti_payload *, xptiQueryPayload, (zx_xpti_event * event))                                              \
    X(zx_xpti_result, xptiRegisterCallback, (uint8_t stream_id, uint16_t trace_type, zx_xpti_callback cb))             \
    X(zx_xpti_result, xptiUnregisterCallback, (uint8_t stream_id, uint16_t trace_type, zx_xpti_callback cb))           \
    X(zx_xpti_result, xptiNotifySubscribers,                                                                           \
      (uint8_t stream_id, uint16_t trace_type, zx_xpti_event * parent, zx_xpti_event * object, uint64_t instance,      \
       const void *user_data))                                                                                         \
    X(zx_xpti_result, xptiAddMetadata, (zx_xpti_event * event, const char *key, zx_xpti_object_id value))              \
    X(bool, xptiTraceEnabled, (void))                                                                                  \
    X(bool, xptiCheckTraceEnabled, (uint16_t stream, uint16_t trace_type))                                             \
    X(void, xptiReset, (void))                                                                                         \
    X(void, xptiForceSetTraceEnabled, (bool enabled))                                                                  \
    X(void, xptiReleaseEvent, (zx_xpti_event * event))                                                                 \
    X(zx_xpti_result, xptiStashTuple, (const char *key, uint64_t value))                                               \
    X(void, xptiUnstashTuple, (void))                                                                                  \
    X(zx_xpti_result, xptiGetStashedTuple, (char **key, uint64_t *value))                                              \
    X(uint8_t, xptiGetDefaultStreamID, (void))                                                                         \
    X(zx_xpti_result, xptiSetDefaultStreamID, (uint8_t stream_id))                                                     \
    X(uint16_t, xptiGetDefaultEventType, (void))                                                                       \
    X(zx_xpti_result, xptiSetDefaultEventType, (uint16_t event_type))                                                  \
    X(uint16_t, xptiGetDefaultTraceType, (void))                                                                       \
    X(zx_xpti_result, xptiSetDefaultTraceType, (uint16_t trace_type))                                                  \
    X(zx_xpti_object_id, xptiRegisterObject, (const char *data, size_t size, uint8_t type))                            \
    X(zx_xpti_object_data, xptiLookupObject, (zx_xpti_object_id id))

/* The interface objects of the current generation (docs/xpti.md "Tracepoints"): C++ objects with virtual functions.
 * A C caller reaches them through their vtable pointer; ZX_TP_* are the slots (after the two destructor slots). */
typedef struct zx_xpti_iface {
    void (*const *vtable)(void);
} zx_xpti_iface;
typedef zx_xpti_iface zx_xpti_tracepoint;
typedef zx_xpti_iface zx_xpti_payload_iface;
typedef zx_xpti_iface zx_xpti_event_iface;

/* The 16 functions the current generation's proxy resolves besides those above (48 in all: it needs no xptiReset). Our
 * dispatcher exports them; the emitter needs none of them. */
#define ZX_XPTI_FUNCTIONS_CURRENT(X)                                                                                   \
    X(uint64_t, xptiGetUniversalId, (void))                                                                            \
    X(void, xptiSetUniversalId, (uint64_t uid))                                                                        \
    X(uint64_t, xptiRegisterPayload, (zx_xpti_payload * payload))                                                      \
    X(const zx_xpti_event *, xptiFindEvent, (uint64_t uid))                                                            \
    X(const zx_xpti_payload *, xptiQueryPayloadByUID, (uint64_t uid))                                                  \
    X(zx_xpti_metadata *, xptiQueryMetadata, (zx_xpti_event * event))                                                  \
    X(void, xptiEnableTracepointScopeNotification, (bool enabled))                                                     \
    X(bool, xptiCheckTracepointScopeNotification, (void))                                                              \
    X(const zx_xpti_payload_iface *, xptiLookupPayload, (uint64_t uid))                                                \
    X(const zx_xpti_event_iface *, xptiLookupEvent, (uint64_t uid))                                                    \
    X(zx_xpti_tracepoint *, xptiCreateTracepoint,                                                                      \
      (const char *function, const char *file, uint32_t line, uint32_t column))                                        \
    X(zx_xpti_result, xptiDeleteTracepoint, (zx_xpti_tracepoint * tracepoint))                                         \
    X(const zx_xpti_tracepoint *, xptiGetTracepointScopeData, (void))                                                  \
    X(zx_xpti_result, xptiSetTracepointScopeData, (zx_xpti_tracepoint * tracepoint))                                   \
    X(void, xptiUnsetTracepointScopeData, (void))                                                                      \
    X(const zx_xpti_tracepoint *, xptiRegisterTracepointScope,                                                         \
      (const char *function, const char *file, uint32_t line, uint32_t column))

/* Functions of later revisions of the current generation that its 48-function proxy does not resolve: look them up
 * with dlsym. Our dispatcher exports them. */
#define ZX_XPTI_FUNCTIONS_DETAIL(X) X(uint8_t, xptiGetEffectiveStreamDetailLevel, (uint8_t stream))

/* Virtual function slots of xpti_tracepoint_t, after the two destructors. */
enum {
    ZX_TP_SLOT_PAYLOAD = 2,
    ZX_TP_SLOT_METADATA,
    ZX_TP_SLOT_EVENT,
    ZX_TP_SLOT_UID64,
    ZX_TP_SLOT_INSTANCE,
    ZX_TP_SLOT_EVENT_REF,
    ZX_TP_SLOT_PAYLOAD_REF,
};

/* Virtual function slots of xpti_payload_t, after the two destructors. */
enum {
    ZX_PL_SLOT_NAME = 2,
    ZX_PL_SLOT_SOURCE_FILE,
    ZX_PL_SLOT_LINE_NO,
    ZX_PL_SLOT_COLUMN_NO,
    ZX_PL_SLOT_FLAGS,
    ZX_PL_SLOT_NAME_ID,
    ZX_PL_SLOT_FILE_ID,
    ZX_PL_SLOT_UID64,
    ZX_PL_SLOT_IS_VALID,
    ZX_PL_SLOT_PAYLOAD_REF,
};

/* Virtual function slots of xpti_trace_event_t, after the two destructors. */
enum {
    ZX_EV_SLOT_PAYLOAD = 2,
    ZX_EV_SLOT_METADATA,
    ZX_EV_SLOT_UID64,
    ZX_EV_SLOT_INSTANCE,
    ZX_EV_SLOT_EVENT_TYPE,
    ZX_EV_SLOT_ACTIVITY_TYPE,
    ZX_EV_SLOT_SOURCE_UID64,
    ZX_EV_SLOT_TARGET_UID64,
    ZX_EV_SLOT_FLAGS,
    ZX_EV_SLOT_SET_ACTIVITY_TYPE,
    ZX_EV_SLOT_SET_EVENT_TYPE,
    ZX_EV_SLOT_PAYLOAD_REF,
    ZX_EV_SLOT_EVENT_REF,
};

/* Function pointer types zx_pfn_<name>. */
#define ZX_XPTI_PFN(ret, name, params) typedef ret(*zx_pfn_##name) params;
ZX_XPTI_FUNCTIONS(ZX_XPTI_PFN)
ZX_XPTI_FUNCTIONS_CURRENT(ZX_XPTI_PFN)
ZX_XPTI_FUNCTIONS_DETAIL(ZX_XPTI_PFN)
#undef ZX_XPTI_PFN

/* Prototypes, for our dispatcher and for subscribers that link a framework. */
#define ZX_XPTI_PROTOTYPE(ret, name, params) ret name params;
ZX_XPTI_FUNCTIONS(ZX_XPTI_PROTOTYPE)
ZX_XPTI_FUNCTIONS_CURRENT(ZX_XPTI_PROTOTYPE)
ZX_XPTI_FUNCTIONS_DETAIL(ZX_XPTI_PROTOTYPE)
#undef ZX_XPTI_PROTOTYPE

/* Our dispatcher's one addition (no generation of the real framework has it; look it up with dlsym): the index-th
 * metadata entry of an event, in the order added. NOTFOUND past the last one, INVALIDARG for a NULL or unknown event
 * or NULL outputs. *key is the string table's copy of the key. */
typedef zx_xpti_result (*zx_pfn_xpti_metadata_at)(zx_xpti_event *event, uint32_t index, const char **key,
                                                  zx_xpti_object_id *value);
#define ZX_XPTI_METADATA_AT "zx_xpti_metadata_at"
zx_xpti_result zx_xpti_metadata_at(zx_xpti_event *event, uint32_t index, const char **key, zx_xpti_object_id *value);

/* The index-th metadata entry of an event, for subscribers (which link a framework): through zx_xpti_metadata_at
 * when the framework has it (ours: in the order added), else through the public xptiQueryMetadata map (in the map's
 * order). False past the last entry. */
static inline bool zx_xpti_metadata_get(zx_pfn_xpti_metadata_at at, zx_xpti_event *event, uint32_t index,
                                        const char **key, zx_xpti_object_id *value) {
    if (at != NULL)
        return at(event, index, key, value) == ZX_XPTI_SUCCESS;
    const zx_xpti_metadata *map = xptiQueryMetadata(event);
    const zx_xpti_meta_node *node = map != NULL ? map->before_begin.next : NULL;
    for (uint32_t i = 0; node != NULL && i < index; i++)
        node = node->next;
    if (node == NULL)
        return false;
    *key = xptiLookupString(node->key);
    *value = node->value;
    return *key != NULL;
}

#endif
