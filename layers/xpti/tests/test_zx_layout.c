/* Unit test of the framework's data layouts as zx_xpti.h declares them (docs/xpti.md, "Layouts"): every field of
 * trace_event_data_t and payload_t at the offset of the framework's current header, written here as plain numbers;
 * zx_xpti_is_valid_event() against xpti::is_valid_event() re-implemented from the header's definition for every
 * combination of the six event flags; and zx_xpti_metadata_get() reading a map in libstdc++'s layout through the
 * public xptiQueryMetadata (as a subscriber does under a framework that is not ours), with this file standing in for
 * the framework. Exits non-zero when a check fails. */
#include "zx_xpti.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

static int failures;

static void check(bool ok, const char *what) {
    if (!ok) {
        fprintf(stderr, "test_zx_layout: %s\n", what);
        failures++;
    }
}

#define CHECK_AT(type, field, offset) check(offsetof(type, field) == (offset), #type "." #field " @" #offset)

static void event_fields_at_the_header_offsets(void) {
    CHECK_AT(zx_xpti_event, unique_id, 0);
    CHECK_AT(zx_xpti_event, data_id, 8);
    CHECK_AT(zx_xpti_event, instance_id, 16);
    CHECK_AT(zx_xpti_event, event_type, 24);
    CHECK_AT(zx_xpti_event, activity_type, 26);
    CHECK_AT(zx_xpti_event, unused, 28);
    CHECK_AT(zx_xpti_event, source_id, 32);
    CHECK_AT(zx_xpti_event, target_id, 40);
    CHECK_AT(zx_xpti_event, payload, 48);
    CHECK_AT(zx_xpti_event, metadata, 56);
    CHECK_AT(zx_xpti_event, global_user_data, 112);
    CHECK_AT(zx_xpti_event, flags, 120);
    check(sizeof(zx_xpti_event) == 128, "trace_event_data_t is 128 bytes");
}

static void payload_fields_at_the_header_offsets(void) {
    CHECK_AT(zx_xpti_payload, name, 0);
    CHECK_AT(zx_xpti_payload, stack_trace, 8);
    CHECK_AT(zx_xpti_payload, source_file, 16);
    CHECK_AT(zx_xpti_payload, line_no, 24);
    CHECK_AT(zx_xpti_payload, column_no, 28);
    CHECK_AT(zx_xpti_payload, code_ptr_va, 32);
    CHECK_AT(zx_xpti_payload, internal, 40);
    CHECK_AT(zx_xpti_payload, flags, 48);
    CHECK_AT(zx_xpti_payload, uid.p1, 56);
    CHECK_AT(zx_xpti_payload, uid.p2, 64);
    CHECK_AT(zx_xpti_payload, uid.p3, 72);
    check(sizeof(zx_xpti_payload) == 80, "payload_t is 80 bytes");
    CHECK_AT(zx_xpti_uid128, p1, 0);
    CHECK_AT(zx_xpti_uid128, p2, 8);
    CHECK_AT(zx_xpti_uid128, instance, 16);
    CHECK_AT(zx_xpti_uid128, uid64, 24);
}

/* The header's flag values: trace_event_flag_t UIDAvailable 1 ... PayloadAvailable 1 << 5; payload_flag_t. */
static void flag_values(void) {
    check(ZX_EVENT_UID == 1 && ZX_EVENT_SOURCE_UID == 2 && ZX_EVENT_TARGET_UID == 4 && ZX_EVENT_TYPE == 8 &&
              ZX_EVENT_ACTIVITY_TYPE == 16 && ZX_EVENT_PAYLOAD == 32,
          "trace_event_flag_t values");
    check(ZX_PAYLOAD_NAME == 1 && ZX_PAYLOAD_SOURCE_FILE == 2 && ZX_PAYLOAD_CODE_POINTER == 4 && ZX_PAYLOAD_LINE == 8 &&
              ZX_PAYLOAD_COLUMN == 16 && ZX_PAYLOAD_STACK_TRACE == 32 && ZX_PAYLOAD_REGISTERED == 0x8000 &&
              ZX_PAYLOAD_HASH == 0x20000,
          "payload_flag_t values");
}

/* xpti::is_valid_event(): not NULL, flags != 0, UIDAvailable (1) and PayloadAvailable (1 << 5). */
static bool header_is_valid_event(const zx_xpti_event *event) {
    return event != NULL && event->flags != 0 && (event->flags & 1u) != 0 && (event->flags & 32u) != 0;
}

static void is_valid_event_as_the_header(void) {
    check(!zx_xpti_is_valid_event(NULL), "is_valid_event(NULL)");
    for (uint64_t flags = 0; flags < 64; flags++) {
        zx_xpti_event event = {.flags = flags};
        char what[64];
        snprintf(what, sizeof what, "is_valid_event with flags 0x%02llx", (unsigned long long)flags);
        check(zx_xpti_is_valid_event(&event) == header_is_valid_event(&event), what);
    }
}

/* ------------------------------------------------------------------------------------------------------------------
 * The framework functions zx_xpti_metadata_get calls without our zx_xpti_metadata_at: an event whose metadata map
 * holds ("api", 7) then ("queue_id", 9), linked as libstdc++ links them (bucket = key % bucket_count). */

static zx_xpti_event meta_event;

const char *xptiLookupString(zx_xpti_string_id id) {
    return id == 3 ? "api" : id == 4 ? "queue_id" : NULL;
}

zx_xpti_metadata *xptiQueryMetadata(zx_xpti_event *event) {
    return event == &meta_event ? &event->metadata : NULL;
}

static void metadata_through_the_public_map(void) {
    static zx_xpti_meta_node second = {NULL, 4, 9};
    static zx_xpti_meta_node first = {&second, 3, 7};
    static zx_xpti_meta_link *buckets[5];
    zx_xpti_metadata *map = &meta_event.metadata;
    *map = (zx_xpti_metadata){.buckets = buckets, .bucket_count = 5, .element_count = 2, .max_load_factor = 1.0f};
    map->before_begin.next = &first;
    buckets[3] = &map->before_begin;
    buckets[4] = (zx_xpti_meta_link *)&first;
    const char *key = NULL;
    zx_xpti_object_id value = 0;
    check(zx_xpti_metadata_get(NULL, &meta_event, 0, &key, &value) && strcmp(key, "api") == 0 && value == 7,
          "metadata entry 0 through the public map");
    check(zx_xpti_metadata_get(NULL, &meta_event, 1, &key, &value) && strcmp(key, "queue_id") == 0 && value == 9,
          "metadata entry 1 through the public map");
    check(!zx_xpti_metadata_get(NULL, &meta_event, 2, &key, &value), "no metadata entry past the last");
    zx_xpti_event other = {0};
    check(!zx_xpti_metadata_get(NULL, &other, 0, &key, &value), "no metadata for an event the framework lacks");
}

int main(void) {
    event_fields_at_the_header_offsets();
    payload_fields_at_the_header_offsets();
    flag_values();
    is_valid_event_as_the_header();
    metadata_through_the_public_map();
    if (failures == 0)
        printf("test_zx_layout: all checks passed\n");
    return failures == 0 ? 0 : 1;
}
