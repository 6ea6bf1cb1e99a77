/* The OpenCL face through Debian's ocl-icd (docs/opencl.md), its second half: events (user events, markers,
 * barriers, callbacks and the failure of a user event terminating what waits on it), the CL_INVALID_* answers to
 * wrong arguments of every implemented function, and images (2D images, image buffers). */
#include "zc_opencl.h"

#include <pthread.h>
#include <stdint.h>
#include <time.h>

static int zc_callback_calls;
static void CL_CALLBACK zc_on_complete(cl_event e, cl_int status, void *data) {
    (void)e;
    if (status == CL_COMPLETE)
        __atomic_add_fetch((int *)data, 1, __ATOMIC_SEQ_CST);
}

/* The status each callback of zc_on_status saw, per slot (0: not called). */
static _Atomic cl_int zc_seen_status[3];
static void CL_CALLBACK zc_on_status(cl_event e, cl_int status, void *data) {
    (void)e;
    zc_seen_status[(intptr_t)data] = status;
}

/* Waits (a bounded number of clFinish round trips) until the callback of `slot` has run; returns what it saw. */
static cl_int zc_await_callback(cl_command_queue q, int slot) {
    for (int i = 0; i < 1000 && zc_seen_status[slot] == 0; i++)
        clFinish(q);
    return zc_seen_status[slot];
}

/* vadd of zc_vadd_source set to double buffer a (0, 1, 2, ..., made with `flags`) into c, and a second queue. */
typedef struct zc_doubler {
    cl_program p;
    cl_kernel k;
    cl_mem a, c;
    cl_command_queue other;
} zc_doubler;

static zc_doubler zc_doubler_make(zc_cl *t, cl_mem_flags flags) {
    cl_int err;
    zc_doubler d = {.p = zc_build_source(t, zc_vadd_source, NULL)};
    d.k = clCreateKernel(d.p, "vadd", &err);
    assert_int_equal(err, CL_SUCCESS);
    int a[ZC_N];
    for (int i = 0; i < ZC_N; i++)
        a[i] = i;
    d.a = clCreateBuffer(t->context, flags | CL_MEM_COPY_HOST_PTR, sizeof a, a, &err);
    d.c = clCreateBuffer(t->context, CL_MEM_READ_WRITE, sizeof a, NULL, &err);
    clSetKernelArg(d.k, 0, sizeof d.a, &d.a);
    clSetKernelArg(d.k, 1, sizeof d.a, &d.a);
    clSetKernelArg(d.k, 2, sizeof d.c, &d.c);
    d.other = clCreateCommandQueueWithProperties(t->context, t->device, NULL, &err);
    assert_int_equal(err, CL_SUCCESS);
    return d;
}

static void zc_doubler_free(zc_doubler *d) {
    clReleaseCommandQueue(d->other);
    clReleaseMemObject(d->a);
    clReleaseMemObject(d->c);
    clReleaseKernel(d->k);
    clReleaseProgram(d->p);
}

/* A negative user event status terminates every command waiting for it, directly, through other events or as the
 * next command of an in-order queue: none executes, each ends with CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST and
 * its callbacks see that status. Commands enqueued afterwards run. */
static void test_user_event_failure_terminates(void **state) {
    zc_cl *t = *state;
    cl_int err;
    zc_doubler d = zc_doubler_make(t, CL_MEM_READ_ONLY);
    cl_kernel k = d.k;
    cl_mem mc = d.c;
    cl_command_queue other = d.other;
    int c[ZC_N];
    int fill = 0x55;
    assert_int_equal(clEnqueueFillBuffer(t->queue, mc, &fill, sizeof fill, 0, sizeof c, 0, NULL, NULL), CL_SUCCESS);
    assert_int_equal(clFinish(t->queue), CL_SUCCESS);
    cl_event user = clCreateUserEvent(t->context, &err), run, chained, next;
    size_t global = ZC_N;
    zc_seen_status[0] = zc_seen_status[1] = zc_seen_status[2] = 0;
    assert_int_equal(clEnqueueNDRangeKernel(t->queue, k, 1, NULL, &global, NULL, 1, &user, &run), CL_SUCCESS);
    assert_int_equal(clEnqueueMarkerWithWaitList(other, 1, &run, &chained), CL_SUCCESS); /* through a chain */
    int overwrite = 7;
    assert_int_equal(clEnqueueFillBuffer(t->queue, mc, &overwrite, sizeof overwrite, 0, sizeof c, 0, NULL, &next),
                     CL_SUCCESS); /* in order after the kernel */
    assert_int_equal(clSetEventCallback(run, CL_COMPLETE, zc_on_status, (void *)0), CL_SUCCESS);
    assert_int_equal(clSetEventCallback(chained, CL_COMPLETE, zc_on_status, (void *)1), CL_SUCCESS);
    assert_int_equal(clSetEventCallback(next, CL_COMPLETE, zc_on_status, (void *)2), CL_SUCCESS);
    assert_int_equal(clSetUserEventStatus(user, -42), CL_SUCCESS);
    assert_int_equal(clWaitForEvents(1, &run), CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
    assert_int_equal(clWaitForEvents(1, &chained), CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
    assert_int_equal(clFinish(t->queue), CL_SUCCESS); /* clFinish has no such error: it returns once all are done */
    assert_int_equal(clFinish(other), CL_SUCCESS);
    assert_int_equal(zc_exec_status(user), -42);
    assert_int_equal(zc_exec_status(run), CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
    assert_int_equal(zc_exec_status(chained), CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
    assert_int_equal(zc_exec_status(next), CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
    for (int slot = 0; slot < 3; slot++)
        assert_int_equal(zc_await_callback(t->queue, slot), CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
    /* a blocking command waiting for a terminated one is terminated too, and writes nothing */
    c[0] = -1;
    assert_int_equal(clEnqueueReadBuffer(t->queue, mc, CL_TRUE, 0, sizeof c, c, 1, &chained, NULL),
                     CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
    assert_int_equal(c[0], -1);
    /* nothing executed: the buffer keeps its fill; the queue goes on with new commands */
    assert_int_equal(clEnqueueReadBuffer(t->queue, mc, CL_TRUE, 0, sizeof c, c, 0, NULL, NULL), CL_SUCCESS);
    for (int i = 0; i < ZC_N; i++)
        assert_int_equal(c[i], fill);
    /* released with a complete user event, a held chain executes in order */
    cl_event go = clCreateUserEvent(t->context, &err), later;
    assert_int_equal(clEnqueueNDRangeKernel(t->queue, k, 1, NULL, &global, NULL, 1, &go, &later), CL_SUCCESS);
    assert_int_equal(clEnqueueReadBuffer(other, mc, CL_FALSE, 0, sizeof c, c, 1, &later, NULL), CL_SUCCESS);
    assert_int_equal(zc_exec_status(later), CL_SUBMITTED);
    assert_int_equal(clSetUserEventStatus(go, CL_COMPLETE), CL_SUCCESS);
    assert_int_equal(clFinish(other), CL_SUCCESS);
    for (int i = 0; i < ZC_N; i++)
        assert_int_equal(c[i], 2 * i);
    cl_event all[] = {user, run, chained, next, go, later};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        clReleaseEvent(all[i]);
    zc_doubler_free(&d);
}

/* The other thread of test_finish_waits_for_gated_commands: it writes new inputs through its own queue, then
 * completes the user event the kernel waits for. */
typedef struct zc_gate {
    zc_cl *t;
    cl_command_queue queue;
    cl_mem in;
    cl_event user;
} zc_gate;

static void *zc_open_gate(void *arg) {
    zc_gate *g = arg;
    struct timespec pause = {0, 30 * 1000 * 1000};
    nanosleep(&pause, NULL);
    int a[ZC_N];
    for (int i = 0; i < ZC_N; i++)
        a[i] = 1000 + i;
    cl_int err = clEnqueueWriteBuffer(g->queue, g->in, CL_TRUE, 0, sizeof a, a, 0, NULL, NULL);
    cl_int set = clSetUserEventStatus(g->user, CL_COMPLETE);
    return (void *)(intptr_t)(err == CL_SUCCESS && set == CL_SUCCESS);
}

/* clFinish runs the queue's commands on the calling thread when the engine has not taken them and they wait for
 * nothing (docs/cost-model.md, "Waiting threads run queued work"), and otherwise waits: a kernel gated by a user
 * event, and a fill after it in order, run only once another thread wrote new inputs and completed the event, and a
 * clFinish of enqueued work that waits for nothing returns with it done; a NULL or released queue is refused. */
static void test_finish_waits_for_gated_commands(void **state) {
    zc_cl *t = *state;
    cl_int err;
    zc_doubler d = zc_doubler_make(t, CL_MEM_READ_WRITE);
    cl_kernel k = d.k;
    cl_mem mc = d.c;
    int c[ZC_N];
    cl_mem md = clCreateBuffer(t->context, CL_MEM_READ_WRITE, sizeof c, NULL, &err);
    zc_gate gate = {t, d.other, d.a, clCreateUserEvent(t->context, &err)};
    cl_command_queue other = d.other;
    size_t global = ZC_N;
    assert_int_equal(clEnqueueNDRangeKernel(t->queue, k, 1, NULL, &global, NULL, 1, &gate.user, NULL), CL_SUCCESS);
    int fill = 3;
    assert_int_equal(clEnqueueFillBuffer(t->queue, md, &fill, sizeof fill, 0, sizeof c, 0, NULL, NULL), CL_SUCCESS);
    pthread_t thread;
    assert_int_equal(pthread_create(&thread, NULL, zc_open_gate, &gate), 0);
    assert_int_equal(clFinish(t->queue), CL_SUCCESS);
    void *opened = NULL;
    pthread_join(thread, &opened);
    assert_true(opened != NULL);
    assert_int_equal(zc_exec_status(gate.user), CL_COMPLETE);
    assert_int_equal(clEnqueueReadBuffer(other, mc, CL_TRUE, 0, sizeof c, c, 0, NULL, NULL), CL_SUCCESS);
    for (int i = 0; i < ZC_N; i++)
        assert_int_equal(c[i], 2 * (1000 + i));
    assert_int_equal(clEnqueueReadBuffer(other, md, CL_TRUE, 0, sizeof c, c, 0, NULL, NULL), CL_SUCCESS);
    for (int i = 0; i < ZC_N; i++)
        assert_int_equal(c[i], fill);
    /* nothing to wait for: the kernels may run on this thread, in order, each seeing the one before */
    for (int round = 0; round < 8; round++) {
        clSetKernelArg(k, 0, sizeof mc, &mc);
        clSetKernelArg(k, 1, sizeof mc, &mc);
        clSetKernelArg(k, 2, sizeof mc, &mc);
        assert_int_equal(clEnqueueNDRangeKernel(t->queue, k, 1, NULL, &global, NULL, 0, NULL, NULL), CL_SUCCESS);
    }
    assert_int_equal(clFinish(t->queue), CL_SUCCESS);
    assert_int_equal(clEnqueueReadBuffer(t->queue, mc, CL_TRUE, 0, sizeof c, c, 0, NULL, NULL), CL_SUCCESS);
    for (int i = 0; i < ZC_N; i++)
        assert_int_equal(c[i], 2 * (1000 + i) * 256);
    clReleaseEvent(gate.user);
    clReleaseMemObject(md);
    zc_doubler_free(&d);
    /* a queue that is no longer one is refused before any work of it is looked at */
    assert_int_equal(clFinish(NULL), CL_INVALID_COMMAND_QUEUE);
    assert_int_equal(clFinish(other), CL_INVALID_COMMAND_QUEUE);
}

static int zc_destroyed[2], zc_destroy_order;
static void CL_CALLBACK zc_on_destroy(cl_context c, void *data) {
    (void)c;
    *(int *)data = ++zc_destroy_order;
}

static void test_events_user_marker_barrier(void **state) {
    zc_cl *t = *state;
    cl_int err;
    cl_event user = clCreateUserEvent(t->context, &err);
    assert_int_equal(err, CL_SUCCESS);
    cl_mem m = clCreateBuffer(t->context, CL_MEM_READ_WRITE, 64, NULL, &err);
    int v = 5, out = 0;
    cl_event write;
    assert_int_equal(clEnqueueWriteBuffer(t->queue, m, CL_FALSE, 0, sizeof v, &v, 1, &user, &write), CL_SUCCESS);
    assert_int_equal(clSetEventCallback(write, CL_COMPLETE, zc_on_complete, &zc_callback_calls), CL_SUCCESS);
    cl_int status;
    assert_int_equal(clGetEventInfo(write, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL),
                     CL_SUCCESS);
    assert_true(status > CL_COMPLETE); /* held back by the user event */
    assert_int_equal(clSetUserEventStatus(user, CL_COMPLETE), CL_SUCCESS);
    assert_int_equal(clSetUserEventStatus(user, CL_COMPLETE), CL_INVALID_OPERATION);
    cl_event marker;
    assert_int_equal(clEnqueueMarkerWithWaitList(t->queue, 1, &write, &marker), CL_SUCCESS);
    assert_int_equal(clEnqueueBarrierWithWaitList(t->queue, 0, NULL, NULL), CL_SUCCESS);
    assert_int_equal(clWaitForEvents(1, &marker), CL_SUCCESS);
    assert_int_equal(clEnqueueReadBuffer(t->queue, m, CL_TRUE, 0, sizeof out, &out, 0, NULL, NULL), CL_SUCCESS);
    assert_int_equal(out, 5);
    for (int i = 0; i < 1000 && __atomic_load_n(&zc_callback_calls, __ATOMIC_SEQ_CST) == 0; i++)
        clFinish(t->queue);
    assert_int_equal(clGetEventInfo(write, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL),
                     CL_SUCCESS);
    assert_int_equal(status, CL_COMPLETE);
    cl_command_type type;
    assert_int_equal(clGetEventInfo(marker, CL_EVENT_COMMAND_TYPE, sizeof type, &type, NULL), CL_SUCCESS);
    assert_int_equal(type, CL_COMMAND_MARKER);
    cl_ulong x;
    assert_int_equal(clGetEventProfilingInfo(user, CL_PROFILING_COMMAND_START, sizeof x, &x, NULL),
                     CL_PROFILING_INFO_NOT_AVAILABLE);
    clReleaseEvent(marker);
    clReleaseEvent(write);
    clReleaseEvent(user);
    clReleaseMemObject(m);
    /* context destructor callbacks run in reverse order of registration */
    cl_context c = clCreateContext(NULL, 1, &t->device, NULL, NULL, &err);
    assert_int_equal(clSetContextDestructorCallback(c, zc_on_destroy, &zc_destroyed[0]), CL_SUCCESS);
    assert_int_equal(clSetContextDestructorCallback(c, zc_on_destroy, &zc_destroyed[1]), CL_SUCCESS);
    assert_int_equal(clReleaseContext(c), CL_SUCCESS);
    assert_int_equal(zc_destroyed[1], 1);
    assert_int_equal(zc_destroyed[0], 2);
}

static void test_invalid_arguments(void **state) {
    zc_cl *t = *state;
    cl_int err;
    cl_context not_context = (cl_context)t->queue;
    cl_command_queue not_queue = (cl_command_queue)t->context;
    assert_null(clCreateContext(NULL, 0, NULL, NULL, NULL, &err));
    assert_int_equal(err, CL_INVALID_VALUE);
    cl_context_properties bad_props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)t->context, 0};
    assert_null(clCreateContext(bad_props, 1, &t->device, NULL, NULL, &err));
    assert_int_equal(err, CL_INVALID_PLATFORM);
    cl_context_properties unknown[] = {0x7777, 1, 0};
    assert_null(clCreateContext(unknown, 1, &t->device, NULL, NULL, &err));
    assert_int_equal(err, CL_INVALID_PROPERTY);
    cl_device_id not_device = (cl_device_id)t->queue;
    assert_null(clCreateContext(NULL, 1, &not_device, NULL, NULL, &err));
    assert_int_equal(err, CL_INVALID_DEVICE);
    assert_int_equal(clRetainContext(not_context), CL_INVALID_CONTEXT);
    assert_int_equal(clReleaseContext(NULL), CL_INVALID_CONTEXT);
    assert_int_equal(clGetContextInfo(t->context, 0x7777, 0, NULL, NULL), CL_INVALID_VALUE);
    assert_null(clCreateCommandQueue(not_context, t->device, 0, &err));
    assert_int_equal(err, CL_INVALID_CONTEXT);
    assert_null(clCreateCommandQueue(t->context, not_device, 0, &err));
    assert_int_equal(err, CL_INVALID_DEVICE);
    assert_null(clCreateCommandQueue(t->context, t->device, 1u << 20, &err));
    assert_int_equal(err, CL_INVALID_VALUE);
    assert_null(clCreateCommandQueue(t->context, t->device, CL_QUEUE_ON_DEVICE, &err));
    assert_int_equal(err, CL_INVALID_QUEUE_PROPERTIES);
    assert_int_equal(clFinish(not_queue), CL_INVALID_COMMAND_QUEUE);
    assert_int_equal(clFlush(NULL), CL_INVALID_COMMAND_QUEUE);
    assert_int_equal(clGetCommandQueueInfo(t->queue, 0x7777, 0, NULL, NULL), CL_INVALID_VALUE);
    /* buffers */
    assert_null(clCreateBuffer(t->context, 0, 0, NULL, &err));
    assert_int_equal(err, CL_INVALID_BUFFER_SIZE);
    assert_null(clCreateBuffer(t->context, CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY, 16, NULL, &err));
    assert_int_equal(err, CL_INVALID_VALUE);
    assert_null(clCreateBuffer(t->context, CL_MEM_USE_HOST_PTR, 16, NULL, &err));
    assert_int_equal(err, CL_INVALID_HOST_PTR);
    assert_null(clCreateBuffer(not_context, 0, 16, NULL, &err));
    assert_int_equal(err, CL_INVALID_CONTEXT);
    cl_mem_properties mprops[] = {0x7777, 1, 0};
    assert_null(clCreateBufferWithProperties(t->context, mprops, 0, 16, NULL, &err));
    assert_int_equal(err, CL_INVALID_PROPERTY);
    cl_mem m = clCreateBuffer(t->context, CL_MEM_HOST_NO_ACCESS, 64, NULL, &err);
    char host[64];
    assert_int_equal(clEnqueueReadBuffer(t->queue, m, CL_TRUE, 0, 64, host, 0, NULL, NULL), CL_INVALID_OPERATION);
    cl_mem rw = clCreateBuffer(t->context, 0, 64, NULL, &err);
    assert_int_equal(clEnqueueReadBuffer(t->queue, rw, CL_TRUE, 32, 64, host, 0, NULL, NULL), CL_INVALID_VALUE);
    assert_int_equal(clEnqueueReadBuffer(t->queue, rw, CL_TRUE, 0, 64, NULL, 0, NULL, NULL), CL_INVALID_VALUE);
    assert_int_equal(clEnqueueWriteBuffer(not_queue, rw, CL_TRUE, 0, 64, host, 0, NULL, NULL),
                     CL_INVALID_COMMAND_QUEUE);
    assert_int_equal(clEnqueueWriteBuffer(t->queue, (cl_mem)t->queue, CL_TRUE, 0, 64, host, 0, NULL, NULL),
                     CL_INVALID_MEM_OBJECT);
    assert_int_equal(clEnqueueReadBuffer(t->queue, rw, CL_TRUE, 0, 64, host, 1, NULL, NULL),
                     CL_INVALID_EVENT_WAIT_LIST);
    assert_int_equal(clEnqueueCopyBuffer(t->queue, rw, rw, 0, 16, 32, 0, NULL, NULL), CL_MEM_COPY_OVERLAP);
    int pattern = 0;
    assert_int_equal(clEnqueueFillBuffer(t->queue, rw, &pattern, 3, 0, 63, 0, NULL, NULL), CL_INVALID_VALUE);
    assert_null(clEnqueueMapBuffer(t->queue, rw, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE_INVALIDATE_REGION, 0, 64, 0, NULL,
                                   NULL, &err));
    assert_int_equal(err, CL_INVALID_VALUE);
    size_t origin[3] = {0, 0, 0}, region[3] = {16, 8, 1};
    assert_int_equal(
        clEnqueueWriteBufferRect(t->queue, rw, CL_TRUE, origin, origin, region, 16, 0, 16, 0, host, 0, NULL, NULL),
        CL_INVALID_VALUE); /* 16 x 8 bytes do not fit in 64 */
    assert_int_equal(clGetMemObjectInfo(rw, 0x7777, 0, NULL, NULL), CL_INVALID_VALUE);
    assert_int_equal(clReleaseMemObject((cl_mem)t->context), CL_INVALID_MEM_OBJECT);
    assert_int_equal(clSetMemObjectDestructorCallback(rw, NULL, NULL), CL_INVALID_VALUE);
    /* programs, kernels, events */
    assert_null(clCreateProgramWithSource(t->context, 0, NULL, NULL, &err));
    assert_int_equal(err, CL_INVALID_VALUE);
    int not_spirv[8] = {0};
    assert_null(clCreateProgramWithIL(t->context, not_spirv, sizeof not_spirv, &err));
    assert_int_equal(err, CL_INVALID_VALUE);
    assert_int_equal(clBuildProgram((cl_program)t->context, 0, NULL, NULL, NULL, NULL), CL_INVALID_PROGRAM);
    assert_null(clCreateKernel((cl_program)t->context, "x", &err));
    assert_int_equal(err, CL_INVALID_PROGRAM);
    assert_int_equal(clSetKernelArg((cl_kernel)t->context, 0, 0, NULL), CL_INVALID_KERNEL);
    assert_int_equal(clWaitForEvents(0, NULL), CL_INVALID_VALUE);
    cl_event not_event = (cl_event)t->context;
    assert_int_equal(clWaitForEvents(1, &not_event), CL_INVALID_EVENT);
    assert_int_equal(clSetUserEventStatus(not_event, CL_COMPLETE), CL_INVALID_EVENT);
    assert_int_equal(clReleaseEvent(NULL), CL_INVALID_EVENT);
    assert_null(clCreateUserEvent(not_context, &err));
    assert_int_equal(err, CL_INVALID_CONTEXT);
    /* a function the devices do not offer answers its "not supported" result, never a crash */
    assert_null(clSVMAlloc(t->context, 0, 0, 0));
    assert_null(clCreatePipe(t->context, 0, 4, 4, NULL, &err));
    assert_int_equal(err, CL_INVALID_OPERATION);
    clReleaseMemObject(m);
    clReleaseMemObject(rw);
}

/* The wrong-argument answers of the functions test_invalid_arguments leaves out: retain/release and info queries of
 * every object type, programs and kernels, events and profiling, sub-buffers, migration, SVM and USM. */
static void test_invalid_arguments_more(void **state) {
    zc_cl *t = *state;
    cl_int err;
    void *bogus = t->context; /* a live handle of another type */
    char value[64];
    cl_program p = zc_build_source(t, zc_vadd_source, NULL);
    cl_kernel k = clCreateKernel(p, "vadd", &err);
    cl_mem m = clCreateBuffer(t->context, CL_MEM_READ_ONLY, 256, NULL, &err);
    cl_event user = clCreateUserEvent(t->context, &err);
    /* retain, release and info of each type given a handle of another type */
    assert_int_equal(clRetainCommandQueue((cl_command_queue)bogus), CL_INVALID_COMMAND_QUEUE);
    assert_int_equal(clReleaseCommandQueue((cl_command_queue)bogus), CL_INVALID_COMMAND_QUEUE);
    assert_int_equal(clRetainMemObject((cl_mem)bogus), CL_INVALID_MEM_OBJECT);
    assert_int_equal(clRetainProgram((cl_program)bogus), CL_INVALID_PROGRAM);
    assert_int_equal(clReleaseProgram((cl_program)bogus), CL_INVALID_PROGRAM);
    assert_int_equal(clRetainKernel((cl_kernel)bogus), CL_INVALID_KERNEL);
    assert_int_equal(clReleaseKernel((cl_kernel)bogus), CL_INVALID_KERNEL);
    assert_int_equal(clRetainEvent((cl_event)bogus), CL_INVALID_EVENT);
    assert_int_equal(clRetainDevice((cl_device_id)bogus), CL_INVALID_DEVICE);
    assert_int_equal(clReleaseDevice((cl_device_id)bogus), CL_INVALID_DEVICE);
    assert_int_equal(clGetContextInfo((cl_context)t->queue, CL_CONTEXT_NUM_DEVICES, sizeof value, value, NULL),
                     CL_INVALID_CONTEXT);
    assert_int_equal(clGetCommandQueueInfo((cl_command_queue)bogus, CL_QUEUE_CONTEXT, sizeof value, value, NULL),
                     CL_INVALID_COMMAND_QUEUE);
    assert_int_equal(clGetCommandQueueInfo(t->queue, CL_QUEUE_SIZE, sizeof value, value, NULL),
                     CL_INVALID_COMMAND_QUEUE);
    assert_int_equal(clGetMemObjectInfo((cl_mem)bogus, CL_MEM_SIZE, sizeof value, value, NULL), CL_INVALID_MEM_OBJECT);
    assert_int_equal(clGetMemObjectInfo(m, CL_MEM_SIZE, 1, value, NULL), CL_INVALID_VALUE);
    assert_int_equal(clGetProgramInfo((cl_program)bogus, CL_PROGRAM_NUM_KERNELS, sizeof value, value, NULL),
                     CL_INVALID_PROGRAM);
    assert_int_equal(clGetProgramInfo(p, 0x7777, sizeof value, value, NULL), CL_INVALID_VALUE);
    assert_int_equal(clGetProgramBuildInfo(p, (cl_device_id)bogus, CL_PROGRAM_BUILD_LOG, sizeof value, value, NULL),
                     CL_INVALID_DEVICE);
    assert_int_equal(clGetProgramBuildInfo(p, t->device, 0x7777, sizeof value, value, NULL), CL_INVALID_VALUE);
    assert_int_equal(clGetKernelInfo((cl_kernel)bogus, CL_KERNEL_NUM_ARGS, sizeof value, value, NULL),
                     CL_INVALID_KERNEL);
    assert_int_equal(clGetKernelInfo(k, 0x7777, sizeof value, value, NULL), CL_INVALID_VALUE);
    assert_int_equal(
        clGetKernelWorkGroupInfo(k, (cl_device_id)bogus, CL_KERNEL_WORK_GROUP_SIZE, sizeof value, value, NULL),
        CL_INVALID_DEVICE);
    assert_int_equal(clGetKernelArgInfo(k, 9, CL_KERNEL_ARG_NAME, sizeof value, value, NULL), CL_INVALID_ARG_INDEX);
    assert_int_equal(clGetEventInfo((cl_event)bogus, CL_EVENT_CONTEXT, sizeof value, value, NULL), CL_INVALID_EVENT);
    assert_int_equal(clGetEventInfo(user, 0x7777, sizeof value, value, NULL), CL_INVALID_VALUE);
    assert_int_equal(clGetEventProfilingInfo((cl_event)bogus, CL_PROFILING_COMMAND_END, 8, value, NULL),
                     CL_INVALID_EVENT);
    /* programs */
    const char *src = zc_vadd_source;
    assert_int_equal(clBuildProgram(p, 1, NULL, NULL, NULL, NULL), CL_INVALID_VALUE);
    cl_program q = clCreateProgramWithSource(t->context, 1, &src, NULL, &err);
    assert_int_equal(clBuildProgram(q, 1, (cl_device_id *)&bogus, NULL, NULL, NULL), CL_INVALID_DEVICE);
    assert_int_equal(clBuildProgram(q, 0, NULL, NULL, NULL, value), CL_INVALID_VALUE);
    assert_int_equal(clCompileProgram(q, 0, NULL, NULL, 1, NULL, NULL, NULL, NULL), CL_INVALID_VALUE);
    assert_null(clCreateKernel(q, "vadd", &err));
    assert_int_equal(err, CL_INVALID_PROGRAM_EXECUTABLE);
    assert_int_equal(clGetProgramInfo(q, CL_PROGRAM_NUM_KERNELS, sizeof value, value, NULL),
                     CL_INVALID_PROGRAM_EXECUTABLE);
    assert_int_equal(clSetProgramSpecializationConstant(q, 1, 4, value), CL_INVALID_PROGRAM);
    cl_kernel ks[1];
    assert_int_equal(clCreateKernelsInProgram(p, 1, ks, NULL), CL_INVALID_VALUE); /* two kernels */
    assert_int_equal(clCreateKernelsInProgram(q, 2, ks, NULL), CL_INVALID_PROGRAM_EXECUTABLE);
    assert_null(clCreateKernel(p, NULL, &err));
    assert_int_equal(err, CL_INVALID_VALUE);
    const unsigned char *none = NULL;
    size_t zero = 0;
    assert_null(clCreateProgramWithBinary(t->context, 1, &t->device, &zero, &none, NULL, &err));
    assert_int_equal(err, CL_INVALID_VALUE);
    assert_null(clCreateProgramWithBinary(t->context, 0, NULL, NULL, NULL, NULL, &err));
    assert_int_equal(err, CL_INVALID_VALUE);
    assert_null(clCreateProgramWithBuiltInKernels(t->context, 1, &t->device, "no_such_kernel", &err));
    assert_int_equal(err, CL_INVALID_VALUE);
    assert_null(clLinkProgram(t->context, 0, NULL, NULL, 0, NULL, NULL, NULL, &err));
    assert_int_equal(err, CL_INVALID_VALUE);
    assert_null(clLinkProgram(t->context, 0, NULL, NULL, 1, (cl_program *)&bogus, NULL, NULL, &err));
    assert_int_equal(err, CL_INVALID_PROGRAM);
    assert_int_equal(clUnloadPlatformCompiler((cl_platform_id)bogus), CL_INVALID_PLATFORM);
    assert_null(clGetExtensionFunctionAddressForPlatform(t->platform, "clNoSuchFunctionINTEL"));
    /* sub-buffers, migration, markers */
    cl_buffer_region region = {0, 64};
    assert_null(clCreateSubBuffer(m, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &region, &err));
    assert_int_equal(err, CL_INVALID_VALUE); /* wider than the read-only parent */
    assert_null(clCreateSubBuffer(m, 0, 0x7777, &region, &err));
    assert_int_equal(err, CL_INVALID_VALUE);
    cl_buffer_region outside = {128, 256};
    assert_null(clCreateSubBuffer(m, 0, CL_BUFFER_CREATE_TYPE_REGION, &outside, &err));
    assert_int_equal(err, CL_INVALID_VALUE);
    cl_buffer_region empty = {0, 0};
    assert_null(clCreateSubBuffer(m, 0, CL_BUFFER_CREATE_TYPE_REGION, &empty, &err));
    assert_int_equal(err, CL_INVALID_BUFFER_SIZE);
    assert_int_equal(clEnqueueMigrateMemObjects(t->queue, 0, NULL, 0, 0, NULL, NULL), CL_INVALID_VALUE);
    assert_int_equal(clEnqueueMigrateMemObjects(t->queue, 1, &m, 0x7777, 0, NULL, NULL), CL_INVALID_VALUE);
    assert_int_equal(clEnqueueMarker(t->queue, NULL), CL_INVALID_VALUE);
    assert_int_equal(clEnqueueBarrierWithWaitList((cl_command_queue)bogus, 0, NULL, NULL), CL_INVALID_COMMAND_QUEUE);
    assert_int_equal(clEnqueueWaitForEvents(t->queue, 0, NULL), CL_INVALID_VALUE);
    assert_int_equal(clEnqueueTask(t->queue, (cl_kernel)bogus, 0, NULL, NULL), CL_INVALID_KERNEL);
    assert_int_equal(clSetEventCallback(user, 0x7777, zc_on_complete, NULL), CL_INVALID_VALUE);
    assert_int_equal(clSetUserEventStatus(user, CL_SUBMITTED), CL_INVALID_VALUE);
    assert_int_equal(clCreateSubDevices((cl_device_id)bogus, NULL, 0, NULL, NULL), CL_INVALID_DEVICE);
    assert_int_equal(clSetContextDestructorCallback(t->context, NULL, NULL), CL_INVALID_VALUE);
    /* SVM and USM */
    assert_int_equal(clEnqueueSVMMemFill(t->queue, NULL, value, 4, 64, 0, NULL, NULL), CL_INVALID_VALUE);
    assert_int_equal(clEnqueueSVMMap(t->queue, CL_TRUE, 0x7777, value, 4, 0, NULL, NULL), CL_INVALID_VALUE);
    assert_int_equal(clEnqueueSVMFree(t->queue, 1, NULL, NULL, NULL, 0, NULL, NULL), CL_INVALID_VALUE);
    assert_int_equal(clSetKernelExecInfo(k, 0x7777, sizeof value, value), CL_INVALID_VALUE);
    cl_bool yes = CL_TRUE;
    assert_int_equal(clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM, sizeof yes, &yes),
                     CL_INVALID_OPERATION);
    assert_int_equal(clSetKernelArgSVMPointer((cl_kernel)bogus, 0, NULL), CL_INVALID_KERNEL);
    assert_null(clCloneKernel((cl_kernel)bogus, &err));
    assert_int_equal(err, CL_INVALID_KERNEL);
    clDeviceMemAllocINTEL_fn device_alloc =
        (clDeviceMemAllocINTEL_fn)clGetExtensionFunctionAddressForPlatform(t->platform, "clDeviceMemAllocINTEL");
    cl_mem_properties_intel bad_props[] = {0x7777, 0, 0};
    assert_null(device_alloc(t->context, t->device, bad_props, 64, 0, &err));
    assert_int_equal(err, CL_INVALID_PROPERTY);
    assert_null(device_alloc(t->context, NULL, NULL, 64, 0, &err));
    assert_int_equal(err, CL_INVALID_DEVICE);
    assert_null(device_alloc(t->context, t->device, NULL, 64, 3, &err));
    assert_int_equal(err, CL_INVALID_VALUE);
    assert_null(device_alloc((cl_context)t->queue, t->device, NULL, 64, 0, &err));
    assert_int_equal(err, CL_INVALID_CONTEXT);
    clReleaseProgram(q);
    clReleaseEvent(user);
    clReleaseMemObject(m);
    clReleaseKernel(k);
    clReleaseProgram(p);
}

/* A context of every device (the program built for each) and, on cards with Level Zero sub-devices
 * (ZE_FLAT_DEVICE_HIERARCHY=COMPOSITE), a context of a sub-device: the vector add runs on the last device of each. */
static const char *zc_image_source =
    "const sampler_t smp = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;\n"
    "kernel void invert(read_only image2d_t in, write_only image2d_t out)\n"
    "{\n"
    "    int2 p = (int2)(get_global_id(0), get_global_id(1));\n"
    "    float4 v = read_imagef(in, smp, p);\n"
    "    write_imagef(out, p, (float4)(1.0f) - v);\n"
    "}\n"
    "kernel void pick(read_only image2d_t in, sampler_t s, global uint *out)\n"
    "{\n"
    "    out[0] = read_imageui(in, s, (int2)(1, 2)).x;\n"
    "}\n";

static cl_mem zc_image2d(zc_cl *t, cl_channel_type type, size_t w, size_t h, void *data) {
    cl_image_format format = {CL_RGBA, type};
    cl_image_desc desc = {.image_type = CL_MEM_OBJECT_IMAGE2D, .image_width = w, .image_height = h};
    cl_int err;
    cl_mem m = clCreateImage(t->context, data != NULL ? CL_MEM_COPY_HOST_PTR : 0, &format, &desc, data, &err);
    assert_int_equal(err, CL_SUCCESS);
    return m;
}

static void test_images(void **state) {
    zc_cl *t = *state;
    cl_int err;
    cl_uint count = 0;
    assert_int_equal(clGetSupportedImageFormats(t->context, CL_MEM_READ_WRITE, CL_MEM_OBJECT_IMAGE2D, 0, NULL, &count),
                     CL_SUCCESS);
    assert_true(count >= 36);
    unsigned char pixels[8 * 4 * 4], back[8 * 4 * 4];
    for (int i = 0; i < (int)sizeof pixels; i++)
        pixels[i] = (unsigned char)(i * 3);
    cl_mem a = zc_image2d(t, CL_UNORM_INT8, 8, 4, pixels);
    size_t origin[3] = {0, 0, 0}, whole[3] = {8, 4, 1};
    assert_int_equal(clEnqueueReadImage(t->queue, a, CL_TRUE, origin, whole, 0, 0, back, 0, NULL, NULL), CL_SUCCESS);
    assert_memory_equal(back, pixels, sizeof pixels);
    /* fill a 2x2 block at (3, 1) with 0.5 (128 in UNORM_INT8) */
    float half[4] = {0.5f, 0.5f, 0.5f, 1.0f};
    size_t at[3] = {3, 1, 0}, block[3] = {2, 2, 1};
    assert_int_equal(clEnqueueFillImage(t->queue, a, half, at, block, 0, NULL, NULL), CL_SUCCESS);
    assert_int_equal(clEnqueueReadImage(t->queue, a, CL_TRUE, origin, whole, 0, 0, back, 0, NULL, NULL), CL_SUCCESS);
    assert_int_equal(back[(1 * 8 + 3) * 4], 128);
    assert_int_equal(back[(2 * 8 + 4) * 4 + 3], 255);
    assert_int_equal(back[0], pixels[0]);
    /* a kernel inverts a into b; b copied to a buffer and back into c */
    cl_mem b = zc_image2d(t, CL_UNORM_INT8, 8, 4, NULL);
    cl_program p = zc_build_source(t, zc_image_source, NULL);
    cl_kernel k = clCreateKernel(p, "invert", &err);
    assert_int_equal(clSetKernelArg(k, 0, sizeof a, &a), CL_SUCCESS);
    assert_int_equal(clSetKernelArg(k, 1, sizeof b, &b), CL_SUCCESS);
    size_t global[2] = {8, 4};
    assert_int_equal(clEnqueueNDRangeKernel(t->queue, k, 2, NULL, global, NULL, 0, NULL, NULL), CL_SUCCESS);
    cl_mem buffer = clCreateBuffer(t->context, CL_MEM_READ_WRITE, sizeof pixels, NULL, &err);
    assert_int_equal(clEnqueueCopyImageToBuffer(t->queue, b, buffer, origin, whole, 0, 0, NULL, NULL), CL_SUCCESS);
    cl_mem c = zc_image2d(t, CL_UNORM_INT8, 8, 4, NULL);
    assert_int_equal(clEnqueueCopyBufferToImage(t->queue, buffer, c, 0, origin, whole, 0, NULL, NULL), CL_SUCCESS);
    size_t row = 0;
    unsigned char *map = clEnqueueMapImage(t->queue, c, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, origin, whole, &row, NULL,
                                           0, NULL, NULL, &err);
    assert_int_equal(err, CL_SUCCESS);
    assert_true(row >= 8 * 4);
    for (int y = 0; y < 4; y++)
        for (int x = 0; x < 8; x++)
            assert_int_equal(map[y * row + x * 4], 255 - back[(y * 8 + x) * 4]);
    map[0] = 7; /* written back at unmap */
    assert_int_equal(clEnqueueUnmapMemObject(t->queue, c, map, 0, NULL, NULL), CL_SUCCESS);
    unsigned char first[4];
    size_t one[3] = {1, 1, 1};
    assert_int_equal(clEnqueueReadImage(t->queue, c, CL_TRUE, origin, one, 0, 0, first, 0, NULL, NULL), CL_SUCCESS);
    assert_int_equal(first[0], 7);
    /* image to image copy of a block */
    size_t to[3] = {5, 2, 0};
    assert_int_equal(clEnqueueCopyImage(t->queue, a, c, origin, to, block, 0, NULL, NULL), CL_SUCCESS);
    assert_int_equal(clEnqueueReadImage(t->queue, c, CL_TRUE, to, one, 0, 0, first, 0, NULL, NULL), CL_SUCCESS);
    assert_int_equal(first[0], pixels[0]);
    /* a sampler argument: an unsigned integer image read at (1, 2) */
    cl_uint ints[8 * 4 * 4];
    for (int i = 0; i < 8 * 4 * 4; i++)
        ints[i] = (cl_uint)i;
    cl_mem u = zc_image2d(t, CL_UNSIGNED_INT32, 8, 4, ints);
    cl_sampler smp = clCreateSampler(t->context, CL_FALSE, CL_ADDRESS_CLAMP_TO_EDGE, CL_FILTER_NEAREST, &err);
    assert_int_equal(err, CL_SUCCESS);
    cl_kernel pick = clCreateKernel(p, "pick", &err);
    cl_mem out = clCreateBuffer(t->context, CL_MEM_READ_WRITE, sizeof(cl_uint), NULL, &err);
    assert_int_equal(clSetKernelArg(pick, 0, sizeof u, &u), CL_SUCCESS);
    assert_int_equal(clSetKernelArg(pick, 1, sizeof smp, &smp), CL_SUCCESS);
    assert_int_equal(clSetKernelArg(pick, 2, sizeof out, &out), CL_SUCCESS);
    assert_int_equal(clSetKernelArg(pick, 1, sizeof smp, &u), CL_INVALID_SAMPLER);
    assert_int_equal(clSetKernelArg(pick, 0, sizeof out, &out), CL_INVALID_MEM_OBJECT);
    assert_int_equal(clEnqueueTask(t->queue, pick, 0, NULL, NULL), CL_SUCCESS);
    cl_uint picked = 0;
    assert_int_equal(clEnqueueReadBuffer(t->queue, out, CL_TRUE, 0, sizeof picked, &picked, 0, NULL, NULL), CL_SUCCESS);
    assert_int_equal(picked, (2 * 8 + 1) * 4);
    cl_addressing_mode mode = 0;
    assert_int_equal(clGetSamplerInfo(smp, CL_SAMPLER_ADDRESSING_MODE, sizeof mode, &mode, NULL), CL_SUCCESS);
    assert_int_equal(mode, CL_ADDRESS_CLAMP_TO_EDGE);
    /* 3D images and 2D arrays round trip */
    cl_image_format rf = {CL_R, CL_FLOAT};
    cl_image_desc d3 = {.image_type = CL_MEM_OBJECT_IMAGE3D, .image_width = 4, .image_height = 3, .image_depth = 2};
    cl_image_desc da = {
        .image_type = CL_MEM_OBJECT_IMAGE2D_ARRAY, .image_width = 4, .image_height = 3, .image_array_size = 2};
    float vol[24], vol_back[24];
    for (int i = 0; i < 24; i++)
        vol[i] = (float)i * 0.25f;
    size_t box[3] = {4, 3, 2};
    const cl_image_desc *descs[2] = {&d3, &da};
    for (int i = 0; i < 2; i++) {
        cl_mem v = clCreateImage(t->context, 0, &rf, descs[i], NULL, &err);
        assert_int_equal(err, CL_SUCCESS);
        assert_int_equal(clEnqueueWriteImage(t->queue, v, CL_FALSE, origin, box, 0, 0, vol, 0, NULL, NULL), CL_SUCCESS);
        assert_int_equal(clEnqueueReadImage(t->queue, v, CL_TRUE, origin, box, 0, 0, vol_back, 0, NULL, NULL),
                         CL_SUCCESS);
        assert_memory_equal(vol, vol_back, sizeof vol);
        size_t depth = 0;
        assert_int_equal(clGetImageInfo(v, i == 0 ? CL_IMAGE_DEPTH : CL_IMAGE_ARRAY_SIZE, sizeof depth, &depth, NULL),
                         CL_SUCCESS);
        assert_int_equal(depth, 2);
        clReleaseMemObject(v);
    }
    /* wrong arguments */
    cl_image_format alpha = {CL_A, CL_UNORM_INT8}, bogus_format = {0x1, CL_FLOAT};
    cl_image_desc d2 = {.image_type = CL_MEM_OBJECT_IMAGE2D, .image_width = 4, .image_height = 4};
    assert_null(clCreateImage(t->context, 0, &alpha, &d2, NULL, &err));
    assert_int_equal(err, CL_IMAGE_FORMAT_NOT_SUPPORTED);
    assert_null(clCreateImage(t->context, 0, &bogus_format, &d2, NULL, &err));
    assert_int_equal(err, CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
    cl_image_desc zero_w = {.image_type = CL_MEM_OBJECT_IMAGE2D, .image_height = 4};
    assert_null(clCreateImage(t->context, 0, &rf, &zero_w, NULL, &err));
    assert_int_equal(err, CL_INVALID_IMAGE_DESCRIPTOR);
    cl_image_desc huge = {.image_type = CL_MEM_OBJECT_IMAGE2D, .image_width = 1u << 20, .image_height = 4};
    assert_null(clCreateImage(t->context, 0, &rf, &huge, NULL, &err));
    assert_int_equal(err, CL_INVALID_IMAGE_SIZE);
    size_t outside[3] = {9, 1, 1};
    assert_int_equal(clEnqueueReadImage(t->queue, a, CL_TRUE, origin, outside, 0, 0, back, 0, NULL, NULL),
                     CL_INVALID_VALUE);
    assert_int_equal(clEnqueueCopyImage(t->queue, a, u, origin, origin, block, 0, NULL, NULL),
                     CL_IMAGE_FORMAT_MISMATCH);
    assert_int_equal(clEnqueueReadBuffer(t->queue, a, CL_TRUE, 0, 4, back, 0, NULL, NULL), CL_INVALID_MEM_OBJECT);
    assert_int_equal(clGetImageInfo(buffer, CL_IMAGE_WIDTH, sizeof row, &row, NULL), CL_INVALID_MEM_OBJECT);
    assert_null(clCreateSampler(t->context, CL_FALSE, 0x7777, CL_FILTER_NEAREST, &err));
    assert_int_equal(err, CL_INVALID_VALUE);
    assert_int_equal(clReleaseSampler((cl_sampler)t->context), CL_INVALID_SAMPLER);
    clReleaseSampler(smp);
    clReleaseMemObject(out);
    clReleaseKernel(pick);
    clReleaseKernel(k);
    clReleaseProgram(p);
    clReleaseMemObject(u);
    clReleaseMemObject(buffer);
    clReleaseMemObject(a);
    clReleaseMemObject(b);
    clReleaseMemObject(c);
}

/* 1D buffer images: the image and its buffer are the same bytes, through host commands and kernels. */
static const char *zc_buffer_image_source = "kernel void twice(read_only image1d_buffer_t in, write_only "
                                            "image1d_buffer_t out)\n"
                                            "{\n"
                                            "    int i = get_global_id(0);\n"
                                            "    write_imageui(out, i, read_imageui(in, i) * 2);\n"
                                            "}\n";

static void test_buffer_images(void **state) {
    zc_cl *t = *state;
    cl_int err;
    size_t max = 0;
    assert_int_equal(clGetDeviceInfo(t->device, CL_DEVICE_IMAGE_MAX_BUFFER_SIZE, sizeof max, &max, NULL), CL_SUCCESS);
    assert_true(max >= 65536); /* the OpenCL 1.2 full profile minimum */
    cl_uint count = 0;
    assert_int_equal(
        clGetSupportedImageFormats(t->context, CL_MEM_READ_WRITE, CL_MEM_OBJECT_IMAGE1D_BUFFER, 0, NULL, &count),
        CL_SUCCESS);
    assert_true(count >= 36);
    enum { W = 64 };
    cl_uint data[W * 4], back[W * 4];
    for (int i = 0; i < W * 4; i++)
        data[i] = (cl_uint)i;
    cl_mem buffer = clCreateBuffer(t->context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof data, data, &err);
    cl_mem out_buffer = clCreateBuffer(t->context, CL_MEM_READ_WRITE, sizeof data, NULL, &err);
    cl_image_format f = {CL_RGBA, CL_UNSIGNED_INT32};
    cl_image_desc d = {.image_type = CL_MEM_OBJECT_IMAGE1D_BUFFER, .image_width = W, .buffer = buffer};
    cl_mem image = clCreateImage(t->context, 0, &f, &d, NULL, &err);
    assert_int_equal(err, CL_SUCCESS);
    d.buffer = out_buffer;
    cl_mem out = clCreateImage(t->context, CL_MEM_WRITE_ONLY, &f, &d, NULL, &err);
    assert_int_equal(err, CL_SUCCESS);
    cl_mem associated = NULL;
    assert_int_equal(clGetImageInfo(image, CL_IMAGE_BUFFER, sizeof associated, &associated, NULL), CL_SUCCESS);
    assert_ptr_equal(associated, buffer);
    assert_int_equal(clGetMemObjectInfo(image, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof associated, &associated, NULL),
                     CL_SUCCESS);
    assert_ptr_equal(associated, buffer);
    cl_mem_object_type type = 0;
    assert_int_equal(clGetMemObjectInfo(image, CL_MEM_TYPE, sizeof type, &type, NULL), CL_SUCCESS);
    assert_int_equal(type, CL_MEM_OBJECT_IMAGE1D_BUFFER);
    /* the image reads what the buffer holds; a write through the image shows in the buffer */
    size_t origin[3] = {0, 0, 0}, whole[3] = {W, 1, 1}, second[3] = {1, 0, 0}, one[3] = {1, 1, 1};
    assert_int_equal(clEnqueueReadImage(t->queue, image, CL_TRUE, origin, whole, 0, 0, back, 0, NULL, NULL),
                     CL_SUCCESS);
    assert_memory_equal(back, data, sizeof data);
    cl_uint pixel[4] = {11, 12, 13, 14};
    assert_int_equal(clEnqueueWriteImage(t->queue, image, CL_TRUE, second, one, 0, 0, pixel, 0, NULL, NULL),
                     CL_SUCCESS);
    assert_int_equal(clEnqueueReadBuffer(t->queue, buffer, CL_TRUE, 0, sizeof back, back, 0, NULL, NULL), CL_SUCCESS);
    assert_memory_equal(back + 4, pixel, sizeof pixel);
    assert_int_equal(back[0], 0);
    assert_int_equal(back[8], 8);
    /* a kernel reads one buffer image and writes another: the second buffer holds the result */
    cl_program p = zc_build_source(t, zc_buffer_image_source, NULL);
    cl_kernel k = clCreateKernel(p, "twice", &err);
    assert_int_equal(clSetKernelArg(k, 0, sizeof image, &image), CL_SUCCESS);
    assert_int_equal(clSetKernelArg(k, 1, sizeof out, &out), CL_SUCCESS);
    size_t global = W;
    assert_int_equal(clEnqueueNDRangeKernel(t->queue, k, 1, NULL, &global, NULL, 0, NULL, NULL), CL_SUCCESS);
    assert_int_equal(clEnqueueReadBuffer(t->queue, out_buffer, CL_TRUE, 0, sizeof back, back, 0, NULL, NULL),
                     CL_SUCCESS);
    for (int i = 0; i < W * 4; i++)
        assert_int_equal(back[i], 2 * (i >= 4 && i < 8 ? pixel[i - 4] : data[i]));
    /* wrong arguments */
    d.buffer = NULL;
    assert_null(clCreateImage(t->context, 0, &f, &d, NULL, &err));
    assert_int_equal(err, CL_INVALID_IMAGE_DESCRIPTOR);
    d.buffer = buffer;
    d.image_width = W + 1; /* more pixels than the buffer holds */
    assert_null(clCreateImage(t->context, 0, &f, &d, NULL, &err));
    assert_int_equal(err, CL_INVALID_IMAGE_SIZE);
    d.image_width = W;
    assert_null(clCreateImage(t->context, CL_MEM_USE_HOST_PTR, &f, &d, data, &err));
    assert_int_equal(err, CL_INVALID_VALUE);
    cl_mem read_only = clCreateBuffer(t->context, CL_MEM_READ_ONLY, sizeof data, NULL, &err);
    d.buffer = read_only;
    assert_null(clCreateImage(t->context, CL_MEM_WRITE_ONLY, &f, &d, NULL, &err));
    assert_int_equal(err, CL_INVALID_VALUE);
    cl_image_desc d2 = {.image_type = CL_MEM_OBJECT_IMAGE2D, .image_width = 8, .image_height = 8, .buffer = buffer};
    assert_null(clCreateImage(t->context, 0, &f, &d2, NULL, &err)); /* no 2D images from buffers */
    assert_int_equal(err, CL_INVALID_OPERATION);
    /* the image holds its buffer: released first, the buffer stays usable through the image */
    clReleaseMemObject(buffer);
    assert_int_equal(clEnqueueReadImage(t->queue, image, CL_TRUE, second, one, 0, 0, back, 0, NULL, NULL), CL_SUCCESS);
    assert_memory_equal(back, pixel, sizeof pixel);
    clReleaseMemObject(read_only);
    clReleaseKernel(k);
    clReleaseProgram(p);
    clReleaseMemObject(image);
    clReleaseMemObject(out);
    clReleaseMemObject(out_buffer);
}

static _Atomic cl_int zc_fault_callback_status = 1;
static void CL_CALLBACK zc_on_fault_complete(cl_event e, cl_int status, void *data) {
    (void)e;
    (void)data;
    zc_fault_callback_status = status;
}

/* A command that faults on the device (a store far outside its buffer) ends with a negative status,
 * CL_OUT_OF_RESOURCES (OpenCL 3.0, CL_EVENT_COMMAND_EXECUTION_STATUS: "a negative integer value ... the command was
 * abnormally terminated"): its event says so, its CL_COMPLETE callback receives it, clWaitForEvents answers
 * CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST, and the queue's next command runs. */
static void test_faulted_command_status(void **state) {
    zc_cl *t = *state;
    static const char *source = "kernel void wild(global int *p)\n"
                                "{\n"
                                "    p[get_global_id(0) + (1 << 28)] = 1;\n"
                                "}\n";
    cl_program p = zc_build_source(t, source, "");
    cl_int err;
    cl_kernel k = clCreateKernel(p, "wild", &err);
    assert_int_equal(err, CL_SUCCESS);
    cl_mem m = clCreateBuffer(t->context, CL_MEM_READ_WRITE, 64, NULL, &err);
    assert_int_equal(err, CL_SUCCESS);
    assert_int_equal(clSetKernelArg(k, 0, sizeof m, &m), CL_SUCCESS);
    size_t global = 4;
    cl_event e;
    assert_int_equal(clEnqueueNDRangeKernel(t->queue, k, 1, NULL, &global, NULL, 0, NULL, &e), CL_SUCCESS);
    zc_fault_callback_status = 1;
    assert_int_equal(clSetEventCallback(e, CL_COMPLETE, zc_on_fault_complete, NULL), CL_SUCCESS);
    assert_int_equal(clWaitForEvents(1, &e), CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
    assert_int_equal(zc_exec_status(e), CL_OUT_OF_RESOURCES);
    for (int i = 0; i < 1000 && zc_fault_callback_status == 1; i++)
        usleep(1000);
    assert_int_equal(zc_fault_callback_status, CL_OUT_OF_RESOURCES);
    clFinish(t->queue);
    cl_int v = 7, back = 0;
    assert_int_equal(clEnqueueWriteBuffer(t->queue, m, CL_TRUE, 0, sizeof v, &v, 0, NULL, NULL), CL_SUCCESS);
    assert_int_equal(clEnqueueReadBuffer(t->queue, m, CL_TRUE, 0, sizeof back, &back, 0, NULL, NULL), CL_SUCCESS);
    assert_int_equal(back, 7);
    clReleaseEvent(e);
    clReleaseMemObject(m);
    clReleaseKernel(k);
    clReleaseProgram(p);
}

#define ZC_STALE_ROUNDS 200

/* 200 create/release/create rounds of samplers, buffers and user events: the second object never takes the
 * released one's address, and the released handle is refused every time (docs/opencl.md, "Handles are checked"). */
static void test_stale_handles_refused(void **state) {
    zc_cl *t = *state;
    cl_int err;
    int reused = 0;
    for (int round = 0; round < ZC_STALE_ROUNDS; round++) {
        cl_sampler s = clCreateSampler(t->context, CL_FALSE, CL_ADDRESS_CLAMP, CL_FILTER_NEAREST, &err);
        assert_int_equal(err, CL_SUCCESS);
        assert_int_equal(clReleaseSampler(s), CL_SUCCESS);
        cl_sampler s2 = clCreateSampler(t->context, CL_FALSE, CL_ADDRESS_CLAMP, CL_FILTER_NEAREST, &err);
        assert_int_equal(err, CL_SUCCESS);
        reused += s2 == s;
        assert_int_equal(clRetainSampler(s), CL_INVALID_SAMPLER);
        assert_int_equal(clReleaseSampler(s), CL_INVALID_SAMPLER);

        cl_mem m = clCreateBuffer(t->context, CL_MEM_READ_WRITE, 64, NULL, &err);
        assert_int_equal(err, CL_SUCCESS);
        assert_int_equal(clReleaseMemObject(m), CL_SUCCESS);
        cl_mem m2 = clCreateBuffer(t->context, CL_MEM_READ_WRITE, 64, NULL, &err);
        assert_int_equal(err, CL_SUCCESS);
        reused += m2 == m;
        assert_int_equal(clRetainMemObject(m), CL_INVALID_MEM_OBJECT);
        assert_int_equal(clReleaseMemObject(m), CL_INVALID_MEM_OBJECT);

        cl_event e = clCreateUserEvent(t->context, &err);
        assert_int_equal(err, CL_SUCCESS);
        assert_int_equal(clSetUserEventStatus(e, CL_COMPLETE), CL_SUCCESS);
        assert_int_equal(clReleaseEvent(e), CL_SUCCESS);
        cl_event e2 = clCreateUserEvent(t->context, &err);
        assert_int_equal(err, CL_SUCCESS);
        reused += e2 == e;
        assert_int_equal(clRetainEvent(e), CL_INVALID_EVENT);
        assert_int_equal(clReleaseEvent(e), CL_INVALID_EVENT);

        assert_int_equal(clReleaseSampler(s2), CL_SUCCESS);
        assert_int_equal(clReleaseMemObject(m2), CL_SUCCESS);
        assert_int_equal(clSetUserEventStatus(e2, CL_COMPLETE), CL_SUCCESS);
        assert_int_equal(clReleaseEvent(e2), CL_SUCCESS);
    }
    assert_int_equal(reused, 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_events_user_marker_barrier),
        cmocka_unit_test(test_user_event_failure_terminates),
        cmocka_unit_test(test_finish_waits_for_gated_commands),
        cmocka_unit_test(test_invalid_arguments),
        cmocka_unit_test(test_invalid_arguments_more),
        cmocka_unit_test(test_images),
        cmocka_unit_test(test_buffer_images),
        cmocka_unit_test(test_faulted_command_status),
        cmocka_unit_test(test_stale_handles_refused),
    };
    return cmocka_run_group_tests_name("opencl_events", tests, zc_setup, zc_teardown);
}
