#ifndef LUPINE_FUZZ_CLIBFUZZER_H
#define LUPINE_FUZZ_CLIBFUZZER_H

#include <stddef.h>
#include <stdint.h>

/// libFuzzer's driver (compiler-rt, linked by -sanitize=fuzzer): runs the fuzzing loop with
/// `callback` as the target, reading libFuzzer's own flags from argv.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
