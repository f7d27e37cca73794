/* rig_tool.h - a test's fixture for running the built tress-rig: its path and a temp dir under
 * the build tree (made by rig_tool_setup, removed by rig_tool_teardown), and rig_tool_run, which
 * runs it with arguments and captures what it printed. Header-only: one fixture per test file. */
#ifndef TRESS_TEST_RIG_TOOL_H
#define TRESS_TEST_RIG_TOOL_H

#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>

typedef struct rig_tool {
  char tool[1024];
  char tmp_dir[1024];
} rig_tool;

/* 0 when TRESS_BINARY_DIR names the build tree and the temp dir (prefix-XXXXXX) was made. */
static inline int rig_tool_setup(rig_tool *t, const char *prefix) {
  const char *bin = getenv("TRESS_BINARY_DIR");
  if (!bin) return -1;
  snprintf(t->tool, sizeof t->tool, "%s/shared/tress-rig", bin);
  snprintf(t->tmp_dir, sizeof t->tmp_dir, "%s/%s-XXXXXX", bin, prefix);
  return mkdtemp(t->tmp_dir) ? 0 : -1;
}

static inline int rig_tool_teardown(const rig_tool *t) {
  char cmd[1100];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", t->tmp_dir);
  return system(cmd) == 0 ? 0 : -1;
}

/* Runs tress-rig with args (shell words), stdout and stderr into out; its exit status, or -1
 * when it could not be started or did not exit normally. */
static inline int rig_tool_run(const rig_tool *t, const char *args, char *out, size_t cap) {
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "'%s' %s 2>&1", t->tool, args);
  FILE *p = popen(cmd, "r");
  if (!p) return -1;
  size_t n = fread(out, 1, cap - 1, p);
  out[n] = 0;
  int st = pclose(p);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

#endif
