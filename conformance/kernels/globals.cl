/* Module globals: zeModuleGetGlobalPointer finds them by name, with their size and initial value. */
global int counter = 5;
global float table[16] = {1.0f, 2.0f, 3.0f};
constant int lut[4] = {10, 20, 30, 40};

kernel void read_globals(global int *out)
{
    size_t i = get_global_id(0);
    out[i] = counter + lut[i & 3] + (int)table[i & 15];
    counter = (int)i;
}
