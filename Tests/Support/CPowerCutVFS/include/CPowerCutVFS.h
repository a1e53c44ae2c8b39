// A SQLite VFS that loses, at a "power cut", every write not yet synced: the model of SQLite's own crash tests
// (test_vfs / crashtest), simplified to its core. For the store's power-cut tests only.
//
// Each database, journal and WAL file is kept as an in-memory image shared by every connection that opens it; reads
// and writes go to the image, and only xSync copies the image to the real file (and syncs it). A cut discards every
// image and makes every later operation of the connections opened before it fail with SQLITE_IOERR, as if the
// machine had stopped; after `powercut_reboot` new connections read what reached the disk.
#ifndef C_POWER_CUT_VFS_H
#define C_POWER_CUT_VFS_H

/// Registers the VFS as the process's default, wrapping the default "unix" VFS. Returns a SQLite result code.
int powercut_register(void);

/// Cuts the power after `operations` more writes, truncations, syncs and deletions (0: never).
void powercut_arm(long operations);

/// Whether the power is cut.
int powercut_is_cut(void);

/// Ends a cut: later opens read the files as the disk has them.
void powercut_reboot(void);

/// Syncs performed since registration (a sanity figure for tests).
long powercut_sync_count(void);

#endif
