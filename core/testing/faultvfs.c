/* faultvfs.c — test-only SQLite fault injection; see faultvfs.h. */
#include "core/testing/faultvfs.h"

#include <stdio.h>
#include <string.h>

const char *ts_fault_op_name(ts_fault_op op) {
    switch (op) {
    case TS_FAULT_WRITE: return "xWrite";
    case TS_FAULT_SYNC: return "xSync";
    case TS_FAULT_TRUNCATE: return "xTruncate";
    case TS_FAULT_DELETE: return "xDelete";
    }
    return "?";
}

/* Counts one write-side call; true when it must fail with an I/O error (after running the
 * callback, when that is how the fault is armed, the call goes ahead). */
static bool fault_now(ts_fault_vfs *fault, ts_fault_op op) {
    uint64_t call = ++fault->calls;
    if (!fault->fault_at || call < fault->fault_at || (call > fault->fault_at && !fault->persistent)) return false;
    fault->faults++;
    if (fault->callback) {
        fault->callback(fault->callback_context, call, op);
        return false;
    }
    return true;
}

/* ---------------------------------------------------------------- files -------------------- */

/* Our file object; the real VFS's file object follows it in the same allocation. */
typedef struct fault_file {
    sqlite3_file base;
    ts_fault_vfs *owner;
    sqlite3_file *real;
} fault_file;

static sqlite3_file *real_of(sqlite3_file *file) { return ((fault_file *)file)->real; }

static int file_close(sqlite3_file *file) {
    sqlite3_file *real = real_of(file);
    return real->pMethods ? real->pMethods->xClose(real) : SQLITE_OK;
}

static int file_read(sqlite3_file *file, void *buf, int amount, sqlite3_int64 offset) {
    sqlite3_file *real = real_of(file);
    return real->pMethods->xRead(real, buf, amount, offset);
}

static int file_write(sqlite3_file *file, const void *buf, int amount, sqlite3_int64 offset) {
    if (fault_now(((fault_file *)file)->owner, TS_FAULT_WRITE)) return SQLITE_IOERR_WRITE;
    sqlite3_file *real = real_of(file);
    return real->pMethods->xWrite(real, buf, amount, offset);
}

static int file_truncate(sqlite3_file *file, sqlite3_int64 size) {
    if (fault_now(((fault_file *)file)->owner, TS_FAULT_TRUNCATE)) return SQLITE_IOERR_TRUNCATE;
    sqlite3_file *real = real_of(file);
    return real->pMethods->xTruncate(real, size);
}

static int file_sync(sqlite3_file *file, int flags) {
    if (fault_now(((fault_file *)file)->owner, TS_FAULT_SYNC)) return SQLITE_IOERR_FSYNC;
    sqlite3_file *real = real_of(file);
    return real->pMethods->xSync(real, flags);
}

static int file_size(sqlite3_file *file, sqlite3_int64 *size) {
    sqlite3_file *real = real_of(file);
    return real->pMethods->xFileSize(real, size);
}

static int file_lock(sqlite3_file *file, int level) {
    sqlite3_file *real = real_of(file);
    return real->pMethods->xLock(real, level);
}

static int file_unlock(sqlite3_file *file, int level) {
    sqlite3_file *real = real_of(file);
    return real->pMethods->xUnlock(real, level);
}

static int file_check_reserved_lock(sqlite3_file *file, int *out) {
    sqlite3_file *real = real_of(file);
    return real->pMethods->xCheckReservedLock(real, out);
}

static int file_control(sqlite3_file *file, int op, void *arg) {
    sqlite3_file *real = real_of(file);
    return real->pMethods->xFileControl(real, op, arg);
}

static int file_sector_size(sqlite3_file *file) {
    sqlite3_file *real = real_of(file);
    return real->pMethods->xSectorSize(real);
}

static int file_device_characteristics(sqlite3_file *file) {
    sqlite3_file *real = real_of(file);
    return real->pMethods->xDeviceCharacteristics(real);
}

/* Version 2 and 3 methods: only reached when the real file has them (the table we give a file
 * has the real file's iVersion). */
static int file_shm_map(sqlite3_file *file, int region, int size, int extend, void volatile **out) {
    sqlite3_file *real = real_of(file);
    return real->pMethods->xShmMap(real, region, size, extend, out);
}

static int file_shm_lock(sqlite3_file *file, int offset, int n, int flags) {
    sqlite3_file *real = real_of(file);
    return real->pMethods->xShmLock(real, offset, n, flags);
}

static void file_shm_barrier(sqlite3_file *file) {
    sqlite3_file *real = real_of(file);
    real->pMethods->xShmBarrier(real);
}

static int file_shm_unmap(sqlite3_file *file, int delete_flag) {
    sqlite3_file *real = real_of(file);
    return real->pMethods->xShmUnmap(real, delete_flag);
}

static int file_fetch(sqlite3_file *file, sqlite3_int64 offset, int amount, void **out) {
    sqlite3_file *real = real_of(file);
    return real->pMethods->xFetch(real, offset, amount, out);
}

static int file_unfetch(sqlite3_file *file, sqlite3_int64 offset, void *page) {
    sqlite3_file *real = real_of(file);
    return real->pMethods->xUnfetch(real, offset, page);
}

#define FAULT_IO_METHODS(version)                                                                             \
    {                                                                                                         \
        version, file_close, file_read, file_write, file_truncate, file_sync, file_size, file_lock,         \
            file_unlock, file_check_reserved_lock, file_control, file_sector_size,                           \
            file_device_characteristics, file_shm_map, file_shm_lock, file_shm_barrier, file_shm_unmap,      \
            file_fetch, file_unfetch                                                                         \
    }

/* One table per io_methods version, so SQLite never calls a method the real file lacks. */
static const sqlite3_io_methods fault_io_methods[3] = {FAULT_IO_METHODS(1), FAULT_IO_METHODS(2),
                                                       FAULT_IO_METHODS(3)};

/* ----------------------------------------------------------------- the VFS ----------------- */

static ts_fault_vfs *fault_of(sqlite3_vfs *vfs) { return (ts_fault_vfs *)vfs->pAppData; }

static int vfs_open(sqlite3_vfs *vfs, const char *name, sqlite3_file *file, int flags, int *out_flags) {
    ts_fault_vfs *fault = fault_of(vfs);
    fault_file *ours = (fault_file *)file;
    ours->owner = fault;
    ours->real = (sqlite3_file *)(ours + 1);
    memset(ours->real, 0, (size_t)fault->base->szOsFile);
    int rc = fault->base->xOpen(fault->base, name, ours->real, flags, out_flags);
    /* SQLite calls xClose whenever pMethods is set, even after a failed open. */
    if (ours->real->pMethods) {
        int version = ours->real->pMethods->iVersion;
        ours->base.pMethods = &fault_io_methods[(version < 1 ? 1 : version > 3 ? 3 : version) - 1];
    } else {
        ours->base.pMethods = NULL;
    }
    return rc;
}

static int vfs_delete(sqlite3_vfs *vfs, const char *name, int sync_dir) {
    ts_fault_vfs *fault = fault_of(vfs);
    if (fault_now(fault, TS_FAULT_DELETE)) return SQLITE_IOERR_DELETE;
    return fault->base->xDelete(fault->base, name, sync_dir);
}

static int vfs_access(sqlite3_vfs *vfs, const char *name, int flags, int *out) {
    sqlite3_vfs *base = fault_of(vfs)->base;
    return base->xAccess(base, name, flags, out);
}

static int vfs_full_pathname(sqlite3_vfs *vfs, const char *name, int size, char *out) {
    sqlite3_vfs *base = fault_of(vfs)->base;
    return base->xFullPathname(base, name, size, out);
}

static void *vfs_dl_open(sqlite3_vfs *vfs, const char *name) {
    sqlite3_vfs *base = fault_of(vfs)->base;
    return base->xDlOpen(base, name);
}

static void vfs_dl_error(sqlite3_vfs *vfs, int size, char *out) {
    sqlite3_vfs *base = fault_of(vfs)->base;
    base->xDlError(base, size, out);
}

static void (*vfs_dl_sym(sqlite3_vfs *vfs, void *handle, const char *symbol))(void) {
    sqlite3_vfs *base = fault_of(vfs)->base;
    return base->xDlSym(base, handle, symbol);
}

static void vfs_dl_close(sqlite3_vfs *vfs, void *handle) {
    sqlite3_vfs *base = fault_of(vfs)->base;
    base->xDlClose(base, handle);
}

static int vfs_randomness(sqlite3_vfs *vfs, int size, char *out) {
    sqlite3_vfs *base = fault_of(vfs)->base;
    return base->xRandomness(base, size, out);
}

static int vfs_sleep(sqlite3_vfs *vfs, int microseconds) {
    sqlite3_vfs *base = fault_of(vfs)->base;
    return base->xSleep(base, microseconds);
}

static int vfs_current_time(sqlite3_vfs *vfs, double *out) {
    sqlite3_vfs *base = fault_of(vfs)->base;
    return base->xCurrentTime(base, out);
}

static int vfs_get_last_error(sqlite3_vfs *vfs, int size, char *out) {
    sqlite3_vfs *base = fault_of(vfs)->base;
    return base->xGetLastError ? base->xGetLastError(base, size, out) : 0;
}

static int vfs_current_time_int64(sqlite3_vfs *vfs, sqlite3_int64 *out) {
    sqlite3_vfs *base = fault_of(vfs)->base;
    return base->xCurrentTimeInt64(base, out);
}

int ts_fault_vfs_register(ts_fault_vfs *fault, const char *name) {
    int rc = sqlite3_initialize();
    if (rc != SQLITE_OK) return rc;
    sqlite3_vfs *base = sqlite3_vfs_find(NULL);
    if (!base) return SQLITE_ERROR;
    memset(fault, 0, sizeof *fault);
    fault->base = base;
    snprintf(fault->name, sizeof fault->name, "%s", name);
    sqlite3_vfs *vfs = &fault->vfs;
    /* Version 2 at most: the version-3 system-call hooks are the base VFS's own business. */
    vfs->iVersion = base->iVersion >= 2 ? 2 : 1;
    vfs->szOsFile = (int)sizeof(fault_file) + base->szOsFile;
    vfs->mxPathname = base->mxPathname;
    vfs->zName = fault->name;
    vfs->pAppData = fault;
    vfs->xOpen = vfs_open;
    vfs->xDelete = vfs_delete;
    vfs->xAccess = vfs_access;
    vfs->xFullPathname = vfs_full_pathname;
    vfs->xDlOpen = vfs_dl_open;
    vfs->xDlError = vfs_dl_error;
    vfs->xDlSym = vfs_dl_sym;
    vfs->xDlClose = vfs_dl_close;
    vfs->xRandomness = vfs_randomness;
    vfs->xSleep = vfs_sleep;
    vfs->xCurrentTime = vfs_current_time;
    vfs->xGetLastError = vfs_get_last_error;
    if (vfs->iVersion >= 2) vfs->xCurrentTimeInt64 = vfs_current_time_int64;
    return sqlite3_vfs_register(vfs, 0);
}

void ts_fault_vfs_unregister(ts_fault_vfs *fault) { sqlite3_vfs_unregister(&fault->vfs); }

static void arm(ts_fault_vfs *fault, uint64_t n, bool persistent, ts_fault_callback callback, void *context) {
    fault->calls = 0;
    fault->faults = 0;
    fault->fault_at = n;
    fault->persistent = persistent;
    fault->callback = callback;
    fault->callback_context = context;
}

void ts_fault_vfs_fail_at(ts_fault_vfs *fault, uint64_t n, bool persistent) { arm(fault, n, persistent, NULL, NULL); }

void ts_fault_vfs_callback_at(ts_fault_vfs *fault, uint64_t n, ts_fault_callback callback, void *context) {
    arm(fault, n, false, callback, context);
}

void ts_fault_vfs_disarm(ts_fault_vfs *fault) { arm(fault, 0, false, NULL, NULL); }

/* ------------------------------------------------------------ the failing allocator ------- */

/* The one process-global pointer this module has: SQLite's xMalloc/xRealloc get no context
 * (see faultvfs.h for why this is acceptable in test-only code). */
static ts_fault_alloc *installed_alloc;

static bool alloc_fails(ts_fault_alloc *fault) {
    uint64_t call = ++fault->calls;
    if (!fault->fault_at || call < fault->fault_at || (call > fault->fault_at && !fault->persistent)) return false;
    fault->faults++;
    return true;
}

static void *alloc_malloc(int size) {
    return alloc_fails(installed_alloc) ? NULL : installed_alloc->base.xMalloc(size);
}

static void alloc_free(void *p) { installed_alloc->base.xFree(p); }

static void *alloc_realloc(void *p, int size) {
    return alloc_fails(installed_alloc) ? NULL : installed_alloc->base.xRealloc(p, size);
}

static int alloc_size(void *p) { return installed_alloc->base.xSize(p); }

static int alloc_roundup(int size) { return installed_alloc->base.xRoundup(size); }

static int alloc_init(void *app_data) {
    (void)app_data;
    return installed_alloc->base.xInit(installed_alloc->base.pAppData);
}

static void alloc_shutdown(void *app_data) {
    (void)app_data;
    installed_alloc->base.xShutdown(installed_alloc->base.pAppData);
}

int ts_fault_alloc_install(ts_fault_alloc *fault) {
    memset(fault, 0, sizeof *fault);
    int rc = sqlite3_config(SQLITE_CONFIG_GETMALLOC, &fault->base);
    if (rc != SQLITE_OK) return rc;
    if (!fault->base.xMalloc) return SQLITE_ERROR;
    static const sqlite3_mem_methods wrapper = {alloc_malloc,  alloc_free, alloc_realloc, alloc_size,
                                                alloc_roundup, alloc_init, alloc_shutdown, NULL};
    installed_alloc = fault;
    rc = sqlite3_config(SQLITE_CONFIG_MALLOC, &wrapper);
    if (rc != SQLITE_OK) installed_alloc = NULL;
    return rc;
}

void ts_fault_alloc_fail_at(ts_fault_alloc *fault, uint64_t n, bool persistent) {
    fault->calls = 0;
    fault->faults = 0;
    fault->fault_at = n;
    fault->persistent = persistent;
}
