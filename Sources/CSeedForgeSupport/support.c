#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <malloc.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "seedforge_support.h"
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif

int seedforge_sync_filesystem(const char *path) {
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return -1;
    int status = syncfs(fd);
    int saved = errno;
    close(fd);
    errno = saved;
    return status;
}

/* Line starts of a 67 MB CSV (1M lines) took 33 ms with a memchr a line, on one thread
   while the parse waited for them: 16 bytes compared at a time, a bit per match, instead. */
#if defined(__SSE2__)
static inline unsigned matches16(const unsigned char *bytes, __m128i needle) {
    return (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)bytes), needle));
}
#endif

long long seedforge_count_byte(const unsigned char *bytes, long long count, unsigned char byte) {
    long long total = 0, i = 0;
#if defined(__SSE2__)
    __m128i needle = _mm_set1_epi8((char)byte);
    for (; i + 16 <= count; i += 16) total += __builtin_popcount(matches16(bytes + i, needle));
#endif
    for (; i < count; i++) total += bytes[i] == byte;
    return total;
}

long long seedforge_byte_ends(
    const unsigned char *bytes, long long count, unsigned char byte, long long base, long long *out) {
    long long written = 0, i = 0;
#if defined(__SSE2__)
    __m128i needle = _mm_set1_epi8((char)byte);
    for (; i + 16 <= count; i += 16) {
        unsigned mask = matches16(bytes + i, needle);
        while (mask) {
            out[written++] = base + i + __builtin_ctz(mask) + 1;
            mask &= mask - 1;
        }
    }
#endif
    for (; i < count; i++) if (bytes[i] == byte) out[written++] = base + i + 1;
    return written;
}

void seedforge_start_writeback(int fd, long long offset, long long length) {
    int saved = errno;
    (void)sync_file_range(fd, (off64_t)offset, (off64_t)length, SYNC_FILE_RANGE_WRITE);
    errno = saved;
}

void seedforge_punch_hole(int fd, long long offset, long long length) {
    int saved = errno;
    (void)fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)offset, (off_t)length);
    errno = saved;
}

int seedforge_exchange_paths(const char *first, const char *second) {
#ifdef SYS_renameat2
    return (int)syscall(SYS_renameat2, AT_FDCWD, first, AT_FDCWD, second, RENAME_EXCHANGE);
#else
    errno = ENOSYS;
    return -1;
#endif
}

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

int seedforge_gunzip(const uint8_t *input, size_t input_length, size_t max_output, uint8_t **output, size_t *output_length,
                     char *error, size_t error_size) {
    z_stream stream;
    memset(&stream, 0, sizeof stream);
    if (inflateInit2(&stream, 16 + MAX_WBITS) != Z_OK) {
        snprintf(error, error_size, "cannot start gzip decompression");
        return -1;
    }
    /* Room for one byte past the limit: inflating it proves the output is too large. */
    size_t ceiling = max_output < SIZE_MAX ? max_output + 1 : SIZE_MAX;
    size_t capacity = input_length < (SIZE_MAX - 1024) / 4 ? input_length * 4 + 1024 : SIZE_MAX;
    if (capacity > ceiling) capacity = ceiling;
    uint8_t *buffer = malloc(capacity);
    if (!buffer) { inflateEnd(&stream); snprintf(error, error_size, "out of memory"); return -1; }
    size_t length = 0;
    stream.next_in = (Bytef *)input;
    for (;;) {
        if (length == capacity) {
            if (capacity == ceiling) {
                snprintf(error, error_size, "decompressed size exceeds %zu bytes", max_output);
                free(buffer);
                inflateEnd(&stream);
                *output_length = length;
                return -2;
            }
            capacity = capacity <= ceiling / 2 ? capacity * 2 : ceiling;
            uint8_t *grown = realloc(buffer, capacity);
            if (!grown) { free(buffer); inflateEnd(&stream); snprintf(error, error_size, "out of memory"); return -1; }
            buffer = grown;
        }
        size_t remaining_in = input_length - (size_t)((const uint8_t *)stream.next_in - input);
        stream.avail_in = remaining_in > UINT32_MAX ? UINT32_MAX : (uInt)remaining_in;
        size_t room = capacity - length;
        stream.next_out = buffer + length;
        stream.avail_out = room > UINT32_MAX ? UINT32_MAX : (uInt)room;
        uInt before = stream.avail_out;
        int status = inflate(&stream, Z_NO_FLUSH);
        length += before - stream.avail_out;
        if (status == Z_STREAM_END) {
            size_t consumed = (size_t)((const uint8_t *)stream.next_in - input);
            /* Zero bytes after the last member are padding (gzip -d accepts them too). */
            size_t rest = consumed;
            while (rest < input_length && input[rest] == 0) rest++;
            if (rest == input_length) consumed = input_length;
            if (consumed < input_length) {
                /* Another gzip member follows (concatenated .gz files). */
                if (inflateReset(&stream) != Z_OK) break;
                continue;
            }
            inflateEnd(&stream);
            if (length > max_output) {
                snprintf(error, error_size, "decompressed size exceeds %zu bytes", max_output);
                free(buffer);
                *output_length = length;
                return -2;
            }
            *output = buffer;
            *output_length = length;
            return 0;
        }
        if (status != Z_OK && status != Z_BUF_ERROR) {
            snprintf(error, error_size, "corrupt gzip data (%s) after %zu compressed bytes", stream.msg ? stream.msg : "unknown error",
                     (size_t)((const uint8_t *)stream.next_in - input));
            free(buffer);
            inflateEnd(&stream);
            return -1;
        }
        if (status == Z_BUF_ERROR && stream.avail_in == 0 && stream.avail_out != 0) {
            snprintf(error, error_size, "truncated gzip file: the compressed data ends early");
            free(buffer);
            inflateEnd(&stream);
            return -1;
        }
    }
    free(buffer);
    inflateEnd(&stream);
    snprintf(error, error_size, "corrupt gzip data");
    return -1;
}

/* SHA-256 through OpenSSL's own SHA256_* functions, not EVP: the first EVP digest sets up
   OpenSSL 3's library context and default provider, which brought 2.2 MiB of libcrypto
   into every run's resident memory for one hash (0.2 MiB this way, measured in a C test);
   both run the same processor-specific block function, at the same speed (94 MB in about
   0.21 s either way). The functions are deprecated in OpenSSL 3, not removed. */
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/sha.h>

int seedforge_sha256(const uint8_t *input, size_t length, uint8_t digest[32]) {
    SHA256_CTX context;
    if (SHA256_Init(&context) != 1 || SHA256_Update(&context, input, length) != 1) return -1;
    return SHA256_Final(digest, &context) == 1 ? 0 : -1;
}

void seedforge_return_free_memory(void) {
    malloc_trim(0);
}

/* The GNU build ID of the main executable, read from its loaded note segments: the linker
   writes a hash of the whole linked file there, so it names a build as a hash of the file
   would, without reading the file (107 MB statically linked: 0.12 s of a shard's start). */
#include <elf.h>
#include <link.h>
#include <string.h>

struct build_id_search {
    unsigned char *out;
    int capacity;
    int length;
};

static int find_build_id(struct dl_phdr_info *info, size_t size, void *context) {
    (void)size;
    struct build_id_search *search = context;
    for (int index = 0; index < info->dlpi_phnum; index++) {
        const ElfW(Phdr) *header = &info->dlpi_phdr[index];
        if (header->p_type != PT_NOTE) continue;
        const unsigned char *note = (const unsigned char *)(info->dlpi_addr + header->p_vaddr);
        const unsigned char *end = note + header->p_memsz;
        while (note + sizeof(ElfW(Nhdr)) <= end) {
            const ElfW(Nhdr) *entry = (const ElfW(Nhdr) *)note;
            const unsigned char *name = note + sizeof(ElfW(Nhdr));
            const unsigned char *descriptor = name + ((entry->n_namesz + 3) & ~3u);
            const unsigned char *next = descriptor + ((entry->n_descsz + 3) & ~3u);
            if (next > end) break;
            if (entry->n_type == NT_GNU_BUILD_ID && entry->n_namesz == 4 && memcmp(name, "GNU", 4) == 0) {
                int length = (int)entry->n_descsz < search->capacity ? (int)entry->n_descsz : search->capacity;
                memcpy(search->out, descriptor, (size_t)length);
                search->length = length;
                return 1;
            }
            note = next;
        }
    }
    /* The first object the loader lists is the executable itself: look no further. */
    return 1;
}

int seedforge_build_id(unsigned char *out, int capacity) {
    struct build_id_search search = {out, capacity, 0};
    dl_iterate_phdr(find_build_id, &search);
    return search.length;
}
