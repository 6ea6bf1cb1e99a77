/* The OpenCL face through Debian's ocl-icd (docs/opencl.md): lifetimes of objects released while commands that use
 * them are still queued. The OpenCL 3.0 API specification (clReleaseMemObject): "the memory object is deleted once
 * the reference count becomes zero and commands queued so far that use it have finished", and its destructor
 * callbacks are called only then. Held commands (waiting for a user event) count as queued. */
#include "zc_opencl.h"

#define ZC_ROUNDS  1000
#define ZC_KERNELS 8
#define ZC_WORDS   256

static const char *zc_add_source = "kernel void add_one(global int *p)\n"
                                   "{\n"
                                   "    size_t i = get_global_id(0);\n"
                                   "    p[i] = p[i] + 1;\n"
                                   "}\n";

typedef struct zc_lifetime {
    zc_cl cl;
    cl_program program;
    cl_kernel kernel;
} zc_lifetime;

static int zc_lifetime_setup(void **state) {
    if (zc_setup(state) != 0)
        return -1;
    zc_lifetime *t = realloc(*state, sizeof *t);
    if (t == NULL)
        return -1;
    *state = t;
    cl_int err;
    t->program = clCreateProgramWithSource(t->cl.context, 1, &zc_add_source, NULL, &err);
    if (err != CL_SUCCESS || clBuildProgram(t->program, 1, &t->cl.device, "", NULL, NULL) != CL_SUCCESS)
        return -1;
    t->kernel = clCreateKernel(t->program, "add_one", &err);
    return err == CL_SUCCESS ? 0 : -1;
}

static int zc_lifetime_teardown(void **state) {
    zc_lifetime *t = *state;
    clReleaseKernel(t->kernel);
    clReleaseProgram(t->program);
    return zc_teardown(state);
}

/* A buffer of ZC_WORDS zeros. */
static cl_mem zc_zero_buffer(zc_lifetime *t) {
    cl_int err, zero = 0;
    cl_mem m = clCreateBuffer(t->cl.context, CL_MEM_READ_WRITE, ZC_WORDS * sizeof(cl_int), NULL, &err);
    assert_int_equal(err, CL_SUCCESS);
    assert_int_equal(clEnqueueFillBuffer(t->cl.queue, m, &zero, sizeof zero, 0, ZC_WORDS * sizeof zero, 0, NULL, NULL),
                     CL_SUCCESS);
    return m;
}

/* ZC_KERNELS launches adding one to every word of `m`, then a copy of `m` into `out`, the first launch waiting for
 * `gate` when given; `m` is released right after. */
static void zc_enqueue_then_release(zc_lifetime *t, cl_command_queue q, cl_mem m, cl_mem out, cl_event gate) {
    size_t global = ZC_WORDS;
    assert_int_equal(clSetKernelArg(t->kernel, 0, sizeof m, &m), CL_SUCCESS);
    for (int k = 0; k < ZC_KERNELS; k++)
        assert_int_equal(clEnqueueNDRangeKernel(q, t->kernel, 1, NULL, &global, NULL, k == 0 && gate != NULL ? 1 : 0,
                                                k == 0 && gate != NULL ? &gate : NULL, NULL),
                         CL_SUCCESS);
    assert_int_equal(clEnqueueCopyBuffer(q, m, out, 0, 0, ZC_WORDS * sizeof(cl_int), 0, NULL, NULL), CL_SUCCESS);
    assert_int_equal(clReleaseMemObject(m), CL_SUCCESS);
}

static void zc_expect_words(zc_lifetime *t, cl_mem out, cl_int value) {
    cl_int back[ZC_WORDS];
    assert_int_equal(clEnqueueReadBuffer(t->cl.queue, out, CL_TRUE, 0, sizeof back, back, 0, NULL, NULL), CL_SUCCESS);
    for (int i = 0; i < ZC_WORDS; i++)
        if (back[i] != value)
            fail_msg("word %d is %d, expected %d: the released buffer lost its data", i, back[i], value);
}

/* 1000 rounds of eight kernels on a buffer released right after they are enqueued: every round's copy finds all
 * eight increments. */
static void test_release_under_queued_kernels(void **state) {
    zc_lifetime *t = *state;
    cl_int err;
    cl_mem out = clCreateBuffer(t->cl.context, CL_MEM_READ_WRITE, ZC_WORDS * sizeof(cl_int), NULL, &err);
    assert_int_equal(err, CL_SUCCESS);
    for (int round = 0; round < ZC_ROUNDS; round++) {
        zc_enqueue_then_release(t, t->cl.queue, zc_zero_buffer(t), out, NULL);
        zc_expect_words(t, out, ZC_KERNELS);
    }
    clReleaseMemObject(out);
}

/* The same on an out-of-order queue whose commands are ordered by a barrier after the launches. */
static void test_release_under_out_of_order_kernels(void **state) {
    zc_lifetime *t = *state;
    cl_int err, zero = 0;
    cl_command_queue q = zc_out_of_order_queue(&t->cl);
    cl_mem out = clCreateBuffer(t->cl.context, CL_MEM_READ_WRITE, ZC_WORDS * sizeof(cl_int), NULL, &err);
    assert_int_equal(err, CL_SUCCESS);
    for (int round = 0; round < ZC_ROUNDS / 10; round++) {
        cl_mem m = clCreateBuffer(t->cl.context, CL_MEM_READ_WRITE, ZC_WORDS * sizeof zero, NULL, &err);
        assert_int_equal(err, CL_SUCCESS);
        size_t global = ZC_WORDS;
        assert_int_equal(clEnqueueFillBuffer(q, m, &zero, sizeof zero, 0, ZC_WORDS * sizeof zero, 0, NULL, NULL),
                         CL_SUCCESS);
        assert_int_equal(clEnqueueBarrierWithWaitList(q, 0, NULL, NULL), CL_SUCCESS);
        assert_int_equal(clSetKernelArg(t->kernel, 0, sizeof m, &m), CL_SUCCESS);
        assert_int_equal(clEnqueueNDRangeKernel(q, t->kernel, 1, NULL, &global, NULL, 0, NULL, NULL), CL_SUCCESS);
        assert_int_equal(clEnqueueBarrierWithWaitList(q, 0, NULL, NULL), CL_SUCCESS);
        assert_int_equal(clEnqueueCopyBuffer(q, m, out, 0, 0, ZC_WORDS * sizeof zero, 0, NULL, NULL), CL_SUCCESS);
        assert_int_equal(clReleaseMemObject(m), CL_SUCCESS);
        assert_int_equal(clFinish(q), CL_SUCCESS);
        zc_expect_words(t, out, 1);
    }
    clReleaseMemObject(out);
    clReleaseCommandQueue(q);
}

static _Atomic int zc_destructor_calls;
static void CL_CALLBACK zc_on_destroyed(cl_mem m, void *data) {
    (void)m;
    (void)data;
    zc_destructor_calls++;
}

/* Commands held by an unset user event: the buffer released meanwhile (and the release returns at once) is deleted
 * only after they ran, so its destructor callback comes after the user event is set and the commands completed. */
static void test_release_under_held_commands(void **state) {
    zc_lifetime *t = *state;
    cl_int err;
    cl_mem out = clCreateBuffer(t->cl.context, CL_MEM_READ_WRITE, ZC_WORDS * sizeof(cl_int), NULL, &err);
    assert_int_equal(err, CL_SUCCESS);
    cl_mem m = zc_zero_buffer(t);
    zc_destructor_calls = 0;
    assert_int_equal(clSetMemObjectDestructorCallback(m, zc_on_destroyed, NULL), CL_SUCCESS);
    cl_event gate = clCreateUserEvent(t->cl.context, &err);
    assert_int_equal(err, CL_SUCCESS);
    zc_enqueue_then_release(t, t->cl.queue, m, out, gate);
    usleep(10000);
    assert_int_equal(zc_destructor_calls, 0);
    assert_int_equal(clSetUserEventStatus(gate, CL_COMPLETE), CL_SUCCESS);
    zc_expect_words(t, out, ZC_KERNELS);
    assert_int_equal(clFinish(t->cl.queue), CL_SUCCESS);
    assert_int_equal(zc_destructor_calls, 1);
    clReleaseEvent(gate);
    clReleaseMemObject(out);
}

/* A buffer released with no command queued is deleted at once: its destructor callback has run when the release
 * returns. */
static void test_release_when_idle(void **state) {
    zc_lifetime *t = *state;
    cl_int err;
    assert_int_equal(clFinish(t->cl.queue), CL_SUCCESS);
    cl_mem m = clCreateBuffer(t->cl.context, CL_MEM_READ_WRITE, 64, NULL, &err);
    assert_int_equal(err, CL_SUCCESS);
    zc_destructor_calls = 0;
    assert_int_equal(clSetMemObjectDestructorCallback(m, zc_on_destroyed, NULL), CL_SUCCESS);
    assert_int_equal(clReleaseMemObject(m), CL_SUCCESS);
    assert_int_equal(zc_destructor_calls, 1);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_release_under_queued_kernels),
        cmocka_unit_test(test_release_under_out_of_order_kernels),
        cmocka_unit_test(test_release_under_held_commands),
        cmocka_unit_test(test_release_when_idle),
    };
    return cmocka_run_group_tests_name("opencl_lifetime", tests, zc_lifetime_setup, zc_lifetime_teardown);
}
