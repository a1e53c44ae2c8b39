// The few Linux interfaces `NotificationPlatform` needs that Glibc does not show Swift: `timerfd_*` (its header,
// <sys/timerfd.h>, is not in the Glibc module) and `struct ucred` (declared only under _GNU_SOURCE).
//
// On other systems the header is empty, so the target still builds (NotificationPlatform's macOS stubs do not
// use it).
#ifndef C_NOTIFICATION_PLATFORM_H
#define C_NOTIFICATION_PLATFORM_H

#if defined(__linux__)

#include <sys/types.h>
#include <sys/timerfd.h>
#include <spawn.h>
// malloc_trim(3), which gives freed heap pages back to the system (glibc; not in the Glibc Swift module).
#include <malloc.h>

/// The credentials the kernel recorded for the peer of a Unix-domain socket when it connected.
typedef struct {
    pid_t pid;
    uid_t uid;
    gid_t gid;
} CNPPeerCredentials;

/// Reads `SO_PEERCRED` of the connected Unix-domain socket `socket` into `credentials`.
///
/// Returns 0 on success, -1 with `errno` set otherwise.
int CNPGetPeerCredentials(int socket, CNPPeerCredentials *credentials);

/// Adds to `actions` the closing of every descriptor from `lowest` up in the child
/// (`posix_spawn_file_actions_addclosefrom_np`, glibc 2.34 and later), so that a spawned child inherits none of
/// this process's sockets and files beyond what the other actions set up.
///
/// Returns 0 on success, an error number otherwise.
int CNPSpawnActionsCloseFrom(posix_spawn_file_actions_t *actions, int lowest);

#endif  // __linux__

#endif  // C_NOTIFICATION_PLATFORM_H
