/* SPIR-V execution: GEMM in local-memory tiles (test_spirv_tools.c, bench/bench_spirv.c): C = A x B, row-major, A m x
 * k, B k x n; 16 x 16 work-groups, each work-item one element of C. */
#define TILE 16

kernel void gemm_tiled(global const float *a, global const float *b, global float *c, uint m, uint n, uint k)
{
    local float ta[TILE][TILE];
    local float tb[TILE][TILE];
    size_t col = get_global_id(0), row = get_global_id(1), lc = get_local_id(0), lr = get_local_id(1);
    float sum = 0.0f;
    for (uint t = 0; t < k; t += TILE) {
        ta[lr][lc] = (row < m && t + lc < k) ? a[row * k + t + lc] : 0.0f;
        tb[lr][lc] = (t + lr < k && col < n) ? b[(t + lr) * n + col] : 0.0f;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint i = 0; i < TILE; i++)
            sum += ta[lr][i] * tb[i][lc];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (row < m && col < n)
        c[row * n + col] = sum;
}
