// `struct ucred` and `SO_PEERCRED` are GNU extensions: define _GNU_SOURCE before any system header.
#if defined(__linux__)
#define _GNU_SOURCE
#include <sys/socket.h>
#include <errno.h>
#include <spawn.h>
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

int CNPSpawnActionsCloseFrom(posix_spawn_file_actions_t *actions, int lowest) {
    return posix_spawn_file_actions_addclosefrom_np(actions, lowest);
}
#endif

#if !defined(__linux__)
typedef int CNPNotLinux;  // keeps the translation unit non-empty elsewhere
#endif
