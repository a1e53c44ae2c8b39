// `struct ucred` and `SO_PEERCRED` are GNU extensions: define _GNU_SOURCE before any system header.
#if defined(__linux__)
#define _GNU_SOURCE
#include <sys/socket.h>
#include <errno.h>
#include <spawn.h>
#include <stdint.h>
#include <string.h>
#include <sched.h>
#include <unistd.h>
#include <sys/syscall.h>
#include "CNotificationPlatform.h"

int CNPGetPeerCredentials(int socket, CNPPeerCredentials *credentials) {
    struct ucred peer;
    socklen_t length = sizeof(peer);
    if (getsockopt(socket, SOL_SOCKET, SO_PEERCRED, &peer, &length) != 0) return -1;
    if (length != sizeof(peer)) {
        errno = EINVAL;
        return -1;
    }
    credentials->pid = peer.pid;
    credentials->uid = peer.uid;
    credentials->gid = peer.gid;
    return 0;
}

/// `struct sched_attr` as the kernel defines it (<linux/sched/types.h>, which clashes with glibc's <sched.h>), up to
/// the utilization clamps (`SCHED_ATTR_SIZE_VER1`).
struct CNPSchedAttributes {
    uint32_t size;
    uint32_t policy;
    uint64_t flags;
    int32_t nice;
    uint32_t priority;
    uint64_t runtime;
    uint64_t deadline;
    uint64_t period;
    uint32_t utilizationMinimum;
    uint32_t utilizationMaximum;
};

long long CNPSetCurrentThreadSlice(unsigned long long nanoseconds) {
    struct CNPSchedAttributes attributes;
    memset(&attributes, 0, sizeof(attributes));
    attributes.size = sizeof(attributes);
    if (syscall(SYS_sched_getattr, 0, &attributes, sizeof(attributes), 0) != 0) return -1;
    if (attributes.policy != SCHED_OTHER && attributes.policy != SCHED_BATCH) return 0;
    int32_t policy = (int32_t)attributes.policy, nice = attributes.nice;
    memset(&attributes, 0, sizeof(attributes));
    attributes.size = sizeof(attributes);
    attributes.policy = (uint32_t)policy;
    attributes.nice = nice;  // unchanged: a lower value would need privilege
    attributes.runtime = nanoseconds;
    if (syscall(SYS_sched_setattr, 0, &attributes, 0) != 0) return -1;
    memset(&attributes, 0, sizeof(attributes));
    if (syscall(SYS_sched_getattr, 0, &attributes, sizeof(attributes), 0) != 0) return -1;
    return (long long)attributes.runtime;
}

long long CNPCurrentThreadSlice(void) {
    struct CNPSchedAttributes attributes;
    memset(&attributes, 0, sizeof(attributes));
    if (syscall(SYS_sched_getattr, 0, &attributes, sizeof(attributes), 0) != 0) return -1;
    if (attributes.policy != SCHED_OTHER && attributes.policy != SCHED_BATCH) return 0;
    return (long long)attributes.runtime;
}

int CNPSpawnActionsCloseFrom(posix_spawn_file_actions_t *actions, int lowest) {
    return posix_spawn_file_actions_addclosefrom_np(actions, lowest);
}
#endif

#if !defined(__linux__)
typedef int CNPNotLinux;  // keeps the translation unit non-empty elsewhere
#endif
