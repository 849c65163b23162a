/* A per-thread bump allocator for libxml2 (installed with xmlMemSetup).

   Parsing a saved HTML page builds a tree of thousands of small nodes, strings and
   attributes, and freeing the document walks the tree and frees each one: on pages shaped
   like real shop pages, malloc and free took about 40% of the time (glibc consolidating
   its fast bins on every page). Between seedforge_arena_begin and seedforge_arena_end a
   thread's libxml2 allocations come from its own arena: a bump of a pointer, a free that
   does nothing, and everything released at once at the end, where the first block is kept
   for the next page. Outside a scope, and for memory the arena did not give, the functions
   are malloc, realloc and free.

   Each allocation is preceded by its size (for realloc), in 16 bytes so every allocation
   stays aligned as malloc's are. A pointer belongs to the arena when it lies in one of the
   calling thread's blocks; a document is parsed, read and dropped by one thread. */
#include "seedforge_support.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct seedforge_arena_block {
    struct seedforge_arena_block *next;
    size_t capacity;
    size_t used;
} seedforge_arena_block;

/* Block header and allocation header sizes, multiples of 16. */
#define SEEDFORGE_BLOCK_HEAD 32
#define SEEDFORGE_ALLOCATION_HEAD 16
#define SEEDFORGE_FIRST_BLOCK ((size_t)1 << 20)
#define SEEDFORGE_LARGEST_BLOCK ((size_t)64 << 20)

/* Scopes open on this thread, and its blocks, newest first (the last one is the kept one). */
static _Thread_local int seedforge_arena_depth;
static _Thread_local seedforge_arena_block *seedforge_arena_blocks;

static char *seedforge_block_data(seedforge_arena_block *block) { return (char *)block + SEEDFORGE_BLOCK_HEAD; }

static int seedforge_arena_owns(const void *pointer) {
    for (seedforge_arena_block *block = seedforge_arena_blocks; block; block = block->next) {
        const char *start = seedforge_block_data(block);
        if ((const char *)pointer >= start && (const char *)pointer < start + block->capacity) return 1;
    }
    return 0;
}

static void *seedforge_arena_take(size_t size) {
    if (size > SIZE_MAX / 2) return NULL; /* like malloc failing; libxml2 reports it */
    size_t need = (size + SEEDFORGE_ALLOCATION_HEAD + 15) & ~(size_t)15;
    seedforge_arena_block *block = seedforge_arena_blocks;
    if (!block || block->used + need > block->capacity) {
        size_t capacity = block ? block->capacity * 2 : SEEDFORGE_FIRST_BLOCK;
        if (capacity > SEEDFORGE_LARGEST_BLOCK) capacity = SEEDFORGE_LARGEST_BLOCK;
        if (capacity < need) capacity = need;
        seedforge_arena_block *fresh = malloc(SEEDFORGE_BLOCK_HEAD + capacity);
        if (!fresh) return NULL;
        fresh->next = block;
        fresh->capacity = capacity;
        fresh->used = 0;
        seedforge_arena_blocks = fresh;
        block = fresh;
    }
    char *start = seedforge_block_data(block) + block->used;
    block->used += need;
    *(size_t *)start = size;
    return start + SEEDFORGE_ALLOCATION_HEAD;
}

void *seedforge_arena_malloc(size_t size) {
    if (seedforge_arena_depth == 0) return malloc(size);
    return seedforge_arena_take(size);
}

void seedforge_arena_free(void *pointer) {
    if (!pointer || seedforge_arena_owns(pointer)) return;
    free(pointer);
}

void *seedforge_arena_realloc(void *pointer, size_t size) {
    if (!pointer) return seedforge_arena_malloc(size);
    if (!seedforge_arena_owns(pointer)) return realloc(pointer, size);
    size_t old = *(size_t *)((char *)pointer - SEEDFORGE_ALLOCATION_HEAD);
    if (size <= old) return pointer;
    /* The newest allocation of the newest block grows in place when there is room. */
    seedforge_arena_block *block = seedforge_arena_blocks;
    char *end = seedforge_block_data(block) + block->used;
    size_t oldNeed = (old + SEEDFORGE_ALLOCATION_HEAD + 15) & ~(size_t)15;
    size_t newNeed = (size + SEEDFORGE_ALLOCATION_HEAD + 15) & ~(size_t)15;
    if ((char *)pointer - SEEDFORGE_ALLOCATION_HEAD + oldNeed == end && block->used - oldNeed + newNeed <= block->capacity) {
        block->used = block->used - oldNeed + newNeed;
        *(size_t *)((char *)pointer - SEEDFORGE_ALLOCATION_HEAD) = size;
        return pointer;
    }
    void *moved = seedforge_arena_depth == 0 ? malloc(size) : seedforge_arena_take(size);
    if (!moved) return NULL;
    memcpy(moved, pointer, old);
    return moved;
}

char *seedforge_arena_strdup(const char *text) {
    if (!text) return NULL;
    size_t length = strlen(text);
    char *copy = seedforge_arena_malloc(length + 1);
    if (copy) memcpy(copy, text, length + 1);
    return copy;
}

void seedforge_arena_begin(void) { seedforge_arena_depth++; }

void seedforge_arena_end(void) {
    if (seedforge_arena_depth == 0 || --seedforge_arena_depth > 0) return;
    /* Keep the oldest block (the first, 1 MiB) for the next scope, emptied. */
    seedforge_arena_block *block = seedforge_arena_blocks;
    while (block && block->next) {
        seedforge_arena_block *next = block->next;
        free(block);
        block = next;
    }
    if (block && block->capacity > SEEDFORGE_FIRST_BLOCK * 4) {
        free(block);
        block = NULL;
    }
    if (block) block->used = 0;
    seedforge_arena_blocks = block;
}

int seedforge_arena_active(void) { return seedforge_arena_depth > 0; }
