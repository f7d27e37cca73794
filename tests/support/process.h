/* process.h - running a built program from a test and reading what it printed. */
#ifndef TRESS_TEST_PROCESS_H
#define TRESS_TEST_PROCESS_H

/* Runs argv (argv[0] a path, NULL-terminated) with its stdout written to out_path; returns its
 * exit status, 127 when it could not be executed, 128 when it did not exit normally. */
int run_to_file(const char *const *argv, const char *out_path);

#endif
