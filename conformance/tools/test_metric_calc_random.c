/* Conformance: metric calculation of data no tool should hand it, on any driver: random bytes of random sizes, and
 * valid streamer frames and query records (docs/metrics-raw-formats.md) mutated record by record, give a result code
 * the headers allow and never a crash; threads calculating at once each get the single-threaded values. The exact
 * values of well-formed and malformed data are test_metric_calc.c's. */
#include "zc_metric.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>

#define ZC_PLAIN ZET_METRIC_GROUP_CALCULATION_TYPE_METRIC_VALUES
#define ZC_MAX   ZET_METRIC_GROUP_CALCULATION_TYPE_MAX_METRIC_VALUES

/* ---- Random data ---------------------------------------------------------------------------------------------- */

static uint64_t zc_random(uint64_t *x) {
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

static size_t zc_random_size(uint64_t *seed) {
    static const size_t units[] = {1, 64, 256, 688};
    uint64_t r = zc_random(seed);
    size_t unit = units[r % ZC_COUNT(units)];
    return (r >> 8) % 6 * unit + ((r >> 16) % 4 == 0 ? (r >> 24) % 64 : 0);
}

/* Random bytes, and now and then a frame header with random entries over them. */
static void zc_random_data(uint8_t *data, size_t size, uint64_t *seed) {
    for (size_t i = 0; i < size; i++)
        data[i] = (uint8_t)zc_random(seed);
    if (size < 16 || zc_random(seed) % 3 != 0)
        return;
    uint32_t sets = (uint32_t)(zc_random(seed) % 4) + 1;
    zc_put32(data, ZC_FRAME_MAGIC);
    data[4] = 1;
    data[5] = 0;
    data[6] = (uint8_t)(16 + 16 * sets);
    data[7] = 0;
    zc_put32(data + 8, sets);
    for (uint32_t i = 0; i < sets && 16 + 16 * (i + 1) <= size; i++) {
        uint8_t *entry = data + 16 + 16 * i;
        zc_put32(entry, (uint32_t)(zc_random(seed) % 3));
        zc_put32(entry + 8, (uint32_t)(zc_random(seed) % (size + 8)));
        zc_put32(entry + 12, (uint32_t)(zc_random(seed) % (size + 8)));
    }
}

static bool zc_acceptable(ze_result_t r) {
    return r == ZE_RESULT_SUCCESS || r == ZE_RESULT_NOT_READY || r == ZE_RESULT_ERROR_INVALID_SIZE ||
           r == ZE_RESULT_ERROR_INVALID_ARGUMENT;
}

/* What both calls answered for one input: the count query's results and the values the real calls wrote. */
typedef struct zc_fuzz_outcome {
    ze_result_t plain;
    ze_result_t multi;
    uint64_t values; /* written by the real calls */
} zc_fuzz_outcome;

static void zc_check_acceptable(ze_result_t r, const char *call, size_t size) {
    if (!zc_acceptable(r))
        zc_fail("%s: %s for %zu bytes", call, zc_result_name(r), size);
}

/* zetMetricGroupCalculateMetricValues: the count query, then a real call with a random capacity up to the count. */
static void zc_fuzz_plain_call(zet_metric_group_handle_t group, zet_metric_group_calculation_type_t type,
                               const uint8_t *data, size_t size, uint64_t *seed, zc_fuzz_outcome *out) {
    uint32_t count = 0;
    out->plain = zetMetricGroupCalculateMetricValues(group, type, size, data, &count, NULL);
    zc_check_acceptable(out->plain, "count", size);
    if (out->plain != ZE_RESULT_SUCCESS || count == 0)
        return;
    count = (uint32_t)(zc_random(seed) % count) + 1;
    zet_typed_value_t *values = calloc(count, sizeof *values);
    assert_non_null(values);
    ze_result_t r = zetMetricGroupCalculateMetricValues(group, type, size, data, &count, values);
    free(values);
    zc_check_acceptable(r, "values", size);
    if (zc_driver_is_fake() && r != out->plain)
        zc_fail("values: %s after the count query's %s", zc_result_name(r), zc_result_name(out->plain));
    out->values += count;
}

/* The Exp call: the count query, then a real call with exactly the sets and values it answered. */
static void zc_fuzz_multi_call(zet_metric_group_handle_t group, zet_metric_group_calculation_type_t type,
                               const uint8_t *data, size_t size, zc_fuzz_outcome *out) {
    uint32_t sets = 0, total = 0;
    out->multi = zetMetricGroupCalculateMultipleMetricValuesExp(group, type, size, data, &sets, &total, NULL, NULL);
    zc_check_acceptable(out->multi, "sets", size);
    if (out->multi != ZE_RESULT_SUCCESS || sets == 0 || total == 0)
        return;
    uint32_t *counts = calloc(sets, sizeof *counts);
    zet_typed_value_t *values = calloc(total, sizeof *values);
    assert_true(counts != NULL && values != NULL);
    ze_result_t r =
        zetMetricGroupCalculateMultipleMetricValuesExp(group, type, size, data, &sets, &total, counts, values);
    free(counts);
    free(values);
    zc_check_acceptable(r, "set values", size);
    if (zc_driver_is_fake() && r != out->multi)
        zc_fail("set values: %s after the count query's %s", zc_result_name(r), zc_result_name(out->multi));
    out->values += total;
}

/* Both calls on an exact-size heap copy of the data, so that a read past the end is caught by AddressSanitizer. */
static zc_fuzz_outcome zc_fuzz_calls(zet_metric_group_handle_t group, const uint8_t *data, size_t size,
                                     uint64_t *seed) {
    zet_metric_group_calculation_type_t type = zc_random(seed) % 2 ? ZC_PLAIN : ZC_MAX;
    uint8_t *copy = zc_heap_copy(data, size);
    zc_fuzz_outcome out = {ZE_RESULT_SUCCESS, ZE_RESULT_SUCCESS, 0};
    zc_fuzz_plain_call(group, type, copy, size, seed, &out);
    zc_fuzz_multi_call(group, type, copy, size, &out);
    free(copy);
    return out;
}

static void zc_fuzz_group(zet_metric_group_handle_t group, uint64_t *seed, int iterations) {
    for (int i = 0; i < iterations; i++) {
        size_t size = zc_random_size(seed);
        uint8_t *data = malloc(size > 0 ? size : 1);
        assert_non_null(data);
        zc_random_data(data, size, seed);
        zc_fuzz_calls(group, data, size, seed);
        free(data);
    }
}

static void calc_random_bytes_and_sizes_never_crash(void **state) {
    (void)state;
    const zc_system *sys = zc_sys();
    uint64_t seed = 0x6d657472696373u;
    for (uint32_t d = 0; d < sys->num_all; d++) {
        zc_count_query query = zc_metric_group_query(sys->all[d]);
        uint32_t n = 0;
        zet_metric_group_handle_t *groups = zc_query_all(&query, &n);
        for (uint32_t g = 0; g < n; g++) {
            if (zc_group_calculable(groups[g]))
                zc_fuzz_group(groups[g], &seed, 150);
        }
        free(groups);
    }
}

/* ---- Mutations of valid data: the record-reading paths, with inputs whose results the documents predict --------- */

#define ZC_MAX_TILES 64u

/* The tile ids a frame of `device`'s data names (docs/metrics-raw-formats.md): its sub-devices, or itself. */
static uint32_t zc_frame_tiles(ze_device_handle_t device, uint32_t ids[ZC_MAX_TILES]) {
    uint32_t n = zc_subdevice_count(device);
    for (uint32_t i = 0; i < n && i < ZC_MAX_TILES; i++)
        ids[i] = i;
    if (n > 0)
        return n < ZC_MAX_TILES ? n : ZC_MAX_TILES;
    ze_device_properties_t p = zc_device_props(device);
    ids[0] = (p.flags & ZE_DEVICE_PROPERTY_FLAG_SUBDEVICE) ? p.subdeviceId : 0;
    return 1;
}

/* The record size of a group's data: OA snapshots (streamers), OA query records, EU stall samples. */
static uint32_t zc_record_size(zet_metric_group_handle_t group) {
    zet_metric_group_properties_t p = zc_group_properties(group);
    if (!(p.samplingType & ZC_TIME_BASED))
        return ZC_QUERY_RECORD_SIZE;
    return strcmp(p.name, "EuStallSampling") == 0 ? ZC_EU_STALL_RECORD_SIZE : ZC_OA_RECORD_SIZE;
}

/* A well-formed record of that size (docs/metrics-raw-formats.md) with random contents: an OA snapshot's header holds
 * `sequence`, a timer or marker reason and zero bits 25-31; a query record its tag and flag bits 0-3; an EU stall
 * sample an IP of 29 bits. */
static void zc_random_record(uint8_t *rec, uint32_t record_size, uint16_t sequence, uint64_t *seed) {
    for (uint32_t i = 0; i < record_size; i++)
        rec[i] = (uint8_t)zc_random(seed);
    uint32_t word = (uint32_t)zc_random(seed);
    if (record_size == ZC_OA_RECORD_SIZE) {
        zc_put32(rec, sequence | (1u + (word & 1u)) << 16 | (word & 2u) << 23);
    } else if (record_size == ZC_QUERY_RECORD_SIZE) {
        zc_put32(rec, ZC_QUERY_TAG);
        zc_put32(rec + 4, word & 0xfu);
    } else {
        zc_put64(rec, word & ((1u << 29) - 1));
    }
}

/* A mutated input and the results docs/metrics-raw-formats.md predicts for it on the fake. */
typedef struct zc_mutant {
    uint8_t data[16 + 16 * ZC_MAX_TILES + ZC_MAX_TILES * 4 * ZC_QUERY_RECORD_SIZE];
    size_t size;
    size_t header; /* 0 for plain data */
    uint32_t sections;
    ze_result_t plain; /* expected of zetMetricGroupCalculateMetricValues */
    ze_result_t multi; /* expected of the Exp call */
} zc_mutant;

/* Valid data of the group: a frame with a section for every tile (two times in three) or plain records (plain data
 * of a multi-tile device is one set too), each part 0..3 (plain: 1..4) whole records, OA snapshots in consecutive
 * sequence. */
static void zc_valid_input(zc_mutant *m, uint32_t record_size, const uint32_t *tiles, uint32_t num_tiles,
                           uint64_t *seed) {
    bool framed = zc_random(seed) % 3 != 0;
    m->sections = framed ? num_tiles : 1;
    m->header = framed ? 16 + 16 * (size_t)m->sections : 0;
    size_t offset = m->header;
    uint16_t sequence = (uint16_t)zc_random(seed);
    if (framed) {
        memset(m->data, 0, m->header);
        zc_put32(m->data, ZC_FRAME_MAGIC);
        m->data[4] = 1;
        m->data[6] = (uint8_t)m->header;
        m->data[7] = (uint8_t)(m->header >> 8);
        zc_put32(m->data + 8, m->sections);
    }
    for (uint32_t i = 0; i < m->sections; i++) {
        uint32_t records = (uint32_t)(zc_random(seed) % 4) + (framed ? 0 : 1);
        if (framed) {
            zc_put32(m->data + 16 + 16 * i, tiles[i]);
            zc_put32(m->data + 24 + 16 * i, (uint32_t)offset);
            zc_put32(m->data + 28 + 16 * i, records * record_size);
        }
        for (uint32_t r = 0; r < records; r++, offset += record_size)
            zc_random_record(m->data + offset, record_size, sequence++, seed);
    }
    m->size = offset;
    m->multi = ZE_RESULT_SUCCESS;
    m->plain = framed ? ZE_RESULT_ERROR_INVALID_ARGUMENT : ZE_RESULT_SUCCESS;
}

/* Flips a few record bytes (never the frame header); plain data must still not start with the magic. */
static void zc_flip_record_bytes(zc_mutant *m, uint64_t *seed) {
    if (m->size == m->header)
        return;
    for (uint64_t flips = zc_random(seed) % 6; flips > 0; flips--)
        m->data[m->header + zc_random(seed) % (m->size - m->header)] ^= (uint8_t)(1 + zc_random(seed) % 255);
    if (m->header == 0 && zc_get32(m->data) == ZC_FRAME_MAGIC)
        m->data[0] ^= 1;
}

/* Cuts 1 .. record size - 1 bytes off the end: plain data is no longer whole records, a frame's last section (or its
 * header) runs past the end; data left shorter than 16 bytes is plain. */
static void zc_truncate(zc_mutant *m, uint32_t record_size, uint64_t *seed) {
    if (m->size < 2)
        return;
    size_t limit = m->size - 1 < record_size - 1 ? m->size - 1 : record_size - 1;
    m->size -= 1 + zc_random(seed) % limit;
    m->multi = ZE_RESULT_ERROR_INVALID_SIZE;
    m->plain = m->header > 0 && m->size >= 16 ? ZE_RESULT_ERROR_INVALID_ARGUMENT : ZE_RESULT_ERROR_INVALID_SIZE;
}

/* Moves one section's size by a whole record, or its offset onto the first section's: valid while the section stays
 * inside the data (sections may overlap). */
static void zc_resize_section(zc_mutant *m, uint32_t record_size, uint64_t *seed) {
    uint32_t i = (uint32_t)(zc_random(seed) % m->sections);
    uint8_t *entry = m->data + 16 + 16 * i;
    uint32_t offset = zc_get32(entry + 8), length = zc_get32(entry + 12);
    switch (zc_random(seed) % 3) {
    case 0:
        length += record_size;
        break;
    case 1:
        length = length >= record_size ? length - record_size : length;
        break;
    default:
        offset = (uint32_t)m->header;
        break;
    }
    zc_put32(entry + 8, offset);
    zc_put32(entry + 12, length);
    m->multi = (size_t)offset + length <= m->size ? ZE_RESULT_SUCCESS : ZE_RESULT_ERROR_INVALID_SIZE;
}

/* Names a random tile in one section: valid while every tile is the device's and named once. */
static void zc_retile_section(zc_mutant *m, const uint32_t *tiles, uint32_t num_tiles, uint64_t *seed) {
    uint32_t i = (uint32_t)(zc_random(seed) % m->sections), tile = (uint32_t)(zc_random(seed) % (num_tiles + 2));
    zc_put32(m->data + 16 + 16 * i, tile);
    bool known = false, repeated = false;
    for (uint32_t t = 0; t < num_tiles; t++)
        known = known || tiles[t] == tile;
    for (uint32_t j = 0; j < m->sections; j++)
        repeated = repeated || (j != i && zc_get32(m->data + 16 + 16 * j) == tile);
    m->multi = known && !repeated ? ZE_RESULT_SUCCESS : ZE_RESULT_ERROR_INVALID_ARGUMENT;
}

static void zc_mutate(zc_mutant *m, uint32_t record_size, const uint32_t *tiles, uint32_t num_tiles, uint64_t *seed) {
    zc_valid_input(m, record_size, tiles, num_tiles, seed);
    zc_flip_record_bytes(m, seed);
    uint64_t kind = zc_random(seed) % 4;
    if (kind == 1)
        zc_truncate(m, record_size, seed);
    else if (kind == 2 && m->header > 0)
        zc_resize_section(m, record_size, seed);
    else if (kind == 3 && m->header > 0)
        zc_retile_section(m, tiles, num_tiles, seed);
}

/* Returns how many of the inputs calculated to at least one value. */
static uint32_t zc_fuzz_mutations(zet_metric_group_handle_t group, ze_device_handle_t device, uint64_t *seed,
                                  uint32_t iterations) {
    uint32_t tiles[ZC_MAX_TILES], num_tiles = zc_frame_tiles(device, tiles), calculated = 0;
    uint32_t record_size = zc_record_size(group);
    zc_mutant *m = malloc(sizeof *m);
    assert_non_null(m);
    for (uint32_t i = 0; i < iterations; i++) {
        zc_mutate(m, record_size, tiles, num_tiles, seed);
        zc_fuzz_outcome out = zc_fuzz_calls(group, m->data, m->size, seed);
        calculated += out.values > 0;
        if (zc_driver_is_fake() && (out.plain != m->plain || out.multi != m->multi))
            zc_fail("a mutated input of %zu bytes (%u sections): %s and %s, expected %s and %s", m->size, m->sections,
                    zc_result_name(out.plain), zc_result_name(out.multi), zc_result_name(m->plain),
                    zc_result_name(m->multi));
    }
    free(m);
    return calculated;
}

/* Valid plain data and frames of every group, mutated: record bytes flipped, section sizes and offsets moved by whole
 * records, tiles renamed, the end cut off. Exact-size heap copies let AddressSanitizer see any read past the data.
 * On the fake every result is the one the validation table predicts, and many inputs calculate values. */
static void calc_mutated_frames_and_records_never_crash(void **state) {
    (void)state;
    const zc_system *sys = zc_sys();
    uint64_t seed = 0x7a6566616b65u;
    for (uint32_t d = 0; d < sys->num_all; d++) {
        zc_count_query query = zc_metric_group_query(sys->all[d]);
        uint32_t n = 0;
        zet_metric_group_handle_t *groups = zc_query_all(&query, &n);
        for (uint32_t g = 0; g < n; g++) {
            if (!zc_group_calculable(groups[g]))
                continue;
            uint32_t calculated = zc_fuzz_mutations(groups[g], sys->all[d], &seed, 200);
            if (zc_driver_is_fake() && calculated < 200 / 5)
                zc_fail("only %u of 200 mutated inputs calculated values", calculated);
        }
        free(groups);
    }
}

/* ---- Threads -------------------------------------------------------------------------------------------------- */

/* The calculation may be called from simultaneous threads, also on one group (the carried record has its lock): each
 * thread calculates streams of its own, which never continue another's, and must get exactly the values a single
 * thread gets for the same reports. */
typedef struct zc_calc_job {
    zet_metric_group_handle_t group;
    uint16_t first_sequence;
    uint32_t ticks_step; /* GPU clocks between reports, different per thread */
    uint32_t count;      /* values per call */
    zet_typed_value_t expected[256];
    int failures;
} zc_calc_job;

static void zc_job_records(const zc_calc_job *job, uint16_t first_sequence, uint8_t *raw) {
    for (uint16_t i = 0; i < 4; i++)
        zc_write_oa(raw + i * ZC_OA_RECORD_SIZE, &(zc_oa_snapshot){.sequence = (uint16_t)(first_sequence + i),
                                                                   .timestamp = 1000u * i,
                                                                   .gpu_ticks = job->ticks_step * i});
}

static void *zc_calc_thread(void *arg) {
    zc_calc_job *job = arg;
    uint8_t raw[4 * ZC_OA_RECORD_SIZE];
    zet_typed_value_t values[256];
    for (int round = 0; round < 200; round++) {
        zc_job_records(job, (uint16_t)(job->first_sequence + 8 * round), raw);
        uint32_t count = 256;
        if (zetMetricGroupCalculateMetricValues(job->group, ZC_PLAIN, sizeof raw, raw, &count, values) !=
                ZE_RESULT_SUCCESS ||
            count != job->count || !zc_same_values(values, job->expected, count))
            job->failures++;
    }
    return NULL;
}

/* The values of one call on the job's reports, from this thread alone (a stream no other call continues). */
static void zc_job_reference(zc_calc_job *job, uint16_t first_sequence) {
    uint8_t raw[4 * ZC_OA_RECORD_SIZE];
    zc_job_records(job, (uint16_t)(first_sequence - 2), raw);
    job->count = 256; /* the kept record becomes one the reference does not continue */
    zc_assert_success(
        zetMetricGroupCalculateMetricValues(job->group, ZC_PLAIN, ZC_OA_RECORD_SIZE, raw, &job->count, job->expected));
    zc_job_records(job, first_sequence, raw);
    job->count = 256;
    zc_assert_success(
        zetMetricGroupCalculateMetricValues(job->group, ZC_PLAIN, sizeof raw, raw, &job->count, job->expected));
    assert_int_equal(job->count, 3 * zc_metric_count(job->group));
    if (zc_driver_is_fake()) { /* docs/metrics-raw-formats.md: pairwise differences */
        uint32_t clocks = zc_metric_index(job->group, "GpuCoreClocks"), mc = zc_metric_count(job->group);
        for (uint32_t r = 0; r < 3; r++)
            assert_int_equal(zc_u64(job->expected[r * mc + clocks]), job->ticks_step);
    }
}

static void calc_from_simultaneous_threads(void **state) {
    (void)state;
    zet_metric_group_handle_t group = zc_need_group(zc_sys()->roots[0], "TestOa", ZC_TIME_BASED);
    pthread_t threads[4];
    zc_calc_job *jobs = calloc(4, sizeof *jobs);
    assert_non_null(jobs);
    for (int i = 0; i < 4; i++) {
        jobs[i] = (zc_calc_job){.group = group, .first_sequence = (uint16_t)(10000 + 4000 * i), .ticks_step = 5u + i};
        zc_job_reference(&jobs[i], (uint16_t)(60000 + 16 * i));
    }
    for (int i = 0; i < 4; i++)
        assert_int_equal(pthread_create(&threads[i], NULL, zc_calc_thread, &jobs[i]), 0);
    for (int i = 0; i < 4; i++) {
        pthread_join(threads[i], NULL);
        assert_int_equal(jobs[i].failures, 0);
    }
    free(jobs);
}

int main(int argc, char **argv) {
    static const struct CMUnitTest tests[] = {
        cmocka_unit_test(calc_random_bytes_and_sizes_never_crash),
        cmocka_unit_test(calc_mutated_frames_and_records_never_crash),
        cmocka_unit_test(calc_from_simultaneous_threads),
    };
    static const zc_suite suite = {ZC_EXECUTABLE, tests, ZC_COUNT(tests), zc_setup_system, zc_teardown_system, NULL, 0};
    return zc_main(argc, argv, &suite);
}
