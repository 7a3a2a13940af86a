/* insn_count.c — a qemu-user TCG plugin that counts the guest instructions a
 * program executes, per translated block, for docs/benchmarks.md's aarch64
 * figures (the x86 ones come from callgrind). Build and use: see README.md.
 *
 * Each translated block (TB) gets a record {start address, instructions,
 * executions}; qemu adds 1 to `executions` inline each time the block runs
 * (no callback, so the run stays fast). At exit the records go to the file
 * named by out=PATH, one "address instructions executions" line each (a
 * block translated twice gives two lines: the mapper adds them up);
 * by_symbol.py maps them onto the static binary's functions with nm.
 * A block left early (a signal, a syscall that does not return) is still
 * counted whole: a few instructions out of billions.
 *
 * The plugin API is declared here, not included: the handful of entry points
 * of QEMU_PLUGIN_VERSION 1 (qemu 4.2 .. 8.1, Debian 12's qemu-user 7.2)
 * that this file uses, so it builds without qemu's source tree. */
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint64_t qemu_plugin_id_t;
typedef struct {
    const char *target_name;
    struct { int min, cur; } version;
    bool system_emulation;
} plugin_info;
struct qemu_plugin_tb;
enum { INLINE_ADD_U64 = 0 };

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id,
                                           void (*cb)(qemu_plugin_id_t, struct qemu_plugin_tb *));
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *tb, int op, void *ptr,
                                              uint64_t imm);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, void (*cb)(qemu_plugin_id_t, void *),
                                    void *userdata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);
void qemu_plugin_outs(const char *string);

#define EXPORT __attribute__((visibility("default")))
EXPORT int qemu_plugin_version = 1;

typedef struct {
    uint64_t vaddr, insns, execs;
} Block;

/* Records live in chunks that never move: qemu holds pointers to `execs`. */
enum { CHUNK = 1 << 16 };
typedef struct Chunk {
    struct Chunk *next;
    size_t used;
    Block block[CHUNK];
} Chunk;

static Chunk *chunks;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char out_path[4096];
static bool out_of_memory;

static Block *new_block(void) {
    if (!chunks || chunks->used == CHUNK) {
        Chunk *c = calloc(1, sizeof *c);
        if (!c) return NULL;
        c->next = chunks;
        chunks = c;
    }
    return &chunks->block[chunks->used++];
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb) {
    pthread_mutex_lock(&lock);
    Block *b = new_block();
    if (b) {
        b->vaddr = qemu_plugin_tb_vaddr(tb);
        b->insns = qemu_plugin_tb_n_insns(tb);
        qemu_plugin_register_vcpu_tb_exec_inline(tb, INLINE_ADD_U64, &b->execs, 1);
    } else {
        out_of_memory = true;
    }
    pthread_mutex_unlock(&lock);
}

static void on_exit_(qemu_plugin_id_t id, void *userdata) {
    uint64_t total = 0, blocks = 0;
    FILE *f = out_path[0] ? fopen(out_path, "w") : NULL;
    for (Chunk *c = chunks; c; c = c->next)
        for (size_t i = 0; i < c->used; i++) {
            const Block *b = &c->block[i];
            total += b->insns * b->execs;
            blocks++;
            if (f && b->execs)
                fprintf(f, "%" PRIx64 " %" PRIu64 " %" PRIu64 "\n", b->vaddr, b->insns, b->execs);
        }
    char line[256];
    snprintf(line, sizeof line, "insn_count: %" PRIu64 " instructions, %" PRIu64 " blocks%s%s\n",
             total, blocks, out_of_memory ? " (OUT OF MEMORY: undercounted)" : "",
             out_path[0] && !f ? " (cannot write out=)" : "");
    qemu_plugin_outs(line);
    if (f) fclose(f);
}

EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const plugin_info *info, int argc,
                               char **argv) {
    for (int i = 0; i < argc; i++) {
        if (strncmp(argv[i], "out=", 4) == 0) {
            snprintf(out_path, sizeof out_path, "%s", argv[i] + 4);
        } else {
            fprintf(stderr, "insn_count: unknown argument %s (only out=PATH)\n", argv[i]);
            return -1;
        }
    }
    qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
    qemu_plugin_register_atexit_cb(id, on_exit_, NULL);
    return 0;
}
