// See include/CPowerCutVFS.h.
#include "CPowerCutVFS.h"

#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// A file's in-memory image, shared by every handle on the same path.
typedef struct Image {
    char *path;
    unsigned char *bytes;
    sqlite3_int64 size;
    sqlite3_int64 capacity;
    sqlite3_int64 dirty_low, dirty_high;  // the bytes written since the last sync, [low, high)
    int references;
    struct Image *next;
} Image;

typedef struct {
    sqlite3_file base;      // must come first: SQLite's view of the file
    sqlite3_file *real;     // the unix VFS's file
    Image *image;
    long generation;        // the power cycle the handle was opened in
} PowerCutFile;

static sqlite3_vfs *unix_vfs;
static sqlite3_vfs vfs;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static Image *images;
static long generation = 1;
static int cut = 0;
static long countdown = 0;
static long syncs = 0;

/// Whether the handle lives in a power cycle that ended (or the power is cut now). Call with the lock held.
static int dead(PowerCutFile *file) { return cut || file->generation != generation; }

/// Counts an operation that changes durable state, cutting the power when the countdown reaches zero. Returns
/// whether the power is (now) cut. Call with the lock held.
static int spend(void) {
    if (cut) return 1;
    if (countdown > 0 && --countdown == 0) {
        cut = 1;
        return 1;
    }
    return 0;
}

static int reserve(Image *image, sqlite3_int64 size) {
    if (size <= image->capacity) return SQLITE_OK;
    sqlite3_int64 capacity = image->capacity ? image->capacity : 65536;
    while (capacity < size) capacity *= 2;
    unsigned char *bytes = realloc(image->bytes, (size_t)capacity);
    if (!bytes) return SQLITE_NOMEM;
    memset(bytes + image->capacity, 0, (size_t)(capacity - image->capacity));
    image->bytes = bytes;
    image->capacity = capacity;
    return SQLITE_OK;
}

static int pc_close(sqlite3_file *handle) {
    PowerCutFile *file = (PowerCutFile *)handle;
    int rc = file->real->pMethods ? file->real->pMethods->xClose(file->real) : SQLITE_OK;
    pthread_mutex_lock(&lock);
    if (file->image) file->image->references -= 1;
    pthread_mutex_unlock(&lock);
    sqlite3_free(file->real);
    return rc;
}

static int pc_read(sqlite3_file *handle, void *buffer, int amount, sqlite3_int64 offset) {
    PowerCutFile *file = (PowerCutFile *)handle;
    pthread_mutex_lock(&lock);
    if (dead(file)) {
        pthread_mutex_unlock(&lock);
        return SQLITE_IOERR_READ;
    }
    Image *image = file->image;
    sqlite3_int64 available = image->size > offset ? image->size - offset : 0;
    sqlite3_int64 copied = available < amount ? available : amount;
    if (copied > 0) memcpy(buffer, image->bytes + offset, (size_t)copied);
    if (copied < amount) memset((char *)buffer + copied, 0, (size_t)(amount - copied));
    pthread_mutex_unlock(&lock);
    return copied < amount ? SQLITE_IOERR_SHORT_READ : SQLITE_OK;
}

static int pc_write(sqlite3_file *handle, const void *buffer, int amount, sqlite3_int64 offset) {
    PowerCutFile *file = (PowerCutFile *)handle;
    pthread_mutex_lock(&lock);
    if (dead(file) || spend()) {
        pthread_mutex_unlock(&lock);
        return SQLITE_IOERR_WRITE;
    }
    Image *image = file->image;
    int rc = reserve(image, offset + amount);
    if (rc == SQLITE_OK) {
        memcpy(image->bytes + offset, buffer, (size_t)amount);
        if (offset + amount > image->size) image->size = offset + amount;
        if (image->dirty_high == image->dirty_low) {
            image->dirty_low = offset;
            image->dirty_high = offset + amount;
        } else {
            if (offset < image->dirty_low) image->dirty_low = offset;
            if (offset + amount > image->dirty_high) image->dirty_high = offset + amount;
        }
    }
    pthread_mutex_unlock(&lock);
    return rc;
}

static int pc_truncate(sqlite3_file *handle, sqlite3_int64 size) {
    PowerCutFile *file = (PowerCutFile *)handle;
    pthread_mutex_lock(&lock);
    if (dead(file) || spend()) {
        pthread_mutex_unlock(&lock);
        return SQLITE_IOERR_TRUNCATE;
    }
    if (size < file->image->size) {
        memset(file->image->bytes + size, 0, (size_t)(file->image->size - size));
        file->image->size = size;
    }
    pthread_mutex_unlock(&lock);
    return SQLITE_OK;
}

/// Makes the real file equal to the image and syncs it: what was written becomes durable.
static int pc_sync(sqlite3_file *handle, int flags) {
    PowerCutFile *file = (PowerCutFile *)handle;
    pthread_mutex_lock(&lock);
    if (dead(file) || spend()) {
        pthread_mutex_unlock(&lock);
        return SQLITE_IOERR_FSYNC;
    }
    Image *image = file->image;
    // Only what changed since the last sync is written: the rest of the real file already equals the image.
    int rc = file->real->pMethods->xTruncate(file->real, image->size);
    sqlite3_int64 high = image->dirty_high < image->size ? image->dirty_high : image->size;
    for (sqlite3_int64 offset = image->dirty_low; rc == SQLITE_OK && offset < high; offset += 65536) {
        sqlite3_int64 left = high - offset;
        rc = file->real->pMethods->xWrite(file->real, image->bytes + offset, (int)(left < 65536 ? left : 65536), offset);
    }
    if (rc == SQLITE_OK) image->dirty_low = image->dirty_high = 0;
    if (rc == SQLITE_OK) rc = file->real->pMethods->xSync(file->real, flags);
    if (rc == SQLITE_OK) syncs += 1;
    if (getenv("PC_DEBUG")) fprintf(stderr, "sync %s size %lld rc %d\n", image->path, (long long)image->size, rc);
    pthread_mutex_unlock(&lock);
    return rc;
}

static int pc_file_size(sqlite3_file *handle, sqlite3_int64 *size) {
    PowerCutFile *file = (PowerCutFile *)handle;
    pthread_mutex_lock(&lock);
    int alive = !dead(file);
    *size = alive ? file->image->size : 0;
    pthread_mutex_unlock(&lock);
    return alive ? SQLITE_OK : SQLITE_IOERR_FSTAT;
}

// Locks, shared memory and the rest act on the real file: they are no data.
static int pc_lock(sqlite3_file *f, int level) {
    PowerCutFile *file = (PowerCutFile *)f;
    return file->real->pMethods->xLock(file->real, level);
}
static int pc_unlock(sqlite3_file *f, int level) {
    PowerCutFile *file = (PowerCutFile *)f;
    return file->real->pMethods->xUnlock(file->real, level);
}
static int pc_check_reserved(sqlite3_file *f, int *out) {
    PowerCutFile *file = (PowerCutFile *)f;
    return file->real->pMethods->xCheckReservedLock(file->real, out);
}
static int pc_file_control(sqlite3_file *f, int op, void *arg) {
    PowerCutFile *file = (PowerCutFile *)f;
    // A size hint would grow the real file behind the image's back; the rest is the real file's business.
    if (op == SQLITE_FCNTL_SIZE_HINT || op == SQLITE_FCNTL_CHUNK_SIZE) return SQLITE_OK;
    if (op == SQLITE_FCNTL_MMAP_SIZE) {
        *(sqlite3_int64 *)arg = 0;  // no memory-mapped reads: they would bypass the image
        return SQLITE_OK;
    }
    return file->real->pMethods->xFileControl(file->real, op, arg);
}
static int pc_sector_size(sqlite3_file *f) {
    PowerCutFile *file = (PowerCutFile *)f;
    return file->real->pMethods->xSectorSize(file->real);
}
static int pc_device_characteristics(sqlite3_file *f) {
    (void)f;
    return 0;  // no guarantees: SQLite then takes every precaution, as on a plain disk
}
static int pc_shm_map(sqlite3_file *f, int region, int size, int extend, void volatile **out) {
    PowerCutFile *file = (PowerCutFile *)f;
    return file->real->pMethods->xShmMap(file->real, region, size, extend, out);
}
static int pc_shm_lock(sqlite3_file *f, int offset, int n, int flags) {
    PowerCutFile *file = (PowerCutFile *)f;
    return file->real->pMethods->xShmLock(file->real, offset, n, flags);
}
static void pc_shm_barrier(sqlite3_file *f) {
    PowerCutFile *file = (PowerCutFile *)f;
    file->real->pMethods->xShmBarrier(file->real);
}
static int pc_shm_unmap(sqlite3_file *f, int delete) {
    PowerCutFile *file = (PowerCutFile *)f;
    return file->real->pMethods->xShmUnmap(file->real, delete);
}

static const sqlite3_io_methods methods = {
    2, pc_close, pc_read, pc_write, pc_truncate, pc_sync, pc_file_size, pc_lock, pc_unlock, pc_check_reserved,
    pc_file_control, pc_sector_size, pc_device_characteristics, pc_shm_map, pc_shm_lock, pc_shm_barrier, pc_shm_unmap,
    0, 0,
};

/// The image of `path`, loaded from the real file when this power cycle has none yet. Call with the lock held.
static Image *image_for(const char *path, sqlite3_file *real) {
    for (Image *image = images; image; image = image->next) {
        if (strcmp(image->path, path) == 0) return image;
    }
    Image *image = calloc(1, sizeof(Image));
    if (!image) return NULL;
    image->path = strdup(path);
    sqlite3_int64 size = 0;
    if (real->pMethods->xFileSize(real, &size) == SQLITE_OK && size > 0 && reserve(image, size) == SQLITE_OK) {
        if (real->pMethods->xRead(real, image->bytes, (int)size, 0) == SQLITE_OK) image->size = size;
    }
    image->next = images;
    images = image;
    return image;
}

static int pc_open(sqlite3_vfs *self, const char *name, sqlite3_file *handle, int flags, int *out_flags) {
    (void)self;
    PowerCutFile *file = (PowerCutFile *)handle;
    memset(file, 0, sizeof(*file));
    pthread_mutex_lock(&lock);
    int is_cut = cut;
    pthread_mutex_unlock(&lock);
    if (is_cut) return SQLITE_CANTOPEN;
    file->real = sqlite3_malloc(unix_vfs->szOsFile);
    if (!file->real) return SQLITE_NOMEM;
    memset(file->real, 0, (size_t)unix_vfs->szOsFile);
    int rc = unix_vfs->xOpen(unix_vfs, name, file->real, flags, out_flags);
    if (rc != SQLITE_OK) {
        sqlite3_free(file->real);
        file->real = NULL;
        return rc;
    }
    pthread_mutex_lock(&lock);
    // Files without a name (temporary ones) get an image of their own.
    char anonymous[64];
    if (!name) snprintf(anonymous, sizeof anonymous, "temp:%p", (void *)file);
    file->image = image_for(name ? name : anonymous, file->real);
    if (file->image) file->image->references += 1;
    file->generation = generation;
    if (getenv("PC_DEBUG")) fprintf(stderr, "open %s size %lld gen %ld\n", name ? name : "-", (long long)file->image->size, generation);
    pthread_mutex_unlock(&lock);
    if (!file->image) {
        file->real->pMethods->xClose(file->real);
        sqlite3_free(file->real);
        return SQLITE_NOMEM;
    }
    handle->pMethods = &methods;
    return SQLITE_OK;
}

static int pc_delete(sqlite3_vfs *self, const char *name, int sync_directory) {
    (void)self;
    if (getenv("PC_DEBUG")) fprintf(stderr, "delete %s cut %d\n", name, cut);
    pthread_mutex_lock(&lock);
    if (spend()) {
        pthread_mutex_unlock(&lock);
        return SQLITE_IOERR_DELETE;
    }
    for (Image *image = images; image; image = image->next) {
        if (strcmp(image->path, name) == 0) image->size = 0;
    }
    pthread_mutex_unlock(&lock);
    return unix_vfs->xDelete(unix_vfs, name, sync_directory);
}

static int pc_access(sqlite3_vfs *self, const char *name, int flags, int *out) {
    (void)self;
    pthread_mutex_lock(&lock);
    for (Image *image = images; image; image = image->next) {
        if (strcmp(image->path, name) == 0 && image->size > 0 && flags == SQLITE_ACCESS_EXISTS) {
            *out = 1;
            pthread_mutex_unlock(&lock);
            return SQLITE_OK;
        }
    }
    pthread_mutex_unlock(&lock);
    return unix_vfs->xAccess(unix_vfs, name, flags, out);
}

static int pc_full_pathname(sqlite3_vfs *self, const char *name, int size, char *out) {
    (void)self;
    return unix_vfs->xFullPathname(unix_vfs, name, size, out);
}

int powercut_register(void) {
    unix_vfs = sqlite3_vfs_find("unix");
    if (!unix_vfs) return SQLITE_ERROR;
    vfs = *unix_vfs;
    vfs.zName = "powercut";
    vfs.szOsFile = (int)sizeof(PowerCutFile);
    vfs.xOpen = pc_open;
    vfs.xDelete = pc_delete;
    vfs.xAccess = pc_access;
    vfs.xFullPathname = pc_full_pathname;
    vfs.pNext = NULL;
    return sqlite3_vfs_register(&vfs, 1);
}

void powercut_arm(long operations) {
    pthread_mutex_lock(&lock);
    countdown = operations;
    pthread_mutex_unlock(&lock);
}

int powercut_is_cut(void) {
    pthread_mutex_lock(&lock);
    int value = cut;
    pthread_mutex_unlock(&lock);
    return value;
}

void powercut_reboot(void) {
    pthread_mutex_lock(&lock);
    // Images of files still open in the old cycle are dropped (their handles are dead); leaked, not freed, since a
    // dead handle may still point at one until SQLite closes it.
    images = NULL;
    generation += 1;
    cut = 0;
    countdown = 0;
    pthread_mutex_unlock(&lock);
}

long powercut_sync_count(void) {
    pthread_mutex_lock(&lock);
    long value = syncs;
    pthread_mutex_unlock(&lock);
    return value;
}
