/* SPIR-V execution: OpenCL C 1.2, built with -fwrapv, so that pointer arithmetic carries no in-bounds promise and
 * becomes OpPtrAccessChain (test_spirv_exec.c): walks with negative and strided steps, struct members reached through
 * such pointers, and the atomic functions of OpenCL C 1.1 (atomic_add, atom_max). */
typedef struct {
    int key;
    short weight[3];
} pair_t;

/* Walks `count` elements `stride` apart, from the last to the first. */
__attribute__((noinline)) int gather(global const int *base, int stride, int count)
{
    int sum = 0;
    global const int *p = base + (count - 1) * stride;
    for (int k = 0; k < count; k++, p -= stride)
        sum = sum * 3 + *p;
    return sum;
}

kernel void walk(global const int *in, global int *out, global const pair_t *pairs, global int *totals, int stride)
{
    int i = (int)get_global_id(0);
    global const pair_t *pair = pairs + i;
    out[i * 2] = gather(in + i, stride, 4);
    out[i * 2 + 1] = pair->key + pair->weight[i % 3];
    atomic_add(totals, pair->weight[2]);
    atom_max(totals + 1, pair->key);
}
