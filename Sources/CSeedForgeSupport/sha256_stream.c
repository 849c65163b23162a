/* SHA-256 over data that arrives in pieces (an output written as a stream), through
   OpenSSL's SHA256_* functions for the reason support.c gives. */
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/sha.h>
#include <stdlib.h>
#include "seedforge_support.h"

void *seedforge_sha256_begin(void) {
    SHA256_CTX *context = malloc(sizeof(SHA256_CTX));
    if (!context) return NULL;
    if (SHA256_Init(context) != 1) {
        free(context);
        return NULL;
    }
    return context;
}

int seedforge_sha256_update(void *context, const uint8_t *input, size_t length) {
    return SHA256_Update((SHA256_CTX *)context, input, length) == 1 ? 0 : -1;
}

int seedforge_sha256_end(void *context, uint8_t digest[32]) {
    int status = SHA256_Final(digest, (SHA256_CTX *)context) == 1 ? 0 : -1;
    free(context);
    return status;
}
