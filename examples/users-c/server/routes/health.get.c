/*
 * GET /health - a plain route: no contract, so the host neither validates
 * its requests nor lists it in the OpenAPI document.
 *
 * Build (from the repository root):
 *
 *     clang --target=wasm32-wasi -mexec-model=reactor -O2 \
 *           -Werror=implicit-function-declaration -I guest-sdk/c \
 *           -Wl,--strip-debug -o examples/users-c/server/routes/health.get.wasm \
 *           examples/users-c/server/routes/health.get.c
 */
#include "endpoints.h"

ENDPOINTS_ROUTE();

int32_t endpoints_handle(void) {
    endpoints_set_header("Content-Type", "text/plain; charset=utf-8");
    return endpoints_write_str("ok");
}
