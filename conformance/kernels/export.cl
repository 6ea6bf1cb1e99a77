/* Dynamic link, the exporting side: add_one and the global `shared_total` are visible to other modules. */
global int shared_total = 100;

int add_one(int x)
{
    return x + 1;
}

kernel void use_export(global int *p)
{
    p[get_global_id(0)] = add_one(p[get_global_id(0)]) + shared_total;
}
