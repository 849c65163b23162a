#include <zlib.h>
#include "seedforge_support.h"

int seedforge_zlib_uncompress(const uint8_t *input, size_t input_length, uint8_t *output, size_t *output_length) {
    uLongf length = (uLongf)*output_length;
    int status = uncompress(output, &length, input, (uLong)input_length);
    *output_length = (size_t)length;
    return status == Z_OK ? 0 : -1;
}
