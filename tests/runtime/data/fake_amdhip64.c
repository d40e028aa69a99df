/* A stand-in libamdhip64.so for tests: the HIP entry points asmgen's HIP runner calls, with "device"
 * memory in host memory. hipModuleLaunchKernel checks and records the `extra` launch array
 * (HIP_LAUNCH_PARAM_BUFFER_POINTER = 1, _SIZE = 2, _END = 3) and runs a C model of `vector_add`
 * (C[i] = A[i] + B[i], i < n; kernargs A@0 B@8 C@16 n@24). Device properties are copied from the
 * file $FAKE_HIP_PROPS (a hipDeviceProp_t prefix the test lays out with hip-python itself);
 * $FAKE_HIP_FAIL = "<function>=<code>" makes that function return the error code. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned char last_kernargs[4096];
static size_t last_size;
static unsigned last_dims[6];
static long live_allocations;

static int failure(const char *fn) {
    const char *spec = getenv("FAKE_HIP_FAIL");
    size_t n = strlen(fn);
    if (spec && strncmp(spec, fn, n) == 0 && spec[n] == '=') return atoi(spec + n + 1);
    return 0;
}

int hipGetDeviceCount(int *count) {
    int e = failure("hipGetDeviceCount");
    if (e) return e;
    *count = 1;
    return 0;
}

int hipGetDevicePropertiesR0600(void *prop, int device) {
    const char *path = getenv("FAKE_HIP_PROPS");
    if (device != 0) return 101; /* hipErrorInvalidDevice */
    FILE *f = path ? fopen(path, "rb") : NULL;
    if (!f) return 999;
    size_t n = fread(prop, 1, 65536, f);
    fclose(f);
    return n ? 0 : 999;
}

int hipSetDevice(int device) { return device == 0 ? 0 : 101; }

int hipMalloc(void **ptr, size_t size) {
    int e = failure("hipMalloc");
    if (e) return e;
    *ptr = calloc(1, size ? size : 1);
    live_allocations++;
    return *ptr ? 0 : 2;
}

int hipFree(void *ptr) {
    free(ptr);
    live_allocations--;
    return 0;
}

int hipMemcpy(void *dst, const void *src, size_t size, int kind) {
    int e = failure("hipMemcpy");
    if (e) return e;
    if (kind != 1 && kind != 2) return 1;
    memcpy(dst, src, size);
    return 0;
}

int hipModuleLoadData(void **module, const void *image) {
    if (memcmp(image, "\x7f" "ELF", 4) != 0) return 200; /* hipErrorInvalidImage */
    *module = (void *)image;
    return 0;
}

int hipModuleGetFunction(void **function, void *module, const char *name) {
    (void)module;
    if (strcmp(name, "vector_add") != 0) return 500; /* hipErrorNotFound */
    *function = (void *)"vector_add";
    return 0;
}

int hipModuleUnload(void *module) { (void)module; return 0; }

int hipModuleLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                          unsigned bz, unsigned shared, void *stream, void **params, void **extra) {
    (void)f; (void)shared; (void)stream;
    int e = failure("hipModuleLaunchKernel");
    if (e) return e;
    if (params || !extra) return 1;
    if (extra[0] != (void *)1 || extra[2] != (void *)2 || extra[4] != (void *)3) return 1;
    size_t size = *(size_t *)extra[3];
    if (size > sizeof last_kernargs) return 1;
    memcpy(last_kernargs, extra[1], size);
    last_size = size;
    unsigned dims[6] = {gx, gy, gz, bx, by, bz};
    memcpy(last_dims, dims, sizeof dims);
    if (size < 28) return 1;
    float *a, *b, *c;
    uint32_t n;
    memcpy(&a, last_kernargs + 0, 8);
    memcpy(&b, last_kernargs + 8, 8);
    memcpy(&c, last_kernargs + 16, 8);
    memcpy(&n, last_kernargs + 24, 4);
    for (uint32_t i = 0; i < n && i < (uint64_t)gx * bx; i++) c[i] = a[i] + b[i];
    return 0;
}

int hipDeviceSynchronize(void) { return failure("hipDeviceSynchronize"); }

const char *hipGetErrorString(int error) { return error == 2 ? "fake: out of memory" : "fake: error"; }
const char *hipGetErrorName(int error) { (void)error; return "fakeError"; }

/* test hooks */
size_t fake_last_kernargs(unsigned char *out) { memcpy(out, last_kernargs, last_size); return last_size; }
void fake_last_dims(unsigned *out) { memcpy(out, last_dims, sizeof last_dims); }
long fake_live_allocations(void) { return live_allocations; }
