/* Dynamic link, the importing side: add_one and shared_total come from export.cl's module. */
extern int add_one(int x);
extern global int shared_total;

kernel void use_import(global int *p)
{
    size_t i = get_global_id(0);
    p[i] = add_one(p[i]) + shared_total;
}
