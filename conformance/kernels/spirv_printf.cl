/* SPIR-V execution: printf to stdout (test_spirv_tools.c): conversions, flags, widths, precisions, strings,
 * characters, vectors; one line per work-item, in work-item order within a work-group. */
kernel void printer(global const int *values, float scale)
{
    int i = (int)get_global_id(0);
    printf("item %d: %5.2f %#x [%-4s] %c %v4hhd|%03u\n", i, scale * i, values[i], "ok", 'A' + i,
           (char4)((char)i, -1, 2, 3), (uint)i * 7);
    if (i == 0)
        printf("%%done %ld %e %g %.3v2hlf %.2f\n", (long)-5, 1234.5, 0.125, (float2)(1.0f, -2.5f), scale);
}

/* printf's %s of strings in global memory (test_spirv_tools.c): work-item i prints the string at text + i * stride; a
 * string with no end within its allocation is a device fault, in both of zefake's tiers. */
kernel void print_string(global const char *text, uint stride)
{
    printf("<%s>\n", text + get_global_id(0) * stride);
}
