// The few Linux interfaces `NotificationPlatform` and the engine need that Glibc does not show Swift: `timerfd_*` and
// `eventfd` (their headers are not in the Glibc module), `struct ucred` (declared only under _GNU_SOURCE) and
// `sched_setattr` (a system call without a glibc wrapper before 2.41).
//
// On other systems the header is empty, so the target still builds (NotificationPlatform's macOS stubs do not
// use it).
#ifndef C_NOTIFICATION_PLATFORM_H
#define C_NOTIFICATION_PLATFORM_H

#if defined(__linux__)

#include <sys/types.h>
#include <sys/timerfd.h>
#include <sys/eventfd.h>
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

/// Asks the kernel for a time slice of `nanoseconds` for the calling thread, keeping its policy and nice value:
/// `sched_setattr` with `sched_runtime` for a thread of the normal policy (`SCHED_OTHER` or `SCHED_BATCH`), which
/// Linux 6.12 and later (EEVDF) take as the thread's requested slice, clamped to 0.1–100 ms. A shorter slice gives the
/// thread an earlier virtual deadline, so that when it wakes it preempts a thread that has been running; a longer one
/// lets a thread run longer before it is preempted. No privilege is needed.
///
/// Returns the slice the thread has afterwards in nanoseconds (`sched_getattr`'s `sched_runtime`): 0 where the kernel
/// does not report one (before 6.12, where the request changes nothing), or where the thread is not of the normal
/// policy (then nothing is asked); -1 with `errno` set when a call failed.
long long CNPSetCurrentThreadSlice(unsigned long long nanoseconds);

/// The calling thread's time slice in nanoseconds as `sched_getattr` reports it (`sched_runtime`): the slice it asked
/// for or the kernel's default (Linux 6.12 and later), 0 where the kernel reports none or the thread is not of the
/// normal policy; -1 with `errno` set when the call failed.
long long CNPCurrentThreadSlice(void);

#endif  // __linux__

#endif  // C_NOTIFICATION_PLATFORM_H
