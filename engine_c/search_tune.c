/* search_tune.c — PIBOT_TUNE parsing for tuning builds; see search_tune.h. */
#include "search_tune.h"

#ifdef PB_TUNE
#include "search_params.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PB_PARAM(name, value, lo, hi) int name = value;
#include "search_tunables.h"
#undef PB_PARAM

typedef struct {
    const char *name;
    int *value;
    int lo, hi;
} Tunable;

static const Tunable Tunables[] = {
#define PB_PARAM(name, value, lo, hi) {#name, &name, lo, hi},
#include "search_tunables.h"
#undef PB_PARAM
};

static int apply(const char *name, size_t len, const char *value) {
    for (size_t i = 0; i < sizeof Tunables / sizeof Tunables[0]; i++) {
        const Tunable *t = &Tunables[i];
        if (strlen(t->name) != len || strncmp(t->name, name, len) != 0) continue;
        char *end;
        long v = strtol(value, &end, 10);
        if (end == value || (*end != '\0' && *end != ',') || v < t->lo || v > t->hi) {
            fprintf(stderr, "PIBOT_TUNE: %s needs an integer in [%d, %d]\n", t->name, t->lo, t->hi);
            return -1;
        }
        *t->value = (int)v;
        return 0;
    }
    fprintf(stderr, "PIBOT_TUNE: unknown constant %.*s (see engine_c/search_tunables.h)\n",
            (int)len, name);
    return -1;
}

int search_tune_load_env(void) {
    const char *spec = getenv("PIBOT_TUNE");
    if (!spec) return 0;
    /* Validate everything before changing anything. */
    int saved[sizeof Tunables / sizeof Tunables[0]];
    for (size_t i = 0; i < sizeof saved / sizeof saved[0]; i++) saved[i] = *Tunables[i].value;
    for (const char *p = spec; *p;) {
        const char *eq = strchr(p, '=');
        const char *comma = strchr(p, ',');
        if (!eq || (comma && comma < eq)) {
            fprintf(stderr, "PIBOT_TUNE: expected NAME=VALUE[,NAME=VALUE...], got \"%s\"\n", p);
            goto fail;
        }
        if (apply(p, (size_t)(eq - p), eq + 1) != 0) goto fail;
        p = comma ? comma + 1 : eq + strlen(eq);
    }
    return 0;
fail:
    for (size_t i = 0; i < sizeof saved / sizeof saved[0]; i++) *Tunables[i].value = saved[i];
    return -1;
}
#else
/* ISO C wants a declaration in every translation unit. */
typedef int search_tune_unused;
#endif
