#ifndef SEEDFORGE_FUZZ_DRIVER_H
#define SEEDFORGE_FUZZ_DRIVER_H

#include <stddef.h>
#include <stdint.h>

/// libFuzzer's driver (linked in by `-sanitize=fuzzer`): parses libFuzzer's flags from
/// argv and calls `callback` with each input. Only referenced in builds with FUZZING set.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
