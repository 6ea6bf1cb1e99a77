/* SPIR-V execution: local memory, barriers and work-group/sub-group collectives (test_spirv_memory.c). The
 * reduction and the scan synchronise through barriers in local memory, some inside a function that is not inlined;
 * the loops that precede the barriers run a different number of times in each work-item. */
#pragma OPENCL EXTENSION cl_khr_subgroups : enable

int __attribute__((overloadable)) intel_sub_group_shuffle(int value, uint lane);
int __attribute__((overloadable)) intel_sub_group_shuffle_down(int current, int next, uint delta);
int __attribute__((overloadable)) intel_sub_group_shuffle_xor(int value, uint mask);

/* Tree reduction of a work-group's values in `scratch`; every work-item returns the total. */
__attribute__((noinline)) float group_sum(local float *scratch, float value)
{
    size_t l = get_local_id(0), n = get_local_size(0);
    scratch[l] = value;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (size_t stride = n / 2; stride > 0; stride /= 2) {
        if (l < stride)
            scratch[l] += scratch[l + stride];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    float total = scratch[0];
    barrier(CLK_LOCAL_MEM_FENCE); /* everyone has read it before scratch is used again */
    return total;
}

/* Each work-item first sums a strided slice of `in` (a loop of varying length), then the group reduces. */
kernel void reduce(global const float *in, global float *out, local float *scratch, uint n)
{
    float sum = 0.0f;
    for (size_t i = get_global_id(0); i < n; i += get_global_size(0))
        sum += in[i];
    float total = group_sum(scratch, sum);
    if (get_local_id(0) == 0)
        out[get_group_id(0)] = total;
}

/* Inclusive scan (Hillis-Steele) with two local buffers, one static and one an argument. */
kernel void scan(global const int *in, global int *out, local int *tmp)
{
    local int buffer[256];
    size_t l = get_local_id(0), n = get_local_size(0), g = get_global_id(0);
    local int *src = buffer, *dst = tmp;
    src[l] = in[g];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (size_t offset = 1; offset < n; offset *= 2) {
        dst[l] = l >= offset ? src[l] + src[l - offset] : src[l];
        barrier(CLK_LOCAL_MEM_FENCE);
        local int *t = src;
        src = dst;
        dst = t;
    }
    out[g] = src[l];
}

/* The OpenCL 2.0 work-group functions and the sub-group ones: 10 results per work-item. */
kernel void collectives(global const int *in, global const float *fin, global int *out, global float *fout)
{
    size_t g = get_global_id(0);
    int v = in[g];
    float f = fin[g];
    global int *o = out + g * 10;
    o[0] = work_group_reduce_add(v);
    o[1] = work_group_reduce_min(v);
    o[2] = work_group_reduce_max(v);
    o[3] = work_group_scan_inclusive_add(v);
    o[4] = work_group_scan_exclusive_add(v);
    o[5] = work_group_broadcast(v, 3);
    o[6] = work_group_all(v > -100) + 2 * work_group_any(v > 40);
    o[7] = sub_group_reduce_add(v);
    o[8] = sub_group_scan_exclusive_max(v);
    o[9] = sub_group_broadcast(v, 1);
    fout[g * 2 + 0] = work_group_reduce_add(f);
    fout[g * 2 + 1] = work_group_scan_inclusive_max(f);
}

kernel void shuffles(global const int *in, global int *out)
{
    size_t g = get_global_id(0);
    uint lane = get_sub_group_local_id();
    int v = in[g];
    out[g * 3 + 0] = intel_sub_group_shuffle(v, (lane * 3 + 1) % get_sub_group_size());
    out[g * 3 + 1] = intel_sub_group_shuffle_down(v, v + 1000, 2);
    out[g * 3 + 2] = intel_sub_group_shuffle_xor(v, 1);
}

/* Sub-group barriers, a sub-group collective and a shuffle that only the second sub-group of each group reaches
 * (sub-group uniform control flow, as OpenCL requires of them), then a work-group reduction all reach. */
kernel void subgroup_branch(global const int *in, global int *out)
{
    size_t g = get_global_id(0);
    int v = in[g], r = -1;
    if (get_sub_group_id() == 1) {
        for (int k = 0; k < 4; k++) /* rounds in which only this sub-group moves */
            sub_group_barrier(CLK_LOCAL_MEM_FENCE);
        r = sub_group_reduce_add(v) + intel_sub_group_shuffle_xor(v, 2);
    }
    out[g] = r + work_group_reduce_max(v);
}

/* Work-group collectives in divergent control flow (undefined in OpenCL): half of each group reaches one, the other
 * half another. Nothing hangs; each is computed over the work-items that reached it, as in lock-step. */
kernel void collectives_diverged(global const int *in, global int *out)
{
    size_t g = get_global_id(0);
    int v = in[g];
    out[g] = get_local_id(0) < 16 ? work_group_reduce_add(v) : work_group_reduce_max(v);
}

/* async_work_group_copy into local memory, a transform there, and the copy back (strided). */
kernel void async_copy(global const float *in, global float *out, local float *tile)
{
    size_t n = get_local_size(0), group = get_group_id(0);
    event_t e = async_work_group_copy(tile, in + group * n, n, 0);
    wait_group_events(1, &e);
    size_t l = get_local_id(0);
    tile[l] = tile[l] * 2.0f + (float)l;
    barrier(CLK_LOCAL_MEM_FENCE);
    e = async_work_group_strided_copy(out + group, tile, n, get_num_groups(0), 0);
    wait_group_events(1, &e);
}

/* Barriers in uniform control flow: a loop whose trip count is an argument and a branch on an argument, each round
 * reading a neighbour's value through local memory. */
kernel void barrier_paths(global int *out, local int *tmp, uint rounds, int deep)
{
    size_t l = get_local_id(0), n = get_local_size(0);
    int v = (int)get_global_id(0);
    for (uint r = 0; r < rounds; r++) {
        tmp[l] = v;
        barrier(CLK_LOCAL_MEM_FENCE);
        v += tmp[(l + 1) % n] * (int)(r + 1);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (deep) {
        tmp[l] = v * 3;
        barrier(CLK_LOCAL_MEM_FENCE);
        v -= tmp[n - 1 - l];
    }
    out[get_global_id(0)] = v;
}

/* A barrier only the even work-items reach (undefined in OpenCL): it runs to its end in both tiers. */
kernel void barrier_divergent(global int *out, local int *tmp)
{
    size_t l = get_local_id(0);
    tmp[l] = (int)l * 7;
    if (l % 2 == 0)
        barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = tmp[l] + 1;
}

/* After a barrier every work-item reaches, a third of them finish and the rest meet a second barrier (undefined in
 * OpenCL): the group goes on with those, in both tiers. */
kernel void barrier_late_exit(global int *out, local int *tmp)
{
    size_t l = get_local_id(0), n = get_local_size(0), g = get_global_id(0);
    tmp[l] = (int)g;
    barrier(CLK_LOCAL_MEM_FENCE);
    int v = tmp[n - 1 - l];
    if (l % 3 == 0) {
        out[g] = v;
        return;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    tmp[l] = v * 2;
    barrier(CLK_LOCAL_MEM_FENCE);
    out[g] = tmp[(l + 1) % n] + 1;
}

/* A private array indexed by values read from local memory, live across barriers. */
kernel void private_across_barriers(global int *out, local int *tmp)
{
    size_t l = get_local_id(0), n = get_local_size(0);
    int keep[16];
    for (int k = 0; k < 16; k++)
        keep[k] = (int)l * (k + 1);
    tmp[l] = (int)(l * 5 % 16);
    barrier(CLK_LOCAL_MEM_FENCE);
    int at = tmp[(l + 1) % n];
    keep[at] += keep[tmp[l]];
    barrier(CLK_LOCAL_MEM_FENCE);
    tmp[l] = keep[at];
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = keep[tmp[(l + 3) % n] & 15] + keep[at];
}

/* Two work-items in the middle of their group access past their memory: one past its buffer before the first barrier,
 * one past local memory between the barriers. Each leaves its region's copy there, the generic function faults where
 * the interpreter faults, and the work-items after it in the group go on (docs/spirv-execution.md, "Bail points").
 * The same with a local array of the kernel's own (groups of 32) instead of a local-pointer argument, whose accesses
 * the compiled tier checks against the group's local variables. */
#define ZC_BARRIER_BAILS(NAME, LOCAL_PARAM, LOCAL_ARRAY)                                                              \
    kernel void NAME(global int *out, LOCAL_PARAM uint bad_global, uint bad_local)                                \
    {                                                                                                              \
        LOCAL_ARRAY                                                                                                \
        size_t l = get_local_id(0), n = get_local_size(0), g = get_global_id(0);                                  \
        tmp[l] = (int)g;                                                                                           \
        out[g == bad_global ? g + 100000 : g] = 1;                                                                 \
        barrier(CLK_LOCAL_MEM_FENCE);                                                                              \
        int v = tmp[g == bad_local ? l + 4096 : n - 1 - l];                                                        \
        /* enough accesses between the barriers for bail points to pay (cx_emit.c) */                             \
        v += tmp[(l + 1) % n] + tmp[(l + 2) % n] + tmp[(l + 3) % n] + tmp[(l + 4) % n] + tmp[(l + 5) % n];       \
        v += tmp[(l + 6) % n] + tmp[(l + 7) % n] + tmp[(l + 8) % n] + tmp[(l + 9) % n] + tmp[(l + 10) % n];      \
        v += tmp[(l + 11) % n] + tmp[(l + 12) % n] + tmp[(l + 13) % n] + tmp[(l + 14) % n] + tmp[(l + 15) % n];  \
        v += tmp[(l + 16) % n] + tmp[(l + 17) % n] + tmp[(l + 18) % n] + tmp[(l + 19) % n] + tmp[(l + 20) % n];  \
        v ^= tmp[(l + 21) % n] + tmp[(l + 22) % n] + tmp[(l + 23) % n] + tmp[(l + 24) % n] + tmp[(l + 25) % n];  \
        v ^= tmp[(l + 26) % n] + tmp[(l + 27) % n] + tmp[(l + 28) % n] + tmp[(l + 29) % n] + tmp[(l + 30) % n];  \
        v ^= tmp[(l + 31) % n] + tmp[(l + 32) % n] + tmp[(l + 33) % n] + tmp[(l + 34) % n] + tmp[(l + 35) % n];  \
        v ^= tmp[(l + 36) % n] + tmp[(l + 37) % n] + tmp[(l + 38) % n] + tmp[(l + 39) % n] + tmp[(l + 40) % n];  \
        barrier(CLK_LOCAL_MEM_FENCE);                                                                              \
        out[g] = v * 2 + tmp[(l + 1) % n];                                                                         \
    }
#define ZC_LOCAL_TMP_PARAM local int *tmp,
ZC_BARRIER_BAILS(barrier_bails, ZC_LOCAL_TMP_PARAM, )
ZC_BARRIER_BAILS(static_local_bails, , local int tmp[32];)

/* A tree reduction in a local array of the kernel's own, whose index the compiled tier proves inside the group's local
 * variables (l + s for l < s), and whose work-item `bad` then reads the array at l + reach: inside it, or past every
 * group's local memory (a fault in both tiers). */
kernel void static_local_reach(global const int *in, global int *out, uint bad, uint reach)
{
    local int part[32];
    uint l = get_local_id(0);
    part[l] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = 16; s > 0; s >>= 1) {
        if (l < s)
            part[l] += part[l + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    out[get_global_id(0)] = part[l == bad ? l + reach : l] + part[0];
}

/* Addresses and indices made of the work-item's ids, the arguments and constants before a barrier and used after it
 * are made again where the work-item resumes, not kept in its record; a value loaded before the barrier, and one
 * made with a division, are kept (docs/spirv-execution.md, "Values made again"). The callee waits too, and uses its
 * parameters and what it made of them after its barrier. */
__attribute__((noinline)) int recompute_callee(local int *tmp, global const int *in, uint stride, uint l, uint n)
{
    local int *theirs = tmp + (l + stride) % n, *own = tmp + l;
    global const int *from = in + l * 2;
    int before = *theirs;
    barrier(CLK_LOCAL_MEM_FENCE);
    *own = before + 1;
    return before + from[1] + (int)(l * stride);
}

kernel void recomputed_across_barriers(global int *out, global const int *in, local int *tmp, uint stride)
{
    uint l = get_local_id(0), g = get_global_id(0), n = get_local_size(0);
    local int *mine = tmp + (n - 1 - l);
    global int *dst = out + g * 3;
    uint index = (l * stride + 3) % n;
    int loaded = in[g];
    *mine = loaded;
    barrier(CLK_LOCAL_MEM_FENCE);
    dst[0] = tmp[l] + tmp[index] * 3 + (int)(l ^ stride);
    barrier(CLK_LOCAL_MEM_FENCE);
    dst[1] = recompute_callee(tmp, in, stride, l, n);
    barrier(CLK_LOCAL_MEM_FENCE);
    dst[2] = *mine + loaded + (int)(g << 2);
}
