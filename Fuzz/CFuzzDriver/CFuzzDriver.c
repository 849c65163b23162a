// Declarations only (include/CFuzzDriver.h): libFuzzer itself comes with -sanitize=fuzzer.
#include "CFuzzDriver.h"
