/* limited_run: runs one command under a wall-time and address-space limit and reports how it ended
 * and its peak memory, for tests/robustness/run_cases.py.
 *
 *   limited_run SECONDS MEM_BYTES STDIN_FILE OUT_FILE -- COMMAND ARGS...
 *
 * stdin comes from STDIN_FILE, stdout and stderr go to OUT_FILE. Prints one line:
 *   exit=<code or -signal> timeout=<0|1> seconds=<wall> maxrss_kb=<peak resident set of COMMAND>
 * A small C program rather than Python's fork: Linux carries a process's peak RSS over fork and exec,
 * so a child forked from the Python runner would report the runner's own memory as its peak. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char** argv) {
  if (argc < 7 || strcmp(argv[5], "--") != 0) {
    fprintf(stderr, "usage: limited_run SECONDS MEM_BYTES STDIN_FILE OUT_FILE -- COMMAND ARGS...\n");
    return 2;
  }
  const double limit_s = atof(argv[1]);
  const rlim_t mem = (rlim_t)strtoull(argv[2], NULL, 10);
  const double t0 = now();
  pid_t pid = fork();
  if (pid < 0) {
    perror("fork");
    return 2;
  }
  if (pid == 0) {
    struct rlimit as = {mem, mem}, core = {0, 0};
    setrlimit(RLIMIT_AS, &as);
    setrlimit(RLIMIT_CORE, &core);
    int in = open(argv[3], O_RDONLY);
    int out = open(argv[4], O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (in < 0 || out < 0) _exit(126);
    dup2(in, 0);
    dup2(out, 1);
    dup2(out, 2);
    execv(argv[6], argv + 6);
    _exit(127);
  }
  int status = 0, timed_out = 0;
  struct rusage ru;
  memset(&ru, 0, sizeof ru);
  for (;;) {
    pid_t w = wait4(pid, &status, WNOHANG, &ru);
    if (w == pid) break;
    if (w < 0 && errno != EINTR) {
      perror("wait4");
      return 2;
    }
    if (now() - t0 > limit_s) {
      kill(pid, SIGKILL);
      wait4(pid, &status, 0, &ru);
      timed_out = 1;
      break;
    }
    usleep(5000);
  }
  int code = WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
  printf("exit=%d timeout=%d seconds=%.3f maxrss_kb=%ld\n", code, timed_out, now() - t0, ru.ru_maxrss);
  return 0;
}
