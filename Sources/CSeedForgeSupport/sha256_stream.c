#include <openssl/evp.h>
#include "seedforge_support.h"

/* SHA-256 over data that arrives in pieces (an output written as a stream). */

void *seedforge_sha256_begin(void) {
    EVP_MD_CTX *context = EVP_MD_CTX_new();
    if (!context) return NULL;
    if (EVP_DigestInit_ex(context, EVP_sha256(), NULL) != 1) {
        EVP_MD_CTX_free(context);
        return NULL;
    }
    return context;
}

int seedforge_sha256_update(void *context, const uint8_t *input, size_t length) {
    return EVP_DigestUpdate((EVP_MD_CTX *)context, input, length) == 1 ? 0 : -1;
}

int seedforge_sha256_end(void *context, uint8_t digest[32]) {
    unsigned int size = 0;
    int status = EVP_DigestFinal_ex((EVP_MD_CTX *)context, digest, &size) == 1 && size == 32 ? 0 : -1;
    EVP_MD_CTX_free((EVP_MD_CTX *)context);
    return status;
}
