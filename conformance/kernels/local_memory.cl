/* Local memory: a local-pointer argument (sized at zeKernelSetArgumentValue), a kernel-scope local array (static
 * local memory), and by-value arguments of several sizes including a struct. */
typedef struct {
    float scale;
    int bias;
    double weight;
} params_t;

kernel void reduce_local(global const float *in, global float *out, local float *scratch, params_t p, uchar flag,
                         short2 pair)
{
    local float partial[64];
    size_t l = get_local_id(0);
    scratch[l] = in[get_global_id(0)] * p.scale + (float)(flag + pair.x);
    partial[l & 63] = scratch[l];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (l == 0) {
        float sum = 0.0f;
        for (size_t i = 0; i < get_local_size(0); i++)
            sum += scratch[i] + partial[i & 63];
        out[get_group_id(0)] = sum;
    }
}
