// The kernels of zefake-bench-kernels (bench/bench_kernels.c), each beside a C twin in the benchmark.

#define ZB_TILE 16

// Tiled GEMM: 16 x 16 tiles of a and b in local memory, two barriers per tile.
kernel void zb_gemm_tiled(global const float *a, global const float *b, global float *c, uint n)
{
    local float ta[ZB_TILE][ZB_TILE], tb[ZB_TILE][ZB_TILE];
    uint lx = get_local_id(0), ly = get_local_id(1);
    uint col = get_global_id(0), row = get_global_id(1);
    float sum = 0.0f;
    for (uint t = 0; t < n; t += ZB_TILE) {
        ta[ly][lx] = a[row * n + t + lx];
        tb[ly][lx] = b[(t + ly) * n + col];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint k = 0; k < ZB_TILE; k++)
            sum += ta[ly][k] * tb[k][lx];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    c[row * n + col] = sum;
}

// Tree reduction of 256 values per group in local memory (8 barriers), one atomic add per group.
kernel void zb_reduce(global const uint *in, global uint *total)
{
    local uint part[256];
    uint l = get_local_id(0);
    part[l] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = 128; s > 0; s >>= 1) {
        if (l < s)
            part[l] += part[l + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (l == 0)
        atomic_add(total, part[0]);
}

// Histogram of bytes into 256 bins with global atomics.
kernel void zb_histogram(global const uint *in, global uint *bins)
{
    atomic_inc(&bins[in[get_global_id(0)] & 255u]);
}

// 5-point stencil on an n x n grid (the border copied).
kernel void zb_stencil(global const float *in, global float *out, uint n)
{
    uint x = get_global_id(0), y = get_global_id(1), i = y * n + x;
    if (x == 0 || y == 0 || x == n - 1 || y == n - 1) {
        out[i] = in[i];
        return;
    }
    out[i] = 4.0f * in[i] - in[i - 1] - in[i + 1] - in[i - n] - in[i + n];
}

// Transcendental math per element.
kernel void zb_math(global const float *in, global float *out)
{
    uint i = get_global_id(0);
    float x = in[i];
    out[i] = exp(x) * sin(x) + cos(x) / (1.0f + sqrt(x));
}

// 3 x 3 box blur of an RGBA float image through a sampler (clamped to the edge, nearest, pixel coordinates).
kernel void zb_blur(read_only image2d_t src, sampler_t sampler, global float4 *out, uint width)
{
    int x = get_global_id(0), y = get_global_id(1);
    float4 sum = (float4)(0.0f);
    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++)
            sum += read_imagef(src, sampler, (int2)(x + dx, y + dy));
    out[y * width + x] = sum / 9.0f;
}

// Naive GEMM.
kernel void zb_gemm(global const float *a, global const float *b, global float *c, uint n)
{
    uint col = get_global_id(0), row = get_global_id(1);
    float sum = 0.0f;
    for (uint k = 0; k < n; k++)
        sum += a[row * n + k] * b[k * n + col];
    c[row * n + col] = sum;
}
