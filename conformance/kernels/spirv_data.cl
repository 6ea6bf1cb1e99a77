/* SPIR-V execution: data in every shape (test_spirv_exec.c): structs passed by value and through pointers, private
 * arrays indexed at run time, bit casts, the built-in ids of a 3-D launch with a global offset, vector loads and
 * stores (including halves and 3-component vectors), shuffles, swizzles and dynamic component access. */
#pragma OPENCL EXTENSION cl_khr_fp16 : enable

typedef struct {
    int id;
    float weight;
    char tag[3];
    long total;
    float2 point;
} item_t;

__attribute__((noinline)) item_t combine(item_t a, const private item_t *b)
{
    item_t r = a;
    r.total = a.total * 3 + b->total;
    r.weight = a.weight + b->weight;
    r.point = a.point * b->point;
    r.tag[1] = (char)(a.tag[0] + b->tag[2]);
    return r;
}

kernel void structs(item_t seed, global const item_t *in, global item_t *out, uint n)
{
    size_t i = get_global_id(0);
    item_t local_items[4];
    for (int k = 0; k < 4; k++) {
        local_items[k] = in[(i + k) % n];
        local_items[k].id += k;
    }
    item_t acc = seed;
    for (int k = 0; k < 4; k++)
        if ((local_items[k].id + (int)i) % 3 != 0) /* data-dependent: clang narrows an i % 4 test to an i2 */
            acc = combine(acc, &local_items[k]);
    acc.id = as_int(acc.weight) ^ (int)i;
    out[i] = acc;
}

/* Each work-item writes its ids: 18 values (global, local, group id; global, local size; groups; offset; the linear
 * ids; the work dimension; sub-group ids). */
kernel void ids(global ulong *out)
{
    size_t linear = get_global_linear_id();
    global ulong *o = out + linear * 20;
    for (uint d = 0; d < 3; d++) {
        o[d] = get_global_id(d);
        o[3 + d] = get_local_id(d);
        o[6 + d] = get_group_id(d);
        o[9 + d] = get_global_size(d) * 1000 + get_local_size(d) * 10 + get_num_groups(d) + get_global_offset(d) * 100000;
    }
    o[12] = linear;
    o[13] = get_local_linear_id();
    o[14] = get_work_dim();
    o[15] = get_sub_group_size();
    o[16] = get_max_sub_group_size();
    o[17] = get_num_sub_groups();
    o[18] = get_sub_group_id();
    o[19] = get_sub_group_local_id();
}

kernel void vectors(global const float *f, global const int *n, global half *h, global float *out, global int *iout)
{
    size_t i = get_global_id(0);
    float4 v = vload4(i, f);
    float3 t = vload3(i, f + 1);
    float8 w = vload8(0, f + i);
    vstore4(v.wzyx * 2.0f, i, out);
    vstore3(t + (float3)(1, 2, 3), i, out + 4 * get_global_size(0));
    vstore_half4(v, i, h);
    vstore_half_rtn(t.y, i, h + 4 * get_global_size(0));
    float4 back = vload_half4(i, h);
    int4 k = vload4(i, n);
    uint4 mask = (uint4)(3, 0, (uint)k.x & 7u, 1);
    float4 sh = shuffle(v, mask);
    float8 sh2 = shuffle2(v, back, (uint8)(7, 6, 5, 4, 0, 1, 2, 3));
    int pick = k.y & 3;
    iout[i * 8 + 0] = as_int(sh.x + sh.y + sh.z + sh.w);
    iout[i * 8 + 1] = as_int(sh2.s0 - sh2.s7 + sh2.s3 * sh2.s4);
    iout[i * 8 + 2] = as_int(v[pick] + w.s7 + back.w);
    iout[i * 8 + 3] = any(k > 10) + all(k > -10) * 2 + any(v.xy > 1.5f) * 4;
    int4 c = convert_int4(v > (float4)(2.0f));
    iout[i * 8 + 4] = c.x + c.y * 2 + c.z * 4 + c.w * 8;
    iout[i * 8 + 5] = as_int(dot(v.xz, w.s13));
    int2 dyn = (int2)(k.z, k.w);
    dyn[k.x & 1] = 99;
    iout[i * 8 + 6] = dyn.x * 1000 + dyn.y;
    iout[i * 8 + 7] = (int)(ushort)as_ushort(h[4 * get_global_size(0) + i]);
}
