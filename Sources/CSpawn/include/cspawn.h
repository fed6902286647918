#ifndef CSPAWN_H
#define CSPAWN_H

#include <spawn.h>
#include <sys/types.h>

/// glibc's posix_spawn file actions that Swift's Glibc module does not show (they need
/// _GNU_SOURCE): close every descriptor from `from` up in the child, and change the child's
/// working directory. Both return 0 or an errno value.
int cspawn_addclosefrom(posix_spawn_file_actions_t *actions, int from);
int cspawn_addchdir(posix_spawn_file_actions_t *actions, const char *path);

/// pipe2(fds, O_CLOEXEC): a pipe neither end of which leaks into other children. 0 or -1 (errno).
int cspawn_pipe_cloexec(int fds[2]);

/// Waits until child `pid` has ended, without reaping it (waitid with WNOWAIT, retried on EINTR),
/// and reads how it ended from the kernel's record: `*signaled` is 1 when a signal ended it and
/// `*value` is the signal number or the exit status. 0, or the errno value of waitid.
int cspawn_wait_unreaped(pid_t pid, int *signaled, int *value);

#endif
