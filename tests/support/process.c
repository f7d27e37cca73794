#include "support/process.h"

#include <stdio.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

int run_to_file(const char *const *argv, const char *out_path) {
  pid_t pid = fork();
  if (pid == 0) {
    FILE *f = freopen(out_path, "w", stdout);
    (void)f;
    execv(argv[0], (char *const *)argv);
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}
