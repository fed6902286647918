// Compiled with _GNU_SOURCE (Package.swift), which declares the glibc extensions used here.
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>
#include "cspawn.h"

int cspawn_addclosefrom(posix_spawn_file_actions_t *actions, int from) {
    return posix_spawn_file_actions_addclosefrom_np(actions, from);
}

int cspawn_addchdir(posix_spawn_file_actions_t *actions, const char *path) {
    return posix_spawn_file_actions_addchdir_np(actions, path);
}

int cspawn_pipe_cloexec(int fds[2]) {
    return pipe2(fds, O_CLOEXEC);
}

int cspawn_wait_unreaped(pid_t pid, int *signaled, int *value) {
    siginfo_t info = {0};
    while (waitid(P_PID, (id_t)pid, &info, WEXITED | WNOWAIT) != 0) {
        if (errno != EINTR) return errno;
    }
    *signaled = info.si_code == CLD_EXITED ? 0 : 1;
    *value = info.si_status;
    return 0;
}
