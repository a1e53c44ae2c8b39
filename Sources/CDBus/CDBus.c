// Loads libdbus-1 at run time for DBusKit: see include/CDBus.h.
#include "CDBus.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

CDBusFunctions cdbus_functions;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char requested_path[4096];
static const char *failure;
static char failure_text[512];

static void load(void) {
    const char *path = requested_path[0] ? requested_path : "libdbus-1.so.3";
    void *library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        const char *reason = dlerror();
        snprintf(failure_text, sizeof failure_text, "%s", reason ? reason : path);
        failure = failure_text;
        return;
    }
    CDBusFunctions resolved;
#define CDBUS_RESOLVE(result, name, parameters, arguments)                                         \
    *(void **)(&resolved.name) = dlsym(library, #name);                                            \
    if (!resolved.name) {                                                                          \
        snprintf(failure_text, sizeof failure_text, "%s has no symbol %s", path, #name);           \
        failure = failure_text;                                                                    \
        dlclose(library);                                                                          \
        return;                                                                                    \
    }
    CDBUS_FUNCTIONS(CDBUS_RESOLVE)
#undef CDBUS_RESOLVE
    // Published before `pthread_once` returns, so every caller that got a null answer sees all of them.
    cdbus_functions = resolved;
}

const char *cdbus_load(const char *path) {
    // Only the first call's path counts: pthread_once runs `load` once, with the path the first caller set.
    static pthread_mutex_t path_lock = PTHREAD_MUTEX_INITIALIZER;
    static int path_set = 0;
    pthread_mutex_lock(&path_lock);
    if (!path_set) {
        snprintf(requested_path, sizeof requested_path, "%s", path ? path : "");
        path_set = 1;
    }
    pthread_mutex_unlock(&path_lock);
    pthread_once(&once, load);
    return failure;
}
