#ifndef SEEDFORGE_SUPPORT_H
#define SEEDFORGE_SUPPORT_H

#include <stddef.h>
#include <stdint.h>

/// Atomically exchanges two paths (Linux renameat2 with RENAME_EXCHANGE).
/// Returns 0 on success, -1 with errno set otherwise (EINVAL or ENOSYS where the
/// file system or kernel cannot exchange).
int seedforge_exchange_paths(const char *first, const char *second);

/// Flushes every file of the file system holding `path` to disk (Linux syncfs), one call
/// instead of an fsync per file. Returns 0, or -1 with errno set.
int seedforge_sync_filesystem(const char *path);

/// How many of the `count` bytes at `bytes` equal `byte` (a file's line count).
long long seedforge_count_byte(const unsigned char *bytes, long long count, unsigned char byte);

/// Writes `base + i + 1` to `out` for each `i` where `bytes[i] == byte`, in order, and returns
/// how many it wrote; `out` has room for `seedforge_count_byte` of the same bytes.
long long seedforge_byte_ends(
    const unsigned char *bytes, long long count, unsigned char byte, long long base, long long *out);

/// Frees the file blocks and page-cache pages under `length` bytes of `fd` from `offset`
/// (Linux fallocate with FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE): those bytes read back
/// as zeros afterwards. Only whole pages are freed (the caller rounds the range). A hint: an
/// error (a file system that cannot punch holes) is ignored.
void seedforge_punch_hole(int fd, long long offset, long long length);

/// Starts writing `length` bytes of `fd` from `offset` to disk without waiting for them
/// (Linux sync_file_range with SYNC_FILE_RANGE_WRITE), so that the one flush at the end of
/// a run finds them written. A hint: an error is ignored (the final flush reports it).
void seedforge_start_writeback(int fd, long long offset, long long length);

/// Removes a folder and everything in it (like rm -rf, without following symbolic links),
/// unlinking the files of each folder from up to `threads` threads. A path that does not
/// exist is not an error. Returns 0, or -1 with errno set.
int seedforge_remove_tree(const char *path, int threads);

/// SHA-256 of data given in pieces: begin returns a context (NULL if OpenSSL fails),
/// update adds bytes (0 or -1), end writes the 32-byte digest and frees the context
/// (0 or -1).
void *seedforge_sha256_begin(void);
int seedforge_sha256_update(void *context, const uint8_t *input, size_t length);
int seedforge_sha256_end(void *context, uint8_t digest[32]);

/// Decompresses a gzip stream (one or more members) of at most max_output bytes. On
/// success returns 0 and sets *output (malloc'd; free with free()) and *output_length. On
/// failure returns -1 and writes a message into error (error_size bytes). When the output
/// would exceed max_output, stops there and returns -2 with *output_length set to the bytes
/// inflated (max_output + 1): it never allocates more than max_output + 1 bytes of output.
int seedforge_gunzip(const uint8_t *input, size_t input_length, size_t max_output, uint8_t **output, size_t *output_length,
                     char *error, size_t error_size);

/// SHA-256 of a buffer (OpenSSL, using the CPU's SHA instructions where present).
/// Writes 32 bytes to digest; returns 0, or -1 if OpenSSL fails.
int seedforge_sha256(const uint8_t *input, size_t length, uint8_t digest[32]);

/// Decompresses a zlib stream (RFC 1950, as in PNG image data) into output, whose size
/// is *output_length on entry; on success returns 0 with *output_length set to the bytes
/// written, otherwise -1 (damaged data, or output too small).
int seedforge_zlib_uncompress(const uint8_t *input, size_t input_length, uint8_t *output, size_t *output_length);

/// A per-thread bump allocator for libxml2 (xml_arena.c), installed with xmlMemSetup:
/// between begin and end, this thread's libxml2 allocations come from its arena, frees do
/// nothing, and end releases them all at once (scopes nest); elsewhere, and for memory the
/// arena did not give, these are malloc, free, realloc and strdup.
void *seedforge_arena_malloc(size_t size);
void seedforge_arena_free(void *pointer);
void *seedforge_arena_realloc(void *pointer, size_t size);
char *seedforge_arena_strdup(const char *text);
void seedforge_arena_begin(void);
void seedforge_arena_end(void);
/// Whether a scope is open on this thread.
int seedforge_arena_active(void);

/// Copies the GNU build ID of the running executable (the linker's hash of the linked
/// file, in its `.note.gnu.build-id`) into `out`, at most `capacity` bytes; returns how
/// many (0: the executable has none).
int seedforge_build_id(unsigned char *out, int capacity);

/// Gives the heap memory free()d so far back to the system (glibc malloc_trim(0)): after
/// a phase that freed many small allocations, so the run's resident memory falls with it.
void seedforge_return_free_memory(void);

/// Asks the processor to bring the 64-byte lines holding bytes address ..< address + length
/// into its caches ahead of a read. Only a hint: it never faults, whatever the address.
static inline void seedforge_prefetch(const void *address, size_t length) {
    for (size_t offset = 0; offset < length; offset += 64) __builtin_prefetch((const char *)address + offset);
}

#endif
