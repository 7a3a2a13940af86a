/* nnue_embed.c — the default net (engine_c/nets/default.pbnn) linked in as
 * read-only bytes. The build passes its absolute path as PB_NNUE_FILE
 * (build_engine.py, Makefile); the assembler's .incbin copies the file, so
 * no generated source is needed for the cffi, make and cross builds alike. */
#include <stdint.h>

#ifndef PB_NNUE_FILE
#error "PB_NNUE_FILE must name the .pbnn file to embed (set by build_engine.py and the Makefile)"
#endif

__asm__(".section .rodata\n"
        ".balign 64\n"
        ".globl pb_nnue_blob\n"
        ".hidden pb_nnue_blob\n"
        "pb_nnue_blob:\n"
        ".incbin \"" PB_NNUE_FILE "\"\n"
        ".globl pb_nnue_blob_end\n"
        ".hidden pb_nnue_blob_end\n"
        "pb_nnue_blob_end:\n"
        ".byte 0\n"
        ".previous\n");
