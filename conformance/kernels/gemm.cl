/* Built-in kernel (docs/builtin-kernels.md): C = A x B for row-major float matrices, A m x k, B k x n, C m x n.
 * A 2-D launch: dimension 0 walks the columns of C, dimension 1 its rows; work-items outside C do nothing. */
kernel void gemm(global const float *a, global const float *b, global float *c, uint m, uint n, uint k)
{
    size_t col = get_global_id(0);
    size_t row = get_global_id(1);
    if (row >= m || col >= n)
        return;
    float sum = 0.0f;
    for (uint i = 0; i < k; i++)
        sum += a[row * k + i] * b[i * n + col];
    c[row * n + col] = sum;
}
