/* Conformance: memory as kernels see it. Local memory shared by a work-group and synchronised by barriers
 * (reductions, scans, collectives, async copies), atomics under contention from every work-item of a launch, module
 * globals and specialization constants, images and samplers, sub-group block reads and writes, and (on the fake) the
 * report of out-of-bounds accesses. Kernels: conformance/kernels/spirv_{local,atomics,globals,image,subgroups}.cl. */
#include "zc_spirv.h"

#include <inttypes.h>
#include <limits.h>
#include <zefake/zefake_ext.h>

/* ------------------------------------------------------------------------------------------------------------------
 * Local memory and barriers */

static void zc_reduce_with(zc_sx *s, uint32_t global, uint32_t local) {
    const uint32_t n = 10000;
    float *in = zc_spirv_buffer(s, n * 4), *out = zc_spirv_buffer(s, (global / local) * 4);
    for (uint32_t i = 0; i < n; i++)
        in[i] = (float)(i % 13);
    uint32_t count = n;
    zc_arg args[] = {ZC_PTR(in), ZC_PTR(out), ZC_LOCAL(local * 4), ZC_VAL(count)};
    zc_spirv_run(s, "spirv_local", "reduce", global, local, args, 4);
    for (uint32_t g = 0; g < global / local; g++) {
        double want = 0; /* small integers: every partial sum is exact in float */
        for (uint32_t l = 0; l < local; l++)
            for (uint32_t i = g * local + l; i < n; i += global)
                want += in[i];
        if (out[g] != (float)want)
            zc_fail("group %u of %u x %u: %g, expected %g", g, global / local, local, (double)out[g], want);
    }
    zc_free(&s->x, in);
    zc_free(&s->x, out);
}

static void spirv_local_reduction_with_barriers(void **state) {
    zc_sx *s = *state;
    zc_reduce_with(s, 256, 64);
    zc_reduce_with(s, 512, 256);
    zc_reduce_with(s, 128, 8); /* many small groups in flight together */
    zc_reduce_with(s, 2048, 128);
}

static void spirv_local_scan(void **state) {
    zc_sx *s = *state;
    const uint32_t sizes[] = {256, 64, 16, 1};
    const uint32_t global = 1024;
    int32_t *in = zc_spirv_buffer(s, global * 4), *out = zc_spirv_buffer(s, global * 4);
    for (uint32_t i = 0; i < global; i++)
        in[i] = (int32_t)(i * 7 % 19) - 9;
    for (size_t k = 0; k < ZC_COUNT(sizes); k++) {
        uint32_t local = sizes[k];
        zc_arg args[] = {ZC_PTR(in), ZC_PTR(out), ZC_LOCAL(local * 4)};
        zc_spirv_run(s, "spirv_local", "scan", global, local, args, 3);
        int32_t running = 0;
        for (uint32_t i = 0; i < global; i++) {
            running = i % local == 0 ? in[i] : running + in[i];
            if (out[i] != running)
                zc_fail("groups of %u: element %u is %d, expected %d", local, i, out[i], running);
        }
    }
    zc_free(&s->x, in);
    zc_free(&s->x, out);
}

static uint32_t zc_subgroup_size(zc_sx *s, const char *file, const char *name) {
    ze_kernel_handle_t kernel = zc_kernel_create(zc_spirv_module(s, file), name);
    ze_kernel_properties_t props = {.stype = ZE_STRUCTURE_TYPE_KERNEL_PROPERTIES};
    zc_assert_success(zeKernelGetProperties(kernel, &props));
    zc_assert_success(zeKernelDestroy(kernel));
    return props.maxSubgroupSize;
}

static void zc_collectives_expected(const int32_t *in, const float *fin, uint32_t g, uint32_t local, uint32_t sg,
                                    int32_t *o, float *fo) {
    uint32_t base = g - g % local, l = g % local, sbase = base + l / sg * sg, send = sbase + sg;
    if (send > base + local)
        send = base + local;
    int32_t sum = 0, min = INT_MAX, max = INT_MIN, incl = 0, excl = 0, sgsum = 0, sgmax = INT_MIN;
    bool all = true, any = false;
    float fsum = 0, fmax_incl = -INFINITY;
    for (uint32_t i = base; i < base + local; i++) {
        sum += in[i];
        min = in[i] < min ? in[i] : min;
        max = in[i] > max ? in[i] : max;
        all = all && in[i] > -100;
        any = any || in[i] > 40;
        fsum += fin[i];
        if (i <= g) {
            incl += in[i];
            fmax_incl = fin[i] > fmax_incl ? fin[i] : fmax_incl;
        }
        if (i < g)
            excl += in[i];
    }
    for (uint32_t i = sbase; i < send; i++) {
        sgsum += in[i];
        if (i < g)
            sgmax = in[i] > sgmax ? in[i] : sgmax;
    }
    int32_t want[10] = {sum, min, max, incl, excl, in[base + 3], all + 2 * any, sgsum, sgmax, in[sbase + 1]};
    memcpy(o, want, sizeof want);
    fo[0] = fsum;
    fo[1] = fmax_incl;
}

static void spirv_work_group_and_sub_group_collectives(void **state) {
    zc_sx *s = *state;
    const uint32_t global = 256, local = 64;
    uint32_t sg = zc_subgroup_size(s, "spirv_local", "collectives");
    int32_t *in = zc_spirv_buffer(s, global * 4), *out = zc_spirv_buffer(s, global * 10 * 4);
    float *fin = zc_spirv_buffer(s, global * 4), *fout = zc_spirv_buffer(s, global * 2 * 4);
    for (uint32_t i = 0; i < global; i++) {
        in[i] = (int32_t)(i * 37 % 101) - 50;
        fin[i] = (float)(i * 11 % 17) * 0.5f;
    }
    zc_arg args[] = {ZC_PTR(in), ZC_PTR(fin), ZC_PTR(out), ZC_PTR(fout)};
    zc_spirv_run(s, "spirv_local", "collectives", global, local, args, 4);
    for (uint32_t g = 0; g < global; g++) {
        int32_t want[10];
        float fwant[2];
        zc_collectives_expected(in, fin, g, local, sg, want, fwant);
        for (int k = 0; k < 10; k++)
            if (out[g * 10 + k] != want[k])
                zc_fail("work-item %u (sub-groups of %u): result %d is %d, expected %d", g, sg, k, out[g * 10 + k],
                        want[k]);
        if (fout[g * 2] != fwant[0] || fout[g * 2 + 1] != fwant[1])
            zc_fail("work-item %u: float reduce/scan %g %g, expected %g %g", g, (double)fout[g * 2],
                    (double)fout[g * 2 + 1], (double)fwant[0], (double)fwant[1]);
    }
    void *buffers[] = {in, out, fin, fout};
    for (size_t i = 0; i < ZC_COUNT(buffers); i++)
        zc_free(&s->x, buffers[i]);
}

static void spirv_sub_group_shuffles(void **state) {
    zc_sx *s = *state;
    const uint32_t global = 128, local = 64;
    uint32_t sg = zc_subgroup_size(s, "spirv_local", "shuffles");
    int32_t *in = zc_spirv_buffer(s, global * 4), *out = zc_spirv_buffer(s, global * 3 * 4);
    for (uint32_t i = 0; i < global; i++)
        in[i] = (int32_t)(i * i % 97);
    zc_arg args[] = {ZC_PTR(in), ZC_PTR(out)};
    zc_spirv_run(s, "spirv_local", "shuffles", global, local, args, 2);
    for (uint32_t g = 0; g < global; g++) {
        uint32_t base = g - g % sg, lane = g % sg, down = lane + 2;
        int32_t want[3] = {in[base + (lane * 3 + 1) % sg], down < sg ? in[base + down] : in[base + down - sg] + 1000,
                           in[base + (lane ^ 1u)]};
        for (int k = 0; k < 3; k++)
            if (out[g * 3 + k] != want[k])
                zc_fail("work-item %u (sub-groups of %u): shuffle %d gave %d, expected %d", g, sg, k, out[g * 3 + k],
                        want[k]);
    }
    zc_free(&s->x, in);
    zc_free(&s->x, out);
}

static void spirv_async_work_group_copy(void **state) {
    zc_sx *s = *state;
    const uint32_t local = 32, groups = 8, n = local * groups;
    float *in = zc_spirv_buffer(s, n * 4), *out = zc_spirv_buffer(s, n * 4);
    for (uint32_t i = 0; i < n; i++)
        in[i] = (float)i * 0.25f;
    zc_arg args[] = {ZC_PTR(in), ZC_PTR(out), ZC_LOCAL(local * 4)};
    zc_spirv_run(s, "spirv_local", "async_copy", n, local, args, 3);
    for (uint32_t g = 0; g < groups; g++)
        for (uint32_t l = 0; l < local; l++) {
            float want = in[g * local + l] * 2.0f + (float)l;
            if (out[g + l * groups] != want) /* strided back: element l of group g lands at g + l * groups */
                zc_fail("group %u element %u: %g, expected %g", g, l, (double)out[g + l * groups], (double)want);
        }
    zc_free(&s->x, in);
    zc_free(&s->x, out);
}

/* ------------------------------------------------------------------------------------------------------------------
 * Atomics */

static void spirv_atomics_under_contention(void **state) {
    zc_sx *s = *state;
    const uint32_t n = 8192;
    int32_t *counters = zc_spirv_buffer(s, 8 * 4), *seen = zc_spirv_buffer(s, n * 4),
            *values = zc_spirv_buffer(s, n * 4);
    int64_t *wide = zc_spirv_buffer(s, 2 * 8);
    int32_t init[8] = {0, 0, INT_MAX, INT_MIN, -1, 0, 0, -1};
    memcpy(counters, init, sizeof init);
    wide[1] = INT64_MIN;
    int32_t min = INT_MAX, max = INT_MIN, x = 0, and_bits = -1, or_bits = 0;
    int64_t wsum = 0, wmax = INT64_MIN;
    for (uint32_t i = 0; i < n; i++) {
        values[i] = (int32_t)((i * 2654435761u) % 20001) - 10000;
        min = values[i] < min ? values[i] : min;
        max = values[i] > max ? values[i] : max;
        x ^= values[i];
        and_bits &= ~(1 << (i % 31));
        or_bits |= 1 << (i % 29);
        wsum += (int64_t)values[i] * (1 << 20); /* the kernel's shift, without C's undefined shift of a negative */
        wmax = (int64_t)values[i] * 1000000000 > wmax ? (int64_t)values[i] * 1000000000 : wmax;
    }
    zc_arg args[] = {ZC_PTR(counters), ZC_PTR(seen), ZC_PTR(values), ZC_PTR(wide)};
    zc_spirv_run(s, "spirv_atomics", "contention", n, 64, args, 4);
    int32_t want[7] = {(int32_t)n, -(int32_t)n, min, max, and_bits, or_bits, x};
    for (int k = 0; k < 7; k++)
        if (counters[k] != want[k])
            zc_fail("counter %d is %d, expected %d", k, counters[k], want[k]);
    assert_true(counters[7] >= 0 && counters[7] < (int32_t)n);
    for (uint32_t i = 0; i < n; i++)
        if (seen[i] != 1)
            zc_fail("atomic_inc returned %u %d times", i, seen[i]);
    if (wide[0] != wsum || wide[1] != wmax)
        zc_fail("64-bit atomics: %lld %lld, expected %lld %lld", (long long)wide[0], (long long)wide[1],
                (long long)wsum, (long long)wmax);
    zc_free(&s->x, counters);
    zc_free(&s->x, seen);
    zc_free(&s->x, values);
    zc_free(&s->x, wide);
}

static void spirv_histogram_in_local_memory(void **state) {
    zc_sx *s = *state;
    const uint32_t n = 50000;
    uint8_t *data = zc_spirv_buffer(s, n);
    uint32_t *bins = zc_spirv_buffer(s, 64 * 4), want[64] = {0};
    for (uint32_t i = 0; i < n; i++) {
        data[i] = (uint8_t)(i * 31 + i / 7);
        want[data[i] % 64]++;
    }
    uint32_t count = n;
    zc_arg args[] = {ZC_PTR(data), ZC_PTR(bins), ZC_LOCAL(64 * 4), ZC_VAL(count)};
    zc_spirv_run(s, "spirv_atomics", "histogram", 1024, 32, args, 4);
    for (int b = 0; b < 64; b++)
        if (bins[b] != want[b])
            zc_fail("bin %d: %u, expected %u", b, bins[b], want[b]);
    zc_free(&s->x, data);
    zc_free(&s->x, bins);
}

static void spirv_compare_exchange_and_c11_atomics(void **state) {
    zc_sx *s = *state;
    const uint32_t n = 4096;
    float *sum = zc_spirv_buffer(s, 4);
    int32_t *c11 = zc_spirv_buffer(s, 3 * 4), *flag = zc_spirv_buffer(s, 4), *won = zc_spirv_buffer(s, 4);
    zc_arg args[] = {ZC_PTR(sum), ZC_PTR(c11), ZC_PTR(flag), ZC_PTR(won)};
    zc_spirv_run(s, "spirv_atomics", "cas_and_c11", n, 128, args, 4);
    float want = 0;
    for (uint32_t i = 0; i < n; i++)
        want += (float)(i % 8);
    if (*sum != want)
        zc_fail("the compare-exchange sum is %g, expected %g", (double)*sum, (double)want);
    assert_int_equal(c11[0], 2 * n);
    assert_true(c11[1] >= 1 && c11[1] <= (int32_t)n);
    assert_int_equal(c11[2], n - 1);
    assert_int_equal(*won, 1);
    assert_true(*flag != 0);
    zc_free(&s->x, sum);
    zc_free(&s->x, c11);
    zc_free(&s->x, flag);
    zc_free(&s->x, won);
}

/* kernels/spirv_rare.cl's atomics, which the kernels above do not reach: subtraction, unsigned minimum and maximum,
 * exchange, a compare-exchange that fails for two work-items of three, and a flag cleared between two tests. */
static void spirv_subtract_min_max_exchange_and_flag_clear(void **state) {
    zc_sx *s = *state;
    enum { N = 2048 };
    uint32_t *values = zc_spirv_buffer(s, N * 4), *shared = zc_spirv_buffer(s, 4 * 4);
    uint32_t *slots = zc_spirv_buffer(s, N * 4), *old = zc_spirv_buffer(s, N * 4);
    int32_t *flag = zc_spirv_buffer(s, 4), *seen = zc_spirv_buffer(s, 2 * 4);
    uint64_t seed = 77;
    uint32_t total = 0, least = UINT32_MAX, most = 0;
    for (uint32_t i = 0; i < N; i++) {
        values[i] = 1 + (uint32_t)(zc_rand(&seed) % (1u << 20));
        total += values[i];
        least = values[i] < least ? values[i] : least;
        most = values[i] > most ? values[i] : most;
        slots[i] = 2 * i;
    }
    uint32_t start[4] = {0x7fffffffu, UINT32_MAX, 0, 0};
    memcpy(shared, start, sizeof start);
    *flag = 0;
    zc_arg args[] = {ZC_PTR(values), ZC_PTR(shared), ZC_PTR(slots), ZC_PTR(old), ZC_PTR(flag), ZC_PTR(seen)};
    zc_spirv_run(s, "spirv_rare", "rare_atomics", N, 64, args, 6);
    assert_int_equal(shared[0], 0x7fffffffu - total);
    assert_int_equal(shared[1], least);
    assert_int_equal(shared[2], most);
    bool exchanged = false; /* the last exchange's value is one of them */
    for (uint32_t i = 0; i < N && !exchanged; i++)
        exchanged = shared[3] == values[i];
    assert_true(exchanged);
    for (uint32_t i = 0; i < N; i++)
        if (old[i] != 2 * i || slots[i] != (i % 3 == 0 ? i + 5 : 2 * i))
            zc_fail("compare-exchange of work-item %u: returned %u, left %u", i, old[i], slots[i]);
    assert_int_equal(seen[0], 0); /* the first test of a clear flag, then one after atomic_flag_clear */
    assert_int_equal(seen[1], 0);
    assert_int_equal(*flag, 0);
    void *buffers[] = {values, shared, slots, old, flag, seen};
    for (size_t i = 0; i < ZC_COUNT(buffers); i++)
        zc_free(&s->x, buffers[i]);
}

/* ------------------------------------------------------------------------------------------------------------------
 * Globals and specialization constants */

static ze_module_handle_t zc_globals_module(zc_sx *s, bool specialized) {
    int32_t k = 5;
    float f = 2.0f;
    uint8_t b = 0;
    const uint32_t ids[] = {20, 21, 22};
    const void *values[] = {&k, &f, &b};
    ze_module_constants_t constants = {3, ids, values};
    zc_spirv file = zc_load_spirv("spirv_globals");
    ze_module_handle_t module = NULL;
    zc_assert_success(zc_module_from(s->x.context, s->x.device, ZE_MODULE_FORMAT_IL_SPIRV, file.data, file.size, NULL,
                                     specialized ? &constants : NULL, &module, NULL));
    free(file.data);
    return module;
}

static void zc_launch_module(zc_sx *s, ze_module_handle_t module, const char *name, uint32_t items, const zc_arg *args,
                             uint32_t n) {
    ze_kernel_handle_t kernel = zc_kernel_create(module, name);
    for (uint32_t i = 0; i < n; i++)
        zc_assert_success(zeKernelSetArgumentValue(kernel, i, args[i].size, args[i].value));
    zc_assert_success(zeKernelSetGroupSize(kernel, items < 32 ? items : 32, 1, 1));
    ze_group_count_t groups = {items < 32 ? 1 : items / 32, 1, 1};
    zc_assert_success(zeCommandListAppendLaunchKernel(s->list, kernel, &groups, NULL, 0, NULL));
    zc_assert_success(zeKernelDestroy(kernel));
}

static void zc_check_globals(const int32_t *out, uint32_t n, int32_t k, float f, bool b, int32_t launches) {
    static const float table[8] = {1, 2, 4, 8, 16, 32, 64, 128};
    static const int16_t offsets[4] = {-3, 5, -7, 11};
    for (uint32_t i = 0; i < n; i++) {
        int32_t want = (int32_t)(table[i % 8] * f) + offsets[i % 4] * k + (b ? 1000 : 0) + launches * 100000;
        if (out[i] != want)
            zc_fail("item %u: %d, expected %d", i, out[i], want);
    }
}

static void spirv_globals_and_specialization_constants(void **state) {
    zc_sx *s = *state;
    const uint32_t n = 64;
    int32_t *out = zc_spirv_buffer(s, n * 4);
    zc_arg args[] = {ZC_PTR(out)};
    ze_module_handle_t plain = zc_globals_module(s, false), special = zc_globals_module(s, true);
    zc_launch_module(s, plain, "use_globals", n, args, 1);
    zc_check_globals(out, n, 3, 1.5f, true, 0);
    zc_launch_module(s, special, "use_globals", n, args, 1);
    zc_check_globals(out, n, 5, 2.0f, false, 0);
    zc_launch_module(s, special, "bump", 1, NULL, 0);
    zc_launch_module(s, special, "use_globals", n, args, 1);
    zc_check_globals(out, n, 5, 2.0f, false, 1);
    /* The kernel's globals are the module's: the host sees the count and its writes reach the kernel. */
    int32_t *launches = NULL, *accumulated = NULL;
    size_t size = 0;
    zc_assert_success(zeModuleGetGlobalPointer(special, "launches", &size, (void **)&launches));
    assert_int_equal(size, 4);
    assert_int_equal(*launches, 1);
    *launches = 7;
    zc_launch_module(s, special, "use_globals", n, args, 1);
    zc_check_globals(out, n, 5, 2.0f, false, 7);
    zc_assert_success(zeModuleGetGlobalPointer(special, "accumulated", &size, (void **)&accumulated));
    for (uint32_t k = 0; k < 4; k++) {
        int32_t want = 0;
        for (uint32_t i = k; i < n; i += 4)
            want += (int32_t)i * 3; /* three launches of the specialized module */
        assert_int_equal(accumulated[k], want);
    }
    /* The other module's globals are its own. */
    zc_assert_success(zeModuleGetGlobalPointer(plain, "launches", &size, (void **)&launches));
    assert_int_equal(*launches, 0);
    zc_assert_success(zeModuleDestroy(plain));
    zc_assert_success(zeModuleDestroy(special));
    zc_free(&s->x, out);
}

/* ------------------------------------------------------------------------------------------------------------------
 * Images and samplers */

static ze_image_handle_t zc_image(zc_sx *s, ze_image_type_t type, ze_image_format_layout_t layout,
                                  ze_image_format_type_t kind, uint32_t w, uint32_t h, uint32_t d, uint32_t layers,
                                  ze_image_flags_t flags) {
    ze_image_desc_t desc = {ZE_STRUCTURE_TYPE_IMAGE_DESC,
                            NULL,
                            flags,
                            type,
                            {layout, kind, ZE_IMAGE_FORMAT_SWIZZLE_R, ZE_IMAGE_FORMAT_SWIZZLE_G,
                             ZE_IMAGE_FORMAT_SWIZZLE_B, ZE_IMAGE_FORMAT_SWIZZLE_A},
                            w,
                            h,
                            d,
                            layers,
                            0};
    ze_image_handle_t image = NULL;
    zc_assert_success(zeImageCreate(s->x.context, s->x.device, &desc, &image));
    return image;
}

static ze_sampler_handle_t zc_sampler(zc_sx *s, ze_sampler_address_mode_t mode, ze_sampler_filter_mode_t filter,
                                      bool normalized) {
    ze_sampler_desc_t desc = {ZE_STRUCTURE_TYPE_SAMPLER_DESC, NULL, mode, filter, normalized};
    ze_sampler_handle_t sampler = NULL;
    zc_assert_success(zeSamplerCreate(s->x.context, s->x.device, &desc, &sampler));
    return sampler;
}

static bool zc_images_supported(zc_sx *s) {
    ze_device_image_properties_t props = {.stype = ZE_STRUCTURE_TYPE_DEVICE_IMAGE_PROPERTIES};
    zc_assert_success(zeDeviceGetImageProperties(s->x.device, &props));
    return props.maxImageDims2D >= 16 && props.maxImageDims3D >= 4 && props.maxImageArraySlices >= 3;
}

static void zc_gradient_written(zc_sx *s, ze_image_handle_t image, uint8_t *pixels) {
    zc_arg args[] = {{sizeof image, &image}};
    zc_assert_success(zc_spirv_run2(s, "spirv_image", "image_gradient", 16, 16, 8, 8, args, 1));
    zc_assert_success(zeCommandListAppendImageCopyToMemory(s->list, pixels, image, NULL, NULL, 0, NULL));
    for (uint32_t y = 0; y < 16; y++)
        for (uint32_t x = 0; x < 16; x++) {
            const uint8_t *p = &pixels[(y * 16 + x) * 4];
            uint8_t want[4] = {(uint8_t)nearbyint(x / 15.0 * 255), (uint8_t)nearbyint(y / 15.0 * 255),
                               (uint8_t)nearbyint((x + y) / 30.0 * 255), 255};
            for (int c = 0; c < 4; c++)
                if (abs((int)p[c] - (int)want[c]) > 1)
                    zc_fail("texel (%u,%u) channel %d: %u, expected %u", x, y, c, p[c], want[c]);
        }
}

static void zc_sample_checked(zc_sx *s, ze_image_handle_t image, const uint8_t *pixels) {
    ze_sampler_handle_t nearest = zc_sampler(s, ZE_SAMPLER_ADDRESS_MODE_CLAMP, ZE_SAMPLER_FILTER_MODE_NEAREST, true);
    ze_sampler_handle_t linear = zc_sampler(s, ZE_SAMPLER_ADDRESS_MODE_CLAMP, ZE_SAMPLER_FILTER_MODE_LINEAR, false);
    float *coords = zc_spirv_buffer(s, 8 * 2 * 4), *out = zc_spirv_buffer(s, 8 * 16);
    const float points[8][2] = {{0.5f, 0.5f}, {3.5f, 7.5f},   {15.5f, 0.5f}, {20.0f, -3.0f},
                                {4.0f, 4.0f}, {8.25f, 2.75f}, {0.0f, 0.0f},  {15.9f, 15.9f}};
    for (int i = 0; i < 8; i++) {
        coords[2 * i] = points[i][0] / 16.0f;
        coords[2 * i + 1] = points[i][1] / 16.0f;
    }
    zc_arg args[] = {{sizeof image, &image}, {sizeof nearest, &nearest}, ZC_PTR(coords), ZC_PTR(out)};
    zc_spirv_run(s, "spirv_image", "image_sample", 8, 8, args, 4);
    for (int i = 0; i < 8; i++) {
        int x = (int)floorf(points[i][0]), y = (int)floorf(points[i][1]);
        x = x < 0 ? 0 : x > 15 ? 15 : x;
        y = y < 0 ? 0 : y > 15 ? 15 : y;
        if (fabsf(out[4 * i] - pixels[(y * 16 + x) * 4] / 255.0f) > 1e-6f)
            zc_fail("nearest sample %d at (%g,%g): %g, expected %g", i, (double)points[i][0], (double)points[i][1],
                    (double)out[4 * i], pixels[(y * 16 + x) * 4] / 255.0);
    }
    for (int i = 0; i < 8; i++) {
        coords[2 * i] = points[i][0];
        coords[2 * i + 1] = points[i][1];
    }
    args[1] = (zc_arg){sizeof linear, &linear};
    zc_spirv_run(s, "spirv_image", "image_sample", 8, 8, args, 4);
    for (int i = 0; i < 8; i++) { /* red is x / 15 wherever the 2 x 2 footprint lies inside the image */
        float u = points[i][0] - 0.5f;
        float want =
            u <= 0    ? 0
            : u >= 15 ? 1
                      : pixels[(int)floorf(u) * 4] / 255.0f +
                            (u - floorf(u)) * (pixels[((int)floorf(u) + 1) * 4] - pixels[(int)floorf(u) * 4]) / 255.0f;
        if (fabsf(out[4 * i] - want) > 1e-3f)
            zc_fail("linear sample %d at (%g,%g): %g, expected %g", i, (double)points[i][0], (double)points[i][1],
                    (double)out[4 * i], (double)want);
    }
    zc_assert_success(zeSamplerDestroy(nearest));
    zc_assert_success(zeSamplerDestroy(linear));
    zc_free(&s->x, coords);
    zc_free(&s->x, out);
}

/* The texel index nearest sampling reads for normalized coordinate `c` of a dimension of n texels, by the addressing
 * rules of the OpenCL C specification (-1: the border colour). */
static int zc_nearest_index(ze_sampler_address_mode_t mode, float c, int n) {
    if (mode == ZE_SAMPLER_ADDRESS_MODE_REPEAT) {
        int i = (int)floorf((c - floorf(c)) * (float)n);
        return i > n - 1 ? i - n : i;
    }
    if (mode == ZE_SAMPLER_ADDRESS_MODE_MIRROR) {
        float mirrored = fabsf(c - 2.0f * rintf(0.5f * c));
        int i = (int)floorf(mirrored * (float)n);
        return i < n - 1 ? i : n - 1;
    }
    int i = (int)floorf(c * (float)n);
    if (mode == ZE_SAMPLER_ADDRESS_MODE_CLAMP)
        return i < 0 ? 0 : i > n - 1 ? n - 1 : i;
    return i < 0 || i > n - 1 ? -1 : i; /* CLAMP_TO_BORDER */
}

/* Nearest sampling at normalized coordinates far outside the image in each addressing mode: red and green give the
 * texel read (the gradient's x / 15 and y / 15), the border colour of RGBA is transparent black. */
static void zc_address_modes_checked(zc_sx *s, ze_image_handle_t image) {
    const float points[8][2] = {{-0.3f, 0.2f},  {1.27f, 0.5f},  {2.6f, -1.4f},  {-2.1f, 3.05f},
                                {0.99f, 1.01f}, {-0.01f, 0.0f}, {5.5f, -0.53f}, {0.47f, 0.52f}};
    const ze_sampler_address_mode_t modes[] = {ZE_SAMPLER_ADDRESS_MODE_REPEAT, ZE_SAMPLER_ADDRESS_MODE_MIRROR,
                                               ZE_SAMPLER_ADDRESS_MODE_CLAMP, ZE_SAMPLER_ADDRESS_MODE_CLAMP_TO_BORDER};
    float *coords = zc_spirv_buffer(s, 8 * 2 * 4), *out = zc_spirv_buffer(s, 8 * 16);
    memcpy(coords, points, sizeof points);
    for (size_t m = 0; m < ZC_COUNT(modes); m++) {
        ze_sampler_handle_t sampler = zc_sampler(s, modes[m], ZE_SAMPLER_FILTER_MODE_NEAREST, true);
        zc_arg args[] = {{sizeof image, &image}, {sizeof sampler, &sampler}, ZC_PTR(coords), ZC_PTR(out)};
        zc_spirv_run(s, "spirv_image", "image_sample", 8, 8, args, 4);
        for (int i = 0; i < 8; i++) {
            int x = zc_nearest_index(modes[m], points[i][0], 16), y = zc_nearest_index(modes[m], points[i][1], 16);
            bool border = x < 0 || y < 0;
            float red = border ? 0 : nearbyintf(x / 15.0f * 255) / 255,
                  green = border ? 0 : nearbyintf(y / 15.0f * 255) / 255;
            if (fabsf(out[4 * i] - red) > 2e-3f || fabsf(out[4 * i + 1] - green) > 2e-3f ||
                (border && out[4 * i + 3] != 0))
                zc_fail("mode %d, sample at (%g,%g): (%g, %g, a %g), expected texel (%d,%d)", (int)modes[m],
                        (double)points[i][0], (double)points[i][1], (double)out[4 * i], (double)out[4 * i + 1],
                        (double)out[4 * i + 3], x, y);
        }
        zc_assert_success(zeSamplerDestroy(sampler));
    }
    zc_free(&s->x, coords);
    zc_free(&s->x, out);
}

static void spirv_images_written_read_and_sampled(void **state) {
    zc_sx *s = *state;
    if (!zc_images_supported(s))
        skip();
    ze_image_handle_t rgba = zc_image(s, ZE_IMAGE_TYPE_2D, ZE_IMAGE_FORMAT_LAYOUT_8_8_8_8, ZE_IMAGE_FORMAT_TYPE_UNORM,
                                      16, 16, 1, 0, ZE_IMAGE_FLAG_KERNEL_WRITE);
    uint8_t *pixels = zc_spirv_buffer(s, 16 * 16 * 4);
    zc_gradient_written(s, rgba, pixels);
    zc_sample_checked(s, rgba, pixels);
    zc_address_modes_checked(s, rgba);
    /* An inline sampler (clamp to edge, unnormalized, nearest) with integer coordinates shifted out of the image. */
    float *out = zc_spirv_buffer(s, 16 * 16 * 16);
    zc_arg args[] = {{sizeof rgba, &rgba}, ZC_PTR(out)};
    zc_assert_success(zc_spirv_run2(s, "spirv_image", "image_inline_sampler", 16, 16, 8, 8, args, 2));
    for (int y = 0; y < 16; y++)
        for (int x = 0; x < 16; x++) {
            int sx = x - 2 < 0 ? 0 : x - 2, sy = y + 3 > 15 ? 15 : y + 3;
            if (fabsf(out[(y * 16 + x) * 4 + 1] - pixels[(sy * 16 + sx) * 4 + 1] / 255.0f) > 1e-6f)
                zc_fail("inline sampler at (%d,%d): green %g", x, y, (double)out[(y * 16 + x) * 4 + 1]);
        }
    zc_assert_success(zeImageDestroy(rgba));
    zc_free(&s->x, pixels);
    zc_free(&s->x, out);
}

static void spirv_integer_images_and_queries(void **state) {
    zc_sx *s = *state;
    if (!zc_images_supported(s))
        skip();
    ze_image_handle_t sint = zc_image(s, ZE_IMAGE_TYPE_2D, ZE_IMAGE_FORMAT_LAYOUT_16_16_16_16,
                                      ZE_IMAGE_FORMAT_TYPE_SINT, 8, 4, 1, 0, ZE_IMAGE_FLAG_KERNEL_WRITE);
    int32_t bias = 7;
    zc_arg wargs[] = {{sizeof sint, &sint}, ZC_VAL(bias)};
    zc_assert_success(zc_spirv_run2(s, "spirv_image", "image_write_int", 8, 4, 8, 4, wargs, 2));
    int16_t *texels = zc_spirv_buffer(s, 8 * 4 * 8);
    zc_assert_success(zeCommandListAppendImageCopyToMemory(s->list, texels, sint, NULL, NULL, 0, NULL));
    for (int y = 0; y < 4; y++)
        for (int x = 0; x < 8; x++) {
            int16_t want[4] = {(int16_t)(x * 40 - 100 + bias), (int16_t)(y - 300), (int16_t)(x * y), (int16_t)-x};
            if (memcmp(&texels[(y * 8 + x) * 4], want, 8) != 0)
                zc_fail("int texel (%d,%d): %d %d %d %d", x, y, texels[(y * 8 + x) * 4], texels[(y * 8 + x) * 4 + 1],
                        texels[(y * 8 + x) * 4 + 2], texels[(y * 8 + x) * 4 + 3]);
        }
    ze_image_handle_t uint =
        zc_image(s, ZE_IMAGE_TYPE_2D, ZE_IMAGE_FORMAT_LAYOUT_32_32_32_32, ZE_IMAGE_FORMAT_TYPE_UINT, 4, 4, 1, 0, 0);
    uint32_t *values = zc_spirv_buffer(s, 4 * 4 * 16), *read = zc_spirv_buffer(s, 4 * 4 * 16);
    for (uint32_t i = 0; i < 64; i++)
        values[i] = i * 1000003u;
    zc_assert_success(zeCommandListAppendImageCopyFromMemory(s->list, uint, values, NULL, NULL, 0, NULL));
    zc_arg rargs[] = {{sizeof uint, &uint}, ZC_PTR(read)};
    zc_assert_success(zc_spirv_run2(s, "spirv_image", "image_read_int", 4, 4, 4, 4, rargs, 2));
    assert_memory_equal(read, values, 64 * 4);
    ze_image_handle_t volume =
        zc_image(s, ZE_IMAGE_TYPE_3D, ZE_IMAGE_FORMAT_LAYOUT_8, ZE_IMAGE_FORMAT_TYPE_UNORM, 5, 4, 3, 0, 0);
    ze_image_handle_t array =
        zc_image(s, ZE_IMAGE_TYPE_2DARRAY, ZE_IMAGE_FORMAT_LAYOUT_16_16, ZE_IMAGE_FORMAT_TYPE_FLOAT, 6, 2, 1, 3, 0);
    int32_t *q = zc_spirv_buffer(s, 6 * 4);
    zc_arg qargs[] = {{sizeof volume, &volume}, {sizeof array, &array}, ZC_PTR(q)};
    zc_spirv_run(s, "spirv_image", "image_query", 1, 1, qargs, 3);
    assert_int_equal(q[0], 5);
    assert_int_equal(q[1], 4);
    assert_int_equal(q[2], 3);
    assert_int_equal(q[3], 3);
    assert_int_equal(q[4], 0x10DD); /* CL_HALF_FLOAT */
    assert_int_equal(q[5], 0x10B2); /* CL_RG */
    ze_image_handle_t images[] = {sint, uint, volume, array};
    for (size_t i = 0; i < ZC_COUNT(images); i++)
        zc_assert_success(zeImageDestroy(images[i]));
    zc_free(&s->x, texels);
    zc_free(&s->x, values);
    zc_free(&s->x, read);
    zc_free(&s->x, q);
}

/* ------------------------------------------------------------------------------------------------------------------
 * Sub-group block reads and writes (cl_intel_subgroups, spirv_subgroups.cl). Each work-item's 15 values are blocks
 * of 1, 2, 4 and 8 components, at offsets 0, 1, 3 and 7 of its values and of the sub-group's rows or elements. */

static const uint32_t zc_block_first[4] = {0, 1, 3, 7}, zc_block_comps[4] = {1, 2, 4, 8};

/* The kernels' element types by the suffix of their names. */
static const struct {
    const char *suffix;
    uint32_t bytes;
} zc_block_types[] = {{"uc", 1}, {"us", 2}, {"ui", 4}, {"ul", 8}};

static void zc_pattern(uint8_t *p, size_t n, uint32_t seed) {
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)(((uint32_t)i * 2654435761u + seed * 40503u) >> 13);
}

static bool zc_device_has_subgroup_size(zc_sx *s, uint32_t size) {
    ze_device_compute_properties_t props = {.stype = ZE_STRUCTURE_TYPE_DEVICE_COMPUTE_PROPERTIES};
    zc_assert_success(zeDeviceGetComputeProperties(s->x.device, &props));
    for (uint32_t i = 0; i < props.numSubGroupSizes && i < ZE_SUBGROUPSIZE_COUNT; i++)
        if (props.subGroupSizes[i] == size)
            return true;
    return false;
}

/* Component c of sub-group block b of work-item g is element (g / S) x 15 x S + first[b] x S + g % S + c x S: the
 * value read from `in` (kept by the work-item at g x 15 + first[b] + c), and where it is written back to `out`. */
static void zc_block_buffer_checked(zc_sx *s, const char *kernel, uint32_t e) {
    const uint32_t global = 128, local = 64, n = 15 * global;
    uint32_t sg = zc_subgroup_size(s, "spirv_subgroups", kernel);
    uint8_t *in = zc_spirv_buffer(s, n * e), *got = zc_spirv_buffer(s, n * e), *out = zc_spirv_buffer(s, n * e);
    zc_pattern(in, n * e, e);
    zc_arg args[] = {ZC_PTR(in), ZC_PTR(got), ZC_PTR(out)};
    zc_spirv_run(s, "spirv_subgroups", kernel, global, local, args, 3);
    for (uint32_t g = 0; g < global; g++)
        for (uint32_t b = 0; b < 4; b++)
            for (uint32_t c = 0; c < zc_block_comps[b]; c++) {
                uint32_t element = g / sg * 15 * sg + zc_block_first[b] * sg + g % sg + c * sg;
                if (memcmp(got + (g * 15 + zc_block_first[b] + c) * e, in + element * e, e) != 0)
                    zc_fail("%s (sub-groups of %u): work-item %u, block of %u, component %u is not element %u", kernel,
                            sg, g, zc_block_comps[b], c, element);
            }
    if (memcmp(out, in, n * e) != 0) /* the blocks cover the sub-groups' elements exactly once */
        zc_fail("%s (sub-groups of %u): the blocks written back differ from those read", kernel, sg);
    zc_free(&s->x, in);
    zc_free(&s->x, got);
    zc_free(&s->x, out);
}

static void spirv_sub_group_block_reads_and_writes(void **state) {
    zc_sx *s = *state;
    for (size_t t = 0; t < ZC_COUNT(zc_block_types); t++) {
        char name[64];
        snprintf(name, sizeof name, "block_buffer_%s", zc_block_types[t].suffix);
        zc_block_buffer_checked(s, name, zc_block_types[t].bytes);
    }
    if (zc_device_has_subgroup_size(s, 16)) {
        assert_int_equal(zc_subgroup_size(s, "spirv_subgroups", "block_buffer_ui_16"), 16);
        zc_block_buffer_checked(s, "block_buffer_ui_16", 4);
    }
}

/* Images of 160 x 16 RGBA8 texels: rows of 640 bytes, the block accesses' unit. */
#define ZC_BLOCK_ROW    640
#define ZC_BLOCK_ROWS   16
#define ZC_BLOCK_GLOBAL 64

/* What the read kernel of `e`-byte elements gets at byte offset x0: work-item g's component c of block b is the
 * element at byte x0 + g x e of row first[b] + c (bytes outside the rows read as 0 on the fake). */
static void zc_block_image_read_checked(zc_sx *s, ze_image_handle_t image, const uint8_t *bytes, uint32_t t,
                                        int32_t x0) {
    uint32_t e = zc_block_types[t].bytes;
    char name[64];
    snprintf(name, sizeof name, "block_image_read_%s", zc_block_types[t].suffix);
    uint8_t *got = zc_spirv_buffer(s, ZC_BLOCK_GLOBAL * 15 * e);
    zc_arg args[] = {{sizeof image, &image}, ZC_PTR(got), ZC_VAL(x0)};
    zc_spirv_run(s, "spirv_subgroups", name, ZC_BLOCK_GLOBAL, ZC_BLOCK_GLOBAL, args, 3);
    for (uint32_t g = 0; g < ZC_BLOCK_GLOBAL; g++)
        for (uint32_t b = 0; b < 4; b++)
            for (uint32_t c = 0; c < zc_block_comps[b]; c++) {
                uint32_t row = zc_block_first[b] + c;
                for (uint32_t j = 0; j < e; j++) {
                    int64_t x = (int64_t)x0 + g * e + j;
                    uint8_t want = x >= 0 && x < ZC_BLOCK_ROW ? bytes[row * ZC_BLOCK_ROW + x] : 0;
                    uint8_t have = got[(g * 15 + zc_block_first[b] + c) * e + j];
                    if (have != want)
                        zc_fail("%s at x %d: work-item %u, row %u, byte %u is 0x%02x, expected 0x%02x", name, x0, g,
                                row, j, have, want);
                }
            }
    zc_free(&s->x, got);
}

/* The write kernel of `e`-byte elements at byte offset x0 on a zeroed image: `data` lands where the reads find it,
 * nothing else changes (bytes past a row's end are dropped on the fake, not written into the next row). */
static void zc_block_image_write_checked(zc_sx *s, ze_image_handle_t image, uint32_t t, int32_t x0) {
    uint32_t e = zc_block_types[t].bytes;
    char name[64];
    snprintf(name, sizeof name, "block_image_write_%s", zc_block_types[t].suffix);
    uint8_t *data = zc_spirv_buffer(s, ZC_BLOCK_GLOBAL * 15 * e),
            *bytes = zc_spirv_buffer(s, ZC_BLOCK_ROW * ZC_BLOCK_ROWS);
    uint8_t *want = zc_spirv_buffer(s, ZC_BLOCK_ROW * ZC_BLOCK_ROWS);
    zc_pattern(data, ZC_BLOCK_GLOBAL * 15 * e, 100 + e);
    zc_assert_success(zeCommandListAppendImageCopyFromMemory(s->list, image, want, NULL, NULL, 0, NULL));
    zc_arg args[] = {{sizeof image, &image}, ZC_PTR(data), ZC_VAL(x0)};
    zc_spirv_run(s, "spirv_subgroups", name, ZC_BLOCK_GLOBAL, ZC_BLOCK_GLOBAL, args, 3);
    zc_assert_success(zeCommandListAppendImageCopyToMemory(s->list, bytes, image, NULL, NULL, 0, NULL));
    for (uint32_t g = 0; g < ZC_BLOCK_GLOBAL; g++)
        for (uint32_t k = 0; k < 15; k++) /* value k of a work-item is in row k */
            for (uint32_t j = 0; j < e; j++) {
                int64_t x = (int64_t)x0 + g * e + j;
                if (x >= 0 && x < ZC_BLOCK_ROW)
                    want[k * ZC_BLOCK_ROW + x] = data[(g * 15 + k) * e + j];
            }
    for (uint32_t i = 0; i < ZC_BLOCK_ROW * ZC_BLOCK_ROWS; i++)
        if (bytes[i] != want[i])
            zc_fail("%s at x %d: byte %u of row %u is 0x%02x, expected 0x%02x", name, x0, i % ZC_BLOCK_ROW,
                    i / ZC_BLOCK_ROW, bytes[i], want[i]);
    zc_free(&s->x, data);
    zc_free(&s->x, bytes);
    zc_free(&s->x, want);
}

static void spirv_sub_group_image_block_reads_and_writes(void **state) {
    zc_sx *s = *state;
    if (!zc_images_supported(s))
        skip();
    ze_image_handle_t source = zc_image(s, ZE_IMAGE_TYPE_2D, ZE_IMAGE_FORMAT_LAYOUT_8_8_8_8, ZE_IMAGE_FORMAT_TYPE_UINT,
                                        ZC_BLOCK_ROW / 4, ZC_BLOCK_ROWS, 1, 0, 0);
    ze_image_handle_t target = zc_image(s, ZE_IMAGE_TYPE_2D, ZE_IMAGE_FORMAT_LAYOUT_8_8_8_8, ZE_IMAGE_FORMAT_TYPE_UINT,
                                        ZC_BLOCK_ROW / 4, ZC_BLOCK_ROWS, 1, 0, ZE_IMAGE_FLAG_KERNEL_WRITE);
    uint8_t *bytes = zc_spirv_buffer(s, ZC_BLOCK_ROW * ZC_BLOCK_ROWS);
    zc_pattern(bytes, ZC_BLOCK_ROW * ZC_BLOCK_ROWS, 7);
    zc_assert_success(zeCommandListAppendImageCopyFromMemory(s->list, source, bytes, NULL, NULL, 0, NULL));
    for (uint32_t t = 0; t < ZC_COUNT(zc_block_types); t++) {
        int32_t e = (int32_t)zc_block_types[t].bytes;
        zc_block_image_read_checked(s, source, bytes, t, 3); /* reads may start at any byte */
        zc_block_image_write_checked(s, target, t, 4);       /* writes at a multiple of 4 */
        if (!zc_driver_is_fake())
            continue;
        /* Blocks partly outside the rows: the fake's bounds are those of other image accesses. */
        zc_block_image_read_checked(s, source, bytes, t, -3);
        zc_block_image_read_checked(s, source, bytes, t, ZC_BLOCK_ROW - 48 * e + 1);
        zc_block_image_write_checked(s, target, t, ZC_BLOCK_ROW - 32 * e);
    }
    zc_assert_success(zeImageDestroy(source));
    zc_assert_success(zeImageDestroy(target));
    zc_free(&s->x, bytes);
}

/* ------------------------------------------------------------------------------------------------------------------
 * Faults (fake only: they make the device report DEVICE_LOST, so they run in child processes) */

static int zc_child_fault(int argc, char **argv) {
    bool null_load = argc > 0 && strcmp(argv[0], "null") == 0;
    zc_exec *x = zc_child_exec_begin();
    if (x == NULL)
        return 2;
    const uint32_t n = 100, items = 128;
    int32_t *a = zc_host_alloc(x, n * 4), *out = zc_host_alloc(x, items * 4);
    memset(a, 0, n * 4);
    memset(out, 0, items * 4);
    ze_module_handle_t module = zc_module_create(x->context, x->device, "spirv_globals");
    ze_kernel_handle_t kernel = zc_kernel_create(module, null_load ? "null_load" : "out_of_bounds");
    zc_assert_success(zeKernelSetArgumentValue(kernel, 0, sizeof a, &a));
    if (null_load)
        zc_assert_success(zeKernelSetArgumentValue(kernel, 1, sizeof out, &out));
    else
        zc_assert_success(zeKernelSetArgumentValue(kernel, 1, sizeof n, &n));
    zc_assert_success(zeKernelSetGroupSize(kernel, 32, 1, 1));
    ze_event_pool_handle_t pool = zc_event_pool(x, 1, 0);
    ze_event_handle_t event = zc_event(pool, 0);
    ze_command_list_handle_t list = zc_immediate(x, x->compute_ordinal, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    ze_group_count_t groups = {items / 32, 1, 1};
    zc_assert_success(zeCommandListAppendLaunchKernel(list, kernel, &groups, event, 0, NULL));
    printf("event=%d\n", zeEventHostSynchronize(event, 10000000000ull) == ZE_RESULT_SUCCESS);
    printf("status=%d\n", zeDeviceGetStatus(x->device) == ZE_RESULT_ERROR_DEVICE_LOST);
    uint32_t written = 0;
    for (uint32_t i = 0; i < n; i++)
        written += null_load ? (i % 2 == 0 && out[i] == 1) : a[i] == (int32_t)i + 1;
    printf("written=%u\naddress=%p\n", written, (void *)(null_load ? NULL : a + n));
    fflush(stdout);
    zc_assert_success(zeCommandListDestroy(list));
    zc_assert_success(zeEventDestroy(event));
    zc_assert_success(zeEventPoolDestroy(pool));
    zc_assert_success(zeKernelDestroy(kernel));
    zc_assert_success(zeModuleDestroy(module));
    return zc_child_exec_end(x);
}

/* The strict profile: an access past the end of the allocation faults, even inside its padding. */
static void spirv_out_of_bounds_access_is_reported(void **state) {
    (void)state;
    zc_skip_unless_fake();
    const char *const args[] = {"bounds", NULL};
    const char *const env[] = {"ZEFAKE_STRICT=1", NULL};
    zc_child child;
    assert_true(zc_run_child_mode("fault", args, env, ZC_CHILD_TIMEOUT_MS, &child));
    zc_assert_child_ok(&child, "out-of-bounds child");
    assert_int_equal(zc_child_number(&child, "event"), 1);     /* the launch completed */
    assert_int_equal(zc_child_number(&child, "status"), 1);    /* the device reports the fault */
    assert_int_equal(zc_child_number(&child, "written"), 100); /* the other work-items did their work */
    char address[64];
    assert_true(zc_child_value(&child, "address", address, sizeof address));
    if (strstr(child.err, "kernel 'out_of_bounds'") == NULL || strstr(child.err, "work-item (100, 0, 0)") == NULL ||
        strstr(child.err, address + 2) == NULL || strstr(child.err, "out-of-bounds store") == NULL)
        zc_fail("the diagnostic does not name the kernel, the first faulting work-item and %s:\n%s", address,
                child.err);
    zc_child_free(&child);
}

/* ------------------------------------------------------------------------------------------------------------------
 * Padding: accesses past the end of an allocation inside its last page are performed in the default profile, as real
 * GPUs do (docs/tolerances.md); the strict one faults (above). Fake only: the profiles and the page sizes are
 * zefake's. */

static uint64_t zc_tolerances(ze_bool_t reset) {
    zefake_pfnGetToleranceCount_t get = NULL;
    zc_assert_success(
        zeDriverGetExtensionFunctionAddress(zc_sys()->driver, ZEFAKE_FN_GET_TOLERANCE_COUNT, (void **)&get));
    uint64_t count = 0;
    zc_assert_success(get(&count, reset));
    return count;
}

/* Runs `name` of spirv_padding (or spirv_globals' out_of_bounds) on `items` work-items and prints whether the device
 * stayed available. */
static void zc_padding_launch(zc_exec *x, const char *module_name, const char *name, uint32_t items, const zc_arg *args,
                              uint32_t num_args) {
    ze_module_handle_t module = zc_module_create(x->context, x->device, module_name);
    ze_kernel_handle_t kernel = zc_kernel_create(module, name);
    for (uint32_t i = 0; i < num_args; i++)
        zc_assert_success(zeKernelSetArgumentValue(kernel, i, args[i].size, args[i].value));
    zc_assert_success(zeKernelSetGroupSize(kernel, items < 32 ? items : 32, 1, 1));
    ze_command_list_handle_t list = zc_immediate(x, x->compute_ordinal, ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS);
    ze_group_count_t groups = {items < 32 ? 1 : items / 32, 1, 1};
    zc_assert_success(zeCommandListAppendLaunchKernel(list, kernel, &groups, NULL, 0, NULL));
    zc_assert_success(zeCommandListDestroy(list));
    zc_assert_success(zeKernelDestroy(kernel));
    zc_assert_success(zeModuleDestroy(module));
}

static int zc_child_padding(int argc, char **argv) {
    (void)argc;
    (void)argv;
    zc_exec *x = zc_child_exec_begin();
    if (x == NULL)
        return 2;
    zc_tolerances(1);
    int32_t *in = zc_host_alloc(x, 7 * 4), *out = zc_host_alloc(x, 4), *p = zc_host_alloc(x, 4);
    for (int32_t i = 0; i < 7; i++)
        in[i] = i + 1;
    in[7] = 77; /* the padding holds what was written there */
    zc_arg sum_args[] = {ZC_PTR(in), ZC_PTR(out)};
    zc_padding_launch(x, "spirv_padding", "sum_eight", 1, sum_args, 2);
    printf("sum=%d\n", out[0]);
    zc_arg wide_args[] = {ZC_PTR(p)};
    zc_padding_launch(x, "spirv_padding", "wide_store", 1, wide_args, 1);
    printf("wide=%d,%d\n", p[0], p[1]);
    const uint32_t n = 100;
    int32_t *a = zc_host_alloc(x, n * 4);
    memset(a, 0, 128 * 4);
    zc_arg bounds_args[] = {ZC_PTR(a), ZC_VAL(n)};
    zc_padding_launch(x, "spirv_globals", "out_of_bounds", 128, bounds_args, 2);
    uint32_t written = 0;
    for (uint32_t i = 0; i < n; i++)
        written += a[i] == (int32_t)i + 1;
    printf("written=%u\npast=%d\n", written, a[n] > (int32_t)n); /* one of the work-items past n wrote a[n] */
    printf("status=%d\n", zeDeviceGetStatus(x->device) == ZE_RESULT_SUCCESS);
    printf("tolerated=%llu\n", (unsigned long long)zc_tolerances(0));
    fflush(stdout);
    zc_free(x, in);
    zc_free(x, out);
    zc_free(x, p);
    zc_free(x, a);
    return zc_child_exec_end(x);
}

static void spirv_padding_accesses_are_performed_and_warned(void **state) {
    (void)state;
    zc_skip_unless_fake();
    const char *const env[] = {"ZEFAKE_STRICT=0", "ZEFAKE_LOG=warn", NULL};
    zc_child child;
    assert_true(zc_run_child_mode("padding", NULL, env, ZC_CHILD_TIMEOUT_MS, &child));
    zc_assert_child_ok(&child, "padding child");
    assert_int_equal(zc_child_number(&child, "sum"), 28 + 77);
    char wide[32];
    assert_true(zc_child_value(&child, "wide", wide, sizeof wide));
    assert_string_equal(wide, "5,6");
    assert_int_equal(zc_child_number(&child, "written"), 100);
    assert_int_equal(zc_child_number(&child, "past"), 1);
    assert_int_equal(zc_child_number(&child, "status"), 1);
    assert_int_equal(zc_child_number(&child, "tolerated"), 3); /* one per launch */
    const char *const expected[] = {"warn: device: kernel 'sum_eight': work-item (0, 0, 0) loads 4 bytes at offset 28",
                                    "warn: device: kernel 'wide_store': work-item (0, 0, 0) stores 8 bytes at offset 0",
                                    "warn: device: kernel 'out_of_bounds': work-item ("};
    for (size_t i = 0; i < ZC_COUNT(expected); i++)
        if (strstr(child.err, expected[i]) == NULL)
            zc_fail("no warning \"%s\":\n%s", expected[i], child.err);
    zc_child_free(&child);
}

static void spirv_null_pointer_load_is_reported(void **state) {
    (void)state;
    zc_skip_unless_fake();
    const char *const args[] = {"null", NULL};
    zc_child child;
    assert_true(zc_run_child_mode("fault", args, NULL, ZC_CHILD_TIMEOUT_MS, &child));
    zc_assert_child_ok(&child, "null-load child");
    assert_int_equal(zc_child_number(&child, "event"), 1);
    assert_int_equal(zc_child_number(&child, "status"), 1);
    assert_int_equal(zc_child_number(&child, "written"), 50);
    if (strstr(child.err, "kernel 'null_load'") == NULL || strstr(child.err, "work-item (1, 0, 0)") == NULL ||
        strstr(child.err, "load of 4 bytes at 0x4") == NULL)
        zc_fail("the diagnostic does not name the kernel, work-item 1 and the address:\n%s", child.err);
    zc_child_free(&child);
}

/* Ordinary host memory (malloc) is reachable only on a device with shared system allocations. */
static int zc_child_system(int argc, char **argv) {
    (void)argc;
    (void)argv;
    zc_exec *x = zc_child_exec_begin();
    if (x == NULL)
        return 2;
    ze_device_memory_access_properties_t access = {.stype = ZE_STRUCTURE_TYPE_DEVICE_MEMORY_ACCESS_PROPERTIES};
    zc_assert_success(zeDeviceGetMemoryAccessProperties(x->device, &access));
    const uint32_t n = 128;
    int32_t *a = calloc(n, 4);
    if (a == NULL)
        return 2;
    ze_module_handle_t module = zc_module_create(x->context, x->device, "spirv_globals");
    ze_kernel_handle_t kernel = zc_kernel_create(module, "out_of_bounds");
    zc_assert_success(zeKernelSetArgumentValue(kernel, 0, sizeof a, &a));
    zc_assert_success(zeKernelSetArgumentValue(kernel, 1, sizeof n, &n));
    zc_assert_success(zeKernelSetGroupSize(kernel, 32, 1, 1));
    ze_command_list_handle_t list = zc_immediate(x, x->compute_ordinal, ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS);
    ze_group_count_t groups = {n / 32, 1, 1};
    zeCommandListAppendLaunchKernel(list, kernel, &groups, NULL, 0, NULL); /* a fault may fail the synchronous append */
    uint32_t written = 0;
    for (uint32_t i = 0; i < n; i++)
        written += a[i] == (int32_t)i + 1;
    printf("system=%d\nwritten=%u\nlost=%d\n", access.sharedSystemAllocCapabilities != 0, written,
           zeDeviceGetStatus(x->device) == ZE_RESULT_ERROR_DEVICE_LOST);
    fflush(stdout);
    zc_assert_success(zeCommandListDestroy(list));
    zc_assert_success(zeKernelDestroy(kernel));
    zc_assert_success(zeModuleDestroy(module));
    free(a);
    return zc_child_exec_end(x);
}

static void spirv_host_memory_needs_shared_system_allocations(void **state) {
    (void)state;
    zc_skip_unless_fake();
    zc_child child;
    assert_true(zc_run_child_mode("system", NULL, NULL, ZC_CHILD_TIMEOUT_MS, &child));
    zc_assert_child_ok(&child, "host-memory child");
    bool system = zc_child_number(&child, "system") != 0;
    assert_int_equal(zc_child_number(&child, "written"), system ? 128 : 0);
    assert_int_equal(zc_child_number(&child, "lost"), system ? 0 : 1);
    if (!system && strstr(child.err, "sharedSystemAllocCapabilities is 0") == NULL)
        zc_fail("the diagnostic does not say why host memory is out of reach:\n%s", child.err);
    zc_child_free(&child);
}

/* spirv_generic.cl: generic pointers into global, local and private memory, cast back with to_global, to_local and
 * to_private (only the right one succeeds), read through, and their fence flags; a C11 atomic store then load. */
static void spirv_generic_pointers_cast_back_to_their_storage(void **state) {
    zc_sx *s = *state;
    const uint32_t n = 256;
    int32_t *data = zc_spirv_buffer(s, n * 4), *out = zc_spirv_buffer(s, n * 4 * 4), *flags = zc_spirv_buffer(s, n * 4);
    for (uint32_t i = 0; i < n; i++)
        data[i] = (int32_t)(i * 11 + 3);
    zc_arg args[] = {ZC_PTR(data), ZC_PTR(out), ZC_PTR(flags)};
    zc_spirv_run(s, "spirv_generic", "casts", n, 64, args, 3);
    enum { zc_cast_global = 1, zc_cast_local = 2, zc_cast_private = 4 };
    enum { zc_fence_local = 1, zc_fence_global = 2 }; /* CLK_LOCAL_MEM_FENCE, CLK_GLOBAL_MEM_FENCE */
    for (uint32_t i = 0; i < n; i++) {
        uint32_t kind = i % 64 % 3;
        int32_t want[4] = {kind == 0   ? zc_cast_global
                           : kind == 1 ? zc_cast_local
                                       : zc_cast_private,
                           kind == 0   ? data[i]
                           : kind == 1 ? (int32_t)i * 5
                                       : (int32_t)i * 7,
                           (int32_t)i + 1,
                           kind == 0   ? zc_fence_global
                           : kind == 1 ? zc_fence_local
                                       : -1};
        for (uint32_t k = 0; k < 4; k++)
            if (out[i * 4 + k] != want[k])
                zc_fail("item %u output %u: %d, expected %d", i, k, out[i * 4 + k], want[k]);
        assert_int_equal(flags[i], (int32_t)i + 1);
    }
    zc_free(&s->x, data);
    zc_free(&s->x, out);
    zc_free(&s->x, flags);
}

/* spirv_float_atomics.cl over 1024 work-items in groups of 64: exact sums, extremes, exchanges and group sums. */
static void spirv_float_atomics_add_min_max_exchange(void **state) {
    zc_sx *s = *state;
    const uint32_t n = 1024, local = 64;
    float *sum = zc_spirv_buffer(s, 4), *extremes = zc_spirv_buffer(s, 8), *swapped = zc_spirv_buffer(s, n * 4);
    float *group_out = zc_spirv_buffer(s, n / local * 4);
    double *dsum = zc_spirv_buffer(s, 8);
    extremes[0] = INFINITY;
    extremes[1] = -INFINITY;
    zc_arg args[] = {ZC_PTR(sum),      ZC_PTR(dsum), ZC_PTR(extremes), ZC_PTR(swapped), ZC_LOCAL(sizeof(float)),
                     ZC_PTR(group_out)};
    zc_spirv_run(s, "spirv_float_atomics", "float_atomics", n, local, args, 6);
    assert_true(sum[0] == 0.5f * (float)n);
    assert_true(dsum[0] == 0.25 * n);
    assert_true(extremes[0] == -100.0f);
    assert_true(extremes[1] == (float)(n - 1) * 0.5f);
    for (uint32_t i = 0; i < n; i++)
        if (swapped[i] != (float)i + 0.25f)
            zc_fail("exchange of item %u: %g", i, (double)swapped[i]);
    for (uint32_t g = 0; g < n / local; g++)
        if (group_out[g] != (float)local)
            zc_fail("group %u: local sum %g, expected %u", g, (double)group_out[g], local);
    zc_free(&s->x, sum);
    zc_free(&s->x, dsum);
    zc_free(&s->x, extremes);
    zc_free(&s->x, swapped);
    zc_free(&s->x, group_out);
}

int main(int argc, char **argv) {
#define ZC_FIXTURE spirv
    static const struct CMUnitTest tests[] = {
        ZC_T(spirv_local_reduction_with_barriers),
        ZC_T(spirv_local_scan),
        ZC_T(spirv_work_group_and_sub_group_collectives),
        ZC_T(spirv_sub_group_shuffles),
        ZC_T(spirv_async_work_group_copy),
        ZC_T(spirv_atomics_under_contention),
        ZC_T(spirv_histogram_in_local_memory),
        ZC_T(spirv_compare_exchange_and_c11_atomics),
        ZC_T(spirv_subtract_min_max_exchange_and_flag_clear),
        ZC_T(spirv_generic_pointers_cast_back_to_their_storage),
        ZC_T(spirv_float_atomics_add_min_max_exchange),
        ZC_T(spirv_globals_and_specialization_constants),
        ZC_T(spirv_images_written_read_and_sampled),
        ZC_T(spirv_integer_images_and_queries),
        ZC_T(spirv_sub_group_block_reads_and_writes),
        ZC_T(spirv_sub_group_image_block_reads_and_writes),
        cmocka_unit_test(spirv_out_of_bounds_access_is_reported),
        cmocka_unit_test(spirv_padding_accesses_are_performed_and_warned),
        cmocka_unit_test(spirv_null_pointer_load_is_reported),
        cmocka_unit_test(spirv_host_memory_needs_shared_system_allocations),
    };
    static const zc_child_mode modes[] = {
        {"fault", zc_child_fault}, {"system", zc_child_system}, {"padding", zc_child_padding}};
    static const zc_suite suite = {ZC_EXECUTABLE,      tests, ZC_COUNT(tests), zc_setup_system,
                                   zc_teardown_system, modes, ZC_COUNT(modes)};
    return zc_main(argc, argv, &suite);
}
